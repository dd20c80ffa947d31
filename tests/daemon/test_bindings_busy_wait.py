"""A busy bindings connection's waiting MQGET (MQGMO_WAIT) is served on its thread
(``mqpy.bindings_thread``: ``_serve_waiting``) with the event loop's answers, and every end
of its wait is the loop's: a message's arrival, the WaitInterval passing, a CONN_STATE wake,
STOP CONN, a controlled end (FAIL_IF_QUIESCING), the queue manager's immediate end, the
application killed; a wait longer than PARK_S is handed to the loop, which waits the rest."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time

import pytest
import trio

import mqpy
from mqpy import CMQC, bindings, bindings_listener, bindings_thread
from mqpy.bindings_listener import BindingsServer
from mqpy.engine.qmgr import QueueManagerEngine
from mqpy.errors import MQMIError
from tests.support.differential import fixed_clock
from tests.support.waiting import came_true

_WAIT, _FIQ = CMQC.MQGMO_WAIT, CMQC.MQGMO_FAIL_IF_QUIESCING
_NO_SYNC = CMQC.MQGMO_NO_SYNCPOINT


class _Served:
    """An engine with queues Q and OTHER, and its BindingsServer in a trio loop of its own
    thread; ``end()`` ends it as the daemon's immediate end does (``ending``, then the
    sessions cancelled)."""

    def __init__(self, root: str) -> None:
        self.root = root
        self.eng = QueueManagerEngine.create(os.path.join(root, "qmgrs", "QM"), "QM")
        self.eng.define("QLOCAL", "Q", {})
        self.eng.define("QLOCAL", "OTHER", {})
        started = threading.Event()
        box: dict = {}

        async def main() -> None:
            async with trio.open_nursery() as nursery:
                box["token"], box["scope"] = (trio.lowlevel.current_trio_token(),
                                              nursery.cancel_scope)
                box["server"] = BindingsServer(self.eng)
                await nursery.start(box["server"].run)
                started.set()

        self.loop = threading.Thread(target=trio.run, args=(main,))
        self.loop.start()
        assert started.wait(10)
        self.token, self.scope, self.server = box["token"], box["scope"], box["server"]

    def end(self) -> None:
        def cancel() -> None:
            self.server.ending = True
            self.scope.cancel()

        if self.loop.is_alive():
            trio.from_thread.run_sync(cancel, trio_token=self.token)
        self.loop.join(10)
        assert not self.loop.is_alive()
        self.eng.close()

    def connect(self) -> tuple[mqpy.QueueManager, mqpy.Queue]:
        """An application's connection and Q opened for input and output."""
        qm = mqpy.QueueManager(None)
        qm._conn = bindings.connect("QM", self.root)
        return qm, mqpy.Queue(qm, "Q", CMQC.MQOO_OUTPUT | CMQC.MQOO_INPUT_SHARED)


@pytest.fixture(scope="module")
def served(tmp_path_factory):
    served = _Served(str(tmp_path_factory.mktemp("busywait")))
    yield served
    served.end()


@pytest.fixture
def own(tmp_path):
    """A queue manager of this test's own (one it ends or quiesces)."""
    served = _Served(str(tmp_path))
    yield served
    served.end()


@pytest.fixture
def on_thread(monkeypatch):
    """Every call of a connection counts as busy (HOT_WAIT_S long), so its waiting gets go
    to its thread; the ends of those served there (``_get_waiting``'s outcome or error,
    by thread name), recorded."""
    monkeypatch.setattr(bindings_thread, "HOT_WAIT_S", 5.0)
    ends: list[tuple[str, str]] = []
    real = bindings_thread._get_waiting

    def recording(session, d):
        try:
            got = real(session, d)
        except MQMIError as e:
            ends.append((threading.current_thread().name, f"MQRC {e.reason}"))
            raise
        ends.append((threading.current_thread().name,
                     "message" if type(got) is bytes else repr(got)))
        return got

    monkeypatch.setattr(bindings_thread, "_get_waiting", recording)
    return ends


