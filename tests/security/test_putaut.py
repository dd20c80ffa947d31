"""PUTAUT on a receiving channel, end to end: two queue managers started by strmqm, each with
its channel initiator; the receiver's puts are judged by QM2's object authority manager for
the MCA user (DEF) or the message's UserIdentifier (CTX), and a refused put is dead-lettered
with MQDLH reason 2035 while AMQ8077W and AMQ9544W are logged."""

from __future__ import annotations

import subprocess
import sys
import time

import pytest

import mqpy
from mqpy import CMQC
from mqpy.security.users import UserFile, users_path
from mqpy.structs.tables import DLH
from tests.support.daemon_pair import mqsc_here
from tests.support.installation import Installation
from tests.support.ports import free_port

_RUNMQSC = ("import sys; from mqpy_cli.runmqsc import runmqsc; "
            "runmqsc.main(args=sys.argv[1:], prog_name='runmqsc')")
DLQ = "SYSTEM.DEAD.LETTER.QUEUE"



class Pair:
    """QM1 (senders) and QM2 (receivers, users bob, carol, dave) as an operator sets them up."""

    def __init__(self, root: str) -> None:
        self.inst = Installation(root)
        self.inst.env.pop("MQPY_NO_CHINIT", None)
        self.port = free_port()

    def mqsc(self, qmgr: str, script: str) -> str:
        proc = subprocess.run([sys.executable, "-c", _RUNMQSC, qmgr], input=script, text=True,
                              capture_output=True, env=self.inst.env, timeout=120)
        assert proc.returncode == 0, proc.stdout + proc.stderr
        return proc.stdout

    def set_up(self, qmgr: str, script: str) -> None:
        """``script`` run by runmqsc's own code in this process (``mqsc_here``): set-up, with
        no interpreter started for it."""
        proc = mqsc_here(self.inst, qmgr, script)
        assert proc.returncode == 0, proc.stdout

    def bind(self, qmgr: str) -> mqpy.QueueManager:
        qm = mqpy.QueueManager(None)
        qm.connect(qmgr, data_path=self.inst.root)
        return qm

    def depth(self, qmgr: str, queue: str) -> int:
        qm = self.bind(qmgr)
        try:
            return mqpy.Queue(qm, queue, CMQC.MQOO_INQUIRE).inquire(CMQC.MQIA_CURRENT_Q_DEPTH)
        finally:
            qm.disconnect()

    def drain(self, qmgr: str, queue: str) -> list[tuple[mqpy.MD, bytes]]:
        qm = self.bind(qmgr)
        out = []
        try:
            q = mqpy.Queue(qm, queue, CMQC.MQOO_INPUT_AS_Q_DEF)
            while True:
                md = mqpy.MD()
                try:
                    out.append((md, q.get(None, md)))
                except mqpy.MQMIError as e:
                    assert e.reason == CMQC.MQRC_NO_MSG_AVAILABLE
                    return out
        finally:
            qm.disconnect()

    def take(self, qmgr: str, queue: str, n: int = 1, timeout: float = 30
             ) -> list[tuple[mqpy.MD, bytes]]:
        """Drain ``queue`` until ``n`` committed messages have come (CURDEPTH also counts a
        batch the receiver has not committed yet)."""
        got: list[tuple[mqpy.MD, bytes]] = []
        deadline = time.monotonic() + timeout
        while len(got) < n:
            assert time.monotonic() < deadline, f"{queue} on {qmgr}: {len(got)} of {n}"
            got += self.drain(qmgr, queue)
            time.sleep(0.05)
        return got

    def put_as(self, remote_q: str, data: bytes, user: str) -> None:
        """Put on QM1 with ``user`` as the message's UserIdentifier (the owner may set it)."""
        qm = self.bind("QM1")
        try:
            md = mqpy.MD(Persistence=CMQC.MQPER_PERSISTENT, UserIdentifier=user.encode())
            pmo = mqpy.PMO(Options=CMQC.MQPMO_SET_IDENTITY_CONTEXT | CMQC.MQPMO_NO_SYNCPOINT)
            qm.put1(remote_q, data, md, pmo)
        finally:
            qm.disconnect()

    def log(self) -> str:
        path = f"{self.inst.qmdir('QM2')}/errors/AMQERR01.LOG"
        try:
            with open(path, encoding="utf-8", errors="replace") as f:
                return " ".join(f.read().split())
        except FileNotFoundError:
            return ""

    def wait_log(self, text: str, timeout: float = 10) -> str:
        deadline = time.monotonic() + timeout
        while text not in (log := self.log()) and time.monotonic() < deadline:
            time.sleep(0.05)
        return log


