"""Values to MQSC command text: the inverse of :mod:`mqpy.mqsc.lexer`.

Every piece of MQSC text that mqpy builds from a value (a name, a description, a principal, a
partner's queue-manager name) goes through here, so that no value can change the command it is
put in:

- :func:`quote` writes a string as one quoted string: every ``'`` doubled, always between
  quotes (a blank value is ``' '``, as IBM writes it), so that the lexer reads back exactly
  one token with the value, whatever characters it holds;
- :func:`keyword` accepts only a keyword's letters and digits (keywords come from code, never
  from a peer; anything else is a bug and raises ``ValueError``);
- :func:`command_text` puts a verb, an object type, a name, ``KEY(value)`` parameters and bare
  keywords together, quoting every string and list item.

Nothing here knows the grammar: whether a keyword is valid for a command is the parser's
business when the text is run.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping

__all__ = ["command_text", "keyword", "quote", "value_text"]

_KEYWORD = re.compile(r"[A-Z][A-Z0-9]*")


def quote(value: str) -> str:
    """``value`` as one MQSC quoted string (``''`` for each quote; ``' '`` when empty)."""
    return "'" + (value.replace("'", "''") if value else " ") + "'"


def keyword(word: str) -> str:
    """A keyword (``DESCR``, ``CHLTYPE``) as written in MQSC; ValueError if it is not one."""
    if not _KEYWORD.fullmatch(word):
        raise ValueError(f"not an MQSC keyword: {word!r}")
    return word


def value_text(value: object) -> str:
    """One attribute value as MQSC text: an integer as digits, a string quoted, a list of
    strings as quoted items separated by commas (an empty list is a blank value)."""
    if isinstance(value, bool):
        raise TypeError("a flag is a bare keyword, not a value")
    if isinstance(value, int):
        return str(value)
    if isinstance(value, str):
        return quote(value)
    if isinstance(value, (list, tuple)):
        return ",".join(value_text(v) for v in value) if value else quote("")
    raise TypeError(f"no MQSC text for a {type(value).__name__}")


def command_text(verb: str, objtype: str | None = None, name: str | None = None,
                 params: Mapping[str, object] | None = None,
                 flags: Iterable[str] = ()) -> str:
    """``VERB OBJTYPE('name') KEY(value) ... FLAG ...``: the name and every string quoted."""
    words = [keyword(verb)]
    if objtype is not None:
        words.append(keyword(objtype) + (f"({quote(name)})" if name is not None else ""))
    words += [f"{keyword(k)}({value_text(v)})" for k, v in (params or {}).items()]
    words += [keyword(f) for f in flags]
    return " ".join(words)
