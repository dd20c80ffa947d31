"""The DLQ handler's rules table: lexer, parser and validator (runmqdlq's input language).

Theory of operation
-------------------
A rules table is read in three passes, all pure (text in, objects or errors out):

1. **Lines -> entries.** Comment lines (``*`` in column 1) and blank lines are dropped
   wherever they occur. A line whose last non-blank character is ``+`` continues with the
   first non-blank character of the next line; ``-`` continues with the next line's column 1.
   Continuations may split keywords and values. Every character remembers its physical line,
   so an error is reported on the line where the offending keyword was written.
2. **Entries -> items.** An entry is ``KEYWORD(value)`` items separated by blanks or commas.
   Keywords are case-insensitive. A value is either quoted (``'...'``, ``''`` is one quote,
   case and blanks kept) or unquoted (folded to upper case; only letters, digits and
   ``. / _ %`` plus the wildcards ``* ?`` and the ``&`` of ``&DESTQ``-style substitutions).
3. **Items -> RulesTable.** The first entry may be control data (INPUTQ, INPUTQM, RETRYINT,
   WAIT); every other entry is a rule (pattern keywords + action keywords, ACTION mandatory).
   Values are checked for wildcards where they are forbidden, field length (not counting
   ``*``), numeric range 0..999,999,999, symbolic names, and combinations.

The whole table is validated before any message is touched: ``parse_rules`` returns either a
``RulesTable`` or every ``RuleError`` it found; a table with errors processes nothing.

Message ids
-----------
IBM numbers runmqdlq's messages AMQ87xx after the response codes of its own source
(``odq_Starting`` 0x08 -> AMQ8708, the id runmqdlq prints at start-up). The rules-table ids
below follow that scheme (0x50 no valid input, 0x52 field length, 0x53 duplicate keyword,
0x57 integer range, 0x58 error count, 0x59 combination); AMQ8754 (a slot IBM's enum marks
unused) is mqpy's own id for syntax errors. Texts are mqpy's wording; see the module report.

This module never touches a queue manager, a file or a clock.
"""

from __future__ import annotations

import enum
from collections.abc import Callable, Iterable

import attrs

from mqpy import CMQC, constants
from mqpy.mqsc.writer import quote

__all__ = [
    "CONTROL_KEYWORDS",
    "DEFAULT_RETRYINT",
    "MESSAGES",
    "SEVERITY",
    "NUMBER_MAX",
    "PATTERN_KEYWORDS",
    "Action",
    "ControlData",
    "PatternKeyword",
    "PutAut",
    "Rule",
    "RuleError",
    "RulesTable",
    "format_errors",
    "parse_rules",
    "printed_id",
]

#: Largest number a rules table accepts (IBM: "in the range 0 to 999,999,999").
NUMBER_MAX = 999_999_999
#: RETRYINT when the control data does not give one, in seconds.
DEFAULT_RETRYINT = 60

#: Message templates; ``{line}`` and ``{kw}`` are always filled so every error is locatable.
MESSAGES: dict[str, str] = {
    "AMQ8708": "Dead-letter queue handler started to process INPUTQ({queue}).",
    "AMQ8709": "Dead-letter queue handler ending.",
    "AMQ8721": "Dead-letter queue message not prefixed by a valid MQDLH.",
    "AMQ8750": "No valid input provided on line {line}: no rule with {kw} in the rules table.",
    "AMQ8752": "Parameter({kw}) exceeds maximum length on line {line}.",
    "AMQ8753": "Duplicate parameter({kw}) found on line {line}.",
    "AMQ8754": "Syntax error in parameter({kw}) on line {line}.",
    "AMQ8757": "Integer parameter({kw}) outside permissible range on line {line}.",
    "AMQ8758": "{count} errors detected in input to runmqdlq.",
    "AMQ8759": "Invalid combination of parameters({kw}) on line {line}.",
}

