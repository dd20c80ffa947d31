"""A selector (MQOPEN's SelectionString) passing a message of many properties reads them with
the queue manager's lock let go: a message of any number of properties (an MQRFH2 put by
any application allowed to put) holds no other connection while a selector passes it. What
a walk may read under the lock is bounded (``msgselection.INLINE_BUDGET`` bytes of message
data a pass); the rest is read unlocked and the walk made again on the queue as it is then,
so that puts and gets of other connections meanwhile change nothing of what a get returns
but what they should.

The reading is slowed by a hook on the property reader, which has another connection act
while it runs on a message longer than the budget: a put completes only if the lock is
free. Embedded queue manager, one for the module; the same engine code serves bindings and
client connections (``test_hostile_properties``: the daemon)."""

from __future__ import annotations

import struct
import threading
from collections.abc import Callable

import pytest

import mqpy
from mqpy import CMQC, inprocess
from mqpy.engine import msgselection, propdelivery

pytestmark = pytest.mark.timeout(120)

QM = "QMSELLOCK"
Q = "SEL.LOCK"
OTHER = "SEL.OTHER"
#: how long the slowed reader waits for the other connection's call (at once when the lock
#: is free; held, it never completes while the reader waits)
CALL_WAIT = 5.0
#: properties enough for a message longer than what a pass reads under the lock
MANY = 4000


@pytest.fixture(scope="module")
def root(tmp_path_factory):
    path = str(tmp_path_factory.mktemp("sellock"))
    mqpy.embedded(QM, data_path=path)
    eng = inprocess.running(QM, path)
    eng.define("QLOCAL", Q, {})
    eng.define("QLOCAL", OTHER, {})
    try:
        yield path
    finally:
        mqpy.stop_embedded(QM, data_path=path)


@pytest.fixture()
def qm(root):
    conn = mqpy.embedded(QM, data_path=root)
    try:
        yield conn
    finally:
        for name in (Q, OTHER):
            q = mqpy.Queue(conn, name, CMQC.MQOO_INPUT_SHARED)
            try:
                while True:
                    q.get(None, mqpy.MD(), mqpy.GMO(Options=CMQC.MQGMO_NO_WAIT))
            except mqpy.MQMIError:
                pass
            q.close()
        conn.disconnect()


def _rfh2(colour: str, n: int = 0) -> bytes:
    """An MQRFH2 (native encoding) of one usr folder: colour, then ``n`` properties more."""
    folder = (f"<usr><colour>{colour}</colour>"
              + "".join(f"<p{i}>v{i}</p{i}>" for i in range(n)) + "</usr>").encode()
    folder += b" " * (-len(folder) % 4)
    body = struct.pack("=i", len(folder)) + folder
    return struct.pack("=4siiii8sii", b"RFH ", 2, 36 + len(body), CMQC.MQENC_NATIVE, 1208,
                       CMQC.MQFMT_STRING, 0, 1208) + body


def _put(qm, colour: str, body: bytes, n: int = 0, priority: int = 0) -> bytes:  # noqa: ANN001
    """Put a message of ``colour`` (and ``n`` properties more); its MsgId."""
    md = mqpy.MD(Format=CMQC.MQFMT_RF_HEADER_2, Priority=priority)
    qm.put1(Q, _rfh2(colour, n) + body, md)
    return md.MsgId


def _selecting(qm, options: int = CMQC.MQOO_INPUT_SHARED | CMQC.MQOO_BROWSE):  # noqa: ANN001
    od = mqpy.OD(Version=CMQC.MQOD_VERSION_4, ObjectName=Q.encode())
    od.set_vs("SelectionString", "colour = 'red'")
    return mqpy.Queue(qm, od, options)


def _get(q, options: int = 0) -> bytes:  # noqa: ANN001
    return q.get(None, mqpy.MD(), mqpy.GMO(Options=CMQC.MQGMO_NO_WAIT
                                           | CMQC.MQGMO_NO_PROPERTIES | options))


