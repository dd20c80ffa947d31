"""DISPLAY output in runmqsc's layout: ``ATTR(value)`` items, two to a line.

Layout, measured on real runmqsc output (IBM MQ 7.1 to 9.x transcripts):

- every line starts with 3 blanks; the second item of a line starts at column 44
  (0-based offset 43), i.e. the first item is padded to 40 characters;
- an item goes in the second column only if it is at most 36 characters long, and the first
  item of the line leaves room for it: at most 37 characters for the object's own name item
  (``QUEUE(SYSTEM.ADMIN.TRACE.ROUTE.QUEUE)   TYPE(QLOCAL)`` pairs, a 38-character
  ``QUEUE(SYSTEM.CLUSTER.REPOSITORY.QUEUE)`` pushes ``TYPE(QLOCAL)`` to the next line), at
  most 36 for later items (a 37-character ``SSLKEYR(...)`` stands alone on its line);
- a blank value prints as ``( )``, other values as they are stored: no quotes, case kept
  (``DESCR(ql.a for qmgr1 in 2013-01-01)``); a value of None prints the bare keyword
  (``NOTRIGGER``, ``SHARE``, ``SYNCPT``); lists print comma separated;
- a character that is not printable (a line break, NUL, an escape sequence) prints as its
  Python escape (``\\n``, ``\\x00``): a value (a description a partner's queue-manager name
  went into, a topic string) can neither end its line nor start one, so every line of a
  DISPLAY is one the layout made, and a reader (the channel initiator through the command
  server, dmpmqcfg) never takes a line of a value for an item or an object's header.

Lines carry no trailing blanks.

Read back (:func:`parse_items`, :func:`parse_objects`) by the column of the second item, never
by quotes: values are printed as they are, so a quote or a parenthesis in one (a description)
says nothing. One ambiguity is accepted: a value with three blanks and then ``KEY(`` at exactly
column 44 of its line would be read as two items; names never have one, and a description
would need to be written so on purpose.
"""

from __future__ import annotations

import re
import time
from collections.abc import Iterable

from mqpy.printable import printable

__all__ = ["date_time", "format_attrs", "format_item", "parse_items", "parse_objects"]

_INDENT = "   "
_COLUMN_WIDTH = 40
_MAX_SECOND = 36
_MAX_FIRST_HEADER = 37
_MAX_FIRST = 36
_ITEM = re.compile(r"^[A-Z][A-Z0-9]*(\(.*\))?$", re.S)
_HEADER = re.compile(r"^AMQ\d{4}I: (Display .*details|IBM MQ .*inquired)\.")


def format_item(keyword: str, value: object) -> str:
    """``('DESCR', '')`` -> ``'DESCR( )'``; ``('NOTRIGGER', None)`` -> ``'NOTRIGGER'``."""
    if value is None:
        return keyword
    if isinstance(value, (tuple, list)):  # a blank member as IBM shows it: QTIME( , )
        text = ",".join(str(v) if str(v).strip() else " " for v in value)
    else:
        text = str(value)
    return f"{keyword}({printable(text) if text.strip() else ' '})"


def format_attrs(pairs: Iterable[tuple[str, object]]) -> list[str]:
    """Lay out ``(keyword, value)`` pairs as runmqsc prints one object's details.

    The first pair is taken to be the object's name item (``QUEUE(Q1)``), as in every
    DISPLAY reply; it may pair with a slightly longer item than later lines do.
    """
    items = [format_item(k, v) for k, v in pairs]
    lines: list[str] = []
    first: str | None = None
    first_limit = _MAX_FIRST_HEADER
    for item in items:
        if first is None:
            first = item
            continue
        if len(first) <= first_limit and len(item) <= _MAX_SECOND:
            lines.append(_INDENT + first.ljust(_COLUMN_WIDTH) + item)
            first = None
        else:
            lines.append(_INDENT + first)
            first = item
        first_limit = _MAX_FIRST
    if first is not None:
        lines.append(_INDENT + first)
    return lines


def parse_items(line: str) -> list[tuple[str, str | None]]:
    """One DISPLAY line: its ``(keyword, value)`` items; a bare keyword has value None and a
    blank value ``( )`` is ``""``."""
    body = line[3:] if line.startswith(_INDENT) else line.strip()
    first, second = body[:_COLUMN_WIDTH].rstrip(), body[_COLUMN_WIDTH:]
    if (len(body) > _COLUMN_WIDTH and second[:1].isupper() and _ITEM.match(first)
            and _ITEM.match(second)):
        texts = [first, second]
    else:
        texts = [body.rstrip()]
    out = []
    for text in texts:
        if "(" not in text:
            out.append((text, None))
            continue
        key, value = text.split("(", 1)
        value = value[:-1]
        out.append((key, "" if value == " " else value))
    return out


def parse_objects(lines: Iterable[str]) -> list[dict[str, object]]:
    """DISPLAY reply lines (``AMQ84xxI: Display ... details.`` then the items) into one
    dictionary per object: all-digit values as ints, a bare keyword (NOTRIGGER) as True."""
    objects: list[dict[str, object]] = []
    current: dict[str, object] | None = None
    for line in lines:
        if _HEADER.match(line):
            current = {}
            objects.append(current)
        elif current is not None and line.startswith(" ") and line.strip():
            for key, value in parse_items(line):
                current[key] = True if value is None else \
                    int(value) if value.isdigit() else value
    return objects


def date_time(when: float) -> tuple[str, str]:
    """A time stamp as DISPLAY shows it: ``("2026-11-22", "17.36.32")``; blank for 0."""
    if not when:
        return "", ""
    lt = time.localtime(when)
    return time.strftime("%Y-%m-%d", lt), time.strftime("%H.%M.%S", lt)
