"""Selection text to tokens (IBM's literal and identifier rules).

- A string literal is in single quotes; two quotes inside stand for one.
- ``0x`` (or ``0X``) and hexadecimal digits is a hexadecimal number, and, compared with a byte
  string property, the byte string of those digits (an odd number of digits matches none);
  any length (a 24-byte MsgId), where an exact number must fit in 64 bits.
- A ``0`` followed by digits is octal (``09`` is a syntax error).
- An exact number has no point or exponent and may end in ``L``; an approximate number has a
  point or an exponent (``7.``, ``.5``, ``7E3``, ``-57.9E2``) and may end in ``F`` or ``D``.
- An identifier starts with a Java identifier start character and goes on with Java
  identifier characters and ``.``; the keywords (AND OR NOT BETWEEN LIKE IN IS NULL TRUE FALSE
  ESCAPE) are not case sensitive, identifiers are.
"""

from __future__ import annotations

import re

import attrs

from mqpy import CMQC
from mqpy.properties.errors import PropertyError
from mqpy.properties.names import SQL_KEYWORDS, is_part, is_start

__all__ = ["HexNumber", "SelectorSyntaxError", "Token", "tokens"]

OPERATORS = ("<>", "<=", ">=", "=", "<", ">", "+", "-", "*", "/", "(", ")", ",")
_WHITE = " \t\n\r\f"
_NUMBER = re.compile(
    r"(?P<hex>0[xX][0-9a-fA-F]+)"
    r"|(?P<approx>(?:\d+\.\d*|\.\d+)(?:[eE][+-]?\d+)?[fFdD]?|\d+[eE][+-]?\d+[fFdD]?|\d+[fFdD])"
    r"|(?P<exact>\d+[lL]?)")
INT64_MAX = 2**63


class SelectorSyntaxError(PropertyError):
    """MQRC_SELECTOR_SYNTAX_ERROR: the text is not a selector; ``position`` is the offset of
    the first character IBM's grammar could not take."""

    def __init__(self, position: int, text: str = "") -> None:
        super().__init__(CMQC.MQCC_FAILED, CMQC.MQRC_SELECTOR_SYNTAX_ERROR,
                         position=position, detail=text)

    def __str__(self) -> str:
        return f"{super().__str__()} at offset {self.position}: {self.detail}"


class HexNumber(int):
    """A hexadecimal literal: a number, and the bytes of its digits (None when odd)."""

    raw: bytes | None

    def __new__(cls, digits: str) -> HexNumber:
        self = super().__new__(cls, int(digits, 16))
        self.raw = bytes.fromhex(digits) if len(digits) % 2 == 0 else None
        return self


@attrs.frozen
class Token:
    """kind: 'op', 'kw' (value upper-cased), 'ident', 'string', 'number', 'end'."""

    kind: str
    value: object
    pos: int


def _string(text: str, pos: int) -> tuple[str, int]:
    out = []
    i = pos + 1
    while True:
        j = text.find("'", i)
        if j < 0:
            raise SelectorSyntaxError(pos, "string literal not ended")
        out.append(text[i:j])
        if text.startswith("''", j):
            out.append("'")
            i = j + 2
            continue
        return "".join(out), j + 1


def _number(text: str, pos: int) -> tuple[object, int]:
    m = _NUMBER.match(text, pos)
    if m is None:
        raise SelectorSyntaxError(pos, "not a number")
    end = m.end()
    if end < len(text) and (is_part(text[end]) or text[end] == "."):
        raise SelectorSyntaxError(end, "a number runs into a name")
    word = m.group()
    if m.lastgroup == "hex":
        value: object = HexNumber(word[2:])
    elif m.lastgroup == "approx":
        value = float(word.rstrip("fFdD"))
    else:
        digits = word.rstrip("lL")
        if len(digits) > 1 and digits[0] == "0":
            if not set(digits) <= set("01234567"):
                raise SelectorSyntaxError(pos, "not an octal number")
            value = int(digits, 8)
        else:
            value = int(digits)
    if type(value) is int and value > INT64_MAX:
        raise SelectorSyntaxError(pos, "number out of range")
    return value, end


def tokens(text: str) -> list[Token]:
    """The tokens of ``text``, ending with an 'end' token; SelectorSyntaxError at the first
    character no token starts with."""
    out: list[Token] = []
    i, n = 0, len(text)
    while i < n:
        ch = text[i]
        if ch in _WHITE:
            i += 1
        elif ch == "'":
            value, j = _string(text, i)
            out.append(Token("string", value, i))
            i = j
        elif ch.isdigit() and ch.isascii() or ch == "." and i + 1 < n and text[i + 1].isdigit():
            value, j = _number(text, i)
            out.append(Token("number", value, i))
            i = j
        elif is_start(ch):
            j = i + 1
            while j < n and (text[j] == "." or is_part(text[j])):
                j += 1
            word = text[i:j]
            if word.upper() in SQL_KEYWORDS:
                out.append(Token("kw", word.upper(), i))
            else:
                out.append(Token("ident", word, i))
            i = j
        else:
            op = next((o for o in OPERATORS if text.startswith(o, i)), None)
            if op is None:
                raise SelectorSyntaxError(i, f"unexpected character {ch!r}")
            out.append(Token("op", op, i))
            i += len(op)
    out.append(Token("end", None, n))
    return out