def _messages(eng: QueueManagerEngine, queue: str):
    """The engine's messages of local queue ``queue`` (its get-waiters among them)."""
    return eng.catalog.messages(eng.catalog.queue_def(queue))


def _warm(q: mqpy.Queue) -> None:
    """A put and a get each right after the last: the connection is on its thread."""
    for _ in range(3):
        q.put(b"warm")
        assert q.get() == b"warm"


def _gmo(options: int = 0, interval: int = CMQC.MQWI_UNLIMITED, **fields) -> mqpy.GMO:
    return mqpy.GMO(Options=_WAIT | _NO_SYNC | options, WaitInterval=interval, **fields)


def _reason(call) -> int:
    with pytest.raises(MQMIError) as caught:
        call()
    return caught.value.reason


def _put_soon(eng: QueueManagerEngine, data: bytes, queue: str = "Q", **md) -> threading.Thread:
    """``data`` put on ``queue`` by a connection of the engine's own once a get waits on
    it (its waiter registered)."""
    def put() -> None:
        mq = _messages(eng, queue)
        assert came_true(lambda: bool(mq.waiters), 5)
        conn = eng.connect("putter")
        try:
            h = conn.open(mqpy.OD(ObjectName=queue), CMQC.MQOO_OUTPUT)
            conn.put(h, mqpy.MD(**md), mqpy.PMO(), data)
        finally:
            conn.disconnect()

    thread = threading.Thread(target=put)
    thread.start()
    return thread


# -- the thread's answers are the loop's -----------------------------------------------------


def _calls(served: _Served) -> list:
    """Waiting gets of many forms and outcomes on a fresh connection, and what each answered
    (its reason code, the message and the MQMD and MQGMO it gave back)."""
    qm, q = served.connect()
    other = mqpy.Queue(qm, "OTHER", CMQC.MQOO_OUTPUT)
    seen: list = []

    def get(gmo: mqpy.GMO, md: mqpy.MD | None = None, length: int | None = None) -> None:
        md = md or mqpy.MD()
        try:
            data = q.get(length, md, gmo)
        except MQMIError as e:
            seen.append((e.reason, getattr(e, "message", None)))
        else:
            seen.append((0, data))
        seen.append((md.pack(), gmo.pack()))

    try:
        _warm(q)
        served.recording = True
        for i, data in enumerate((b"there at once", b"second", b"x" * 3000)):
            q.put(data, mqpy.MD(MsgId=b"ID%-22d" % i, CorrelId=b"C%-23d" % i))
        get(_gmo())
        get(_gmo(interval=100), mqpy.MD(CorrelId=b"C%-23d" % 2),)  # by CorrelId: not first
        get(_gmo(_FIQ, 10, Version=4))
        get(_gmo(interval=40))  # none there: 2033
        get(_gmo(interval=0))  # none there: 2033 at once
        get(_gmo(interval=-5))  # 2090
        q.put(b"too long for it", mqpy.MD(MsgId=b"T" * 24))
        get(_gmo(interval=50), None, 4)  # 2080, with the part that fitted
        get(_gmo(CMQC.MQGMO_ACCEPT_TRUNCATED_MSG, 50), None, 3)  # 2079
        putter = _put_soon(served.eng, b"came while it waited",
                           MsgId=b"W" * 24, CorrelId=b"X" * 24)
        get(_gmo(interval=5000))
        putter.join()
        putter = _put_soon(served.eng, b"by CorrelId", MsgId=b"V" * 24, CorrelId=b"Y" * 24)
        get(_gmo(interval=5000, MatchOptions=CMQC.MQMO_MATCH_CORREL_ID),
            mqpy.MD(CorrelId=b"Y" * 24))
        putter.join()
        seen.append(_reason(lambda: mqpy.Queue(qm, "OTHER", CMQC.MQOO_BROWSE).get(
            None, mqpy.MD(), _gmo(interval=10))))  # a handle open to browse only
        seen.append(_reason(lambda: other.get(None, mqpy.MD(), _gmo(interval=10))))  # output
    finally:
        served.recording = False
        qm.disconnect()
    return seen


