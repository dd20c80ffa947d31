"""A selector compiled once to a Python closure over (properties, MQMD), evaluated per message.

``compile_selector(text)`` parses and compiles; ``Selector.matches(props, md)`` says whether a
message is selected: ``props`` maps kept property names to values (``PropertySet.values()``),
``md`` is the message's MQMD (or None). Evaluation never raises.

Semantics (IBM MQ / JMS):

1. Three-valued logic: a missing property, or NULL, is unknown; NOT unknown is unknown;
   FALSE AND unknown is FALSE; TRUE OR unknown is TRUE; a message is selected only when the
   selector is TRUE.
2. Numbers compare with numbers (Java promotion: an integer with a float compares as
   floats); strings, booleans and byte strings compare only for ``=`` and ``<>`` with their
   own kind; values of unlike kinds are unequal (FALSE, for ``<>`` too), never an error.
   A hexadecimal literal is a number, and against a byte-string property the bytes of its
   digits.
3. Arithmetic is on numbers only (anything else, or NULL, gives unknown); integers divide
   truncating toward zero; a division by zero is unknown.
4. ``a BETWEEN b AND c`` is ``a >= b AND a <= c``; ``x IN (..)`` is ``x = v1 OR ..``
   (unknown when x is NULL); ``x LIKE p`` needs a string (NULL: unknown), ``%`` any run of
   characters, ``_`` one, the ESCAPE character making the next one plain; ``x IS NULL``
   is TRUE when x is missing or NULL.
5. Identifiers: a name with no folder is the ``usr`` property; ``Root.MQMD.<field>`` the
   MQMD's field (text without trailing blanks, identifiers as bytes); the JMS names as IBM
   maps them (JMSPriority the MQMD Priority, JMSDeliveryMode ``'PERSISTENT'`` or
   ``'NON_PERSISTENT'``, JMSMessageID ``'ID:'`` and the MsgId in hex, JMSCorrelationID
   ``jms.Cid`` else the same of the CorrelId, JMSTimestamp ``jms.Tms`` else PutDate and
   PutTime in milliseconds since 1970, JMSRedelivered BackoutCount > 0,
   JMSXDeliveryCount BackoutCount + 1, JMSXUserID / JMSXAppID the MQMD's, JMSType
   ``mcd.Type``, and the others their ``jms.*`` property).
"""

from __future__ import annotations

import calendar
import re
from collections.abc import Callable, Mapping
from typing import Any

import attrs

from mqpy import CMQC, wildcards
from mqpy.properties.errors import fail
from mqpy.properties.names import (
    JMS_SYNONYMS,
    MQMD_FIELDS,
    MQMD_PREFIX,
    canonical,
    mqmd_value,
)
from mqpy.properties.types import ccsid_codec
from mqpy.selection.lexer import HexNumber
from mqpy.selection.parser import (
    Between,
    Binary,
    Ident,
    In,
    IsNull,
    Like,
    Literal,
    Logical,
    Unary,
    parse,
)

__all__ = ["Selector", "compile_selector"]

Fn = Callable[[Mapping[str, Any], Any], Any]
#: a value's kind: 1 boolean, 2 number, 3 string, 4 byte string (bool is not a number)
KIND = {bool: 1, int: 2, float: 2, HexNumber: 2, str: 3, bytes: 4}
_ZERO_ID = bytes(24)


# ----------------------------------------------------------------------------- identifiers
def _md_value(field: str) -> Fn:
    def get(props: Mapping[str, Any], md: Any) -> Any:
        return None if md is None else getattr(md, field)
    return get


def _md_getter(field: str) -> Fn:
    """``Root.MQMD.<field>``: a number straight from the MQMD, text and identifiers as
    ``names.mqmd_value`` gives them."""
    if MQMD_FIELDS[field] == CMQC.MQTYPE_INT32:
        return _md_value(field)
    return lambda props, md: None if md is None else mqmd_value(md, field)