#: The severity letter each id is printed with (IBM: I information, W warning, E error): the
#: start and end of a run are information, a message left on the queue and every rules-table
#: problem an error [M].
SEVERITY: dict[str, str] = {"AMQ8708": "I", "AMQ8709": "I"}


def printed_id(msgid: str) -> str:
    """``msgid`` as runmqdlq prints it, its severity letter after it (AMQ8708 -> AMQ8708I)."""
    return msgid + SEVERITY.get(msgid, "E")


class Action(enum.Enum):
    """ACTION(DISCARD|IGNORE|RETRY|FWD)."""

    DISCARD = "DISCARD"
    IGNORE = "IGNORE"
    RETRY = "RETRY"
    FWD = "FWD"


class PutAut(enum.Enum):
    """PUTAUT(DEF|CTX): put with the handler's authority or the message context's user id."""

    DEF = "DEF"
    CTX = "CTX"


@attrs.frozen(slots=True)
class PatternKeyword:
    """How one pattern keyword is checked and which message field it is matched against.

    ``length`` is the MQ field length for string keywords and None for numeric ones;
    ``families`` are the symbolic-name prefixes a numeric keyword accepts.
    """

    keyword: str
    attr: str  # attribute of Rule and of matcher.DLQMessageFields
    length: int | None
    families: tuple[str, ...] = ()


#: The pattern keywords. APPLNAME/APPLTYPE/APPLIDAT/USERID/REPLYQ*/MSGTYPE/FEEDBACK/PERSIST
#: come from the MQMD, DESTQ/DESTQM/FORMAT/REASON from the MQDLH (as IBM's runmqdlq does).
PATTERN_KEYWORDS: dict[str, PatternKeyword] = {
    p.keyword: p
    for p in (
        PatternKeyword("APPLIDAT", "applidat", CMQC.MQ_APPL_IDENTITY_DATA_LENGTH),
        PatternKeyword("APPLNAME", "applname", CMQC.MQ_PUT_APPL_NAME_LENGTH),
        PatternKeyword("APPLTYPE", "appltype", None, ("MQAT_",)),
        PatternKeyword("DESTQ", "destq", CMQC.MQ_Q_NAME_LENGTH),
        PatternKeyword("DESTQM", "destqm", CMQC.MQ_Q_MGR_NAME_LENGTH),
        PatternKeyword("FEEDBACK", "feedback", None, ("MQFB_", "MQRC_")),
        PatternKeyword("FORMAT", "format", CMQC.MQ_FORMAT_LENGTH),
        PatternKeyword("MSGTYPE", "msgtype", None, ("MQMT_",)),
        PatternKeyword("PERSIST", "persist", None, ("MQPER_",)),
        PatternKeyword("REASON", "reason", None, ("MQRC_",)),
        PatternKeyword("REPLYQ", "replyq", CMQC.MQ_Q_NAME_LENGTH),
        PatternKeyword("REPLYQM", "replyqm", CMQC.MQ_Q_MGR_NAME_LENGTH),
        PatternKeyword("USERID", "userid", CMQC.MQ_USER_ID_LENGTH),
    )
}
ACTION_KEYWORDS = ("ACTION", "FWDQ", "FWDQM", "HEADER", "PUTAUT", "RETRY")
CONTROL_KEYWORDS = ("INPUTQ", "INPUTQM", "RETRYINT", "WAIT")
_ALL_KEYWORDS = (
    frozenset(PATTERN_KEYWORDS) | frozenset(ACTION_KEYWORDS) | frozenset(CONTROL_KEYWORDS)
)
#: Keywords whose values may never hold ``*`` or ``?`` (IBM's list, plus the control data).
_NO_WILDCARDS = frozenset(ACTION_KEYWORDS) | frozenset(CONTROL_KEYWORDS)
#: Substitution tokens each forwarding keyword accepts.
_SUBSTITUTIONS = {"FWDQ": ("&DESTQ", "&REPLYQ"), "FWDQM": ("&DESTQM", "&REPLYQM")}
#: Characters allowed in an unquoted value besides letters and digits.
_UNQUOTED_SPECIALS = frozenset("./_%*?&")
_BLANKS = " \t"