def test_a_waiting_get_on_the_thread_answers_as_the_loops(served, on_thread, monkeypatch):
    """Given waiting gets of many forms (a message there at once, one by CorrelId, none
    there with a WaitInterval or none, a bad WaitInterval, truncated, a message put while
    it waits, a handle not open for input), when a busy connection's thread serves them
    and when the event loop does, then each answers the same: reason code, message, the
    MQMD and MQGMO given back, and the replies' bytes."""
    fixed_clock(monkeypatch)
    replies: dict[str, list[bytes]] = {"thread": [], "loop": []}
    way = ["thread"]
    real_send, real_loop_send = bindings_thread._send, bindings_listener.loopcalls.send_all
    served.recording = False

    def thread_send(sock, data):
        if served.recording:
            replies[way[0]].append(bytes(data))
        return real_send(sock, data)

    async def loop_send(sock, data):
        if served.recording:
            replies[way[0]].append(bytes(data))
        await real_loop_send(sock, data)

    monkeypatch.setattr(bindings_thread, "_send", thread_send)
    monkeypatch.setattr(bindings_listener.loopcalls, "send_all", loop_send)
    thread_way = _calls(served)
    on_the_thread = len([name for name, _ in on_thread])
    way[0] = "loop"
    monkeypatch.setattr(bindings_thread, "_untraced", lambda session: False)  # (the loop's)
    loop_way = _calls(served)
    assert on_the_thread >= 10 and len(on_thread) == on_the_thread  # none in the loop's way
    assert thread_way == loop_way
    assert replies["thread"] == replies["loop"] and len(replies["thread"]) >= 14


# -- the ends of a wait on the thread ---------------------------------------------------------


def test_a_message_arriving_ends_the_wait_on_the_thread(served, on_thread):
    """Given a busy connection's get waiting without limit on its thread, when another
    connection puts a message, then the get answers it."""
    qm, q = served.connect()
    try:
        _warm(q)
        on_thread.clear()
        putter = _put_soon(served.eng, b"arrived")
        assert q.get(None, mqpy.MD(), _gmo()) == b"arrived"
        putter.join()
    finally:
        qm.disconnect()
    assert [end for _, end in on_thread] == ["message"]
    assert on_thread[0][0] != served.loop.name


def test_the_wait_interval_passing_ends_the_wait_on_the_thread(served, on_thread):
    """Given a busy connection's get waiting 100 ms, when nothing comes, then it answers
    MQRC_NO_MSG_AVAILABLE after 100 ms, on its thread."""
    qm, q = served.connect()
    try:
        _warm(q)
        on_thread.clear()
        began = time.monotonic()
        assert _reason(lambda: q.get(None, mqpy.MD(), _gmo(interval=100))) == 2033
        took = time.monotonic() - began
    finally:
        qm.disconnect()
    assert 0.1 <= took < 2
    assert on_thread == [(on_thread[0][0], "MQRC 2033")]


