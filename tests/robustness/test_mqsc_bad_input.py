"""Bad MQSC (through MQCMD_ESCAPE, the path runmqsc takes): malformed lines, unbalanced
parentheses and quotes, over-long names, values out of range, unknown keywords, continuation
characters anywhere, binary garbage. Every command gets AMQ lines, never an internal fault."""

from __future__ import annotations

import subprocess
import sys

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from mqpy import CMQC, CMQCFC, pcf
from mqpy.mqsc.processor import MQSCProcessor
from mqpy.structs.tables import CFH, MD

_SETTINGS = settings(max_examples=150, deadline=None,
                     suppress_health_check=[HealthCheck.function_scoped_fixture])

_WORDS = ["DEFINE", "ALTER", "DELETE", "DISPLAY", "DIS", "CLEAR", "START", "STOP", "PING",
          "RESET", "RESOLVE", "SET", "REFRESH", "QLOCAL", "QL", "QREMOTE", "QALIAS", "QMODEL",
          "QUEUE", "CHANNEL", "QMGR", "QSTATUS", "CHSTATUS", "LISTENER", "SERVICE", "PROCESS",
          "NAMELIST", "CHLAUTH", "AUTHREC", "QMSTATUS", "SECURITY", "CLUSQMGR", "LIKE", "ALL",
          "REPLACE", "NOREPLACE", "PURGE", "WHERE", "CURDEPTH", "MAXDEPTH", "DESCR",
          "CHLTYPE", "SDR", "SVRCONN", "CONNAME", "XMITQ", "TYPE", "ACTION", "USERLIST",
          "PRINCIPAL", "AUTHADD", "TARGQ", "RNAME", "RQMNAME", "GT", "LT", "EQ", "NE", "YES",
          "NO", "ENABLED", "DISABLED", "FOO"]
_VALUES = ["", "*", "A", "Q1", "A.B*", "-1", "0", "1", "999999999", "99999999999999999999",
           "'x'", "''", "'it''s'", "X" * 49, "X" * 300, "(", ")", "'", "1,2", "A B"]
_PIECES = st.one_of(
    st.sampled_from(_WORDS),
    st.builds(lambda w, v: f"{w}({v})", st.sampled_from(_WORDS), st.sampled_from(_VALUES)),
    st.sampled_from(["+", "-", "+\n", "-\n", "\n", "(", ")", "'", ",", "*", "\x00", "\xff"]),
)
_COMMANDS = st.lists(_PIECES, min_size=1, max_size=8).map(" ".join)


def _escape(server, text: str) -> tuple[int, list[bytes]]:
    request = pcf.PCFMessage(CFH(Command=CMQCFC.MQCMD_ESCAPE), [
        pcf.CFIN(CMQCFC.MQIACF_ESCAPE_TYPE, CMQCFC.MQET_MQSC),
        pcf.CFST(CMQCFC.MQCACF_ESCAPE_TEXT, text.encode("latin-1", "replace"))])
    md = MD(MsgType=CMQC.MQMT_REQUEST, Format=CMQC.MQFMT_ADMIN)
    replies = [pcf.parse(data) for _, data in server.handle(md, pcf.build(request))]
    server.qm.backout()
    return replies[-1].header.Reason, [r.get(CMQCFC.MQCACF_ESCAPE_TEXT, b"") for r in replies]


@_SETTINGS
@given(text=_COMMANDS)
def test_any_command_text_gets_amq_lines(server, text):
    """Given any soup of MQSC words, values and punctuation, when the command server runs
    it, then the answer holds AMQ messages and no internal fault happened."""
    del server.faults[:]
    reason, texts = _escape(server, text)
    assert server.faults == []
    assert reason == 0 or any(b"AMQ" in t for t in texts), (reason, texts)


@_SETTINGS
@given(script=st.text(max_size=400))
def test_any_script_gets_a_report(engine, script):
    """Given any text at all as a script, then runmqsc's report ends with its summary and
    the exit code is 0 or 10."""
    lines, code = MQSCProcessor(engine).run_script(script, verify_only=True)
    assert code in (0, 10)
    assert lines[-1].endswith(("syntax error.", "have a syntax error."))


def test_runmqsc_reading_binary_garbage_answers_and_exits_10(tmp_path):
    """Given bytes that are no text at all on runmqsc -v's standard input, then a syntax
    error report and exit 10, no traceback."""
    code = ("import sys; from mqpy_cli.runmqsc import runmqsc; "
            "runmqsc.main(args=['-v'], prog_name='runmqsc')")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, timeout=60,
                          input=b"\xff\xfe\x00DEFINE QLOCAL(\x80\n\x1b[2J+\n-\n'''\n")
    assert proc.returncode == 10
    assert b"AMQ8405I" in proc.stdout
    assert b"Traceback" not in proc.stdout + proc.stderr
