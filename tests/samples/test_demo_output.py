"""`make demo` prints headings in bold on a terminal and plain text otherwise (a log file, a
pipe, CI), so that its output can be read and grepped."""

from __future__ import annotations

import io

from examples import demo


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_given_output_to_a_pipe_when_the_demo_prints_a_heading_then_it_has_no_escape_codes(
        monkeypatch):
    out = io.StringIO()
    monkeypatch.setattr("sys.stdout", out)
    demo.say("status")
    assert out.getvalue() == "\n== status\n"


def test_given_a_terminal_when_the_demo_prints_a_heading_then_it_is_bold(monkeypatch):
    out = _Terminal()
    monkeypatch.setattr("sys.stdout", out)
    demo.say("status")
    assert out.getvalue() == "\n\033[1m== status\033[0m\n"
