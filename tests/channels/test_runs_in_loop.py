"""An MCA's runs of MQI calls made from the event loop on its bindings connection, without a
worker thread (batchcalls.call_in_loop): the same calls, results and failures as the worker
thread's, over a running queue manager daemon."""

from __future__ import annotations

import threading

import pytest
import trio

import mqpy
from mqpy import CMQC, bindings, syncrecord
from mqpy.fap import mqiflows, mqiparams
from mqpy_chinit import batchcalls, receiver_mca, syncq
from mqpy_chinit.receiver_batch import NO_LUWID
from mqpy_chinit.receiver_mca import ReceiverMCA
from tests.daemon.conftest import running  # noqa: F401 - the daemon fixture
from tests.support.installation import QM

OUT = CMQC.MQOO_OUTPUT | CMQC.MQOO_SET_ALL_CONTEXT
PMO = mqiparams.Packed.of(mqpy.PMO(Options=CMQC.MQPMO_SYNCPOINT
                                  | CMQC.MQPMO_SET_ALL_CONTEXT))


def _steps(hobj: int, tag: bytes) -> list:
    return [("put", (hobj, mqiparams.Packed.of(mqpy.MD(MsgId=tag + bytes([i]) * 20)), PMO,
                     tag + b" %d" % i), False) for i in range(6)]


def _drained(conn, queue: bytes) -> list[bytes]:
    hobj = conn.open(mqpy.OD(ObjectName=queue), CMQC.MQOO_INPUT_SHARED)
    out = []
    while True:
        try:
            out.append(conn.get(hobj, mqpy.MD(), mqpy.GMO(), None))
        except mqpy.MQMIError as e:
            assert e.reason == CMQC.MQRC_NO_MSG_AVAILABLE
            conn.close(hobj)
            return out


async def test_a_run_from_the_event_loop_moves_what_the_threads_run_moves(running):  # noqa: F811
    """Given a queue manager daemon, when a run of puts ending with a commit is made from
    the event loop to Q1 and the same run by a worker thread's run_quiet to Q2, then both
    answer every put completed and the commit made, and the queues hold the same messages;
    a run whose second put names a handle that is not open answers the first put done and
    the second's failure (2019), as the thread's does, and makes no commit."""
    conn = bindings.connect(QM, running.root)
    try:
        q1, q2 = conn.open(mqpy.OD(ObjectName=b"Q1"), OUT), conn.open(
            mqpy.OD(ObjectName=b"Q2"), OUT)
        assert await batchcalls.run_quiet_in_loop(conn, _steps(q1, b"m"), commit=True) == (
            [0] * 6, True)
        assert await trio.to_thread.run_sync(
            lambda: batchcalls.run_quiet(conn, _steps(q2, b"m"), commit=True)) == ([0] * 6,
                                                                                True)
        assert _drained(conn, b"Q1") == _drained(conn, b"Q2") == [b"m %d" % i
                                                                  for i in range(6)]
        bad = _steps(q1, b"b")[:1] + _steps(9999, b"b")[1:]
        done, committed = await batchcalls.run_quiet_in_loop(conn, bad, commit=True)
        assert done[0] == 0 and done[1].reason == CMQC.MQRC_HOBJ_ERROR and not committed
        assert (batchcalls.run_quiet(conn, bad, commit=True)[0][1].reason
                == CMQC.MQRC_HOBJ_ERROR)
        conn.backout()
    finally:
        conn.disconnect()


async def test_a_connection_busy_in_another_thread_is_left_to_it(running):  # noqa: F811
    """Given a bindings connection whose lock another thread holds (a call in progress),
    when a run is asked of it from the event loop, then nothing is sent and the caller is
    told to go by a worker thread (None); once the lock is free the run is made."""
    conn = bindings.connect(QM, running.root)
    try:
        q1 = conn.open(mqpy.OD(ObjectName=b"Q1"), OUT)
        held = threading.Event()
        release = threading.Event()

        def hold() -> None:
            with conn._lock:
                held.set()
                release.wait(10)

        thread = threading.Thread(target=hold)
        thread.start()
        held.wait(10)
        try:
            assert await batchcalls.run_quiet_in_loop(conn, _steps(q1, b"x"), True) is None
        finally:
            release.set()
            thread.join()
        assert _drained(conn, b"Q1") == []
        assert await batchcalls.run_quiet_in_loop(conn, _steps(q1, b"x"), True) == ([0] * 6,
                                                                                True)
        assert len(_drained(conn, b"Q1")) == 6
        conn.commit()
    finally:
        conn.disconnect()


