"""Two queue managers run as an operator runs them (strmqm: daemons with their channel initiators)
in an installation, joined by a channel: runmqsc, bindings connections, depths, and the
kill-a-daemon scenarios the assured-delivery tests share."""

from __future__ import annotations

import concurrent.futures
import os
import pathlib
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterator

import mqpy
from mqpy import CMQC, config, inprocess
from mqpy_cli import runmqsc
from tests.support.installation import Installation
from tests.support.ports import free_port
from tests.support.waiting import wait_for

_RUNMQSC = ("import sys; from mqpy_cli.runmqsc import runmqsc; "
            "runmqsc.main(args=sys.argv[1:], prog_name='runmqsc')")


def mqsc(site: Installation, qmgr: str, script: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", _RUNMQSC, qmgr], input=script, text=True,
                          capture_output=True, env=site.env, timeout=120)


def mqsc_here(site: Installation, qmgr: str, script: str) -> subprocess.CompletedProcess:
    """``mqsc``'s answer (runmqsc's report and exit code) from runmqsc's own code run in
    this process: the commands go to the daemon's command server as runmqsc sends them,
    without starting an interpreter for each script."""
    lines, code = runmqsc.run_client(qmgr, script, data_path=site.root)
    return subprocess.CompletedProcess(["runmqsc", qmgr], code, "".join(
        line + "\n" for line in lines), "")


def command_server(site: Installation, qmgr: str, script: str) -> list[str]:
    """``mqsc_here``'s report lines; an assertion fails if a command failed."""
    out = mqsc_here(site, qmgr, script)
    assert out.returncode == 0, out.stdout
    return out.stdout.splitlines()


def bind(site: Installation, name: str) -> mqpy.QueueManager:
    qm = mqpy.QueueManager(None)
    qm.connect(name, data_path=site.root)
    return qm


def depth(site: Installation, qmgr: str, queue: str) -> int:
    qm = bind(site, qmgr)
    try:
        return mqpy.Queue(qm, queue, CMQC.MQOO_INQUIRE).inquire(CMQC.MQIA_CURRENT_Q_DEPTH)
    finally:
        qm.disconnect()


N = 1200


def killed_at_end(tmp_path: pathlib.Path) -> Iterator[Installation]:
    """A fixture's body: an installation in ``tmp_path`` whose queue managers run as
    daemons with their channel initiators, every one of them killed by pid at the end
    (nothing for an ``endmqm`` to wait for). A module of such tests:
    ``site = pytest.fixture(killed_at_end, name="site")``."""
    inst = Installation(str(tmp_path))
    inst.env.pop("MQPY_NO_CHINIT", None)
    yield inst
    inst.kill_all()


def _pid(site, name: str, filename: str) -> int:
    with open(os.path.join(site.qmdir(name), filename)) as f:
        return int(f.read().split()[0])


def _start(site, name: str) -> None:
    proc = site.run("strmqm", name)
    assert proc.returncode == 0, proc.stdout + proc.stderr


def _progress(site) -> int:
    try:
        return depth(site, "QM2", "TARGET")
    except mqpy.MQMIError:
        return -1


def _wait_progress(site, beyond: int, timeout: float = 30.0) -> int:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        now = _progress(site)
        if now > beyond or now >= N:  # moved on, or nothing left to move
            return now
        time.sleep(0.05)
    raise AssertionError(f"no progress beyond {beyond} messages")


def all_arrive_once_in_order(site) -> None:
    """The N messages arrive on QM2's TARGET (within 2 minutes), each once and in order,
    and nothing is left on QM1's transmission queue."""
    deadline = time.monotonic() + 120
    while _progress(site) < N:
        assert time.monotonic() < deadline, f"only {_progress(site)} of {N} arrived"
        time.sleep(0.2)
    time.sleep(1.0)  # a duplicate would arrive now, if there were one
    data = drain(site)
    assert len(data) == N, f"{len(data)} messages for {N} sent"
    assert data == [b"%05d" % i for i in range(N)]
    assert depth(site, "QM1", "QM2") == 0


def _put_persistent(site, first: int, count: int) -> None:
    qm = bind(site, "QM1")
    q = mqpy.Queue(qm, "REMOTE", CMQC.MQOO_OUTPUT)
    for i in range(first, first + count):
        q.put(b"%05d" % i, mqpy.MD(Persistence=CMQC.MQPER_PERSISTENT),
              mqpy.PMO(Options=CMQC.MQPMO_SYNCPOINT))
    qm.commit()
    qm.disconnect()