@attrs.frozen(slots=True)
class RuleError:
    """One problem in a rules table, located by physical line and keyword."""

    msgid: str
    line: int
    keyword: str
    detail: str = ""

    @property
    def message(self) -> str:
        head = MESSAGES[self.msgid].format(line=self.line, kw=self.keyword)
        return f"{printed_id(self.msgid)}: {head}" + (f" {self.detail}" if self.detail else "")

    def __str__(self) -> str:
        return self.message


def format_errors(errors: Iterable[RuleError]) -> str:
    """All error messages, one a line, closed by the AMQ8758 count as runmqdlq reports it."""
    errs = list(errors)
    lines = [e.message for e in errs]
    lines.append(f"{printed_id('AMQ8758')}: " + MESSAGES["AMQ8758"].format(count=len(errs)))
    return "\n".join(lines)


@attrs.frozen(slots=True)
class ControlData:
    """The optional first entry. ``None`` means "not in the table"; ``''`` means ``' '``.

    ``wait`` is seconds to wait once the DLQ has nothing processable: None = WAIT(YES),
    0 = WAIT(NO).
    """

    inputq: str | None = None
    inputqm: str | None = None
    retryint: int = DEFAULT_RETRYINT
    wait: int | None = None
    line: int = 0  # 0 when the table has no control data

    def resolve_input(
        self, cmd_q: str | None = None, cmd_qmgr: str | None = None
    ) -> tuple[str | None, str | None]:
        """(queue, qmgr) to process; None means "the QM's DEADQ" / "the default QM".

        The command line wins over the table. A queue given on the command line, even
        blank, stops INPUTQ being consulted (blank = the queue manager's DEADQ), as runmqdlq
        does; likewise for the queue manager.
        """
        if cmd_qmgr is not None:
            qmgr = cmd_qmgr.strip() or None
        else:
            qmgr = self.inputqm or None
        if cmd_q is not None:
            queue = cmd_q.strip() or None
        else:
            queue = self.inputq or None
        return queue, qmgr


@attrs.frozen(slots=True)
class Rule:
    """One pattern + action entry. Pattern strings keep ``*``/``?``; ``"*"`` and None = any."""

    number: int  # 1-based position among the rules
    line: int  # physical line the entry starts on
    action: Action
    applidat: str = "*"
    applname: str = "*"
    appltype: int | None = None
    destq: str = "*"
    destqm: str = "*"
    feedback: int | None = None
    format: str = "*"
    msgtype: int | None = None
    persist: int | None = None
    reason: int | None = None
    replyq: str = "*"
    replyqm: str = "*"
    userid: str = "*"
    fwdq: str | None = None  # queue name, "&DESTQ" or "&REPLYQ"
    fwdqm: str = ""  # "" = the local queue manager, or a name, "&DESTQM", "&REPLYQM"
    header: bool = True
    putaut: PutAut = PutAut.DEF
    retry: int = 1

    def text(self) -> str:
        """The rule as a canonical one-line rules-table entry (for reports and logs)."""
        parts = []
        for kw, spec in PATTERN_KEYWORDS.items():
            value = getattr(self, spec.attr)
            if value is None or value == "*":
                continue
            parts.append(f"{kw}({_quote(value) if isinstance(value, str) else value})")
        parts.append(f"ACTION({self.action.value})")
        if self.fwdq is not None:
            parts.append(f"FWDQ({_quote(self.fwdq)})")
            parts.append(f"FWDQM({_quote(self.fwdqm)})")
        if self.action is Action.FWD:
            parts.append(f"HEADER({'YES' if self.header else 'NO'})")
        parts.append(f"PUTAUT({self.putaut.value})")
        parts.append(f"RETRY({self.retry})")
        return " ".join(parts)