@pytest.fixture(scope="module")
def pair(tmp_path_factory):
    p = Pair(str(tmp_path_factory.mktemp("putaut")))
    try:
        for name in ("QM1", "QM2"):
            assert p.inst.run("crtmqm", "-u", DLQ, name).returncode == 0
            proc = p.inst.run("strmqm", name)
            assert proc.returncode == 0, proc.stdout + proc.stderr
        users = UserFile(users_path(p.inst.qmdir("QM2")))
        for user in ("bob", "carol", "dave"):
            users.add(user, None)
        p.set_up("QM2", f"""
            DEFINE LISTENER(TCP.LSTR) TRPTYPE(TCP) PORT({p.port}) CONTROL(QMGR)
            START LISTENER(TCP.LSTR)
            DEFINE CHANNEL(TO.QM2.DEF) CHLTYPE(RCVR) MCAUSER('bob') PUTAUT(DEF)
            DEFINE CHANNEL(TO.QM2.CTX) CHLTYPE(RCVR) MCAUSER('bob') PUTAUT(CTX)
            DEFINE QLOCAL(DEF.TARGET)
            DEFINE QLOCAL(CTX.TARGET)
            SET AUTHREC PROFILE({DLQ}) OBJTYPE(QUEUE) PRINCIPAL('bob') AUTHADD(PUT)
            SET AUTHREC PROFILE(CTX.TARGET) OBJTYPE(QUEUE) PRINCIPAL('carol') AUTHADD(PUT)
        """)
        for kind in ("DEF", "CTX"):
            p.set_up("QM1", f"""
                DEFINE QLOCAL(XQ.{kind}) USAGE(XMITQ)
                DEFINE CHANNEL(TO.QM2.{kind}) CHLTYPE(SDR) +
                       CONNAME('127.0.0.1({p.port})') XMITQ(XQ.{kind})
                DEFINE QREMOTE({kind}.REMOTE) RNAME({kind}.TARGET) RQMNAME(QM2) XMITQ(XQ.{kind})
            """)
        yield p
    finally:
        for name in ("QM1", "QM2"):
            try:
                p.inst.run("endmqm", "-i", name)
            except subprocess.TimeoutExpired:
                pass
        p.inst.kill_all()


def _dead_letters(pair: Pair) -> list[tuple[DLH, bytes]]:
    out = []
    for _, body in pair.take("QM2", DLQ):
        out.append((DLH.from_bytes(body), body[DLH.length():]))
    return out


def test_putaut_def_puts_with_the_mca_users_authority(pair):
    """Given RCVR TO.QM2.DEF with MCAUSER('bob') PUTAUT(DEF), bob holding +put on the DLQ but
    nothing on DEF.TARGET, when a message arrives for DEF.TARGET, then it is dead-lettered
    with MQDLH reason 2035 (the channel initiator's own authority does not count), QM2 logs
    AMQ8077W for bob and AMQ9544W for the channel, and the channel keeps running: after
    setmqaut gives bob +put, the next message is put to DEF.TARGET."""
    pair.put_as("DEF.REMOTE", b"refused", "carol")
    assert "AMQ8018I" in pair.mqsc("QM1", "START CHANNEL(TO.QM2.DEF)\n")
    [(dlh, data)] = _dead_letters(pair)
    assert dlh.Reason == CMQC.MQRC_NOT_AUTHORIZED
    assert dlh.DestQName.rstrip(b" \x00") == b"DEF.TARGET" and data == b"refused"
    log = pair.wait_log("AMQ9544W")
    assert "Entity 'bob' has insufficient authority to access object 'DEF.TARGET'" in log
    assert "AMQ9544W" in log and "TO.QM2.DEF" in log
    assert pair.depth("QM2", "DEF.TARGET") == 0
    pair.mqsc("QM2", "SET AUTHREC PROFILE(DEF.TARGET) OBJTYPE(QUEUE) PRINCIPAL('bob') "
                     "AUTHADD(PUT)\n")
    pair.put_as("DEF.REMOTE", b"allowed", "dave")  # the context user does not matter
    [(md, data)] = pair.take("QM2", "DEF.TARGET")
    assert data == b"allowed" and md.UserIdentifier.rstrip() == b"dave"  # context kept
    status = pair.mqsc("QM2", "DISPLAY CHSTATUS(TO.QM2.DEF) MCAUSER\n")
    assert "MCAUSER(bob)" in status, status


def test_putaut_ctx_puts_with_the_messages_user_id(pair):
    """Given RCVR TO.QM2.CTX with MCAUSER('bob') PUTAUT(CTX), carol holding +put on
    CTX.TARGET and dave nothing (bob nothing there either), when messages from carol and
    from dave arrive, then carol's is put to CTX.TARGET and dave's is dead-lettered with
    reason 2035 and AMQ8077W names dave."""
    pair.put_as("CTX.REMOTE", b"from carol", "carol")
    pair.put_as("CTX.REMOTE", b"from dave", "dave")
    assert "AMQ8018I" in pair.mqsc("QM1", "START CHANNEL(TO.QM2.CTX)\n")
    [(md, data)] = pair.take("QM2", "CTX.TARGET")
    assert data == b"from carol" and md.UserIdentifier.rstrip() == b"carol"
    [(dlh, data)] = _dead_letters(pair)
    assert dlh.Reason == CMQC.MQRC_NOT_AUTHORIZED and data == b"from dave"
    assert "Entity 'dave' has insufficient authority to access object 'CTX.TARGET'" in \
        pair.wait_log("Entity 'dave'")
