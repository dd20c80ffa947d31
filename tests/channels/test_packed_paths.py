"""The queue manager's packed MQPUT and MQGET (mqpy.engine.packed), which an SPI RUN's
channel calls take with the MQMD as bytes: what they store and give back is what the usual
calls (an MD object decoded, filled in and packed) store and give back."""

from __future__ import annotations

import os

import pytest

import mqpy
from mqpy import CMQC
from mqpy.engine import packed
from mqpy.engine import records as R
from mqpy.engine.qmgr import QueueManagerEngine
from tests.daemon.conftest import running  # noqa: F401 - the daemon fixture

SET_ALL = CMQC.MQPMO_SET_ALL_CONTEXT
OUT = CMQC.MQOO_OUTPUT | CMQC.MQOO_SET_ALL_CONTEXT


@pytest.fixture
def conn(tmp_path):
    eng = QueueManagerEngine.create(str(tmp_path / "QM"), "QM")
    for name in ("A", "B"):
        eng.define("QLOCAL", name, {"DEFPSIST": "YES", "DEFPRTY": 4})
    c = eng.connect("test")
    yield c
    c.disconnect()
    eng.close()


def _arrival(i: int, version: int) -> mqpy.MD:
    """An arriving message's MQMD, its context set by its sender."""
    return mqpy.MD(Version=version, MsgId=os.urandom(24), CorrelId=bytes([i]) * 24,
                   Persistence=(CMQC.MQPER_PERSISTENCE_AS_Q_DEF, 0, 1)[i % 3],
                   Priority=CMQC.MQPRI_PRIORITY_AS_Q_DEF if i % 2 else i % 10,
                   Expiry=CMQC.MQEI_UNLIMITED if i % 2 else 600_000, BackoutCount=i,
                   Format=CMQC.MQFMT_STRING, PutApplName=b"sender app", PutDate=b"20260101",
                   PutTime=b"12000000", UserIdentifier=b"alice", ApplIdentityData=b"id")


def _counted(conn, queue: str) -> tuple:
    """The queue's statistics and the connection's accounting of it, as puts and gets
    (persistent or not) and their bytes."""
    counters = (conn.engine.stats.queue(queue), conn.accounting.queue(queue))
    return tuple((c.puts, c.put_bytes, c.gets, c.get_bytes, c.max_depth) for c in counters)


def _backed_out(got: tuple[bytes, bytes]) -> tuple[bytes, bytes]:
    """A message got (MQMD bytes, data) as a get gives it again after one backout."""
    md = mqpy.MD.from_bytes(got[0])
    md.BackoutCount = 1
    return md.pack(), got[1]


def _timeless(got: list[tuple[bytes, bytes]]) -> list[tuple[bytes, bytes]]:
    """Messages got (MQMD bytes, data) with a finite Expiry written as 'some left': the
    time left counts down between two gets of one message (by tenths of a second), the rest
    of the MQMD does not. A time left must lie within the 600,000 tenths it was put with."""
    out = []
    for raw, data in got:
        md = mqpy.MD.from_bytes(raw)
        if md.Expiry != CMQC.MQEI_UNLIMITED:
            assert 0 < md.Expiry <= 600_000
            md.Expiry = 1
        out.append((md.pack(), data))
    return out


def _stored(conn, queue: str) -> list[tuple[bytes, bytes]]:
    """Each message on ``queue``, in order: its stored MQMD and data."""
    mq = conn.engine.catalog.queues[conn.engine.catalog.queue_def(queue).qid]
    return [R.decode_message(e.record)[2:] for e in mq.iter_order(True)]