def drain(site, qmgr: str = "QM2") -> list[bytes]:
    """Every message on ``qmgr``'s TARGET, got in order (in one unit of work: a persistent
    message got outside syncpoint forces the log each time)."""
    qm = bind(site, qmgr)
    got = mqpy.Queue(qm, "TARGET", CMQC.MQOO_INPUT_AS_Q_DEF)
    data = []
    while True:
        try:
            data.append(got.get(None, mqpy.MD(), mqpy.GMO(Options=CMQC.MQGMO_SYNCPOINT)))
        except mqpy.MQMIError as e:
            assert e.reason == CMQC.MQRC_NO_MSG_AVAILABLE
            break
    qm.commit()
    qm.disconnect()
    return data


def two_daemons(site, pipeline: int = 0) -> None:
    """QM1 and QM2 made by crtmqm (with SYSTEM.DEAD.LETTER.QUEUE) and started by strmqm,
    each started as soon as it is made (crtmqm, which rewrites mqs.ini, runs one at a
    time). ``pipeline``: QM1's qm.ini Channels: PipeLineLength (0: as crtmqm wrote it)."""
    with concurrent.futures.ThreadPoolExecutor(2) as pool:
        started = []
        for name in ("QM1", "QM2"):
            assert site.run("crtmqm", "-u", "SYSTEM.DEAD.LETTER.QUEUE", name).returncode == 0
            if name == "QM1" and pipeline:
                config.set_channels_value(name, "PipeLineLength", str(pipeline), site.root)
            started.append(pool.submit(_start, site, name))
        for done in started:
            done.result()


def _two_daemons_and_a_triggered_channel(site, batchsz: int, pipeline: int = 0,
                                         through: Callable[[int], int] | None = None,
                                         hbint: int = 300) -> None:
    """QM1 and QM2 started; QM1's transmission queue QM2 triggers SDR C (BATCHSZ
    ``batchsz``, retrying every second) into RCVR C at QM2; REMOTE at QM1 is TARGET at QM2.
    ``pipeline``: QM1's qm.ini Channels: PipeLineLength (0: as crtmqm wrote it).
    ``through``: given QM2's listener port, the port SDR C is to call instead (a proxy).
    ``hbint``: C's heartbeat interval (IBM's default 300 s)."""
    port = free_port()
    conname_port = through(port) if through is not None else port
    two_daemons(site, pipeline)
    # the receiver runs as the (privileged) channel initiator: SET CHLAUTH lifts the
    # default *MQADMIN BLOCKUSER rule for that channel, as an MQ administrator does
    command_server(site, "QM2", f"""
        DEFINE LISTENER(L) TRPTYPE(TCP) PORT({port}) CONTROL(QMGR)
        START LISTENER(L)
        DEFINE CHANNEL(C) CHLTYPE(RCVR) HBINT({hbint})
        SET CHLAUTH('C') TYPE(BLOCKUSER) USERLIST('nobody')
        DEFINE QLOCAL(TARGET) MAXDEPTH(100000)
    """)
    command_server(site, "QM1", f"""
        DEFINE QLOCAL(QM2) USAGE(XMITQ) MAXDEPTH(100000) TRIGGER TRIGTYPE(FIRST) +
               INITQ(SYSTEM.CHANNEL.INITQ) TRIGDATA(C)
        DEFINE CHANNEL(C) CHLTYPE(SDR) CONNAME('127.0.0.1({conname_port})') XMITQ(QM2) +
               BATCHSZ({batchsz}) SHORTRTY(1000) SHORTTMR(1) DISCINT(0) HBINT({hbint})
        DEFINE QREMOTE(REMOTE) RNAME(TARGET) RQMNAME(QM2) XMITQ(QM2)
    """)


def idle_then_killed(site, count: int, pipeline: int = 0) -> list[bytes]:
    """``count`` persistent messages moved by the channel C (BATCHSZ 10; QM1's
    PipeLineLength ``pipeline``), its transmission queue drained, then QM1 killed with
    SIGKILL (daemon and channel initiator): the in-doubt units of work QM1 restarts with."""
    _two_daemons_and_a_triggered_channel(site, batchsz=10, pipeline=pipeline)
    _put_persistent(site, 0, count)
    wait_for(lambda: _progress(site) == count and depth(site, "QM1", "QM2") == 0, 60)
    # the sender's commit, now in memory, has its force well within this (runmqsc is not
    # used to look: its reply queue's definition would force the log itself)
    time.sleep(0.5)
    os.kill(_pid(site, "QM1", "qm.lock"), signal.SIGKILL)
    os.kill(_pid(site, "QM1", "chinit.pid"), signal.SIGKILL)
    time.sleep(0.3)
    eng = inprocess.start("QM1", site.root)
    try:
        return eng.indoubt()
    finally:
        inprocess.stop("QM1", site.root)