def _id_text(value: bytes) -> str | None:
    """JMS's text of a MsgId / CorrelId: ``ID:`` and 48 hex digits; None for MQCI_NONE."""
    value = value.ljust(len(_ZERO_ID), b"\0")
    return None if value == _ZERO_ID else "ID:" + value.hex()


def put_timestamp(md: Any) -> int | None:
    """JMS's timestamp of an MQMD: milliseconds since 1970 (UTC) of PutDate / PutTime
    (YYYYMMDD, HHMMSSTH); None when they are not a time."""
    try:
        date, time = md.PutDate.decode("ascii"), md.PutTime.decode("ascii")
        moment = (int(date[:4]), int(date[4:6]), int(date[6:8]), int(time[:2]),
                  int(time[2:4]), int(time[4:6]))
        return calendar.timegm(moment) * 1000 + int(time[6:8]) * 10
    except (ValueError, UnicodeDecodeError, OverflowError):
        return None


def _jms_getter(name: str) -> Fn | None:
    """The special JMS names (rule 5); None for those that are plain property synonyms."""
    if name == "JMSPriority":
        return _md_value("Priority")
    if name == "JMSDeliveryMode":
        return lambda p, md: None if md is None else (
            "PERSISTENT" if md.Persistence == CMQC.MQPER_PERSISTENT else "NON_PERSISTENT")
    if name == "JMSMessageID":
        return lambda p, md: None if md is None else _id_text(md.MsgId)
    if name == "JMSCorrelationID":
        return lambda p, md: p.get("jms.Cid", None if md is None else _id_text(md.CorrelId))
    if name == "JMSRedelivered":
        return lambda p, md: None if md is None else md.BackoutCount > 0
    if name == "JMSXDeliveryCount":
        return lambda p, md: None if md is None else md.BackoutCount + 1
    if name == "JMSTimestamp":
        return lambda p, md: p.get("jms.Tms", None if md is None else put_timestamp(md))
    if name == "JMSXGroupSeq":
        return lambda p, md: p.get("jms.Seq", None if md is None else md.MsgSeqNumber)
    target = JMS_SYNONYMS[name]
    if target.startswith(MQMD_PREFIX):
        return _md_getter(target[len(MQMD_PREFIX):])
    return None


def _identifier(name: str) -> tuple[Fn, str | None]:
    """(getter, the plain property name it reads or None)."""
    if name.startswith(MQMD_PREFIX):
        return _md_getter(name[len(MQMD_PREFIX):]), None
    if name in JMS_SYNONYMS:
        special = _jms_getter(name)
        if special is not None:
            return special, None
    kept = canonical(name)
    return (lambda p, md: p.get(kept)), kept


# ----------------------------------------------------------------------------- comparisons
def equal(a: Any, b: Any) -> bool | None:
    """``=`` by rule 2."""
    if a is None or b is None:
        return None
    ka, kb = KIND.get(type(a)), KIND.get(type(b))
    if ka == kb:
        return a == b
    if type(a) is HexNumber and kb == 4:
        return a.raw == b
    if type(b) is HexNumber and ka == 4:
        return b.raw == a
    return False


def _not_equal(a: Any, b: Any) -> bool | None:
    r = equal(a, b)
    if r is None:
        return None
    ka, kb = KIND.get(type(a)), KIND.get(type(b))
    if ka != kb and not (type(a) is HexNumber or type(b) is HexNumber):
        return False  # unlike kinds: FALSE both ways
    return not r


def _ordered(test: Callable[[Any, Any], bool]) -> Callable[[Any, Any], bool | None]:
    def compare(a: Any, b: Any) -> bool | None:
        if a is None or b is None:
            return None
        if KIND.get(type(a)) == 2 and KIND.get(type(b)) == 2:
            return test(a, b)
        return False
    return compare


COMPARE = {
    "=": equal,
    "<>": _not_equal,
    "<": _ordered(lambda a, b: a < b),
    "<=": _ordered(lambda a, b: a <= b),
    ">": _ordered(lambda a, b: a > b),
    ">=": _ordered(lambda a, b: a >= b),
}


