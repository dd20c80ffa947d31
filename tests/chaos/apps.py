"""The chaos run's applications, each a process of its own (so that it can be killed):
producers, consumers, a requester and a responder. Each appends what it does to a history
file, line-buffered (a SIGKILL loses no line it wrote), before and after every unit of work:

    p <uow> <dest> <id>...     put these ids to dest in unit of work uow (not yet committed)
    g <uow> <where> <id>...    got these ids from where (qmgr/queue) in uow
    C <uow> | B <uow> | U <uow>   uow committed | backed out | outcome unknown (MQCMIT failed)
    L <ms> <time>              a committed unit of work took this long (first MQPUT or MQGET
                               to MQCMIT), ending at this time (seconds since the epoch)
    M <time> <ms>...           a producer's committed unit of work: each message's put
                               latency, from its MQPUT to the end of the MQCMIT

A unit of work whose connection broke before MQCMIT was backed out by the queue manager
(B); one with no resolution line was ended by a kill (its puts and gets roll back, unless
the kill fell between MQCMIT and the line: the checker counts those as unknown too).
Message ids are ``<stream>.<seq>``: stream is the instance (name and restart number), seq
counts its messages, so per-channel order is read from the ids.

A producer's pace is the run's pace file (CHAOS_PACE names it), read before every unit of
work: absent or empty, its own (20-200 ms between units of work); ``max``, as fast as it
can (the run's calibration); a number, that many messages a second.

Run: python -m tests.chaos.apps ROLE NAME HISTORY STOPFILE SEED QMGR DATA_PATH [CONNAME]
(CONNAME: a client connection through that listener, else bindings).
"""

from __future__ import annotations

import os
import random
import sys
import time

import mqpy
from mqpy import CMQC
from mqpy.structs.tables import DLH

SVRCONN = "CHAOS.SVRCONN"
PREFIX = b"CHAOS|"
#: where producers put (weights): the remote queue over the sender channel, the clustered
#: queue, and a remote queue whose target does not exist (dead-lettered, 2085, forwarded by
#: the dead-letter handler to PARKED)
DESTINATIONS = {"RQ.B": 45, "CQ": 45, "RQ.NOSUCH": 4}
#: the queues' own names at their final destination, for the history
FINAL = {"RQ.B": "DEST.B", "CQ": "CQ", "RQ.NOSUCH": "NOSUCH.Q", "RQ.REQ": "REQ.B",
         "REPLY.A": "REPLY.A"}
BROKEN = (CMQC.MQRC_CONNECTION_BROKEN, CMQC.MQRC_Q_MGR_NOT_AVAILABLE,
          CMQC.MQRC_Q_MGR_STOPPING, CMQC.MQRC_CONNECTION_QUIESCING,
          CMQC.MQRC_Q_MGR_QUIESCING, CMQC.MQRC_HOST_NOT_AVAILABLE, CMQC.MQRC_HCONN_ERROR,
          CMQC.MQRC_CONNECTION_STOPPING, CMQC.MQRC_HOBJ_ERROR)


def body(ident: str, rng: random.Random) -> bytes:
    return PREFIX + ident.encode() + b"|" + b"x" * rng.randint(50, 2000)


def dead_letter_reason(data: bytes) -> str:
    """``#reason`` for a message behind a dead-letter header (MQDLH), else ``""``."""
    if data[:4] != CMQC.MQDLH_STRUC_ID:
        return ""
    return f"#{DLH.from_bytes(data[:CMQC.MQDLH_LENGTH_1]).Reason}"


def ident_of(data: bytes) -> str | None:
    """The id in a message's data (behind any header), or None: not one of ours."""
    at = data.find(PREFIX)
    if at < 0:
        return None
    return data[at + len(PREFIX):].split(b"|", 1)[0].decode()