def _quote(value: str) -> str:
    """A rules-table value as written: bare if it is a name of upper-case characters or a
    keyword (``&REPLYQ``), else quoted as MQSC quotes."""
    if value and (value[0] == "&" and value[1:].isalpha() and value[1:].isupper()
                  or all(c.isupper() or c.isdigit() or c in "./_%*?" for c in value)):
        return value
    return quote(value)


@attrs.frozen(slots=True)
class RulesTable:
    """A validated rules table: control data plus rules in table order (first match wins)."""

    control: ControlData
    rules: tuple[Rule, ...]


# --------------------------------------------------------------------------- pass 1: lines


@attrs.frozen(slots=True)
class _Entry:
    """One logical entry: its characters and, for each, the physical line it came from."""

    chars: str
    lines: tuple[int, ...]


def _entries(text: str) -> tuple[list[_Entry], list[RuleError], int]:
    """Join continuations, drop comments and blank lines. Returns (entries, errors, last line)."""
    entries: list[_Entry] = []
    chars: list[str] = []
    lines: list[int] = []
    pending = ""  # "+", "-" or "" for the line being joined onto
    lineno = 0
    for lineno, raw in enumerate(text.splitlines(), start=1):
        if raw.startswith("*"):
            continue  # comment lines may sit anywhere, even inside a continued entry
        line = raw.rstrip(_BLANKS + "\r")
        if not line.strip(_BLANKS):
            continue
        if pending == "+":
            line = line.lstrip(_BLANKS)
        pending = ""
        if line[-1] in "+-":
            pending, line = line[-1], line[:-1]
        chars.extend(line)
        lines.extend([lineno] * len(line))
        if not pending:
            entries.append(_Entry("".join(chars), tuple(lines)))
            chars, lines = [], []
    errors: list[RuleError] = []
    if pending:
        errors.append(
            RuleError(
                "AMQ8754",
                lineno,
                _first_word("".join(chars)) or pending,
                f"The table ends inside a continued entry ('{pending}' on the last line).",
            )
        )
    return entries, errors, lineno


def _first_word(s: str) -> str:
    word = ""
    for c in s.lstrip(_BLANKS + ","):
        if not c.isalpha():
            break
        word += c
    return word.upper()


# --------------------------------------------------------------------------- pass 2: items


@attrs.frozen(slots=True)
class _Item:
    keyword: str
    value: str
    quoted: bool
    line: int


class _EntryError(Exception):
    def __init__(self, error: RuleError) -> None:
        super().__init__(error.message)
        self.error = error


def _items(entry: _Entry) -> list[_Item]:
    """Tokenise ``KEYWORD(value)`` items; raises _EntryError at the first malformed one."""
    s, lines = entry.chars, entry.lines
    items: list[_Item] = []
    i, n = 0, len(s)
    while True:
        while i < n and (s[i] in _BLANKS or s[i] == ","):
            i += 1
        if i >= n:
            return items
        start = i
        while i < n and s[i].isalpha():
            i += 1
        kw = s[start:i].upper()

        def fail(detail: str, shown: str = kw, at: int = start) -> _EntryError:
            return _EntryError(RuleError("AMQ8754", lines[min(at, n - 1)], shown, detail))

        if not kw:
            frag = s[start : start + 16].strip()
            raise fail(f"Expected a keyword, found {frag!r}.", frag)
        if kw not in _ALL_KEYWORDS:
            raise fail(f"{kw} is not a rules-table keyword.")
        i = _skip_blanks(s, i)
        if i >= n or s[i] != "(":
            raise fail(f"{kw} must be followed by a value in parentheses.")
        i = _skip_blanks(s, i + 1)
        if i < n and s[i] == "'":
            value, i, quoted = *_quoted_value(s, i + 1, fail), True
        else:
            value, i, quoted = *_plain_value(s, i, kw, fail), False
        i += 1  # the ')'
        if not value:
            raise fail("A value needs at least one significant character.")
        items.append(_Item(kw, value, quoted, lines[start]))