def _depth(qm, name: str = Q) -> int:  # noqa: ANN001
    q = mqpy.Queue(qm, name, CMQC.MQOO_INQUIRE)
    try:
        return q.inquire(CMQC.MQIA_CURRENT_Q_DEPTH)
    finally:
        q.close()


class Reader:
    """The selector's property reader, slowed: at each read of a message longer than a
    pass reads under the lock, ``during()`` runs first (by default, an MQPUT of another
    connection from another thread, waited for up to CALL_WAIT), once for each message;
    records whether each call completed. ``locked`` records, for every read, its data's
    length and whether this thread held the engine's lock."""

    def __init__(self, monkeypatch, root: str) -> None:  # noqa: ANN001
        self.root = root
        self.completed: list[bool] = []
        self.locked: list[tuple[int, bool]] = []
        self.during: Callable[[], None] = self.put_from_another_connection
        self.times = 1
        lock = inprocess.running(QM, root).lock
        real = propdelivery.message_properties

        def slowed(md_bytes, body):  # noqa: ANN001, ANN202
            self.locked.append((len(body), lock._is_owned()))
            if len(body) > msgselection.INLINE_BUDGET and self.times:
                self.times -= 1
                self.during()
            return real(md_bytes, body)

        monkeypatch.setattr(propdelivery, "message_properties", slowed)

    def in_another_thread(self, action: Callable[[mqpy.QueueManager], None]) -> None:
        done = threading.Event()

        def run() -> None:
            other = mqpy.embedded(QM, data_path=self.root)
            try:
                action(other)
                done.set()
            finally:
                other.disconnect()

        thread = threading.Thread(target=run, daemon=True)
        thread.start()
        self.completed.append(done.wait(CALL_WAIT))
        if self.completed[-1]:
            thread.join()  # (else it waits for the lock this get holds: it ends after it)

    def put_from_another_connection(self) -> None:
        self.in_another_thread(lambda other: other.put1(OTHER, b"meanwhile"))


@pytest.fixture()
def reader(monkeypatch, root):
    return Reader(monkeypatch, root)


@pytest.mark.parametrize("options", [0, CMQC.MQGMO_BROWSE_FIRST, CMQC.MQGMO_SYNCPOINT],
                         ids=["get", "browse", "get-syncpoint"])
def test_another_connection_puts_while_a_selector_passes_a_message_of_many_properties(
        qm, reader, options):
    """Given a message of thousands of properties the selector does not select, then one it
    does, when a get or browse with the selector passes the first and its reading is
    slowed, then another connection's MQPUT completes while it is read, and the call
    returns the second; the first stays on the queue."""
    _put(qm, "blue", b"BIG", MANY)
    _put(qm, "red", b"RED")
    q = _selecting(qm)
    try:
        assert _get(q, options) == b"RED"
    finally:
        q.close()
    qm.commit()
    assert reader.completed == [True]
    assert _depth(qm) == (2 if options & CMQC.MQGMO_BROWSE_FIRST else 1)
    assert _depth(qm, OTHER) == 1


def test_a_pass_reads_no_more_than_its_budget_under_the_lock(qm, reader):
    """Given many messages of a few properties each, more than a pass reads under the lock
    together, none selected but the last, when a get with the selector walks them, then
    no pass reads more than INLINE_BUDGET bytes of them under the lock, every message is
    read once, and the get returns the last."""
    count = 3 * msgselection.INLINE_BUDGET // 1000
    for i in range(count):
        _put(qm, "blue", b"%d" % i, 60)  # (about 1,000 bytes each)
    _put(qm, "red", b"RED")
    q = _selecting(qm)
    try:
        assert _get(q) == b"RED"
    finally:
        q.close()
    assert len(reader.locked) == count + 1
    assert any(not owned for _n, owned in reader.locked)  # (some read with the lock let go)
    passes: list[int] = [0]
    for n, owned in reader.locked:  # (a pass's reads under the lock, then the unlocked)
        if owned:
            passes[-1] += n
        elif passes[-1]:
            passes.append(0)
    assert max(passes) <= msgselection.INLINE_BUDGET