async def test_a_broken_connection_fails_the_run_as_a_threads_call_would(running):  # noqa: F811
    """Given a bindings connection whose socket breaks (the queue manager's end gone),
    when a run is made from the event loop, then it fails with MQRC_CONNECTION_BROKEN
    (2009) and the connection is dropped: the next call fails 2009 too."""
    conn = bindings.connect(QM, running.root)
    q1 = conn.open(mqpy.OD(ObjectName=b"Q1"), OUT)
    conn._sock.shutdown(2)
    with pytest.raises(mqpy.MQMIError) as failed:
        await batchcalls.run_quiet_in_loop(conn, _steps(q1, b"y"), True)
    assert failed.value.reason == CMQC.MQRC_CONNECTION_BROKEN
    with pytest.raises(mqpy.MQMIError) as again:
        conn.commit()
    assert again.value.reason == CMQC.MQRC_CONNECTION_BROKEN


async def test_a_receiving_mcas_later_batches_go_without_a_worker_thread(running,  # noqa: F811
                                                                         monkeypatch):
    """Given a receiving MCA on a bindings connection that has put a first batch to Q1
    (destination opened, sync record put: calls made by a worker thread), when the second
    batch's arrivals are put, then their run, the record's replacement and the commit are
    one round trip made from the event loop: no worker-thread call at all; both batches'
    messages are on Q1, committed, and the record holds the second batch's number."""
    from tests.channels.pairs import _message

    conn = mqpy.connect(QM)
    rcv = ReceiverMCA(None, QM, lambda: conn, lambda name: None)
    rcv.name, rcv.definition, rcv.partner = "C", {"CHLTYPE": "RCVR"}, "QM9"
    rcv.syncq = syncq.ChannelSyncQ(conn)
    rcv.fast = True
    rcv.batch = rcv._new_batch(0, NO_LUWID)
    try:
        first = [_message(n, confirm=n == 3, persistent=True) for n in range(1, 4)]
        second = [_message(n, confirm=n == 6, persistent=True) for n in range(4, 7)]
        for ev in [*first, *second]:
            object.__setattr__(ev, "xqh", ev.xqh.replace(b"TARGET  ", b"Q1      ", 1)
                               .replace(b"QM2 ", QM.encode().ljust(4), 1))
        for batch in (first, second):
            if batch is second:
                def no_thread(*args, **kw):
                    raise AssertionError(f"a worker-thread call: {args[0]}")
                monkeypatch.setattr(receiver_mca, "mqi", no_thread)
            for ev in batch:
                rcv.batch.message(ev)
            committed = await rcv._put_held(None, conn, batch_end=True)
            await rcv._harden(conn, rcv.batch.end_batch(committed)[0])
        assert committed
        monkeypatch.undo()
        assert _drained(conn.connection(), b"Q1") == [b"%d" % n for n in range(1, 7)]
        conn.commit()
        assert syncrecord.read(conn, "C", "R", "QM9").seq == 6
    finally:
        conn.disconnect()


async def test_a_run_of_gets_from_the_event_loop_gets_what_the_threads_run_gets(running):  # noqa: F811
    """Given six messages on Q2, when a sending MCA's run of gets (MQMDs kept packed) takes
    three from the event loop and a worker thread's run the other three, then together they
    are the six in order with the MQMDs a single MQGET gives; a run ending the unit of
    work in doubt first (SPI RESOLVE of a key nobody prepared) fails as the thread's does."""
    conn = bindings.connect(QM, running.root)
    try:
        q2 = conn.open(mqpy.OD(ObjectName=b"Q2"), OUT)
        assert batchcalls.run_quiet(conn, _steps(q2, b"g"), commit=True) == ([0] * 6, True)
        inq = conn.open(mqpy.OD(ObjectName=b"Q2"), CMQC.MQOO_INPUT_SHARED)
        gets = batchcalls.XmitqGets(inq, mqiparams.Packed.of(mqpy.MD()), mqiparams.Packed.of(
            mqpy.GMO(Options=CMQC.MQGMO_SYNCPOINT)))
        first = await gets.run_in_loop(conn, 3, 0)
        rest = await trio.to_thread.run_sync(lambda: gets.run(conn, 10, 0))
        assert [data for _, data in first + rest] == [b"g %d" % i for i in range(6)]
        assert [md.unpacked().MsgId for md, _ in first + rest] == [
            b"g" + bytes([i]) * 20 + bytes(3) for i in range(6)]
        conn.backout()
        with pytest.raises(mqpy.MQMIError) as failed:
            await gets.run_in_loop(conn, 3, 0, resolve=(b"no such key", True, True))
        assert failed.value.reason == pytest.raises(mqpy.MQMIError, lambda: gets.run(
            conn, 3, 0, resolve=(b"no such key", True, True))).value.reason
        assert len(_drained(conn, b"Q2")) == 6
        conn.commit()
    finally:
        conn.disconnect()


