"""The CONN_STATE wake an application's MQCTL STOP writes on its bindings socket beside the
dispatcher's waiting MQGET (``BindingsConnection.wake_waiting_get``, written without the
connection's lock, which the waiting get holds) never cuts into a request another thread
of the application is writing on that socket meanwhile: the dispatcher's get may end (a
message came) just after the waker saw it waiting, and its callback put a long reply,
which the socket takes a part at a time."""

from __future__ import annotations

import threading

import pytest

import mqpy
from mqpy import CMQC, asyncconsume, connstate

pytestmark = pytest.mark.timeout(120)

_MODEL = "SYSTEM.DEFAULT.MODEL.QUEUE"
_LONG = bytes(range(256)) * (3 * 4096)  # 3 MB
_WAKE = connstate.flow()


def _dynamic(qm: mqpy.QueueManager, options: int) -> tuple[mqpy.Queue, str]:
    od = mqpy.OD(ObjectName=_MODEL, DynamicQName="REVIEW.*")
    q = mqpy.Queue(qm, od, options)
    name = od.ObjectName
    return q, (name.decode() if isinstance(name, bytes) else name).strip()


class _Halves:
    """The connection's socket, whose long writes go in two parts, ``between`` called in
    the middle (as the kernel takes a long write a buffer at a time); the rest as it is."""

    def __init__(self, sock, between, woken) -> None:  # noqa: ANN001 - socket, callable, Event
        self._sock, self._between, self._woken = sock, between, woken

    def sendall(self, data) -> None:  # noqa: ANN001 - bytes-like
        if len(data) < 1 << 20:
            self._sock.sendall(data)
            if bytes(data) == _WAKE:
                self._woken.set()  # the wake is written
            return
        half = len(data) // 2
        self._sock.sendall(data[:half])
        self._between()
        self._sock.sendall(data[half:])

    def __getattr__(self, name: str):  # noqa: ANN204 - the socket's own
        return getattr(self._sock, name)


def test_a_wake_written_as_the_get_ends_does_not_cut_into_the_callbacks_put(
        running, monkeypatch):
    """Given a consumer waiting on an empty queue, when another thread's MQCTL STOP writes
    its wake just after the get ended (a message came) while the consumer's callback is
    writing a 3 MB reply on the same connection, then that put completes, the reply is
    stored as put, and the connection goes on (no MQRC_CONNECTION_BROKEN)."""
    qm = mqpy.connect("QM1")
    other = mqpy.connect("QM1")
    try:
        requests, requests_name = _dynamic(qm, CMQC.MQOO_INPUT_SHARED)
        replies, replies_name = _dynamic(qm, CMQC.MQOO_OUTPUT)
        reply_half_written, woken = threading.Event(), threading.Event()
        outcome: list[object] = []

        def callback(**_call) -> None:
            try:
                replies.put(_LONG)
                outcome.append("put")
            except mqpy.MQMIError as e:
                outcome.append(e.reason)

        requests.cb(operation=CMQC.MQOP_REGISTER, cbd=mqpy.CBD(CallbackFunction=callback),
                    gmo=mqpy.GMO(Options=CMQC.MQGMO_WAIT | CMQC.MQGMO_NO_SYNCPOINT,
                                 WaitInterval=CMQC.MQWI_UNLIMITED))
        flow = connstate.flow
        request_q = mqpy.Queue(other, requests_name, CMQC.MQOO_OUTPUT)

        def late_flow(*args):
            # the waker has seen the get waiting: the request comes now, and the wake is
            # written while the callback's reply is half written
            if not outcome and not reply_half_written.is_set():
                request_q.put(b"request")
                # (the reply's first half is written well within this wait, unless the
                # wake goes first: every write of the connection takes its send lock)
                reply_half_written.wait(2)
            return flow(*args)

        def between() -> None:
            reply_half_written.set()
            woken.wait(1)  # (a wake that cannot be written meanwhile is not)

        conn = qm.connection()
        monkeypatch.setattr(conn, "_sock", _Halves(conn._sock, between, woken))
        monkeypatch.setattr(connstate, "flow", late_flow)
        monkeypatch.setattr(asyncconsume, "WAIT_SLICE_MS", 10000)  # one get waits throughout
        qm.ctl(CMQC.MQOP_START)
        threading.Event().wait(0.2)  # the dispatcher waits in its get
        stopper = threading.Thread(target=qm.ctl, args=(CMQC.MQOP_STOP,))
        stopper.start()
        stopper.join(30)
        monkeypatch.undo()
        assert outcome == ["put"]
        got = mqpy.Queue(other, replies_name, CMQC.MQOO_INPUT_SHARED).get(None)
        assert got == _LONG
        qm.inquire(CMQC.MQCA_Q_MGR_NAME)  # the connection goes on
    finally:
        for c in (qm, other):
            try:
                c.disconnect()
            except mqpy.MQMIError:
                pass