def test_a_message_another_connection_takes_while_a_selector_reads_it(qm, reader, root):
    """Given a selected message of thousands of properties, then another selected one, when
    another connection gets the first while the selector reads it, then the get returns the
    second: each message is got once, none lost."""
    first = _put(qm, "red", b"FIRST", MANY)
    _put(qm, "red", b"SECOND")

    def take_first(other) -> None:  # noqa: ANN001
        q = mqpy.Queue(other, Q, CMQC.MQOO_INPUT_SHARED)
        try:
            got = q.get(None, mqpy.MD(MsgId=first), mqpy.GMO(
                Version=CMQC.MQGMO_VERSION_2, Options=CMQC.MQGMO_NO_WAIT
                | CMQC.MQGMO_NO_PROPERTIES, MatchOptions=CMQC.MQMO_MATCH_MSG_ID))
            assert got == b"FIRST"
        finally:
            q.close()

    reader.during = lambda: reader.in_another_thread(take_first)
    q = _selecting(qm)
    try:
        assert _get(q) == b"SECOND"
    finally:
        q.close()
    assert reader.completed == [True]
    assert _depth(qm) == 0


def test_a_selected_message_put_ahead_while_a_selector_reads_is_the_one_got(qm, reader):
    """Given a message of thousands of properties the selector does not select, then one it
    does, when another connection puts a selected message of a higher priority while the
    selector reads the first, then the get returns that one (the walk is made again on the
    queue as it is), and the other selected message stays."""
    _put(qm, "blue", b"BIG", MANY)
    _put(qm, "red", b"LOW")
    reader.during = lambda: reader.in_another_thread(
        lambda other: _put(other, "red", b"HIGH", priority=5))
    q = _selecting(qm)
    try:
        assert _get(q) == b"HIGH"
        assert _get(q) == b"LOW"
    finally:
        q.close()
    assert reader.completed == [True]
    assert _depth(qm) == 1


def test_what_a_selector_read_is_read_once(qm, reader):
    """Given a message of thousands of properties the selector does not select, when gets
    with the selector pass it again and again, then its properties are read once."""
    _put(qm, "blue", b"BIG", MANY)
    q = _selecting(qm)
    try:
        for _ in range(3):
            with pytest.raises(mqpy.MQMIError) as err:
                _get(q)
            assert err.value.reason == CMQC.MQRC_NO_MSG_AVAILABLE
    finally:
        q.close()
    assert len(reader.locked) == 1 and reader.completed == [True]


def test_another_connection_puts_while_a_publication_of_many_properties_is_read(
        qm, reader, monkeypatch):
    """Given a subscription whose selection string names a property, when a publication of
    thousands of properties is put on its topic and their reading is slowed, then another
    connection's MQPUT completes at each reading, and the subscription receives the
    publication it selects."""
    from mqpy.pubsub import pubprops

    real = pubprops.take_properties

    def slowed(data, md, pset):  # noqa: ANN001, ANN202
        if len(data) > msgselection.INLINE_BUDGET:
            reader.put_from_another_connection()
        return real(data, md, pset)

    monkeypatch.setattr(pubprops, "take_properties", slowed)
    sd = mqpy.SD(Options=CMQC.MQSO_CREATE | CMQC.MQSO_MANAGED)
    sd.set_vs("ObjectString", "sel/lock")
    sd.set_vs("SelectionString", "colour = 'red'")
    sub = mqpy.Subscription(qm)
    sub.sub(sub_desc=sd)
    t = mqpy.Topic(qm, topic_string="sel/lock")
    t.open(open_opts=CMQC.MQOO_OUTPUT)
    try:
        t.pub(_rfh2("red", MANY) + b"PUB", mqpy.MD(Format=CMQC.MQFMT_RF_HEADER_2))
        got = sub.get(None, mqpy.MD(), mqpy.GMO(Options=CMQC.MQGMO_NO_WAIT
                                                | CMQC.MQGMO_NO_PROPERTIES))
    finally:
        t.close()
        sub.close()
    assert got == b"PUB"
    assert reader.completed and all(reader.completed)