def _divide(a: Any, b: Any) -> Any:
    if b == 0:
        return None
    if type(a) is not float and type(b) is not float:
        q = abs(a) // abs(b)
        return q if (a < 0) == (b < 0) else -q
    return a / b


ARITH = {"+": lambda a, b: a + b, "-": lambda a, b: a - b, "*": lambda a, b: a * b,
         "/": _divide}


def _number(v: Any) -> bool:
    return KIND.get(type(v)) == 2


# ----------------------------------------------------------------------------- compiling
_ORDER_TESTS = {"<": lambda a, b: a < b, "<=": lambda a, b: a <= b,
                ">": lambda a, b: a > b, ">=": lambda a, b: a >= b}


def _compare_to_literal(op: str, name: str, value: Any) -> Fn | None:
    """The common cases ``property = 'text'`` / ``= TRUE`` and ``property < number``, read
    straight from the dict; None for the others."""
    kind = KIND.get(type(value))
    if op == "=" and kind in (1, 3):
        def eq_literal(props: Mapping[str, Any], md: Any) -> Any:
            v = props.get(name)
            if v is None:
                return None
            return KIND.get(type(v)) == kind and v == value
        return eq_literal
    if op in _ORDER_TESTS and kind == 2 and type(value) is not HexNumber:
        return _order_literal(op, name, value)
    return None


def _order_literal(op: str, name: str, value: Any) -> Fn:
    test = _ORDER_TESTS[op]

    def ordered(props: Mapping[str, Any], md: Any) -> Any:
        v = props.get(name)
        if v is None:
            return None
        t = type(v)
        return test(v, value) if t is int or t is float else False
    return ordered


def _logical(node: Logical) -> Fn:
    """AND / OR over a chain: the first operand that is ``decisive`` (FALSE for AND, TRUE
    for OR) settles it; else unknown if any operand was, else the other truth value."""
    parts = tuple(_compile(n) for n in node.operands)
    decisive = node.op == "OR"
    other = not decisive
    if len(parts) == 2:
        first, second = parts

        def pair(props: Mapping[str, Any], md: Any) -> Any:
            a = first(props, md)
            if a is decisive:
                return decisive
            b = second(props, md)
            if b is decisive:
                return decisive
            return other if a is other and b is other else None
        return pair

    def chain(props: Mapping[str, Any], md: Any) -> Any:
        unknown = False
        for part in parts:
            r = part(props, md)
            if r is decisive:
                return decisive
            if r is not other:
                unknown = True
        return None if unknown else other
    return chain


def _binary(node: Binary) -> Fn:
    if node.op in COMPARE and isinstance(node.left, Ident) and isinstance(node.right, Literal):
        _, plain = _identifier(node.left.name)
        fast = None if plain is None else _compare_to_literal(node.op, plain, node.right.value)
        if fast is not None:
            return fast
    left, right = _compile(node.left), _compile(node.right)
    if node.op in COMPARE:
        test = COMPARE[node.op]
        return lambda props, md: test(left(props, md), right(props, md))
    op = ARITH[node.op]

    def arith(props: Mapping[str, Any], md: Any) -> Any:
        a, b = left(props, md), right(props, md)
        return op(a, b) if _number(a) and _number(b) else None
    return arith


def _like_pieces(pattern: str, escape: str | None) -> list[tuple[str, int]]:
    """``pattern`` cut at each ``%`` into pieces of fixed length: each a regular expression
    of literal characters and ``.`` for ``_``, and its length."""
    pieces: list[list[str]] = [[]]
    i = 0
    while i < len(pattern):
        ch = pattern[i]
        if ch == escape:
            i += 1
            pieces[-1].append(re.escape(pattern[i]))
        elif ch == "%":
            pieces.append([])
        elif ch == "_":
            pieces[-1].append(".")
        else:
            pieces[-1].append(re.escape(ch))
        i += 1
    return [("".join(piece), len(piece)) for piece in pieces]