class App:
    def __init__(self, argv: list[str]) -> None:
        self.role, self.name, history, self.stopfile, seed, self.qmgr, self.root = argv[:7]
        self.conname = argv[7] if len(argv) > 7 else ""
        self.rng = random.Random(f"{seed}/{self.name}")
        self.log = open(history, "a", buffering=1)
        self.seq = 0
        self.uow = 0
        self.qm: mqpy.QueueManager | None = None
        self.queues: dict[str, mqpy.Queue] = {}
        self.due = time.monotonic()  # when a paced producer's next unit of work is due

    def note(self, *words: object) -> None:
        self.log.write(" ".join(map(str, words)) + "\n")

    def stopping(self) -> bool:
        return os.path.exists(self.stopfile)

    def next_id(self) -> str:
        self.seq += 1
        return f"{self.name}.{self.seq}"

    def connect(self) -> mqpy.QueueManager:
        while self.qm is None:
            try:
                if self.conname:
                    self.qm = mqpy.connect(self.qmgr, SVRCONN, self.conname)
                else:
                    qm = mqpy.QueueManager(None)
                    qm.connect(self.qmgr, data_path=self.root)
                    self.qm = qm
            except mqpy.MQMIError as e:
                self.note("e", "connect", e.reason)
                if self.stopping():
                    raise SystemExit(0) from e
                time.sleep(0.5)
        return self.qm

    def queue(self, name: str, options: int) -> mqpy.Queue:
        if name not in self.queues:
            self.queues[name] = mqpy.Queue(self.connect(), name, options)
        return self.queues[name]

    def drop(self) -> None:
        """The connection broke: forget it (its unit of work backed out first, should it
        still be there: MQDISC would commit it)."""
        qm, self.qm, self.queues = self.qm, None, {}
        for call in ("backout", "disconnect"):
            try:
                if qm is not None:
                    getattr(qm, call)()
            except Exception:  # noqa: BLE001 - a broken connection says so in many ways
                pass
        time.sleep(0.3)

    def commit(self, uow: int, started: float, backout: bool = False,
               puts: list[float] = ()) -> None:
        """MQCMIT (or MQBACK), noted; ``puts``: when each message's MQPUT began (monotonic),
        for their put latencies."""
        qm = self.connect()
        if backout:
            qm.backout()
            self.note("B", uow)
            return
        try:
            qm.commit()
        except mqpy.MQMIError as e:
            self.note("B" if e.reason == CMQC.MQRC_BACKED_OUT else "U", uow)
            if e.reason != CMQC.MQRC_BACKED_OUT:
                self.drop()
            return
        ended = time.monotonic()
        self.note("C", uow)
        self.note("L", round((ended - started) * 1000, 2), round(time.time(), 1))
        if puts:
            self.note("M", round(time.time(), 1),
                      *(round((ended - began) * 1000, 1) for began in puts))

    def pace(self) -> float | None:
        """Messages a second this producer is held to: None its own pace, 0 flat out."""
        try:
            with open(os.environ.get("CHAOS_PACE", "")) as f:
                text = f.read().strip()
        except OSError:
            return None
        if not text:
            return None
        return 0.0 if text == "max" else float(text)

    def wait_turn(self, sent: int) -> None:
        """Between a producer's units of work: its own pause, none, or what holds it to its
        pace (a producer held up by a fault does not burst more than a second's worth)."""
        rate = self.pace()
        if rate is None:
            time.sleep(self.rng.uniform(0.02, 0.2))
        elif rate > 0:
            self.due = max(self.due + sent / rate, time.monotonic() - 1.0)
            time.sleep(max(0.0, self.due - time.monotonic()))

    def run(self) -> None:
        self.note("S", self.role, os.getpid())
        step = getattr(self, self.role)
        while not self.stopping():
            self.uow += 1
            try:
                step(self.uow)
            except mqpy.MQMIError as e:
                self.note("e", self.role, e.reason)
                if e.reason in BROKEN:
                    self.note("B", self.uow)  # never committed: the queue manager backs out
                    self.drop()
                else:
                    try:
                        self.connect().backout()
                    except mqpy.MQMIError:
                        self.drop()
                    self.note("B", self.uow)
                    time.sleep(0.2)
        self.note("E")
        if self.qm is not None:
            self.qm.disconnect()

    # -- roles -----------------------------------------------------------------------------

    def producer(self, uow: int) -> None:
        """One unit of work of 1-20 persistent puts to one destination; one in ten backed
        out on purpose."""
        dest = self.rng.choices(list(DESTINATIONS), list(DESTINATIONS.values()))[0]
        try:
            q = self.queue(dest, CMQC.MQOO_OUTPUT)
        except mqpy.MQMIError as e:
            if e.reason != CMQC.MQRC_UNKNOWN_OBJECT_NAME:  # the cluster queue not known yet
                raise
            time.sleep(0.5)
            return
        ids = [self.next_id() for _ in range(self.rng.randint(1, 20))]
        self.note("p", uow, FINAL[dest], *ids)
        started = time.monotonic()
        puts = []
        for ident in ids:
            puts.append(time.monotonic())
            q.put(body(ident, self.rng), mqpy.MD(Persistence=CMQC.MQPER_PERSISTENT),
                  mqpy.PMO(Options=CMQC.MQPMO_SYNCPOINT))
        self.commit(uow, started, backout=self.rng.random() < 0.1, puts=puts)
        self.wait_turn(len(ids))

    def consumer(self, uow: int) -> None:
        """Up to 10 gets under syncpoint from one of this consumer's queues (QUEUES: a
        comma-separated environment value), a random one first, the next ones if it is
        empty, waiting only on the last; one unit of work in seven backed out. A
        dead-lettered message (forwarded with its MQDLH) is noted with the header's reason."""
        names = os.environ["CHAOS_QUEUES"].split(",")
        first, most = self.rng.randrange(len(names)), self.rng.randint(1, 10)
        for turn in range(len(names)):
            name = names[(first + turn) % len(names)]
            q = self.queue(name, CMQC.MQOO_INPUT_SHARED)
            ids, started = self.get_some(q, most, wait=300 if turn == len(names) - 1 else 0)
            if ids:
                break
        else:
            return
        for where, some in _by_place(f"{self.qmgr}/{name}", ids).items():
            self.note("g", uow, where, *some)
        self.commit(uow, started, backout=self.rng.random() < 0.15)

    def get_some(self, q: mqpy.Queue, most: int, wait: int = 300) -> tuple[list[str], float]:
        """Up to ``most`` messages got under syncpoint, each get waiting ``wait`` ms at most:
        their ids (``id#reason`` behind a dead-letter header), and when the first get
        began."""
        ids: list[str] = []
        started = time.monotonic()
        for _ in range(most):
            try:
                data = q.get(None, mqpy.MD(), mqpy.GMO(
                    Options=CMQC.MQGMO_SYNCPOINT | CMQC.MQGMO_WAIT, WaitInterval=wait))
            except mqpy.MQMIError as e:
                if e.reason != CMQC.MQRC_NO_MSG_AVAILABLE:
                    raise
                break
            ids.append((ident_of(data) or "?") + dead_letter_reason(data))
        return ids, started

    def requester(self, uow: int) -> None:
        """A request (1-3 messages, reply to REPLY.A here) put and committed, then any
        replies got and committed."""
        q = self.queue("RQ.REQ", CMQC.MQOO_OUTPUT)
        ids = [self.next_id() for _ in range(self.rng.randint(1, 3))]
        self.note("p", uow, FINAL["RQ.REQ"], *ids)
        started = time.monotonic()
        for ident in ids:
            q.put(body(ident, self.rng), mqpy.MD(
                Persistence=CMQC.MQPER_PERSISTENT, MsgType=CMQC.MQMT_REQUEST,
                ReplyToQ=b"REPLY.A", ReplyToQMgr=self.qmgr.encode()),
                mqpy.PMO(Options=CMQC.MQPMO_SYNCPOINT))
        self.commit(uow, started)
        self.uow += 1
        replies, started = self.get_some(self.queue("REPLY.A", CMQC.MQOO_INPUT_SHARED), 10)
        if replies:
            self.note("g", self.uow, f"{self.qmgr}/REPLY.A", *replies)
            self.commit(self.uow, started)
        time.sleep(self.rng.uniform(0.05, 0.3))

    def responder(self, uow: int) -> None:
        """One request got and its reply put in one unit of work."""
        q = self.queue("REQ.B", CMQC.MQOO_INPUT_SHARED)
        md = mqpy.MD()
        try:
            data = q.get(None, md, mqpy.GMO(
                Options=CMQC.MQGMO_SYNCPOINT | CMQC.MQGMO_WAIT, WaitInterval=300))
        except mqpy.MQMIError as e:
            if e.reason != CMQC.MQRC_NO_MSG_AVAILABLE:
                raise
            return
        started = time.monotonic()
        request = ident_of(data) or "?"
        self.note("g", uow, f"{self.qmgr}/REQ.B", request)
        reply = self.next_id()
        self.note("p", uow, "REPLY.A", reply)
        od = mqpy.OD(ObjectName=md.ReplyToQ, ObjectQMgrName=md.ReplyToQMgr)
        self.connect().put1(od, body(reply, self.rng), mqpy.MD(
            Persistence=CMQC.MQPER_PERSISTENT, MsgType=CMQC.MQMT_REPLY, CorrelId=md.MsgId),
            mqpy.PMO(Options=CMQC.MQPMO_SYNCPOINT))
        self.commit(uow, started, backout=self.rng.random() < 0.1)


def _by_place(where: str, ids: list[str]) -> dict[str, list[str]]:
    """Ids got from ``where`` grouped by where they count as found (a dead-letter header's
    reason, ``#reason``, goes with the place)."""
    out: dict[str, list[str]] = {}
    for ident in ids:
        ident, _, reason = ident.partition("#")
        out.setdefault(f"{where}#{reason}" if reason else where, []).append(ident)
    return out


if __name__ == "__main__":
    App(sys.argv[1:]).run()