def test_a_wait_longer_than_park_s_is_finished_by_the_loop(served, on_thread, monkeypatch):
    """Given PARK_S of 50 ms, when a busy connection's get waits 300 ms and a message comes
    after the thread handed the wait to the loop, then the get answers that message, and a
    get waiting 150 ms for nothing answers 2033 after 150 ms (its MQGMO's WaitInterval as
    it was)."""
    monkeypatch.setattr(bindings_thread, "PARK_S", 0.05)
    qm, q = served.connect()
    try:
        _warm(q)
        on_thread.clear()
        began = time.monotonic()
        gmo = _gmo(interval=150)
        assert _reason(lambda: q.get(None, mqpy.MD(), gmo)) == 2033
        assert 0.15 <= time.monotonic() - began < 2 and gmo.WaitInterval == 150
        mq = _messages(served.eng, "Q")

        def put_after_the_park() -> None:
            assert came_true(lambda: len(on_thread) == 2, 5)  # (the thread has parked it)
            assert came_true(lambda: bool(mq.waiters), 5)  # (the loop waits)
            q2 = served.eng.connect("putter")
            q2.put(q2.open(mqpy.OD(ObjectName="Q"), CMQC.MQOO_OUTPUT), mqpy.MD(), mqpy.PMO(),
                   b"late")
            q2.disconnect()

        putter = threading.Thread(target=put_after_the_park)
        putter.start()
        assert q.get(None, mqpy.MD(), _gmo(interval=3000)) == b"late"
        putter.join()
    finally:
        qm.disconnect()
    assert [end.split(" ")[0] for _, end in on_thread] == ["Parked(MQGET,", "Parked(MQGET,"]


def test_a_conn_state_wake_ends_the_wait_on_the_thread(served, on_thread):
    """Given a busy connection's get waiting without limit on its thread, when another
    thread of the application wakes it (MQCTL STOP's CONN_STATE flow), then it answers
    MQRC_NO_MSG_AVAILABLE at once, and the connection goes on."""
    qm, q = served.connect()
    conn = qm._conn
    try:
        _warm(q)
        on_thread.clear()
        mq = _messages(served.eng, "Q")

        def wake() -> None:
            assert came_true(lambda: bool(mq.waiters), 5)
            conn.wake_waiting_get()

        waker = threading.Thread(target=wake)
        waker.start()
        assert _reason(lambda: q.get(None, mqpy.MD(), _gmo())) == 2033
        waker.join()
        q.put(b"after")
        assert q.get() == b"after"
    finally:
        qm.disconnect()
    assert on_thread[0][1] == "MQRC 2033" and on_thread[0][0] != served.loop.name


def test_stop_conn_ends_the_wait_on_the_thread(served, on_thread):
    """Given a busy connection's get waiting without limit on its thread, when STOP CONN
    ends the connection, then the get answers MQRC_CONNECTION_BROKEN at once."""
    qm, q = served.connect()
    try:
        _warm(q)
        on_thread.clear()
        eng, mq = served.eng, _messages(served.eng, "Q")

        def stop() -> None:
            assert came_true(lambda: bool(mq.waiters), 5)
            (waiting,) = [c for c in list(eng.connections.values())
                          if any(h.mq is mq for h in c.handles.values())]
            waiting.stop()

        stopper = threading.Thread(target=stop)
        stopper.start()
        assert _reason(lambda: q.get(None, mqpy.MD(), _gmo())) == 2009
        stopper.join()
    finally:
        try:
            qm.disconnect()
        except MQMIError:
            pass
    assert on_thread == [(on_thread[0][0], "MQRC 2009")]


def test_a_controlled_end_ends_a_fail_if_quiescing_wait_on_the_thread(own, on_thread,
                                                                     monkeypatch):
    """Given two busy connections' gets waiting on their threads, one with
    FAIL_IF_QUIESCING, when the queue manager quiesces (endmqm -c), then that one answers
    MQRC_Q_MGR_QUIESCING at once and the other waits on to its WaitInterval."""
    monkeypatch.setattr(bindings_thread, "PARK_S", 30)
    qm, q = own.connect()
    qm2, q2 = own.connect()
    try:
        _warm(q)
        _warm(q2)
        on_thread.clear()
        got: dict[str, int] = {}
        other = threading.Thread(target=lambda: got.setdefault(
            "other", _reason(lambda: q2.get(None, mqpy.MD(), _gmo(interval=1000)))))
        other.start()
        mq = _messages(own.eng, "Q")

        def quiesce() -> None:
            assert came_true(lambda: len(mq.waiters) == 2, 5)
            own.eng.quiesce()

        quiescer = threading.Thread(target=quiesce)
        quiescer.start()
        assert _reason(lambda: q.get(None, mqpy.MD(), _gmo(_FIQ))) == 2161
        assert "other" not in got  # (still waiting)
        quiescer.join()
        other.join()
        assert got == {"other": 2033}
    finally:
        qm.disconnect()
        qm2.disconnect()
    assert sorted(end for _, end in on_thread) == ["MQRC 2033", "MQRC 2161"]


