"""A queue's file size, as IBM MQ 9.2 has it ("Modifying IBM MQ queue files"): the queue
attribute MAXFSIZE (megabytes, DEFAULT: 2,088,960 MB), DISPLAY QSTATUS CURFSIZE (the queue's
current size in megabytes, rounded up) and CURMAXFS (the most it can grow to now), their PCF
parameters, and the put that would take the queue past MAXFSIZE refused with
MQRC_Q_SPACE_NOT_AVAILABLE (2056).

mqpy keeps no file per queue: CURFSIZE is what the queue's messages occupy in its store, each
message its data and a fixed overhead (its stored header, MQMD and index entry,
``mqpy.engine.queues.MESSAGE_OVERHEAD``), every message on the queue counted, committed or
not. Embedded queue managers."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import textwrap

import pytest

import mqpy
from mqpy import CMQC, CMQCFC, cmdserver
from mqpy.engine.queues import MAXFSIZE_DEFAULT_MB, MEGABYTE, MESSAGE_OVERHEAD

from ._support import IN, OUT

QUEUE = "FILE.SIZE.Q"
#: a message of a million bytes: three are 2.86 MB with their overhead, shown as 3
MILLION = b"m" * 1_000_000


@pytest.fixture
def fsq(qmgr):
    qmgr.mqsc(f"DEFINE QLOCAL({QUEUE})")
    return qmgr


def _status(qmgr, *keywords: str) -> dict[str, str]:
    lines = qmgr.mqsc(f"DISPLAY QSTATUS({QUEUE}) {' '.join(keywords)}")
    return dict(re.findall(r"(\w+)\(([^)]*)\)", " ".join(lines)))


def _sizes(qmgr) -> tuple[int, int]:
    found = _status(qmgr, "CURFSIZE", "CURMAXFS")
    return int(found["CURFSIZE"]), int(found["CURMAXFS"])


def _put(qm, data: bytes, *, persistent: bool = False, syncpoint: bool = False) -> None:
    md = mqpy.MD(Persistence=CMQC.MQPER_PERSISTENT if persistent
                 else CMQC.MQPER_NOT_PERSISTENT)
    qm.put1(QUEUE, data, md, mqpy.PMO(Options=CMQC.MQPMO_SYNCPOINT if syncpoint
                                      else CMQC.MQPMO_NO_SYNCPOINT))


def test_maxfsize_is_default_until_altered_and_curmaxfs_follows_it(fsq):
    """Given a local queue defined without MAXFSIZE, then DISPLAY QLOCAL shows
    MAXFSIZE(DEFAULT) and DISPLAY QSTATUS CURMAXFS(2088960), IBM's default in megabytes;
    when it is altered to MAXFSIZE(20), then CURMAXFS is 20; a MAXFSIZE below IBM's least (20)
    is refused and changes nothing."""
    shown = " ".join(fsq.mqsc(f"DISPLAY QLOCAL({QUEUE}) MAXFSIZE"))
    default_max = _sizes(fsq)[1]
    fsq.mqsc(f"ALTER QLOCAL({QUEUE}) MAXFSIZE(20)")
    altered = _sizes(fsq)[1]
    refused = " ".join(fsq.mqsc(f"ALTER QLOCAL({QUEUE}) MAXFSIZE(19)"))
    assert "MAXFSIZE(DEFAULT)" in shown
    assert (default_max, altered) == (MAXFSIZE_DEFAULT_MB, 20)
    assert "AMQ8425E" in refused and _sizes(fsq)[1] == 20


def test_curfsize_is_what_the_messages_occupy_rounded_up_to_a_megabyte(fsq):
    """Given an empty queue (CURFSIZE 0), when three messages of a million bytes are put,
    then CURFSIZE is 3 (2.86 MB with each message's overhead, rounded up); when one is got
    under syncpoint, then it still occupies the store (3) until the unit of work commits
    (2); when a fourth is put under syncpoint and backed out, then CURFSIZE is back to 2."""
    qm = fsq.qm
    seen = [_sizes(fsq)[0]]
    for _ in range(3):
        _put(qm, MILLION)
    seen.append(_sizes(fsq)[0])
    q = mqpy.Queue(qm, QUEUE, IN)
    q.get(None, mqpy.MD(), mqpy.GMO(Options=CMQC.MQGMO_SYNCPOINT))
    seen.append(_sizes(fsq)[0])
    qm.commit()
    seen.append(_sizes(fsq)[0])
    _put(qm, MILLION, syncpoint=True)
    seen.append(_sizes(fsq)[0])
    qm.backout()
    seen.append(_sizes(fsq)[0])
    q.close()
    assert 3 * (len(MILLION) + MESSAGE_OVERHEAD) < 3 * MEGABYTE
    assert seen == [0, 3, 3, 2, 3, 2]


def test_curfsize_is_right_after_a_restart(fsq):
    """Given three persistent messages of a million bytes and one non-persistent, when the
    queue manager is stopped and started (the persistent ones read back from the pageset),
    then CURFSIZE counts the three that survive: 3."""
    for _ in range(3):
        _put(fsq.qm, MILLION, persistent=True)
    _put(fsq.qm, MILLION)
    before = _sizes(fsq)[0]
    fsq.restart()
    assert (before, _sizes(fsq)[0]) == (4, 3)


_CRASH = """
import os, signal
import mqpy
from mqpy import CMQC, inprocess
qm = mqpy.embedded("QM1", data_path={root!r}, create=False)
eng = inprocess.running("QM1", {root!r})
md = lambda: mqpy.MD(Persistence=CMQC.MQPER_PERSISTENT)
for _ in range(3):
    qm.put1({queue!r}, b"m" * 1_000_000, md())
eng.data.checkpoint()
qm.put1({queue!r}, b"m" * 1_000_000, md())
q = mqpy.Queue(qm, {queue!r}, CMQC.MQOO_INPUT_AS_Q_DEF)
q.get(None, mqpy.MD(), mqpy.GMO(Options=CMQC.MQGMO_NO_SYNCPOINT))
qm.put1({queue!r}, b"u" * 1_000_000, md(), mqpy.PMO(Options=CMQC.MQPMO_SYNCPOINT))
os.kill(os.getpid(), signal.SIGKILL)
"""


@pytest.mark.system
def test_curfsize_is_right_after_recovery_from_a_kill(fsq):
    """Given three persistent messages of a million bytes on the pageset (a checkpoint),
    then a fourth put and the first got outside syncpoint, and a fifth put under syncpoint
    never committed, when the queue manager's process is killed and started again (the
    pageset's messages loaded, the log's work redone, the uncommitted put undone), then
    CURFSIZE counts the three messages left: 3."""
    fsq.stop()
    script = textwrap.dedent(_CRASH.format(root=fsq.root, queue=QUEUE))
    repo = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    proc = subprocess.run([sys.executable, "-c", script], cwd=repo, capture_output=True,
                          timeout=60)
    assert proc.returncode == -signal.SIGKILL, proc.stderr.decode()
    fsq.start()
    assert (_status(fsq, "CURDEPTH")["CURDEPTH"], _sizes(fsq)[0]) == ("3", 3)


@pytest.fixture
def admin(fsq):
    """A PCF administrator of the queue manager (its command server started)."""
    cmdserver.start_command_server(fsq.name, fsq.root)
    executor = mqpy.PCFExecute(fsq.qm)
    try:
        yield executor
    finally:
        executor.disconnect()
        cmdserver.stop_command_server(fsq.name, fsq.root)


def test_inquire_queue_status_answers_the_file_sizes(fsq, admin):
    """Given MAXFSIZE(20) and three messages of a million bytes, when Inquire Queue Status is
    asked, then CurrentQFileSize (MQIACF_CUR_Q_FILE_SIZE) is 3 and CurrentMaxQFileSize
    (MQIACF_CUR_MAX_FILE_SIZE) is 20, as DISPLAY QSTATUS shows them."""
    fsq.mqsc(f"ALTER QLOCAL({QUEUE}) MAXFSIZE(20)")
    for _ in range(3):
        _put(fsq.qm, MILLION)
    [status] = admin.MQCMD_INQUIRE_Q_STATUS({CMQC.MQCA_Q_NAME: QUEUE.encode()})
    assert (status[CMQCFC.MQIACF_CUR_Q_FILE_SIZE],
            status[CMQCFC.MQIACF_CUR_MAX_FILE_SIZE]) == (3, 20)


def test_maxfsize_is_inquired_and_changed_by_pcf(fsq, admin):
    """Given a queue with MAXFSIZE(DEFAULT), when Inquire Queue asks for it, then
    MaxQFileSize (MQIA_MAX_Q_FILE_SIZE) is MQQFS_DEFAULT (-1); when Change Queue sets it to
    30, then DISPLAY QLOCAL shows MAXFSIZE(30)."""
    [queue] = admin.MQCMD_INQUIRE_Q({CMQC.MQCA_Q_NAME: QUEUE.encode()})
    default = queue.get(CMQC.MQIA_MAX_Q_FILE_SIZE)
    admin.MQCMD_CHANGE_Q({CMQC.MQCA_Q_NAME: QUEUE.encode(), CMQC.MQIA_Q_TYPE: CMQC.MQQT_LOCAL,
                          CMQC.MQIA_MAX_Q_FILE_SIZE: 30})
    assert default == CMQC.MQQFS_DEFAULT
    assert "MAXFSIZE(30)" in " ".join(fsq.mqsc(f"DISPLAY QLOCAL({QUEUE}) MAXFSIZE"))


#: a message of a megabyte (1,048,576 bytes): 19 fit in MAXFSIZE(20) with their overhead
MEGA = b"M" * MEGABYTE


def test_a_put_that_would_pass_maxfsize_fails_alone_with_2056(fsq):
    """Given a queue with MAXFSIZE(20) holding 19 messages of a megabyte (19.9 MB with their
    overhead), when another megabyte is put (MQPUT on an open handle, then MQPUT1), then each
    fails with MQRC_Q_SPACE_NOT_AVAILABLE (2056) and the queue still holds 19; the
    connection works on: a put of a byte still fits, and the unit of work it began commits."""
    fsq.mqsc(f"ALTER QLOCAL({QUEUE}) MAXFSIZE(20)")
    qm = fsq.qm
    q = mqpy.Queue(qm, QUEUE, OUT)
    for _ in range(19):
        q.put(MEGA)
    reasons = []
    for put in (lambda: q.put(MEGA),
                lambda: _put(qm, MEGA, syncpoint=True)):
        with pytest.raises(mqpy.MQMIError) as e:
            put()
        reasons.append(e.value.reason)
    _put(qm, b"b", syncpoint=True)
    qm.commit()
    q.close()
    assert reasons == [CMQC.MQRC_Q_SPACE_NOT_AVAILABLE] * 2
    assert _status(fsq, "CURDEPTH")["CURDEPTH"] == "20"