def _skip_blanks(s: str, i: int) -> int:
    while i < len(s) and s[i] in _BLANKS:
        i += 1
    return i


def _quoted_value(s: str, i: int, fail: Callable[[str], _EntryError]) -> tuple[str, int]:
    """The value of a quoted item from just after its opening quote (``''`` a quote), and
    where its ``)`` is."""
    n = len(s)
    buf: list[str] = []
    while True:
        if i >= n:
            raise fail("The quoted value has no closing quote.")
        if s[i] == "'":
            if i + 1 < n and s[i + 1] == "'":
                buf.append("'")
                i += 2
                continue
            i += 1
            break
        buf.append(s[i])
        i += 1
    i = _skip_blanks(s, i)
    if i >= n or s[i] != ")":
        raise fail("Expected ')' after the quoted value.")
    return "".join(buf), i


def _plain_value(s: str, i: int, kw: str, fail: Callable[[str], _EntryError]
                 ) -> tuple[str, int]:
    """The value of an unquoted item, upper-cased, and where its ``)`` is: no blanks inside,
    only the characters an unquoted value may hold."""
    n = len(s)
    vstart = i
    while i < n and s[i] != ")":
        if s[i] in "(,'":
            raise fail(f"Unexpected {s[i]!r} in the value of {kw}.")
        i += 1
    if i >= n:
        raise fail(f"The value of {kw} has no closing parenthesis.")
    value = s[vstart:i].rstrip(_BLANKS)
    if any(c in _BLANKS for c in value):
        raise fail("A value containing blanks must be quoted.")
    bad = sorted(
        {c for c in value if not ((c.isascii() and c.isalnum()) or c in _UNQUOTED_SPECIALS)}
    )
    if bad:
        raise fail(f"Quote a value containing {''.join(bad)!r} ('. / _ %' need not be).")
    return value.upper(), i


# --------------------------------------------------------------------------- pass 3: values


def _err(msgid: str, item: _Item, detail: str) -> RuleError:
    return RuleError(msgid, item.line, item.keyword, detail)


def _number(item: _Item, low: int, high: int, errors: list[RuleError]) -> int | None:
    """A plain decimal parameter (RETRY, RETRYINT, WAIT nnn): digits only, in [low, high]."""
    if not item.value.isdigit():
        errors.append(_err("AMQ8754", item, f"{item.value!r} is not a number."))
        return None
    number = int(item.value)
    if not low <= number <= high:
        errors.append(_err("AMQ8757", item, f"{number} is not in the range {low} to {high:,}."))
        return None
    return number


def _name(item: _Item, length: int, errors: list[RuleError], *, wildcards: bool) -> str | None:
    """A string parameter: trailing blanks dropped; longer than the field (bar ``*``) = error."""
    value = item.value.rstrip(" ")
    if not wildcards and any(c in "*?" for c in value):
        errors.append(_err("AMQ8754", item, f"Wildcards are not allowed in {item.keyword}."))
        return None
    if not item.quoted and "&" in value:
        errors.append(_err("AMQ8754", item, f"{value!r} is not valid for {item.keyword}."))
        return None
    significant = len(value) - value.count("*") if wildcards else len(value)
    if significant > length:
        errors.append(
            _err(
                "AMQ8752",
                item,
                f"{significant} characters given, the field holds {length}.",
            )
        )
        return None
    return value


