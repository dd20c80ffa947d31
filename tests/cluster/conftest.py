"""A cluster of four real queue managers on loopback, built once per module.

QM1 and QM2 are full repositories of cluster INV (explicit CLUSSDRs both ways); QM3 and QM4
are partial repositories, each with one CLUSSDR to QM1. Every queue manager is started by
strmqm (daemon, command server, channel initiator with its repository manager) and defined
with runmqsc, as an operator would. Daemons and channel initiators are killed by pid at
teardown.
"""

from __future__ import annotations

import concurrent.futures
import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Callable

import pytest

import mqpy
from mqpy import CMQC

from ..daemon.conftest import Installation

NAMES = ("QM1", "QM2", "QM3", "QM4")
CLUSTER = "INV"
_RUNMQSC = ("import sys; from mqpy_cli.runmqsc import runmqsc; "
            "runmqsc.main(args=sys.argv[1:], prog_name='runmqsc')")


# With CHLAUTH(ENABLED) a receiving channel with a blank MCAUSER runs as the (privileged)
# channel initiator, which IBM's back-stop rule (BLOCKUSER *MQADMIN) refuses; a test network's
# administrator lifts it for its channels, as on a real one.
ADMIT_CHANNELS = "SET CHLAUTH('*') TYPE(BLOCKUSER) USERLIST('nobody') ACTION(REPLACE)"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


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
        from mqpy.mqsc.parser import parse_command
        from mqpy_cli.runmqsc import MQSCClient

        qm = self.bind(qmgr)
        client = MQSCClient(qm, wait=30)
        try:
            return "\n".join(client.execute(parse_command(text)).lines)
        finally:
            client.close()
            qm.disconnect()

    def bind(self, qmgr: str) -> mqpy.QueueManager:
        qm = mqpy.QueueManager(None)
        qm.connect(qmgr, data_path=self.site.root)
        return qm

    def conname(self, qmgr: str) -> str:
        return f"'127.0.0.1({self.ports[qmgr]})'"

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

    def depth(self, qmgr: str, queue: str) -> int:
        qm = self.bind(qmgr)
        try:
            return mqpy.Queue(qm, queue, CMQC.MQOO_INQUIRE).inquire(CMQC.MQIA_CURRENT_Q_DEPTH)
        finally:
            qm.disconnect()

    def open_output(self, qmgr: str, queue: str, options: int = 0,
                    timeout: float = 30.0) -> tuple[mqpy.QueueManager, mqpy.Queue]:
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


def wait_for(what: str, check: Callable[[], object], timeout: float = 30.0) -> object:
    deadline = time.monotonic() + timeout
    while True:
        result = check()
        if result:
            return result
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(0.3)


@pytest.fixture(scope="module")
def cluster(tmp_path_factory):
    site = Installation(str(tmp_path_factory.mktemp("cluster")))
    site.env.pop("MQPY_NO_CHINIT", None)
    net = Cluster(site)
    sender_to = {"QM1": "QM2", "QM2": "QM1", "QM3": "QM1", "QM4": "QM1"}

    def build(name: str) -> None:
        net.start(name)
        # auto-defined cluster senders take SYSTEM.DEF.CLUSSDR's timers: retry quickly
        partner = sender_to[name]
        out = net.mqsc(name, f"""
            {ADMIT_CHANNELS}
            DEFINE LISTENER(L) TRPTYPE(TCP) PORT({net.ports[name]}) CONTROL(QMGR)
            START LISTENER(L)
            ALTER CHANNEL(SYSTEM.DEF.CLUSSDR) CHLTYPE(CLUSSDR) SHORTTMR(1)
            {"ALTER QMGR REPOS(INV)" if name in ("QM1", "QM2") else ""}
            DEFINE CHANNEL(TO.{name}) CHLTYPE(CLUSRCVR) TRPTYPE(TCP) +
                   CONNAME({net.conname(name)}) CLUSTER(INV)
            DEFINE CHANNEL(TO.{partner}) CHLTYPE(CLUSSDR) TRPTYPE(TCP) SHORTTMR(1) +
                   CONNAME({net.conname(partner)}) CLUSTER(INV)
            {"DEFINE QLOCAL(INVQ) CLUSTER(INV) DEFBIND(NOTFIXED)"
             if name in ("QM2", "QM4") else ""}
        """)
        assert out.returncode == 0, out.stdout

    try:
        for name in NAMES:  # one at a time: crtmqm rewrites mqs.ini
            assert site.run("crtmqm", "-u", "SYSTEM.DEAD.LETTER.QUEUE", name).returncode == 0
        with concurrent.futures.ThreadPoolExecutor(len(NAMES)) as pool:
            for done in [pool.submit(build, name) for name in NAMES]:
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