def like_matcher(pattern: str, escape: str | None = None) -> Callable[[str], bool]:
    """Whether a string matches a LIKE ``pattern``, in time bounded by the lengths
    (``mqpy.wildcards``)."""
    return wildcards.matcher(_like_pieces(pattern, escape))


def _like(node: Like) -> Fn:
    match = like_matcher(node.pattern, node.escape)
    get, negated = _compile(node.ident), node.negated

    def like(props: Mapping[str, Any], md: Any) -> Any:
        v = get(props, md)
        if v is None:
            return None
        if type(v) is not str:
            return False
        return not match(v) if negated else match(v)
    return like


def _in(node: In) -> Fn:
    get, values, negated = _compile(node.ident), node.values, node.negated

    def within(props: Mapping[str, Any], md: Any) -> Any:
        v = get(props, md)
        if v is None:
            return None
        found = any(equal(v, c) for c in values)
        return not found if negated else found
    return within


def _between(node: Between) -> Fn:
    get, low, high = _compile(node.expr), _compile(node.low), _compile(node.high)
    ge, le, negated = COMPARE[">="], COMPARE["<="], node.negated

    def between(props: Mapping[str, Any], md: Any) -> Any:
        v = get(props, md)
        a, b = ge(v, low(props, md)), le(v, high(props, md))
        r = False if a is False or b is False else None if a is None or b is None else True
        return r if r is None or not negated else not r
    return between


def _unary(node: Unary) -> Fn:
    operand = _compile(node.operand)
    if node.op == "NOT":
        def negate(props: Mapping[str, Any], md: Any) -> Any:
            r = operand(props, md)
            return None if r is None else (not r if type(r) is bool else None)
        return negate
    return lambda props, md: -v if _number(v := operand(props, md)) else None


def _compile(node: Any) -> Fn:
    if isinstance(node, Literal):
        value = node.value
        return lambda props, md: value
    if isinstance(node, Ident):
        return _identifier(node.name)[0]
    if isinstance(node, IsNull):
        get, negated = _compile(node.ident), node.negated
        return lambda props, md: (get(props, md) is None) != negated
    compilers = {Logical: _logical, Binary: _binary, Like: _like, In: _in,
                 Between: _between, Unary: _unary}
    return compilers[type(node)](node)


@attrs.frozen
class Selector:
    """A compiled selection string."""

    text: str
    tree: Any
    _fn: Fn

    def matches(self, props: Mapping[str, Any], md: Any = None) -> bool:
        """Is the message with these properties and this MQMD selected (rule 1)?"""
        try:
            return self._fn(props, md) is True
        except (ArithmeticError, AttributeError, TypeError):
            return False  # a value no MQ type has (an application's own MD object)


ALWAYS = Selector("", None, lambda props, md: True)


def compile_selector(text: str | bytes | None, ccsid: int = 1208) -> Selector:
    """The selector of a SelectionString: empty or blank selects everything; bytes are in
    ``ccsid`` (the MQCHARV's VSCCSID; one mqpy cannot convert is MQRC_SOURCE_CCSID_ERROR);
    longer than MQ_SELECTOR_LENGTH is MQRC_SELECTION_STRING_ERROR; bad syntax
    SelectorSyntaxError."""
    if text is None:
        return ALWAYS
    if isinstance(text, (bytes, bytearray)):
        codec = "utf-8" if ccsid in (CMQC.MQCCSI_APPL, 0) else ccsid_codec(ccsid)
        if codec is None:
            raise fail(CMQC.MQRC_SOURCE_CCSID_ERROR)
        text = bytes(text).decode(codec, "replace")
    if len(text) > CMQC.MQ_SELECTOR_LENGTH:
        raise fail(CMQC.MQRC_SELECTION_STRING_ERROR)
    if not text.strip(" \t\n\r\f\0"):
        return ALWAYS
    tree = parse(text.rstrip("\0"))
    return Selector(text, tree, _compile(tree))