def _numeric_pattern(item: _Item, spec: PatternKeyword, errors: list[RuleError]) -> int | None:
    """A numeric pattern: ``*`` alone, 0..999,999,999, or a symbolic name of the keyword's family.

    Returns None for ``*`` (and on error, with the error appended).
    """
    value = item.value.strip()
    if value == "*":
        return None
    if "*" in value or "?" in value:
        errors.append(
            _err("AMQ8754", item, "A numeric value allows '*' only as the whole value, never '?'.")
        )
        return None
    if value.isdigit():
        return _number(item, 0, NUMBER_MAX, errors)
    name = value.upper()
    if not name.startswith(spec.families):
        errors.append(
            _err(
                "AMQ8754",
                item,
                f"{value!r} is neither a number nor a {' or '.join(spec.families)} name.",
            )
        )
        return None
    try:
        resolved = constants.value_of(name)
    except KeyError:
        errors.append(_err("AMQ8754", item, f"{name} is not an IBM MQ constant."))
        return None
    if not isinstance(resolved, int):
        errors.append(_err("AMQ8754", item, f"{name} is not a numeric constant."))
        return None
    return resolved


def _choice(item: _Item, choices: tuple[str, ...], errors: list[RuleError]) -> str | None:
    if any(c in "*?" for c in item.value):
        errors.append(_err("AMQ8754", item, f"Wildcards are not allowed in {item.keyword}."))
        return None
    if item.value not in choices:
        errors.append(_err("AMQ8754", item, f"{item.value!r} is not one of {'|'.join(choices)}."))
        return None
    return item.value


def _forward_target(item: _Item, errors: list[RuleError]) -> str | None:
    """FWDQ / FWDQM: a name, one of the keyword's ``&`` substitutions, or (FWDQM only) blank."""
    value = item.value.rstrip(" ")
    if not item.quoted and value.startswith("&"):
        if value in _SUBSTITUTIONS[item.keyword]:
            return value
        errors.append(
            _err(
                "AMQ8754",
                item,
                f"{item.keyword} accepts {' or '.join(_SUBSTITUTIONS[item.keyword])}, not {value}.",
            )
        )
        return None
    if item.keyword == "FWDQ" and not value:
        errors.append(_err("AMQ8754", item, "FWDQ(' ') is not valid: name the queue."))
        return None
    length = CMQC.MQ_Q_NAME_LENGTH if item.keyword == "FWDQ" else CMQC.MQ_Q_MGR_NAME_LENGTH
    return _name(item, length, errors, wildcards=False)


def _control(items: list[_Item], line: int, errors: list[RuleError]) -> ControlData:
    fields: dict[str, object] = {"line": line}
    for item in items:
        if item.keyword in ("INPUTQ", "INPUTQM"):
            length = (
                CMQC.MQ_Q_NAME_LENGTH if item.keyword == "INPUTQ" else CMQC.MQ_Q_MGR_NAME_LENGTH
            )
            value = _name(item, length, errors, wildcards=False)
            if value is not None:
                fields[item.keyword.lower()] = value
        elif item.keyword == "RETRYINT":
            number = _number(item, 0, NUMBER_MAX, errors)
            if number is not None:
                fields["retryint"] = number
        elif item.keyword == "WAIT":
            if item.value in ("YES", "NO"):
                fields["wait"] = None if item.value == "YES" else 0
            elif item.value.isdigit():
                number = _number(item, 0, NUMBER_MAX, errors)
                if number is not None:
                    fields["wait"] = number
            else:
                errors.append(_err("AMQ8754", item, f"{item.value!r} is not YES, NO or a number."))
    return ControlData(**fields)  # type: ignore[arg-type]


