"""MQSC command text -> :class:`MQSCCommand` values, or :class:`MQSCError` values.

Pure and total: :func:`parse_command` never raises for bad input; it returns the error that
runmqsc would print, so a script goes on after a bad command. It only checks *syntax* (the
vocabulary in :mod:`mqpy.mqsc.grammar`, value kinds, ranges and lengths); whether an object
exists, or a CONNAME is required for a CHLTYPE, is the command processor's business.

Value conventions in ``MQSCCommand.params``:

- names and strings: ``str``; unquoted text is upper-cased, quoted text keeps its case
  (``''`` inside quotes is one quote); a blank value (``' '``) is ``''``;
- integers: ``int`` (range-checked); special words of an integer attribute (``KAINT(AUTO)``,
  ``APPLTYPE(UNIX)``) stay ``str``;
- enums: the canonical upper-case ``str``;
- lists: ``tuple`` of the above.

Bare keywords (REPLACE, NOTRIGGER, ALL, SAVED ...) go in ``flags``; the attributes a DISPLAY
asks for go in ``display_attrs`` in the order given, by their canonical names.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from types import MappingProxyType

import attrs

from mqpy.mqsc import grammar as g
from mqpy.mqsc.lexer import (
    LPAREN,
    MAX_COMMAND_LENGTH,
    QUOTED,
    RPAREN,
    WORD,
    LexError,
    Token,
    scan_lines,
    tokenize,
)
from mqpy.mqsc.messages import AMQ8405, AMQ8424, AMQ8425, AMQ8426, AMQ8427, MESSAGES, MQSCError

__all__ = ["MQSCCommand", "Where", "definable_name", "parse_command", "parse_script"]

#: characters of an MQ object name (IBM "Rules for naming IBM MQ objects").
_NAME_CHARS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789._/%")


def definable_name(name: str, length: int = 48) -> bool:
    """Whether ``name`` can name a new object as MQSC's DEFINE takes it: 1 to ``length`` of
    the characters MQ object names are made of (so that no object is made that MQSC could
    not name: a quote, a blank, a character beyond ASCII)."""
    return 0 < len(name) <= length and _NAME_CHARS.issuperset(name)


def _freeze(d: Mapping[str, object]) -> Mapping[str, object]:
    return MappingProxyType(dict(d))


@attrs.frozen(slots=True)
class Where:
    """``WHERE(keyword operator value)``: value converted like the attribute's own values,
    except for LK/NL/CTG/EXG whose value is a (possibly generic) string."""

    keyword: str
    operator: str
    value: object


@attrs.frozen(slots=True)
class MQSCCommand:
    """One parsed MQSC command (see the module docstring for value conventions)."""

    verb: str
    objtype: str | None
    name: str | None
    params: Mapping[str, object] = attrs.field(factory=dict, converter=_freeze, hash=False)
    flags: frozenset[str] = frozenset()
    where: Where | None = None
    display_attrs: tuple[str, ...] = ()
    line_no: int = 0
    text: str = ""
    generic: bool = False  #: the name ends in * (DISPLAY QLOCAL(PAY*))

    def flag(self, keyword: str) -> bool | None:
        """True if ``keyword`` was given, False if its negation was, None if neither."""
        if keyword in self.flags:
            return True
        return False if f"NO{keyword}" in self.flags else None


@attrs.frozen(slots=True)
class _Arg:
    value: str  #: as written (unquoted) or unescaped (quoted)
    quoted: bool
    start: int
    end: int


@attrs.frozen(slots=True)
class _Group:
    """A keyword with its optional parenthesised arguments: ``KEY``, ``KEY()``, ``KEY(a b)``."""

    word: Token
    args: tuple[_Arg, ...] | None
    end: int

    @property
    def keyword(self) -> str:
        return self.word.value.upper()


@attrs.define
class _Keywords:
    """What a command's keywords after its object said, as the parser reads them."""

    params: dict[str, object] = attrs.Factory(dict)
    flags: set[str] = attrs.Factory(set)
    display: list[str] = attrs.Factory(list)
    where: Where | None = None
    seen: dict[str, _Group] = attrs.Factory(dict)  #: each keyword's group, for messages


class _Fail(Exception):
    """Internal: carries an MQSCError out of nested helpers (never escapes this module)."""

    def __init__(self, error: MQSCError) -> None:
        super().__init__(error.reason)
        self.error = error