def test_an_immediate_end_ends_the_wait_on_the_thread_at_once(own, on_thread, monkeypatch):
    """Given a busy connection's get waiting without limit on its thread (PARK_S an hour),
    when the queue manager ends at once (endmqm -i: its sessions cancelled), then the
    application's get fails MQRC_CONNECTION_BROKEN within a second, the thread unanswered,
    and the loop ends."""
    monkeypatch.setattr(bindings_thread, "PARK_S", 3600)
    qm, q = own.connect()
    _warm(q)
    on_thread.clear()
    mq = _messages(own.eng, "Q")
    ender = threading.Thread(target=lambda: (came_true(lambda: bool(mq.waiters), 5),
                                             own.end()))
    ender.start()
    reason = _reason(lambda: q.get(None, mqpy.MD(), _gmo()))
    ended = time.monotonic()
    ender.join()
    assert reason in (CMQC.MQRC_CONNECTION_BROKEN, CMQC.MQRC_Q_MGR_STOPPING)
    assert [end for _, end in on_thread] == [repr(bindings_thread._CANCELLED)]
    assert not own.loop.is_alive() and time.monotonic() - ended < 1


_KILLED = """
import sys, mqpy
from mqpy import CMQC, bindings
qm = mqpy.QueueManager(None)
qm._conn = bindings.connect("QM", sys.argv[1])
q = mqpy.Queue(qm, "Q", CMQC.MQOO_OUTPUT | CMQC.MQOO_INPUT_SHARED)
for _ in range(3):
    q.put(b"warm")
    q.get()
q.put(b"uncommitted", mqpy.MD(), mqpy.PMO(Options=CMQC.MQPMO_SYNCPOINT))
q.get(None, mqpy.MD(CorrelId=b"N" * 24), mqpy.GMO(
    Options=CMQC.MQGMO_WAIT | CMQC.MQGMO_SYNCPOINT, WaitInterval=CMQC.MQWI_UNLIMITED,
    MatchOptions=CMQC.MQMO_MATCH_CORREL_ID))
"""


def test_an_application_killed_while_its_get_waits_on_the_thread(own, on_thread):
    """Given an application whose get waits without limit on its thread, with a put of its
    own uncommitted, when it is killed (SIGKILL), then its unit of work is backed out at
    once, its get waits no more (a message put afterwards stays on the queue) and the
    thread has ended the wait (the application gone)."""
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    app = subprocess.Popen([sys.executable, "-c", _KILLED, own.root], env=env)
    mq = _messages(own.eng, "Q")
    try:
        assert came_true(lambda: bool(mq.waiters), 30)
        assert own.eng.queue_status("Q")["UNCOM"] == 1
        app.send_signal(signal.SIGKILL)
        app.wait(10)
        assert came_true(lambda: own.eng.queue_status("Q")["UNCOM"] == 0, 5)
    finally:
        if app.poll() is None:
            app.kill()
            app.wait()
    assert came_true(lambda: not mq.waiters, 5)
    conn = own.eng.connect("after")
    conn.put(conn.open(mqpy.OD(ObjectName="Q"), CMQC.MQOO_OUTPUT), mqpy.MD(CorrelId=b"N" * 24),
             mqpy.PMO(), b"for nobody")
    conn.disconnect()
    assert own.eng.queue_status("Q")["CURDEPTH"] == 1
    assert [end for _, end in on_thread] == [repr(bindings_thread.GONE)]
