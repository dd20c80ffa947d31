"""The chaos run's network of queue managers, built and run as an operator does.

Three queue managers in one installation, each started by strmqm (daemon, command server,
channel initiator), defined with MQSC, with a CONTROL(QMGR) listener for channels and a
runmqlsr process of its own for client applications (both on free 127.0.0.1 ports).
Every channel into a queue manager calls its link (tests.chaos.faultproxy), never its
listener directly, so a link's faults reach every channel to it. With hosts of their own
(tests.chaos.netns: as root), a link calls a runmqlsr inside the queue manager's network
namespace, across its veth pair, where traffic control delays, drops, reorders or
partitions the channels' TCP:

- QMA -> QMB: sender/receiver A.TO.B (transmission queue QMB, triggered) carrying RQ.B
  (DEST.B at QMB), RQ.NOSUCH (a queue QMB does not have: dead-lettered) and RQ.REQ
  (requests, REQ.B at QMB); QMB -> QMA: B.TO.A (transmission queue QMA) carrying replies to
  REPLY.A;
- cluster CHAOS: QMB and QMC full repositories, QMA a partial one; CQ is clustered on QMB and
  QMC (DEFBIND NOTFIXED), put to at QMA;
- QMB runs a dead-letter handler (runmqdlq) that forwards what was dead-lettered for
  NOSUCH.Q with MQRC_UNKNOWN_OBJECT_NAME to PARKED, the MQDLH kept.

Processes are recorded by pid and killed by pid at teardown.
"""

from __future__ import annotations

import concurrent.futures
import os
import signal
import subprocess
import sys
import time

import mqpy
from mqpy import CMQC, config, inprocess
from mqpy.mqsc.client import MQSCClient
from mqpy.mqsc.parser import parse_command
from tests.chaos.faultproxy import LinkProxy
from tests.chaos.netns import Hosts
from tests.support import daemon_pair
from tests.support.installation import Installation, chinit_command, gone
from tests.support.ports import free_port
from tests.support.waiting import wait_for

NAMES = ("QMA", "QMB", "QMC")
CLUSTER = "CHAOS"
SVRCONN = "CHAOS.SVRCONN"
DLQ = "SYSTEM.DEAD.LETTER.QUEUE"
#: transmission queues that must drain: (qmgr, queue)
XMITQS = (("QMA", "QMB"), ("QMB", "QMA"),
          *((name, "SYSTEM.CLUSTER.TRANSMIT.QUEUE") for name in NAMES))
#: the queues messages end on: (qmgr, queue)
FINAL_QUEUES = (("QMB", "DEST.B"), ("QMB", "CQ"), ("QMC", "CQ"), ("QMB", "REQ.B"),
                ("QMA", "REPLY.A"), ("QMB", "PARKED"), *((name, DLQ) for name in NAMES))
DLQ_RULES = (f"INPUTQ({DLQ}) INPUTQM(QMB) WAIT(YES) RETRYINT(5)\n"
             "DESTQ(NOSUCH.Q) REASON(MQRC_UNKNOWN_OBJECT_NAME) ACTION(FWD) FWDQ(PARKED) "
             "HEADER(YES)\n")
_RUNMQDLQ = ("import sys; from mqpy_cli.runmqdlq import runmqdlq; "
             "runmqdlq.main(args=sys.argv[1:], prog_name='runmqdlq')")
#: channels retry every second, for as long as a run lasts; heartbeats find a silent link
_TIMERS = "SHORTTMR(1) SHORTRTY(999999999) HBINT(5)"
_ADMIT = """
SET CHLAUTH('*') TYPE(BLOCKUSER) USERLIST('nobody') ACTION(REPLACE)
ALTER AUTHINFO(SYSTEM.DEFAULT.AUTHINFO.IDPWOS) AUTHTYPE(IDPWOS) CHCKCLNT(NONE)
REFRESH SECURITY TYPE(CONNAUTH)
"""
#: each queue manager's qm.ini QMErrorLog stanza
QMERRORLOG = (("SuppressMessage", "9544"), ("SuppressInterval", "30"))
_CLUSTER_PARTNER = {"QMA": "QMB", "QMB": "QMC", "QMC": "QMB"}