def _rule(items: list[_Item], number: int, line: int, errors: list[RuleError]) -> Rule | None:
    before = len(errors)
    fields: dict[str, object] = {}
    by_kw = {item.keyword: item for item in items}
    for item in items:
        spec = PATTERN_KEYWORDS.get(item.keyword)
        if spec is not None:
            if spec.length is None:
                fields[spec.attr] = _numeric_pattern(item, spec, errors)
            else:
                fields[spec.attr] = _name(item, spec.length, errors, wildcards=True)
        elif item.keyword == "ACTION":
            choice = _choice(item, tuple(a.value for a in Action), errors)
            if choice is not None:
                fields["action"] = Action(choice)
        elif item.keyword in ("FWDQ", "FWDQM"):
            fields[item.keyword.lower()] = _forward_target(item, errors)
        elif item.keyword == "HEADER":
            choice = _choice(item, ("YES", "NO"), errors)
            fields["header"] = choice != "NO"
        elif item.keyword == "PUTAUT":
            choice = _choice(item, ("DEF", "CTX"), errors)
            if choice is not None:
                fields["putaut"] = PutAut(choice)
        elif item.keyword == "RETRY":
            if any(c in "*?" for c in item.value):
                errors.append(_err("AMQ8754", item, "Wildcards are not allowed in RETRY."))
            else:
                fields["retry"] = _number(item, 1, NUMBER_MAX, errors)

    if "ACTION" not in by_kw:
        errors.append(RuleError("AMQ8759", line, "ACTION", "Every rule must specify ACTION."))
    action = fields.get("action")
    if action is not None and action is not Action.FWD and "HEADER" in by_kw:
        errors.append(_err("AMQ8759", by_kw["HEADER"], "HEADER is valid only with ACTION(FWD)."))
    if action is Action.FWD and "FWDQ" not in by_kw:
        errors.append(RuleError("AMQ8759", by_kw["ACTION"].line, "FWDQ", "ACTION(FWD) needs FWDQ."))
    if len(errors) > before:
        return None
    return Rule(number=number, line=line, **{k: v for k, v in fields.items() if v is not None})  # type: ignore[arg-type]


# --------------------------------------------------------------------------- the entry point


def parse_rules(text: str) -> RulesTable | list[RuleError]:
    """Parse and validate a whole rules table (runmqdlq's stdin).

    Returns the table, or every error found (each naming its line and keyword). Nothing is
    partially accepted: one error anywhere means no table.
    """
    entries, errors, last_line = _entries(text)
    control = ControlData()
    rules: list[Rule] = []
    rule_entries = 0
    for index, entry in enumerate(entries):
        try:
            items = _items(entry)
        except _EntryError as exc:
            errors.append(exc.error)
            if index > 0 or _first_word(entry.chars) not in CONTROL_KEYWORDS:
                rule_entries += 1  # a broken rule is still a rule: no AMQ8750 on top
            continue
        seen: set[str] = set()
        for item in items:
            if item.keyword in seen:
                errors.append(_err("AMQ8753", item, "A keyword may appear once in an entry."))
            seen.add(item.keyword)
        items = _first_of_each(items)
        line = entry.lines[0]
        control_items = [it for it in items if it.keyword in CONTROL_KEYWORDS]
        if control_items:
            stray = [it for it in items if it.keyword not in CONTROL_KEYWORDS]
            if index > 0:
                errors.append(
                    _err(
                        "AMQ8754",
                        control_items[0],
                        "Control data must be the first entry of the rules table.",
                    )
                )
            elif stray:
                errors.append(
                    _err(
                        "AMQ8754",
                        stray[0],
                        "Control data and a rule must be separate entries, the control data first.",
                    )
                )
            else:
                control = _control(items, line, errors)
            continue
        rule_entries += 1
        rule = _rule(items, rule_entries, line, errors)
        if rule is not None:
            rules.append(rule)
    if rule_entries == 0:
        errors.append(
            RuleError(
                "AMQ8750",
                last_line,
                "ACTION",
                "A rules table must contain at least one rule.",
            )
        )
    if errors:
        return sorted(errors, key=lambda e: e.line)
    return RulesTable(control=control, rules=tuple(rules))


def _first_of_each(items: list[_Item]) -> list[_Item]:
    """Keep the first occurrence of each keyword (duplicates are already reported)."""
    kept: dict[str, _Item] = {}
    for item in items:
        kept.setdefault(item.keyword, item)
    return list(kept.values())
