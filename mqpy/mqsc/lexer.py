"""Lines to commands, and a command's text to tokens, as runmqsc reads its standard input.

This module owns the input rules of IBM's "MQSC input file syntax" / "Building command
scripts" pages; it knows nothing of verbs or attributes (that is :mod:`mqpy.mqsc.grammar`).

Rules implemented (IBM MQ 9, Multiplatforms):

- A line whose first character is ``*`` is a comment; blank lines are ignored. Both are
  dropped when a continued command is reassembled (IBM: "Any comments or blank lines are
  discarded when the command is reassembled into a single string").
- If the last nonblank character of a line is ``-``, the command continues from the *start*
  of the next line; if it is ``+``, from the *first nonblank character* of the next line.
  The ``+``/``-`` is removed and what stood before it, blanks included, is kept. Both may
  occur inside a quoted string (``'Fr+`` / ``  ed'`` is ``'Fred'``).
- A ``;`` as the last nonblank character (outside quotes) ends the command even after a
  continuation line. A ``;`` anywhere else is NOT a separator: it is left in the text and
  the parser reports a syntax error, as runmqsc has no multi-command lines.
- Otherwise a command ends at the end of its line. At end of input a pending continued
  command is returned as it stands.
- The reassembled command may be at most 32 762 characters (checked by the parser).

Tokens: words (unquoted runs), quoted strings (``''`` inside is one quote; case kept),
``(`` and ``)``. Blanks and commas separate tokens and are otherwise insignificant.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator

import attrs

__all__ = [
    "MAX_COMMAND_LENGTH",
    "LexError",
    "SourceItem",
    "Token",
    "scan_lines",
    "split_commands",
    "tokenize",
]

#: IBM: "The maximum length of an MQSC command is 32 762 characters" (Multiplatforms).
MAX_COMMAND_LENGTH = 32762

WORD = "WORD"
QUOTED = "QUOTED"
LPAREN = "("
RPAREN = ")"

_SEPARATORS = " \t,"


@attrs.frozen(slots=True)
class SourceItem:
    """One unit of runmqsc input: a (reassembled) command, a comment, or a blank line.

    ``raw_lines`` are the physical lines it came from, for the echo runmqsc prints
    (``     1 : DEFINE QLOCAL(A) +`` / ``       : DESCR('x')``).
    """

    kind: str  #: "command" | "comment" | "blank"
    line_no: int  #: 1-based number of its first physical line
    text: str  #: the reassembled command (commands), or the line itself
    raw_lines: tuple[str, ...]


def _lines_of(source: str | Iterable[str]) -> Iterator[str]:
    if isinstance(source, str):
        yield from source.splitlines()
    else:
        for line in source:
            yield line.rstrip("\r\n")


def _quote_state_after(text: str, inside: bool) -> bool:
    """Whether we are inside a quoted string after ``text`` (``''`` toggles twice: fine)."""
    for ch in text:
        if ch == "'":
            inside = not inside
    return inside


def scan_lines(source: str | Iterable[str]) -> Iterator[SourceItem]:
    """Group input lines into commands, comments and blank lines, in input order.

    A comment or blank line met in the middle of a continued command is yielded after that
    command is complete (it does not belong to it).
    """
    parts: list[str] = []  # text pieces of the command being assembled
    raw: list[str] = []
    held: list[SourceItem] = []  # comments/blanks inside a continued command
    start = 0
    mode = ""  # "" = no command open; "+" or "-" = continuation pending
    in_quote = False

    def finish() -> Iterator[SourceItem]:
        nonlocal parts, raw, held, mode, in_quote
        text = "".join(parts)
        yield SourceItem("command" if text.strip() else "blank", start, text, tuple(raw))
        yield from held
        parts, raw, held, mode, in_quote = [], [], [], "", False

    for line_no, line in enumerate(_lines_of(source), start=1):
        if line.startswith("*") or not line.strip():
            item = SourceItem("comment" if line.startswith("*") else "blank", line_no, line, (line,))
            if mode:
                held.append(item)
            else:
                yield item
            continue
        if mode == "+":
            piece = line.lstrip(_SEPARATORS[:2])
        else:
            piece = line
        if not mode:
            start = line_no
        raw.append(line)
        body = piece.rstrip()
        last = body[-1:]
        if last in ("+", "-"):
            text = body[:-1]
            parts.append(text)
            in_quote = _quote_state_after(text, in_quote)
            mode = last
            continue
        if last == ";" and not _quote_state_after(body[:-1], in_quote):
            parts.append(body[:-1])
            yield from finish()
            continue
        parts.append(piece)
        yield from finish()
    if mode:
        yield from finish()


def split_commands(source: str | Iterable[str]) -> Iterator[tuple[int, str]]:
    """``(line_no, command_text)`` for each command, comments and continuations resolved."""
    for item in scan_lines(source):
        if item.kind == "command":
            yield item.line_no, item.text


@attrs.frozen(slots=True)
class Token:
    """A lexical token and where it lies in the command text (``text[start:end]``)."""

    kind: str  #: WORD | QUOTED | "(" | ")"
    value: str  #: words as written (not yet folded); quoted strings unescaped
    start: int
    end: int


@attrs.frozen(slots=True)
class LexError:
    """An unterminated quoted string; ``end`` is just past its opening quote."""

    reason: str
    end: int


def tokenize(text: str) -> list[Token] | LexError:
    """Split one command into tokens; an unbalanced quote is a :class:`LexError`."""
    tokens: list[Token] = []
    i, n = 0, len(text)
    while i < n:
        ch = text[i]
        if ch in _SEPARATORS:
            i += 1
        elif ch in "()":
            tokens.append(Token(ch, ch, i, i + 1))
            i += 1
        elif ch == "'":
            j = i + 1
            buf: list[str] = []
            while True:
                if j >= n:
                    return LexError("unbalanced quotation marks", i + 1)
                if text[j] == "'":
                    if j + 1 < n and text[j + 1] == "'":
                        buf.append("'")
                        j += 2
                        continue
                    break
                buf.append(text[j])
                j += 1
            tokens.append(Token(QUOTED, "".join(buf), i, j + 1))
            i = j + 1
        else:
            j = i
            while j < n and text[j] not in _SEPARATORS and text[j] not in "()'":
                j += 1
            tokens.append(Token(WORD, text[i:j], i, j))
            i = j
    return tokens
