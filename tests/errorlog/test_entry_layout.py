"""Every line of an error-log entry, as IBM MQ 9.1 on UNIX lays it out."""

from __future__ import annotations

import os
import string
import sys
import threading

import pytest

from mqpy import amqmsgs as M
from mqpy.amqmsgs import AMQMessage, InsertError
from mqpy.errorlog import PAGE_WIDTH, read_entries


def test_channel_error_entry_is_laid_out_line_by_line(log_factory):
    """Given QM1's error log, when the channel initiator logs AMQ9526E, then the entry is IBM's
    layout: date line, Host/Installation, VRMF/QMgr, Time, inserts, message, EXPLANATION,
    ACTION and the '----- file : line ---' trailer, each line at most 79 columns.
    spec: operations-dlq-clusters 7.1"""
    log = log_factory(program="runmqchi")
    text = log.write(M.AMQ9526, inserts=dict(sent=5, expected=3, channel="TO.QM2",
                                             host="box2(1414)"), comp="mcaflow.py", line=212)
    pid, tid = os.getpid(), threading.get_native_id()
    assert text.split("\n") == [
        f"05/14/2024 09:12:07 AM - Process({pid}.{tid}) User(mqm) Program(runmqchi)",
        "                    Host(box1) Installation(Installation1)",
        f"                    VRMF({log.vrmf}) QMgr(QM1)",
        "                    Time(2024-05-14T09:12:07.123Z)",
        "                    ArithInsert1(5) ArithInsert2(3)",
        "                    CommentInsert1(TO.QM2)",
        "                    CommentInsert2(box2(1414))",
        "                   ",
        "AMQ9526E: Message sequence number error for channel 'TO.QM2'.",
        "",
        "EXPLANATION:",
        "The local and remote queue managers do not agree on the next message sequence",
        "number. A message with sequence number 5 has been sent when sequence number 3",
        "was expected. The remote host is 'box2(1414)'.",
        "ACTION:",
        "Determine the cause of the inconsistency. It could be that the synchronization",
        "information has become damaged, or has been backed out to a previous version.",
        "If the situation cannot be resolved, the sequence number can be reset manually",
        "at the sending end of the channel using the RESET CHANNEL command. ",
        "----- mcaflow.py : 212 --------------------------------------------------------",
        "",
    ]
    assert all(len(ln) <= PAGE_WIDTH for ln in text.split("\n"))
    with open(log.path, encoding="utf-8") as f:
        assert f.read() == text


def test_zero_and_empty_inserts_are_left_out(log_factory):
    """Given AMQ7233I with 0 of 0 transactions resolved, when it is logged, then no
    ArithInsert line is written and only the non-empty CommentInsert1 appears (as IBM does)."""
    text = log_factory().write(M.AMQ7233, inserts=dict(resolved=0, inflight=0))
    lines = text.split("\n")
    assert "Insert" not in "".join(lines[:4])
    assert lines[4] == "                    CommentInsert1(QM1)"
    assert lines[5] == "                   "
    assert lines[6] == "AMQ7233I: 0 out of 0 in-flight transactions resolved for queue manager 'QM1'."


def test_trailer_names_the_calling_python_line_by_default(log_factory):
    """Given no comp/line, when an entry is written, then the trailer names this test file
    and the line of the write call (mqpy's equivalent of IBM's amqxxxx.c : nnn)."""
    log = log_factory()
    line = sys._getframe().f_lineno + 1
    text = log.write(M.AMQ9002, inserts=dict(channel="TO.QM2"))
    assert text.rstrip("\n").split("\n")[-1].startswith(
        f"----- test_entry_layout.py : {line} ---")


def test_entry_without_queue_manager_has_no_qmgr_field(log_factory):
    """Given an @SYSTEM log (queue manager unknown), when a channel error is logged, then the
    VRMF line carries no QMgr() field. spec: operations-dlq-clusters 7.3"""
    text = log_factory(qmgr=None).write(
        M.AMQ9202, inserts=dict(rc=111, host="box2(1414)", channel="TO.QM2"))
    log = log_factory(qmgr=None)
    assert text.split("\n")[2] == f"                    VRMF({log.vrmf})"
    assert "QMgr(" not in text


def test_long_message_text_wraps_at_79_columns(log_factory):
    """Given a message line longer than 79 columns, when logged, then it wraps on a word
    boundary as IBM does ('...during the log replay' / 'phase.')."""
    text = log_factory().write(M.AMQ7229, inserts=dict(records=5))
    lines = text.split("\n")
    at = lines.index("AMQ7229I: 5 log records accessed on queue manager 'QM1' during the log replay")
    assert lines[at + 1] == "phase."


