"""Progress of long work on a control command's output: on a terminal one line rewritten in
place as the work goes on, otherwise (a file, a pipe, a log) plain lines, one per report."""

from __future__ import annotations

from typing import IO


class ProgressLine:
    """Progress reports (:meth:`update`) and lines that stay (:meth:`line`) on ``out``."""

    def __init__(self, out: IO[str], live: bool | None = None) -> None:
        self.out = out
        self.live = _isatty(out) if live is None else live
        self._shown = 0  # the length of the line being rewritten, 0 if none

    def update(self, text: str) -> None:
        """The work's progress now: rewrites the last report on a terminal."""
        if not self.live:
            self._write(text + "\n")
            return
        self._write("\r" + text + " " * max(0, self._shown - len(text)))
        self._shown = len(text)

    def line(self, text: str) -> None:
        """A line that stays (the work's end, a message)."""
        self.finish()
        self._write(text + "\n")

    def finish(self) -> None:
        """End the line being rewritten, keeping it."""
        if self._shown:
            self._write("\n")
            self._shown = 0

    def _write(self, text: str) -> None:
        self.out.write(text)
        self.out.flush()


def _isatty(out: IO[str]) -> bool:
    try:
        return bool(out.isatty())
    except (AttributeError, ValueError):
        return False
