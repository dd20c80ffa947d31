"""A cluster of four real queue managers on loopback, built once per module.

QM1 and QM2 are full repositories of cluster INV (explicit CLUSSDRs both ways); QM3 and QM4
are partial repositories, each with one CLUSSDR to QM1. Every queue manager is started by
strmqm (daemon, command server, channel initiator with its repository manager) and defined
with runmqsc, as an operator would. Daemons and channel initiators are killed by pid at
teardown.
"""

from __future__ import annotations

import concurrent.futures
import contextlib
import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterator

import pytest

import mqpy
from mqpy import CMQC, inprocess
from tests.support import waiting
from tests.support.installation import Installation
from tests.support.ports import free_port

NAMES = ("QM1", "QM2", "QM3", "QM4")
CLUSTER = "INV"
#: How long a test waits for a condition: only a failure waits this long, and a loaded
#: machine (a full test run on two busy cores) must not be mistaken for one.
DEADLINE = 90.0
_RUNMQSC = ("import sys; from mqpy_cli.runmqsc import runmqsc; "
            "runmqsc.main(args=sys.argv[1:], prog_name='runmqsc')")


# With CHLAUTH(ENABLED) a receiving channel with a blank MCAUSER runs as the (privileged)
# channel initiator, which IBM's back-stop rule (BLOCKUSER *MQADMIN) refuses; a test network's
# administrator lifts it for its channels, as on a real one.
ADMIT_CHANNELS = "SET CHLAUTH('*') TYPE(BLOCKUSER) USERLIST('nobody') ACTION(REPLACE)"