def test_round_trip_through_the_parser(log_factory):
    """Given entries written by ErrorLog, when read back, then every field survives."""
    log = log_factory(program="runmqchi")
    log.write(M.AMQ9526, inserts=dict(sent=5, expected=3, channel="TO.QM2", host="box2(1414)"),
              comp="mcaflow.py", line=212)
    (e,) = read_entries(log.directory)
    assert (e.pid, e.tid, e.user, e.program, e.host) == (
        os.getpid(), threading.get_native_id(), "mqm", "runmqchi", "box1")
    assert (e.installation, e.vrmf, e.qmgr, e.msgid) == (
        "Installation1", log.vrmf, "QM1", "AMQ9526E")
    assert e.text == "Message sequence number error for channel 'TO.QM2'."
    assert e.explanation.startswith("The local and remote queue managers do not agree")
    assert e.explanation.endswith("The remote host is 'box2(1414)'.")
    assert e.action.endswith("using the RESET CHANNEL command.")
    assert e.arith_inserts == (5, 3)
    assert e.comment_inserts == ("TO.QM2", "box2(1414)", "")
    assert e.source == "mcaflow.py : 212"
    assert e.timestamp.isoformat() == "2024-05-14T09:12:07.123000+00:00"


# ------------------------------------------------------------------------ catalogue


def _dummy(msg: AMQMessage) -> dict[str, object]:
    return {n: (7 if n in msg.arith else f"<{n}>") for n in msg.names}


@pytest.mark.parametrize("msgid", sorted(M.MESSAGES))
def test_every_catalogue_message_renders_and_wraps(msgid, log_factory):
    """Given any catalogue message, when logged with placeholder inserts, then it renders
    with no '{' left over and every line fits 79 columns."""
    msg = M.MESSAGES[msgid]
    text = log_factory().write(msg, inserts=_dummy(msg))
    assert "{" not in text
    assert all(len(ln) <= PAGE_WIDTH for ln in text.split("\n")), text


def test_catalogue_holds_the_messages_mqpy_writes():
    """The ids the queue manager and channel initiator rely on are all present."""
    wanted = {"AMQ8001I", "AMQ8003I", "AMQ8004I", "AMQ7229I", "AMQ7230I", "AMQ7231I",
              "AMQ7232I", "AMQ7233I", "AMQ7463W", "AMQ7464I", "AMQ7465W", "AMQ7017S",
              "AMQ7002S", "AMQ7472W", "AMQ9001I", "AMQ9002I", "AMQ9202E", "AMQ9208E",
              "AMQ9209E", "AMQ9213E", "AMQ9228E", "AMQ9502E", "AMQ9503E", "AMQ9506E",
              "AMQ9507E", "AMQ9508E", "AMQ9509E", "AMQ9519E", "AMQ9520E", "AMQ9526E",
              "AMQ9527E", "AMQ9528I", "AMQ9544W", "AMQ9545I", "AMQ9558E", "AMQ9999E",
              "AMQ5534E", "AMQ9776E", "AMQ9777E", "AMQ8101S", "AMQ6119S", "AMQ6184W",
              "AMQ6125E"}
    assert wanted <= set(M.MESSAGES)
    assert M.lookup("AMQ9526") is M.AMQ9526 and M.AMQ9526.severity == 20


def test_damaged_log_message_names_the_file_and_offset():
    """Given a damaged log record at restart, when AMQ7017S is rendered, then it names the
    log file and the offset (the operator's way to the damage)."""
    r = M.AMQ7017.render(dict(qmgr="QM1", logfile="/q/log/S0000003.LOG", offset=8192, lsn=77))
    assert "/q/log/S0000003.LOG" in r.explanation and "offset 8192" in r.explanation
    assert r.arith == (8192, 77) and r.comment == ("QM1", "/q/log/S0000003.LOG", "")


def test_message_with_undeclared_placeholder_is_refused():
    """A template naming an insert the message does not declare is a catalogue bug."""
    with pytest.raises(ValueError, match="undeclared inserts"):
        AMQMessage("AMQ9999E", "Channel '{channel}' ended.", "x", comment=("chl",))


def test_missing_or_unknown_inserts_are_refused():
    """Writing a message with a misspelt insert fails loudly instead of logging '{channel}'."""
    with pytest.raises(InsertError, match="missing inserts \\['channel'\\]"):
        M.AMQ9002.render({"chanel": "X"})
    with pytest.raises(InsertError, match="must be integers"):
        M.AMQ9526.render(dict(sent="five", expected=3, channel="C", host="h"))


def test_templates_use_only_plain_format_fields():
    """Catalogue templates are str.format templates whose fields are all declared names."""
    for msg in M.MESSAGES.values():
        for t in (msg.text, msg.explanation, msg.action):
            fields = {f for _, f, _, _ in string.Formatter().parse(t) if f}
            assert fields <= msg.names, msg.msgid


def test_an_event_line_composed_elsewhere_takes_the_catalogues_explanation(tmp_path):
    """Given a message line composed by its writer (a channel event, ErrorLog.write_event)
    whose id the catalogue knows with an explanation that needs no inserts, then the entry
    carries that explanation and action; an id the catalogue does not know says only that
    the line is the whole message."""
    from mqpy.errorlog import ErrorLog

    log = ErrorLog(str(tmp_path), qmgr="QM1")
    log.write_event("AMQ9218E", "The TCP/IP listener program could not bind to port number "
                                "1414. (Address already in use)")
    log.write_event("AMQ9998E", "Something only its writer knows.")
    bound, unknown = read_entries(str(tmp_path))
    assert bound.text.endswith("(Address already in use)")
    assert bound.explanation == " ".join(M.AMQ9218.explanation.split())
    assert bound.action == " ".join(M.AMQ9218.action.split())
    assert unknown.explanation == "See the message text."
