"""Values a partner, a message or a user sent reach the error log and the channel
initiator's console as text that shows them: a NUL, a line break or an escape sequence is
written as its escape, so no value can forge an entry, end a line early or hide itself."""

from __future__ import annotations

from mqpy import amqmsgs as M
from mqpy.errorlog import printable, read_entries
from mqpy_cli.chinit import _error_log

#: a queue name as a bit flip could make it: a NUL, a line break, a forged AMQ id, an ESC
HOSTILE = "\x00\x00\x10\x00.TARGET\nAMQ8003I: FORGED \x1b[2J"


def test_printable_text_is_left_alone_and_controls_are_escaped() -> None:
    """Given ordinary text (accents, blanks, quotes), then it is unchanged; given controls
    and separators, then each is written as its Python escape."""
    assert printable("Queue 'APP.Q' on hôte 1") == "Queue 'APP.Q' on hôte 1"
    assert printable("a\x00b\nc\u2028d\te") == "a\\x00b\\nc\\u2028d\\te"


def test_a_hostile_value_is_escaped_in_the_error_log(log_factory) -> None:
    """Given an event whose text carries a queue name with a NUL and a line break, when it
    is logged, then the entry holds their escapes, no NUL byte, and one entry only."""
    log = log_factory(program="runmqchi")
    log.write_event("AMQ9544E", f"Messages not put to destination queue {HOSTILE} at QMS.")
    with open(log.path, "rb") as f:
        data = f.read()
    assert b"\x00" not in data and b"\x1b" not in data
    assert b"\\x00\\x00\\x10\\x00.TARGET\\nAMQ8003I: FORGED \\x1b[2J" in data
    assert len(read_entries(log.directory)) == 1


def test_a_hostile_value_is_escaped_on_the_channel_initiators_console(tmp_path, capsys
                                                                     ) -> None:
    """Given runmqchi's event writer (its console is runmqchi.out), when an event with a
    hostile queue name is written, then the console line holds the escapes, on one line."""
    root = str(tmp_path / "data")
    write = _error_log("QM1", root)
    write("AMQ9544E", f"Messages not put to destination queue {HOSTILE} at QMS.")
    out = capsys.readouterr().out
    assert out.count("\n") == 1 and "\x00" not in out and "\x1b" not in out
    assert "\\nAMQ8003I: FORGED" in out


def test_a_hostile_insert_is_escaped_in_its_comment_insert_line(log_factory) -> None:
    """Given a catalogue message whose channel insert a partner sent, when it is logged,
    then its CommentInsert line and its message line hold the escapes, one entry only."""
    log = log_factory(program="runmqchi")
    text = log.write(M.AMQ9526, inserts=dict(sent=5, expected=3, channel=HOSTILE,
                                             host="box2(1414)"))
    assert "\x00" not in text and "\nAMQ8003I" not in text
    assert "CommentInsert1(\\x00\\x00\\x10\\x00.TARGET\\nAMQ8003I: FORGED \\x1b[2J)" in text
    assert len(read_entries(log.directory)) == 1