@pytest.mark.parametrize("syncpoint", [CMQC.MQPMO_SYNCPOINT, CMQC.MQPMO_NO_SYNCPOINT])
def test_a_packed_put_stores_what_a_put_of_the_decoded_mqmd_stores(conn, syncpoint):
    """Given arrivals' MQMDs (version 1 and 2, persistence and priority as the queue
    defines or their own, with and without expiry), when each is put to one queue packed
    and to another decoded, then both queues hold the same MQMD bytes and data."""
    a = conn.open(mqpy.OD(ObjectName=b"A"), OUT)
    b = conn.open(mqpy.OD(ObjectName=b"B"), OUT)
    pmo = mqpy.PMO(Options=syncpoint | SET_ALL)
    for i in range(12):
        md = _arrival(i, 1 + i % 2)
        data = b"message %d" % i
        assert packed.put(conn, a, md.pack(), pmo, data) is None
        conn.put(b, mqpy.MD.from_bytes(md.pack()), mqpy.PMO(Options=syncpoint | SET_ALL), data)
    conn.commit()
    assert _stored(conn, "A") == _stored(conn, "B")
    assert len(_stored(conn, "A")) == 12
    assert _counted(conn, "A") == _counted(conn, "B")


def test_a_packed_put_leaves_what_it_does_not_serve_to_the_usual_put(conn):
    """Given puts the packed path does not serve (a report asked for, no MsgId, default
    context, a handle without set-all context), when tried, then GENERAL and nothing put."""
    a = conn.open(mqpy.OD(ObjectName=b"A"), OUT)
    plain = conn.open(mqpy.OD(ObjectName=b"A"), CMQC.MQOO_OUTPUT)
    pmo = mqpy.PMO(Options=SET_ALL)
    report = _arrival(1, 2)
    report.Report = CMQC.MQRO_COA
    assert packed.put(conn, a, report.pack(), pmo, b"x") is packed.GENERAL
    assert packed.put(conn, a, mqpy.MD().pack(), pmo, b"x") is packed.GENERAL
    assert packed.put(conn, a, _arrival(1, 2).pack(), mqpy.PMO(), b"x") is packed.GENERAL
    assert packed.put(conn, plain, _arrival(1, 2).pack(), pmo, b"x") is packed.GENERAL
    assert _stored(conn, "A") == []


def test_a_packed_get_gives_what_a_get_fills_in_past_the_messages_got(conn):
    """Given two queues with the same messages, the first ones got under syncpoint by
    another unit of work (a batch in flight), when the rest are got under syncpoint packed
    from one and with an MD from the other, then each gives the same MQMD bytes, data,
    ResolvedQName and ReturnedLength, in the same order."""
    a = conn.open(mqpy.OD(ObjectName=b"A"), OUT)
    b = conn.open(mqpy.OD(ObjectName=b"B"), OUT)
    for i in range(10):
        md = _arrival(i, 1 + i % 2)
        for h in (a, b):
            conn.put(h, mqpy.MD.from_bytes(md.pack()), mqpy.PMO(Options=SET_ALL), b"m%d" % i)
    other = conn.engine.connect("in flight")
    handles = [other.open(mqpy.OD(ObjectName=name), CMQC.MQOO_INPUT_SHARED)
               for name in (b"A", b"B")]
    for count in (5, 3):  # a batch backed out (BackoutCount 1), then one in flight
        other.backout()
        for h in handles:
            for _ in range(count):
                other.get(h, mqpy.MD(), mqpy.GMO(Options=CMQC.MQGMO_SYNCPOINT), None)
    ga = conn.open(mqpy.OD(ObjectName=b"A"), CMQC.MQOO_INPUT_SHARED)
    gb = conn.open(mqpy.OD(ObjectName=b"B"), CMQC.MQOO_INPUT_SHARED)
    backed_out = 0
    for _ in range(7):
        gmo_a = mqpy.GMO(Options=CMQC.MQGMO_SYNCPOINT)
        got = packed.get(conn, ga, gmo_a, 1000)
        assert got is not packed.GENERAL
        md_b, gmo_b = mqpy.MD(), mqpy.GMO(Options=CMQC.MQGMO_SYNCPOINT)
        data = conn.get(gb, md_b, gmo_b, 1000)
        assert _timeless([got]) == _timeless([(md_b.pack(), data)])
        backed_out += md_b.BackoutCount
        assert (gmo_a.ResolvedQName.rstrip(), gmo_b.ResolvedQName.rstrip()) == (b"A", b"B")
        assert gmo_a.ReturnedLength == gmo_b.ReturnedLength == len(data)
    assert backed_out == 2
    gmo = mqpy.GMO(Options=CMQC.MQGMO_SYNCPOINT)
    assert packed.get(conn, ga, gmo, 1000) is packed.GENERAL  # none left: the usual 2033
    conn.commit()
    other.backout()
    assert _stored(conn, "A") == _stored(conn, "B")  # the batch in flight's, back
    assert _counted(conn, "A") == _counted(conn, "B")
    assert len(_stored(conn, "A")) == 3
    other.disconnect()