class Cluster:
    def __init__(self, site: Installation) -> None:
        self.site = site
        self.ports = {name: free_port() for name in NAMES}

    def mqsc(self, qmgr: str, script: str) -> subprocess.CompletedProcess:
        return subprocess.run([sys.executable, "-c", _RUNMQSC, qmgr], input=script, text=True,
                              capture_output=True, env=self.site.env, timeout=120)

    def command(self, qmgr: str, text: str) -> str:
        """One MQSC command through the command server, from this process (as runmqsc sends
        it, without starting an interpreter): the reply lines."""
        from mqpy.mqsc.client import MQSCClient
        from mqpy.mqsc.parser import parse_command

        qm = self.bind(qmgr)
        client = MQSCClient(qm, wait=30)
        try:
            return "\n".join(client.execute(parse_command(text)).lines)
        finally:
            client.close()
            qm.disconnect()

    def pcf(self, qmgr: str, command: int, params: list) -> list:
        """One PCF request on SYSTEM.ADMIN.COMMAND.QUEUE of ``qmgr``'s daemon, as an
        administration tool sends it: the responses (mqpy.pcf.PCFMessage), in order, up to
        the one with MQCFC_LAST."""
        from mqpy import CMQCFC, pcf
        from mqpy.structs.tables import CFH

        qm = self.bind(qmgr)
        reply_name = f"PCF.REPLY.{os.getpid()}.{time.monotonic_ns()}".encode()
        try:
            reply_q = mqpy.Queue(qm, mqpy.OD(ObjectName=b"SYSTEM.DEFAULT.MODEL.QUEUE",
                                             DynamicQName=reply_name),
                                 CMQC.MQOO_INPUT_EXCLUSIVE)
            md = mqpy.MD(Format=CMQC.MQFMT_ADMIN, MsgType=CMQC.MQMT_REQUEST,
                         ReplyToQ=reply_name)
            qm.put1("SYSTEM.ADMIN.COMMAND.QUEUE",
                    pcf.build(pcf.PCFMessage(CFH(Command=command), params)), md)
            out = []
            while not out or out[-1].header.Control != CMQCFC.MQCFC_LAST:
                out.append(pcf.parse(reply_q.get(None, mqpy.MD(CorrelId=md.MsgId), mqpy.GMO(
                    Options=CMQC.MQGMO_WAIT, WaitInterval=60000,
                    MatchOptions=CMQC.MQMO_MATCH_CORREL_ID))))
            reply_q.close()
            return out
        finally:
            qm.disconnect()

    def bind(self, qmgr: str) -> mqpy.QueueManager:
        qm = mqpy.QueueManager(None)
        qm.connect(qmgr, data_path=self.site.root)
        return qm

    def conname(self, qmgr: str) -> str:
        return f"'127.0.0.1({self.ports[qmgr]})'"

    def join_cluster(self, name: str, partner: str, extra: str = "") -> None:
        """Start ``name`` and make it a member of cluster INV as an operator would: a
        listener, its CLUSRCVR, a CLUSSDR to the full repository ``partner`` (QM1 and QM2
        are full repositories), then ``extra`` MQSC."""
        self.start(name)
        # auto-defined cluster senders are made from their partner's CLUSRCVR (IBM; not
        # from SYSTEM.DEF.CLUSSDR, left at its defaults here): its timers retry quickly,
        # and for long enough (15 minutes, as IBM's defaults) that a queue manager a test
        # kills and restarts is never left to LONGTMR's 20 minutes
        out = self.mqsc(name, f"""
            {ADMIT_CHANNELS}
            DEFINE LISTENER(L) TRPTYPE(TCP) PORT({self.ports[name]}) CONTROL(QMGR)
            START LISTENER(L)
            {"ALTER QMGR REPOS(INV)" if name in ("QM1", "QM2") else ""}
            DEFINE CHANNEL(TO.{name}) CHLTYPE(CLUSRCVR) TRPTYPE(TCP) +
                   SHORTTMR(1) SHORTRTY(900) +
                   CONNAME({self.conname(name)}) CLUSTER(INV)
            DEFINE CHANNEL(TO.{partner}) CHLTYPE(CLUSSDR) TRPTYPE(TCP) SHORTTMR(1) +
                   SHORTRTY(900) +
                   CONNAME({self.conname(partner)}) CLUSTER(INV)
            {extra}
        """)
        assert out.returncode == 0, out.stdout

    def start(self, qmgr: str) -> None:
        proc = self.site.run("strmqm", qmgr)
        assert proc.returncode == 0, proc.stdout + proc.stderr

    def kill(self, qmgr: str) -> None:
        """SIGKILL the daemon and its channel initiator."""
        for filename in ("qm.lock", "chinit.pid"):
            try:
                with open(os.path.join(self.site.qmdir(qmgr), filename)) as f:
                    pid = int(f.read().split()[0])
                os.kill(pid, signal.SIGKILL)
            except (OSError, ValueError, IndexError):
                pass
        self.site.wait_ended(qmgr)

    def drain(self, qmgr: str, queue: str) -> list[bytes]:
        qm = self.bind(qmgr)
        out = []
        try:
            q = mqpy.Queue(qm, queue, CMQC.MQOO_INPUT_AS_Q_DEF)
            while True:
                try:
                    out.append(q.get())
                except mqpy.MQMIError as e:
                    assert e.reason == CMQC.MQRC_NO_MSG_AVAILABLE
                    return out
        finally:
            qm.disconnect()

    def running(self, qmgr: str) -> bool:
        return inprocess.is_locked(self.site.qmdir(qmgr))

    def ensure_running(self, qmgr: str) -> None:
        """Start a queue manager a test killed (used in ``finally``: the next test finds the
        cluster as the module built it)."""
        if not self.running(qmgr):
            self.start(qmgr)

    def collect(self, queue: str, want: int, qmgrs: tuple[str, ...] = ("QM2", "QM4"),
                timeout: float = DEADLINE) -> dict[str, list[bytes]]:
        """Get messages from ``queue`` on ``qmgrs`` until ``want`` have been got between
        them (or the deadline passes: what was got, for the caller's assertion). A depth is
        no sign of arrival: CURDEPTH counts a receiving channel's batch before it commits."""
        got: dict[str, list[bytes]] = {name: [] for name in qmgrs}
        deadline = time.monotonic() + timeout
        conns = {name: self.bind(name) for name in qmgrs}
        try:
            queues = {name: mqpy.Queue(qm, queue, CMQC.MQOO_INPUT_AS_Q_DEF)
                      for name, qm in conns.items()}
            while sum(map(len, got.values())) < want and time.monotonic() < deadline:
                for name, q in queues.items():
                    while True:
                        try:
                            got[name].append(q.get(None, mqpy.MD(), mqpy.GMO(
                                Options=CMQC.MQGMO_WAIT, WaitInterval=100)))
                        except mqpy.MQMIError as e:
                            assert e.reason == CMQC.MQRC_NO_MSG_AVAILABLE, e
                            break
        finally:
            for qm in conns.values():
                qm.disconnect()
        return got

    def quiet(self, qmgrs: tuple[str, ...] = NAMES) -> None:
        """Wait until no cluster command is in flight between the module's queue managers:
        their command queues are empty and their cluster transmission queues hold nothing
        for one another (a queue manager a test added and ended may still have some)."""
        channels = {f"TO.{name}" for name in NAMES}

        def empty() -> bool:
            for name in qmgrs:
                if not self.running(name):
                    continue
                if self.depth(name, "SYSTEM.CLUSTER.COMMAND.QUEUE"):
                    return False
                if channels & set(self.keyed(name)):
                    return False
            return True
        wait_for("no cluster command in flight", empty)

    def keyed(self, qmgr: str) -> list[str]:
        """The channels the messages on ``qmgr``'s cluster transmission queue wait for."""
        from mqpy_chinit.cluster.transmitq import waiting_channels

        qm = self.bind(qmgr)
        try:
            xq = mqpy.Queue(qm, "SYSTEM.CLUSTER.TRANSMIT.QUEUE", CMQC.MQOO_BROWSE)
            try:
                return waiting_channels(xq)
            finally:
                xq.close()
        finally:
            qm.disconnect()

    def diagnose(self) -> str:
        """What each queue manager's cluster queues and channel initiator say (for a failed
        assertion's message)."""
        out = []
        for name in self.ports:
            if not self.running(name):
                out.append(f"{name}: not running")
                continue
            depths = {q: self.depth(name, q) for q in ("SYSTEM.CLUSTER.TRANSMIT.QUEUE",
                                                       "SYSTEM.CLUSTER.COMMAND.QUEUE")}
            try:
                with open(os.path.join(self.site.qmdir(name), "errors", "AMQERR01.LOG")) as f:
                    tail = f.read().splitlines()[-8:]
            except OSError:
                tail = []
            out.append(f"{name}: {depths}\n    " + "\n    ".join(tail))
        return "\n".join(out)

    def depth(self, qmgr: str, queue: str) -> int:
        qm = self.bind(qmgr)
        try:
            return mqpy.Queue(qm, queue, CMQC.MQOO_INQUIRE).inquire(CMQC.MQIA_CURRENT_Q_DEPTH)
        finally:
            qm.disconnect()

    def open_output(self, qmgr: str, queue: str, options: int = 0,
                    timeout: float = DEADLINE) -> tuple[mqpy.QueueManager, mqpy.Queue]:
        """MQOPEN a cluster queue, retrying while the partial repository asks for it
        (MQRC_UNKNOWN_OBJECT_NAME at first, seed 001: "retry a put")."""
        deadline = time.monotonic() + timeout
        qm = self.bind(qmgr)
        while True:
            try:
                q = mqpy.Queue(qm, queue, CMQC.MQOO_OUTPUT | options)
                return qm, q
            except mqpy.MQMIError as e:
                if e.reason != CMQC.MQRC_UNKNOWN_OBJECT_NAME or time.monotonic() > deadline:
                    qm.disconnect()
                    raise
            time.sleep(0.2)


