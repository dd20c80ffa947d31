"""Text from a partner, a message or a user as it may be shown: each character that is not
printable (NUL, line breaks, tabs, escape sequences, Unicode separators) written as its
Python escape (``\\x00``, ``\\n``), so that it can neither forge a line of a log, a DISPLAY or
a program's output nor hide in one. Its own module, so that runmqsc and the error log use it
without loading each other."""

from __future__ import annotations

__all__ = ["printable"]


def printable(text: str) -> str:
    """``text`` with every character that is not printable written as its Python escape."""
    if text.isprintable():
        return text
    return "".join(ch if ch.isprintable() else repr(ch)[1:-1] for ch in text)