async def test_a_sending_mcas_batch_end_from_the_event_loop_prepares_it(running):  # noqa: F811
    """Given a sending MCA's sync record put once (by a worker thread), when the next
    batch's record replaces it from the event loop and the unit of work is prepared under
    its key in the same round trip, then it is in doubt under that key; committed, the
    record holds the new sequence number and LUWID. With no record put yet, nothing is
    done from the loop (None: the full search is a worker thread's)."""
    conn = mqpy.connect(QM)
    try:
        sq = syncq.ChannelSyncQ(conn)
        rec = syncrecord.SyncRecord("S1", "S", 50, b"luwid-50", "QM9")
        assert await sq.replace_in_uow_in_loop(rec, prepare=b"k") is None
        await trio.to_thread.run_sync(sq.replace_in_uow, rec)
        conn.commit()
        key = syncrecord.prepare_key("S1", 50, 100, b"luwid100", "QM9", prev_luwid=b"luwid-50")
        assert await sq.replace_in_uow_in_loop(
            syncrecord.SyncRecord("S1", "S", 100, b"luwid100", "QM9"), prepare=key) is True
        assert key in conn.connection().indoubt()
        conn.connection().resolve(key, True)
        stored = syncrecord.read(conn, "S1", "S")
        assert (stored.seq, stored.luwid) == (100, b"luwid100")
    finally:
        conn.disconnect()


def _get_replies() -> tuple[list[bytes], list[tuple[bytes, bytes]]]:
    """An SPI RUN reply's flows for two gets that completed and one that did not (2033),
    as the queue manager packs them, and the two messages (MQMD bytes, data)."""
    events, messages = [], []
    for i in range(2):
        md = mqpy.MD(MsgId=bytes([i + 1]) * 24, Persistence=i)
        data = b"message %d" % i
        events.append(mqiflows.encode_reply(batchcalls._T.MQGET,
                                            [md, mqpy.GMO(), len(data), data]))
        messages.append((md.pack(), data))
    events.append(mqiflows.encode_reply(batchcalls._T.MQGET, comp=CMQC.MQCC_FAILED,
                                        reason=CMQC.MQRC_NO_MSG_AVAILABLE))
    return mqiflows.pack_each(events), messages


class _Handle:
    """What XmitqGets._got asks of a connection whose replies are out of step."""

    def out_of_step(self) -> Exception:
        return mqpy.MQMIError(CMQC.MQCC_FAILED, CMQC.MQRC_CONNECTION_BROKEN)


def test_a_run_of_gets_reply_read_in_place_gives_what_taking_it_apart_gives():
    """Given the reply flows of a run of gets (two completed, the third not), when read in
    place (no event, no copy of each body), then the messages are those taking the flows
    apart gives (MQMD as it came, data), ending at the get that did not complete; flows
    that are not such plain replies (a byte too many) go the general way, which refuses
    them as out of step; a completed get after one that did not is read the general way."""
    flows, messages = _get_replies()
    assert [batchcalls._got_in_place(f) is not None for f in flows] == [True] * 3
    got = batchcalls.XmitqGets._got(_Handle(), flows, None)
    assert [(md.raw, data) for md, data in got] == messages
    general = [batchcalls._message(e.body) for e in mqiflows.unpack_flows(b"".join(flows))[:2]]
    assert [(md.raw, data) for md, data in general] == messages
    with pytest.raises(mqpy.MQMIError) as broken:
        batchcalls.XmitqGets._got(_Handle(), [flows[0] + b"x"], None)
    assert broken.value.reason == CMQC.MQRC_CONNECTION_BROKEN
    reordered = [flows[0], flows[2], flows[1]]
    assert [(md.raw, data) for md, data in batchcalls.XmitqGets._got(
        _Handle(), reordered, None)] == messages[:1]