class _Parser:
    def __init__(self, text: str, line_no: int, strict: bool) -> None:
        self.text = text
        self.line_no = line_no
        self.strict = strict
        self.verb = ""
        self.objtype: str | None = None

    # -- errors -------------------------------------------------------------------------

    def _help(self) -> tuple[str, ...]:
        if not self.verb:
            verbs = [v for v in g.VERBS]
            return (f"{AMQ8426}: {MESSAGES[AMQ8426]}", "", *(f"    {v}" for v in verbs))
        return (f"{AMQ8427}: {MESSAGES[AMQ8427]}", "", *g.syntax_help(self.verb, self.objtype))

    def syntax(self, end: int, reason: str) -> _Fail:
        return _Fail(
            MQSCError(AMQ8405, MESSAGES[AMQ8405], self.line_no, self.text,
                      self.text[:end].rstrip(), self._help(), reason)  # fmt: skip
        )

    def name_error(self, reason: str) -> _Fail:
        return _Fail(MQSCError(AMQ8424, MESSAGES[AMQ8424], self.line_no, self.text, None, (),
                               reason))  # fmt: skip

    def value_error(self, reason: str) -> _Fail:
        return _Fail(MQSCError(AMQ8425, MESSAGES[AMQ8425], self.line_no, self.text, None, (),
                               reason))  # fmt: skip

    # -- structure ----------------------------------------------------------------------

    def groups(self, tokens: list[Token]) -> list[_Group]:
        out: list[_Group] = []
        i, n = 0, len(tokens)
        while i < n:
            tok = tokens[i]
            if tok.kind != WORD:
                what = {LPAREN: "value without a keyword", RPAREN: "unbalanced parentheses"}
                raise self.syntax(tok.end, what.get(tok.kind, "quoted string out of place"))
            i += 1
            if i < n and tokens[i].kind == LPAREN:
                args, i, end = self.paren_args(tokens, i)
                out.append(_Group(tok, args, end))
            else:
                out.append(_Group(tok, None, tok.end))
        return out

    def paren_args(self, tokens: list[Token], i: int) -> tuple[tuple[_Arg, ...], int, int]:
        """Arguments between tokens[i] == '(' and its ')'; nested (..) join the item before."""
        args: list[_Arg] = []
        i += 1
        n = len(tokens)
        while True:
            if i >= n:
                raise self.syntax(len(self.text), "unbalanced parentheses")
            tok = tokens[i]
            if tok.kind == RPAREN:
                return tuple(args), i + 1, tok.end
            if tok.kind == LPAREN:
                depth, j = 1, i + 1
                while j < n and depth:
                    depth += {LPAREN: 1, RPAREN: -1}.get(tokens[j].kind, 0)
                    j += 1
                if depth:
                    raise self.syntax(len(self.text), "unbalanced parentheses")
                close = tokens[j - 1].end
                if args and not args[-1].quoted and args[-1].end == tok.start:
                    prev = args.pop()
                    args.append(_Arg(self.text[prev.start:close], False, prev.start, close))
                else:
                    args.append(_Arg(self.text[tok.start:close], False, tok.start, close))
                i = j
                continue
            args.append(_Arg(tok.value, tok.kind == QUOTED, tok.start, tok.end))
            i += 1

    # -- values -------------------------------------------------------------------------

    @staticmethod
    def _text(arg: _Arg) -> str:
        return arg.value if arg.quoted else arg.value.upper()

    def check_name(self, text: str, attr: g.Attr, *, generic: bool = False) -> str:
        """Validate an object name (or a name-valued attribute); returns it stripped."""
        value = text.rstrip()
        stem = value[:-1] if generic and value.endswith("*") else value
        if attr.kind == g.NAME and any(c not in _NAME_CHARS for c in stem):
            raise self.name_error(f"invalid character in name {value!r}")
        if len(stem) > attr.length:
            raise self.name_error(f"name {value!r} longer than {attr.length}")
        return value

    def scalar(self, attr: g.Attr, arg: _Arg, group: _Group, kind: str | None = None) -> object:
        kind = kind or attr.kind
        text = self._text(arg)
        if kind == g.NAME:
            if not text.strip():
                return ""
            return self.check_name(text, attr)
        if kind == g.STRING:
            if len(text) > attr.length:
                raise self.value_error(f"{attr.keyword} longer than {attr.length}")
            return "" if not text.strip() else text
        if kind == g.ENUM:
            if text.upper() not in attr.values:
                raise self.syntax(group.end, f"{text!r} is not a value of {attr.keyword}")
            return text.upper()
        if kind == g.INT:
            if text.upper() in attr.values:
                return text.upper()
            body = text[1:] if text[:1] in "+-" else text
            if not body.isdigit():
                raise self.syntax(group.end, f"{attr.keyword} needs an integer")
            number = int(text)
            if not attr.minimum <= number <= attr.maximum:
                raise self.value_error(
                    f"{attr.keyword}({number}) outside {attr.minimum}-{attr.maximum}"
                )
            return number
        raise self.syntax(group.end, f"{attr.keyword} takes no value")

    def value(self, attr: g.Attr, group: _Group) -> object:
        args = group.args or ()
        if attr.kind == g.FLAG:
            raise self.syntax(group.end, f"{attr.keyword} takes no value")
        if not args or (len(args) == 1 and args[0].quoted and args[0].value == ""):
            blankable = attr.kind in (g.NAME, g.STRING) or (
                attr.kind == g.LIST and attr.item in (g.NAME, g.STRING)
            )
            if self.strict or not blankable:
                raise self.syntax(group.end, f"empty value for {attr.keyword}")
            return () if attr.kind == g.LIST else ""
        if attr.kind == g.LIST:
            if len(args) > attr.max_items:
                raise self.value_error(f"{attr.keyword} has more than {attr.max_items} items")
            items = (self.scalar(attr, a, group, attr.item) for a in args)
            return tuple(i for i in items if i != "")
        if len(args) != 1:
            raise self.syntax(group.end, f"{attr.keyword} takes one value")
        return self.scalar(attr, args[0], group)

    # -- the command --------------------------------------------------------------------

    def parse(self) -> MQSCCommand:
        text = self.text
        if len(text) > MAX_COMMAND_LENGTH:
            raise self.syntax(MAX_COMMAND_LENGTH, "command longer than 32762 characters")
        tokens = tokenize(text)
        if isinstance(tokens, LexError):
            raise self.syntax(tokens.end, tokens.reason)
        groups = self.groups(tokens)
        if not groups:
            raise self.syntax(len(text), "empty command")
        verb = self.verb = self.command_verb(groups[0])
        if g.command_spec(verb, None) is not None:
            if len(groups) > 1:
                raise self.syntax(groups[1].end, f"{verb} takes no parameters")
            return MQSCCommand(verb, None, None, line_no=self.line_no, text=text)
        if len(groups) < 2:
            raise self.syntax(len(text), f"{verb} needs an object type")
        second = groups[1]
        objtype = g.canonical_object(second.word.value)
        spec = g.command_spec(verb, objtype) if objtype else None
        if spec is None:
            raise self.syntax(second.word.end, f"{second.word.value!r} is not valid with {verb}")
        self.objtype = objtype
        obj_name, generic = self.object_name(spec, second)
        words = self.keywords(spec, groups[2:])
        self.check_combinations(spec, words)
        return MQSCCommand(
            verb, objtype, obj_name, words.params, frozenset(words.flags), words.where,
            tuple(words.display), self.line_no, text, generic,
        )  # fmt: skip

    def command_verb(self, first: _Group) -> str:
        """The command's verb, as MQSC spells it in full (DIS: DISPLAY)."""
        verb = g.canonical_verb(first.word.value)
        if verb is None or first.args is not None:
            raise self.syntax(first.end, f"unknown command {first.word.value!r}")
        return verb

    def keywords(self, spec: g.CommandSpec, groups: list[_Group]) -> _Keywords:
        """The keywords after the object: each once, each one ``spec`` knows, a flag not
        contradicting an earlier one (NOTRIGGER after TRIGGER), values checked."""
        words = _Keywords()
        aliases = self.aliases(spec)
        for group in groups:
            kw = aliases.get(group.keyword, group.keyword)
            if kw in words.seen:
                raise self.syntax(group.word.end, f"{kw} repeated")
            if kw == "WHERE" and spec.where and group.args is not None:
                words.where = self.where(spec, group, aliases)
            elif group.args is None:
                self.bare_keyword(spec, kw, group, words)
            else:
                attr = spec.param(kw)
                if attr is None:
                    raise self.syntax(group.word.end, f"unknown keyword {group.word.value!r}")
                words.params[kw] = self.value(attr, group)
            words.seen[kw] = group
        return words

    def bare_keyword(self, spec: g.CommandSpec, kw: str, group: _Group,
                     words: _Keywords) -> None:
        """A keyword without a value: a flag, or an attribute DISPLAY is to show."""
        if kw in spec.flags:
            base = self.negation(kw) or kw
            if any((self.negation(f) or f) == base for f in words.flags):
                raise self.syntax(group.word.end, f"{kw} contradicts an earlier keyword")
            words.flags.add(kw)
        elif spec.display is not None and kw in spec.display:
            words.display.append(kw)
        else:
            raise self.syntax(group.word.end, f"unknown keyword {group.word.value!r}")

    def check_combinations(self, spec: g.CommandSpec, words: _Keywords) -> None:
        """What the keywords must be together: valid for the object's TYPE, the required
        ones given, no two exclusive ones."""
        params, seen = words.params, words.seen
        if spec.type_keyword and spec.type_keyword in params:
            allowed = spec.type_params.get(str(params[spec.type_keyword]), frozenset())
            for kw, group in seen.items():
                if kw in params and kw not in allowed:
                    raise self.syntax(
                        group.word.end, f"{kw} is not valid for {params[spec.type_keyword]}"
                    )
        for choices in spec.required:
            if not any(c in seen for c in choices):
                raise self.syntax(len(self.text), f"{' or '.join(choices)} required")
        for choices in spec.exclusive:
            given = [c for c in choices if c in seen]
            if len(given) > 1:
                raise self.syntax(seen[given[1]].end, f"{' and '.join(given)} are exclusive")

    @staticmethod
    def negation(keyword: str) -> str:
        return keyword[2:] if keyword.startswith("NO") else ""

    @staticmethod
    def aliases(spec: g.CommandSpec) -> dict[str, str]:
        tables = [spec.params, spec.display or {}]
        return {s: a.keyword for t in tables for a in t.values() for s in a.synonyms}

    def object_name(self, spec: g.CommandSpec, group: _Group) -> tuple[str | None, bool]:
        if group.args is None:
            if spec.name == "required":
                raise self.syntax(group.end, f"{spec.objtype} needs a name")
            return None, False
        if spec.name == "none":
            raise self.syntax(group.end, f"{spec.objtype} takes no name")
        if len(group.args) != 1 or (group.args[0].quoted and not group.args[0].value.strip()):
            raise self.syntax(group.end, "one name expected")
        text = self._text(group.args[0]).rstrip()
        generic = text.endswith("*")
        if generic and not spec.generic:
            raise self.name_error(f"generic name {text!r} not allowed with {spec.verb}")
        return self.check_name(text, spec.name_attr, generic=generic), generic

    def where(self, spec: g.CommandSpec, group: _Group, aliases: Mapping[str, str]) -> Where:
        args = group.args or ()
        if len(args) != 3 or args[0].quoted or args[1].quoted:
            raise self.syntax(group.end, "WHERE needs (keyword operator value)")
        kw = args[0].value.upper()
        kw = aliases.get(kw, kw)
        attr = (spec.display or {}).get(kw) or spec.param(kw)
        if attr is None or attr.kind == g.FLAG or kw in spec.not_filters:
            raise self.syntax(group.end, f"{kw} cannot be used in WHERE")
        op = args[1].value.upper()
        if op not in g.WHERE_OPERATORS:
            raise self.syntax(group.end, f"unknown WHERE operator {args[1].value!r}")
        arg = args[2]
        if op in ("LK", "NL", "CTG", "EXG"):
            value: object = self._text(arg)
        elif attr.kind == g.LIST:
            value = self.scalar(attr, arg, group, attr.item)
        else:
            value = self.scalar(attr, arg, group)
        return Where(kw, op, value)


def parse_command(text: str, line_no: int = 0, *, strict: bool = False) -> MQSCCommand | MQSCError:
    """Parse one (already reassembled) MQSC command.

    ``strict=True`` follows IBM MQ 9 in refusing empty parentheses (``RNAME()``); the default
    accepts them as a blank value for name and string attributes, as the MQSeries V5 books
    in the spec write ``RNAME()`` for a queue-manager alias.
    """
    parser = _Parser(text, line_no, strict)
    try:
        return parser.parse()
    except _Fail as fail:
        return fail.error


def parse_script(
    source: str | Iterable[str], *, strict: bool = False
) -> Iterator[MQSCCommand | MQSCError]:
    """Parse every command of a runmqsc input, in order; errors are yielded, not raised."""
    for item in scan_lines(source):
        if item.kind == "command":
            yield parse_command(item.text, item.line_no, strict=strict)
