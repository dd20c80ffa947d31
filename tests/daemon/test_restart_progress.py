"""A restart that replays a long log shows its progress as IBM's strmqm does (AMQ7229I "N log
records accessed on queue manager ... during the log replay phase.", then AMQ7230I "Log
replay for queue manager ... complete."), on strmqm's output and in the error log; a quick
replay says nothing."""

from __future__ import annotations

import io
import os
import subprocess
import sys

from mqpy.engine.logreplay import ReplayProgress
from mqpy_cli.progress import ProgressLine

_CRASH_AFTER_PUTS = """
import os, sys
import mqpy
qm = mqpy.embedded("QM1", data_path=sys.argv[1], create=False)
q = mqpy.Queue(qm, "Q1")
for i in range(int(sys.argv[2])):
    q.put(b"replayed %d" % i, mqpy.MD(Persistence=1))
os._exit(0)  # no endmqm: the restart replays the log written since the last checkpoint
"""


def _replay_lines(text: str) -> list[str]:
    return [line for line in text.splitlines() if "log replay" in line.lower()]


def test_a_long_replay_prints_ibms_progress_on_strmqm_and_in_the_error_log(install):
    """Given QM1 ended abruptly after 3000 persistent puts (its log not checkpointed since),
    when the administrator runs strmqm QM1 and the replay outlasts the progress threshold
    (MQPY_PROGRESS_AFTER=0 here, 2 s by default), then strmqm prints "N log records accessed
    on queue manager 'QM1' during the log replay phase." (the final N at least 3000) and
    "Log replay for queue manager 'QM1' complete." before "... started", and the error log
    has AMQ7229I and AMQ7230I."""
    install.create()
    subprocess.run([sys.executable, "-c", _CRASH_AFTER_PUTS, install.root, "3000"],
                   check=True, env=install.env, timeout=120)
    install.env["MQPY_PROGRESS_AFTER"] = "0"
    started = install.run("strmqm", "QM1")
    assert started.returncode == 0, started.stdout + started.stderr
    out = started.stdout.splitlines()
    replay = _replay_lines(started.stdout)
    assert replay[-2].endswith("log records accessed on queue manager 'QM1' during the log "
                               "replay phase."), out
    assert int(replay[-2].split()[0]) >= 3000, out
    assert replay[-1] == "Log replay for queue manager 'QM1' complete.", out
    assert out.index(replay[-1]) < len(out) - 1 and out[-1].endswith("started using V9.2.5.0.")
    with open(os.path.join(install.qmdir(), "errors", "AMQERR01.LOG")) as f:
        log = f.read()
    assert "AMQ7229I" in log and "AMQ7230I: Log replay for queue manager 'QM1' complete." in log
    install.run("endmqm", "-i", "QM1")


def test_a_quick_restart_prints_no_replay_progress(install):
    """Given QM1 ended normally, when strmqm starts it (the default 2 s threshold), then its
    output has no replay lines."""
    install.create()
    started = install.run("strmqm", "QM1")
    assert started.returncode == 0 and not _replay_lines(started.stdout), started.stdout
    install.run("endmqm", "-i", "QM1")


def test_replay_progress_every_two_seconds_after_the_first_two():
    """Given a replay reading 1000 records a second, then nothing is said in its first two
    seconds, one AMQ7229I every two seconds after, and the total and AMQ7230I at its end; a
    replay ending within two seconds says nothing."""
    said, now = [], [0.0]
    progress = ReplayProgress(lambda m, ins: said.append((m.msgid, dict(ins))),
                              clock=lambda: now[0])
    progress.begin()
    for second in range(1, 7):
        now[0] = float(second)
        progress.records(second * 1000)
    now[0] = 6.5
    progress.done(6500)
    assert said == [("AMQ7229I", {"records": 2000}), ("AMQ7229I", {"records": 4000}),
                    ("AMQ7229I", {"records": 6000}), ("AMQ7229I", {"records": 6500}),
                    ("AMQ7230I", {})]
    said.clear()
    progress.begin()
    now[0] = 8.0
    progress.done(900)
    assert said == []


def test_progress_is_rewritten_in_place_on_a_terminal_and_plain_lines_otherwise():
    """Given progress reports then a closing line, then on a terminal the reports rewrite
    one line (carriage returns) and the closing line follows it; on a file each report is a
    line of its own."""
    live, plain = io.StringIO(), io.StringIO()
    for out, is_tty in ((live, True), (plain, False)):
        shown = ProgressLine(out, live=is_tty)
        shown.update("1000 records")
        shown.update("2000 records")
        shown.line("done")
    assert live.getvalue() == "\r1000 records\r2000 records\ndone\n"
    assert plain.getvalue() == "1000 records\n2000 records\ndone\n"