def wait_for(what: str, check: Callable[[], object], timeout: float = DEADLINE) -> object:
    """``check``'s first true value, polled every 0.3 s (the cluster's flows are slow)."""
    return waiting.wait_for(check, timeout, what, interval=0.3)


@contextlib.contextmanager
def running_cluster(root: str, net_class: type[Cluster], start: tuple[str, ...],
                    join: Callable[[Cluster, str], None]) -> Iterator[Cluster]:
    """Every queue manager of NAMES created under ``root`` (``net_class`` their harness),
    those of ``start`` made members at once (``join(net, name)``); at the end every
    daemon and channel initiator killed by pid."""
    site = Installation(root)
    site.env.pop("MQPY_NO_CHINIT", None)
    net = net_class(site)
    try:
        for name in NAMES:  # one at a time: crtmqm rewrites mqs.ini
            assert site.run("crtmqm", "-u", "SYSTEM.DEAD.LETTER.QUEUE", name).returncode == 0
        with concurrent.futures.ThreadPoolExecutor(len(start)) as pool:
            for done in [pool.submit(join, net, name) for name in start]:
                done.result()
        yield net
    finally:
        site.kill_all()
        for name in net.ports:  # the channel initiators, PALERMO's included
            try:
                with open(os.path.join(site.qmdir(name), "chinit.pid")) as f:
                    os.kill(int(f.read().split()[0]), signal.SIGKILL)
            except (OSError, ValueError, IndexError):
                pass


_SENDER_TO = {"QM1": "QM2", "QM2": "QM1", "QM3": "QM1", "QM4": "QM1"}


def _member(net: Cluster, name: str) -> None:
    net.join_cluster(name, _SENDER_TO[name], "DEFINE QLOCAL(INVQ) CLUSTER(INV) "
                     "DEFBIND(NOTFIXED)" if name in ("QM2", "QM4") else "")


@pytest.fixture(scope="module")
def cluster(tmp_path_factory):
    with running_cluster(str(tmp_path_factory.mktemp("cluster")), Cluster, NAMES,
                         _member) as net:
        yield net