def test_over_bindings_a_packed_run_moves_what_single_calls_move(running):  # noqa: F811
    """Given a queue manager daemon, when arrivals go to one queue as a receiving MCA puts
    them (an SPI RUN_QUIET of puts carrying their MQMDs packed, ending with a commit) and
    to another as single MQPUTs, and come back from the first as a sending MCA gets them
    (an SPI RUN of gets, MQMDs kept packed) and from the other as single MQGETs, then the
    MQMDs and data are the same, in the same order, and a second run finds none left; got
    again, backed out, by a run of gets from both queues in turn, each get's MQMD, data,
    ResolvedQName and ReturnedLength are its own."""
    from mqpy import bindings
    from mqpy.fap import mqiparams
    from mqpy.fap.mqicalls import run_in_order
    from mqpy_chinit import batchcalls
    from tests.support.installation import QM

    conn = bindings.connect(QM, running.root)
    try:
        run_q = conn.open(mqpy.OD(ObjectName=b"Q1"), OUT)
        one_q = conn.open(mqpy.OD(ObjectName=b"Q2"), OUT)
        pmo = mqiparams.Packed.of(mqpy.PMO(Options=CMQC.MQPMO_SYNCPOINT | SET_ALL))
        mds = [_arrival(i, 1 + i % 2) for i in range(8)]
        steps = [("put", (run_q, mqiparams.Packed.of(md), pmo, b"data %d" % i), False)
                 for i, md in enumerate(mds)]
        done, committed = batchcalls.run_quiet(conn, steps, commit=True)
        assert (done, committed) == ([0] * 8, True)
        for i, md in enumerate(mds):
            conn.put(one_q, mqpy.MD.from_bytes(md.pack()),
                     mqpy.PMO(Options=CMQC.MQPMO_SYNCPOINT | SET_ALL), b"data %d" % i)
        conn.commit()
        gmo = mqiparams.Packed.of(mqpy.GMO(Options=CMQC.MQGMO_SYNCPOINT))
        run_in = conn.open(mqpy.OD(ObjectName=b"Q1"), CMQC.MQOO_INPUT_SHARED)
        gets = batchcalls.XmitqGets(run_in, mqiparams.Packed.of(mqpy.MD()), gmo)
        got = [(md.raw, data) for md, data in gets.run(conn, 10, 0)]
        one_in = conn.open(mqpy.OD(ObjectName=b"Q2"), CMQC.MQOO_INPUT_SHARED)
        singles = []
        for _ in range(8):
            md = mqpy.MD()
            data = conn.get(one_in, md, mqpy.GMO(Options=CMQC.MQGMO_SYNCPOINT), None)
            singles.append((md.pack(), data))
        assert _timeless(got) == _timeless(singles)
        assert gets.run(conn, 10, 0) == []
        assert run_in_order(conn, [("get", (run_in, mqpy.MD(), mqpy.GMO(), None))]
                            )[0].reason == CMQC.MQRC_NO_MSG_AVAILABLE
        conn.backout()  # the messages again, got as any application's run of gets gets them
        steps = [("get", (h, mqpy.MD(), mqpy.GMO(Options=CMQC.MQGMO_SYNCPOINT), None))
                 for h in (run_in, one_in, run_in)]
        assert _timeless([(md.pack(), data) for md, data in zip(
            [s[1][1] for s in steps], run_in_order(conn, steps), strict=True)]) == _timeless([
                _backed_out(singles[0]), _backed_out(singles[0]), _backed_out(singles[1])])
        assert [(s[1][2].ResolvedQName.rstrip(), s[1][2].ReturnedLength) for s in steps] == [
            (b"Q1", 6), (b"Q2", 6), (b"Q1", 6)]
        conn.commit()
    finally:
        conn.disconnect()
