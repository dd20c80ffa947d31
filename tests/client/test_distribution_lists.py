"""Distribution lists through the MQI flows: as a client over SVRCONN and over the bindings
socket, the MQOR, MQPMR and MQRR records travel behind the MQOD and MQPMO (IBM's layout)
and come back with the queue manager's answers."""

from __future__ import annotations

import threading
from collections.abc import Iterator

import pytest
import trio

import mqpy
from mqpy import CMQC, bindings
from mqpy.bindings_listener import BindingsServer

from .conftest import drain

_W, _F = CMQC.MQCC_WARNING, CMQC.MQCC_FAILED


class BindingsThread:
    """The engine's bindings socket served from a trio loop on a background thread."""

    def __init__(self, engine) -> None:
        self.server = BindingsServer(engine)
        self._ready = threading.Event()
        self._token = None
        self._scope: trio.CancelScope | None = None
        self._thread = threading.Thread(target=trio.run, args=(self._main,), daemon=True)

    async def _main(self) -> None:
        self._token = trio.lowlevel.current_trio_token()
        with trio.CancelScope() as scope:
            self._scope = scope
            async with trio.open_nursery() as nursery:
                await nursery.start(self.server.run)
                self._ready.set()
        self._ready.set()

    def __enter__(self) -> BindingsThread:
        self._thread.start()
        assert self._ready.wait(10)
        return self

    def __exit__(self, *exc) -> None:
        trio.from_thread.run_sync(self._scope.cancel, trio_token=self._token)
        self._thread.join(10)


@pytest.fixture(params=["client", "bindings"])
def conn(request, env) -> Iterator[mqpy.QueueManager]:
    for q in ("A", "B", "C"):
        env.define("QLOCAL", q)
    if request.param == "client":
        qm = env.client()
        yield qm
        qm.disconnect()
        return
    with BindingsThread(env.engine):
        qm = mqpy.QueueManager(None)
        qm._conn = bindings.connect(env.name, env.root)
        qm._name = env.name
        assert type(qm.connection()) is bindings.BindingsConnection
        yield qm
        qm.disconnect()


def rr(records):
    return [(r.CompCode, r.Reason) for r in records]


def test_a_list_opens_and_puts_with_records_answered(conn, env):
    """Given destinations A, NO.SUCH.Q, C, when the list is opened, then MQCC_WARNING 2136
    comes back with the MQOD's counts and response records; when it is put to with MQPMRs,
    then A and C get their CorrelIds, the application's MQPMRs hold the MsgIds given, and the
    put's response records name the destination that failed."""
    q = mqpy.Queue(conn)
    with pytest.raises(mqpy.MQMIError) as err:
        q.open(["A", "NO.SUCH.Q", "C"], CMQC.MQOO_OUTPUT)
    assert (err.value.comp, err.value.reason) == (_W, CMQC.MQRC_MULTIPLE_REASONS)
    assert rr(q.response_records) == [(0, 0), (_F, CMQC.MQRC_UNKNOWN_OBJECT_NAME), (0, 0)]
    assert (q.od.KnownDestCount, q.od.InvalidDestCount) == (2, 1)
    records = [mqpy.PMR(CorrelId=b"c%d" % i) for i in range(3)]
    pmo = mqpy.PMO(RecsPresent=3, PutMsgRecPtr=records,
                   PutMsgRecFields=CMQC.MQPMRF_MSG_ID | CMQC.MQPMRF_CORREL_ID)
    with pytest.raises(mqpy.MQMIError) as err:
        q.put(b"over the wire", mqpy.MD(), pmo)
    assert (err.value.comp, err.value.reason) == (_W, CMQC.MQRC_MULTIPLE_REASONS)
    assert rr(pmo.ResponseRecPtr) == [(0, 0), (_F, CMQC.MQRC_UNKNOWN_OBJECT_NAME), (0, 0)]
    assert pmo.PutMsgRecPtr is records  # the application's own records were updated
    q.close()
    for i, name in ((0, "A"), (2, "C")):
        queue = mqpy.Queue(conn, name, CMQC.MQOO_INPUT_AS_Q_DEF)
        md = mqpy.MD()
        assert queue.get(None, md) == b"over the wire"
        assert md.CorrelId.rstrip(b"\0") == b"c%d" % i and md.MsgId == records[i].MsgId
        queue.close()
    assert records[0].MsgId != records[2].MsgId


def test_put1_to_a_list_failing_for_several_reasons_returns_its_records(conn, env):
    """Given every destination fails, for different reasons, when MQPUT1 is made, then it
    fails with MQCC_FAILED / MQRC_MULTIPLE_REASONS and the response records still come back
    through the flow (IBM sends them whenever the reason is 2136)."""
    od = mqpy.OD(Version=2, RecsPresent=2, ObjectRecPtr=[
        mqpy.OR(ObjectName="NOPE"), mqpy.OR(ObjectName="Q", ObjectQMgrName="NO.SUCH.QM")])
    pmo = mqpy.PMO()  # mqpy makes room for the response records (RecsPresent)
    with pytest.raises(mqpy.MQMIError) as err:
        conn.put1(od, b"nowhere", mqpy.MD(), pmo)
    assert (err.value.comp, err.value.reason) == (_F, CMQC.MQRC_MULTIPLE_REASONS)
    assert rr(pmo.ResponseRecPtr) == [(_F, CMQC.MQRC_UNKNOWN_OBJECT_NAME),
                                      (_F, CMQC.MQRC_UNKNOWN_REMOTE_Q_MGR)]
    assert pmo.InvalidDestCount == 2


def test_an_open_failing_for_several_reasons_answers_per_destination(conn, env):
    q = mqpy.Queue(conn)
    with pytest.raises(mqpy.MQMIError) as err:
        q.open([("NOPE", ""), ("Q", "NO.SUCH.QM")], CMQC.MQOO_OUTPUT)
    assert (err.value.comp, err.value.reason) == (_F, CMQC.MQRC_MULTIPLE_REASONS)
    assert rr(q.response_records) == [(_F, CMQC.MQRC_UNKNOWN_OBJECT_NAME),
                                      (_F, CMQC.MQRC_UNKNOWN_REMOTE_Q_MGR)]
    assert q.get_handle() is None


def test_put1_to_a_list_reaches_every_queue(conn, env):
    conn.put1([("A", ""), ("B", ""), ("C", "")], b"all three")
    assert [drain(conn, q) for q in "ABC"] == [[b"all three"]] * 3


def test_a_get_on_a_list_handle_is_not_open_for_input(conn, env):
    """Given a list opened for output over the flows, when the application gets through its
    handle, then the answer is MQRC_NOT_OPEN_FOR_INPUT (2037) and the list still puts."""
    q = mqpy.Queue(conn, ["A", "B"], CMQC.MQOO_OUTPUT)
    with pytest.raises(mqpy.MQMIError) as exc:
        q.get()
    assert (exc.value.comp, exc.value.reason) == (_F, CMQC.MQRC_NOT_OPEN_FOR_INPUT)
    q.put(b"after")
    assert drain(conn, "A") == [b"after"]