class Topology:
    def __init__(self, root: str, hosts: Hosts | None = None) -> None:
        self.site = Installation(root)
        self.site.env.pop("MQPY_NO_CHINIT", None)
        self.hosts = hosts
        self.ports = {name: free_port() for name in NAMES}  # channel listeners
        self.app_ports = {name: free_port() for name in NAMES}  # runmqlsr, for clients
        self.links = {name: LinkProxy(name, self.ports[name],
                                      hosts[name].addr if hosts else "127.0.0.1")
                      for name in NAMES}
        self.listeners: dict[str, subprocess.Popen] = {}
        #: the channel listeners inside the namespaces (with hosts)
        self.hosted: dict[str, subprocess.Popen] = {}
        self.dlq_handler: subprocess.Popen | None = None

    # -- building ----------------------------------------------------------------------

    def build(self) -> None:
        for link in self.links.values():
            link.start()
        for name in NAMES:  # one at a time: crtmqm rewrites mqs.ini
            proc = self.site.run("crtmqm", "-u", DLQ, name)
            assert proc.returncode == 0, proc.stdout + proc.stderr
            self.suppress_dead_letter_entries(name)
        with concurrent.futures.ThreadPoolExecutor(len(NAMES)) as pool:
            for done in [pool.submit(self._define, name) for name in NAMES]:
                done.result()
        for name in NAMES:
            self.start_listener(name)
            if self.hosts is not None:
                self.start_hosted_listener(name)
        self.start_dlq_handler()

    def conname(self, name: str) -> str:
        return f"'127.0.0.1({self.links[name].port})'"

    def suppress_dead_letter_entries(self, name: str) -> None:
        """What an operator of a network that dead-letters steadily writes in qm.ini before
        strmqm: AMQ9544W (a receiving channel put a message to the dead-letter queue) once
        per SuppressInterval rather than once a message (IBM's QMErrorLog stanza)."""
        ini = os.path.join(self.site.qmdir(name), "qm.ini")
        stanzas = [(n, v) for n, v in config.read_stanzas(ini) if n != "QMErrorLog"]
        config.write_stanzas(ini, [*stanzas, ("QMErrorLog", dict(QMERRORLOG))])

    def _define(self, name: str) -> None:
        self.strmqm(name)
        repos = "ALTER QMGR REPOS(CHAOS)" if name != "QMA" else ""
        partner = _CLUSTER_PARTNER[name]
        script = _ADMIT + f"""
DEFINE LISTENER(L) TRPTYPE(TCP) PORT({self.ports[name]}) IPADDR(127.0.0.1) CONTROL(QMGR)
START LISTENER(L)
DEFINE CHANNEL({SVRCONN}) CHLTYPE(SVRCONN)
{repos}
DEFINE CHANNEL(TO.{name}) CHLTYPE(CLUSRCVR) TRPTYPE(TCP) {_TIMERS} +
       CONNAME({self.conname(name)}) CLUSTER({CLUSTER})
DEFINE CHANNEL(TO.{partner}) CHLTYPE(CLUSSDR) TRPTYPE(TCP) {_TIMERS} +
       CONNAME({self.conname(partner)}) CLUSTER({CLUSTER})
""" + _OWN[name].format(a=self.conname("QMA"), b=self.conname("QMB"), timers=_TIMERS)
        out = self.mqsc(name, script)
        assert out.returncode == 0, out.stdout + out.stderr

    # -- operating ---------------------------------------------------------------------

    def mqsc(self, name: str, script: str) -> subprocess.CompletedProcess:
        """runmqsc, as an operator runs it."""
        return daemon_pair.mqsc(self.site, name, script)

    def command(self, name: str, text: str, wait: float = 30) -> str:
        """One MQSC command through ``name``'s command server, from this process: the reply
        lines."""
        qm = self.bind(name)
        try:
            client = MQSCClient(qm, wait=wait)
            try:
                return "\n".join(client.execute(parse_command(text)).lines)
            finally:
                client.close()
        finally:
            qm.disconnect()

    def bind(self, name: str) -> mqpy.QueueManager:
        return daemon_pair.bind(self.site, name)

    def depth(self, name: str, queue: str) -> int:
        return daemon_pair.depth(self.site, name, queue)

    def running(self, name: str) -> bool:
        return inprocess.is_locked(self.site.qmdir(name))

    def strmqm(self, name: str) -> None:
        proc = self.site.run("strmqm", name, timeout=120)
        assert proc.returncode == 0, proc.stdout + proc.stderr

    def start_listener(self, name: str) -> None:
        """runmqlsr on ``name``'s client port, as an operator starts it."""
        self.listeners[name] = subprocess.Popen(
            chinit_command(self.site, "runmqlsr", "-m", name, "-t", "TCP", "-i", "127.0.0.1",
                           "-p", str(self.app_ports[name])),
            env=self.site.env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)

    def start_hosted_listener(self, name: str) -> None:
        """runmqlsr inside ``name``'s namespace, on its address and channel port: where
        ``name``'s link calls (its bindings connection is a Unix socket, which namespaces
        do not separate)."""
        assert self.hosts is not None
        self.hosted[name] = subprocess.Popen(
            self.hosts.exec_in(name, chinit_command(
                self.site, "runmqlsr", "-m", name, "-t", "TCP", "-i", self.hosts[name].addr,
                "-p", str(self.ports[name]))),
            env=self.site.env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)

    def start_dlq_handler(self) -> None:
        self.dlq_handler = subprocess.Popen(
            [sys.executable, "-c", _RUNMQDLQ, "-m", "QMB"], env=self.site.env, text=True,
            stdin=subprocess.PIPE, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        self.dlq_handler.stdin.write(DLQ_RULES)
        self.dlq_handler.stdin.close()

    def daemon_pid(self, name: str) -> int | None:
        return self.site.pid(name) if self.running(name) else None

    def kill_daemon(self, name: str) -> int | None:
        """SIGKILL ``name``'s daemon; its pid (forgotten by the installation, which would
        kill it again at teardown, when another process may have it)."""
        pid = self.daemon_pid(name)
        if pid is None:
            return None
        kill(pid)
        self.site.pids.discard(pid)
        self.site.wait_ended(name, 30)
        return pid

    def heal(self) -> list[str]:
        """What an operator does after a failure: start what is not running (a queue
        manager, a listener, the dead-letter handler). What was restarted."""
        done = []
        for name in NAMES:
            if not self.running(name):
                self.strmqm(name)
                done.append(f"strmqm {name}")
            if self.listeners[name].poll() is not None:
                self.start_listener(name)
                done.append(f"runmqlsr {name}")
            if name in self.hosted and self.hosted[name].poll() is not None:
                self.start_hosted_listener(name)
                done.append(f"runmqlsr {name} (its namespace)")
        if self.dlq_handler is not None and self.dlq_handler.poll() is not None:
            self.start_dlq_handler()
            done.append("runmqdlq QMB")
        return done

    def processes(self) -> dict[str, int]:
        """Every process of the network now: label -> pid."""
        out = {}
        for name in NAMES:
            if (pid := self.daemon_pid(name)) is not None:
                out[f"{name}.daemon"] = pid
            if (pid := self.site.chinit_pid(name)) is not None:
                out[f"{name}.chinit"] = pid
            if self.listeners.get(name) is not None and self.listeners[name].poll() is None:
                out[f"{name}.runmqlsr"] = self.listeners[name].pid
            if name in self.hosted and self.hosted[name].poll() is None:
                out[f"{name}.runmqlsr.ns"] = self.hosted[name].pid
        if self.dlq_handler is not None and self.dlq_handler.poll() is None:
            out["QMB.runmqdlq"] = self.dlq_handler.pid
        return out

    def wait_cluster_queue_known(self, timeout: float = 120) -> None:
        """QMA's partial repository has learnt CQ (MQOPEN stops answering 2085)."""
        def known() -> bool:
            qm = self.bind("QMA")
            try:
                mqpy.Queue(qm, "CQ", CMQC.MQOO_OUTPUT).close()
                return True
            except mqpy.MQMIError as e:
                assert e.reason == CMQC.MQRC_UNKNOWN_OBJECT_NAME, e
                return False
            finally:
                qm.disconnect()
        wait_for(known, timeout, "QMA to learn the cluster queue CQ", interval=0.5)

    def teardown(self) -> None:
        for proc in [*self.listeners.values(), *self.hosted.values(), self.dlq_handler]:
            if proc is not None and proc.poll() is None:
                proc.kill()
                proc.wait(10)
        self.site.kill_all()
        for link in self.links.values():
            link.stop()


def kill(pid: int) -> None:
    """SIGKILL ``pid`` and wait until it has ended."""
    try:
        os.kill(pid, signal.SIGKILL)
    except ProcessLookupError:
        return
    try:
        os.waitpid(pid, 0)
    except ChildProcessError:  # not ours (a daemon strmqm started): watch it end
        deadline = time.monotonic() + 10
        while not gone(pid) and time.monotonic() < deadline:
            time.sleep(0.02)


#: each queue manager's own objects (after the cluster's)
_OWN = {
    "QMA": """
DEFINE QLOCAL(QMB) USAGE(XMITQ) MAXDEPTH(100000) TRIGGER TRIGTYPE(FIRST) +
       INITQ(SYSTEM.CHANNEL.INITQ) TRIGDATA(A.TO.B)
DEFINE CHANNEL(A.TO.B) CHLTYPE(SDR) CONNAME({b}) XMITQ(QMB) BATCHSZ(20) {timers}
DEFINE CHANNEL(B.TO.A) CHLTYPE(RCVR)
DEFINE QREMOTE(RQ.B) RNAME(DEST.B) RQMNAME(QMB) XMITQ(QMB)
DEFINE QREMOTE(RQ.NOSUCH) RNAME(NOSUCH.Q) RQMNAME(QMB) XMITQ(QMB)
DEFINE QREMOTE(RQ.REQ) RNAME(REQ.B) RQMNAME(QMB) XMITQ(QMB)
DEFINE QLOCAL(REPLY.A) MAXDEPTH(100000)
""",
    "QMB": """
DEFINE CHANNEL(A.TO.B) CHLTYPE(RCVR)
DEFINE QLOCAL(QMA) USAGE(XMITQ) MAXDEPTH(100000) TRIGGER TRIGTYPE(FIRST) +
       INITQ(SYSTEM.CHANNEL.INITQ) TRIGDATA(B.TO.A)
DEFINE CHANNEL(B.TO.A) CHLTYPE(SDR) CONNAME({a}) XMITQ(QMA) BATCHSZ(20) {timers}
DEFINE QLOCAL(DEST.B) MAXDEPTH(100000)
DEFINE QLOCAL(REQ.B) MAXDEPTH(100000)
DEFINE QLOCAL(PARKED) MAXDEPTH(100000)
DEFINE QLOCAL(CQ) CLUSTER(CHAOS) DEFBIND(NOTFIXED) MAXDEPTH(100000)
""",
    "QMC": """
DEFINE QLOCAL(CQ) CLUSTER(CHAOS) DEFBIND(NOTFIXED) MAXDEPTH(100000)
""",
}
