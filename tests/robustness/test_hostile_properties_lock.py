"""A get or browse that hands a message's properties over reads them with the queue
manager's lock let go: a message of any number of properties (an MQRFH2 put by any
application allowed to put) holds no other connection while they are read. The message is
taken, or the browse cursor moved, under the lock with what was read, so that what a get
returns, what stays on the queue and where the cursor is are as before; a get under
syncpoint that backs out leaves the message as it was put.

The reading is slowed by a hook on the property reader, which has another connection put a
message while it runs: the put completes only if the lock is free. Embedded queue manager,
one for the module; the same engine code serves bindings and client connections."""

from __future__ import annotations

import struct
import threading

import pytest

import mqpy
from mqpy import CMQC, inprocess
from mqpy.properties import handover

pytestmark = pytest.mark.timeout(120)

QM = "QMLOCK"
Q = "PROPS.LOCK"
OTHER = "PROPS.OTHER"
#: how long the slowed reader waits for the other connection's put (it completes at once
#: when the lock is free; held, it never does while the reader waits)
PUT_WAIT = 5.0


@pytest.fixture(scope="module")
def root(tmp_path_factory):
    path = str(tmp_path_factory.mktemp("propslock"))
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
                    q.get(None, mqpy.MD(), mqpy.GMO(Options=CMQC.MQGMO_NO_WAIT
                                                    | CMQC.MQGMO_PROPERTIES_FORCE_MQRFH2))
            except mqpy.MQMIError:
                pass
            q.close()
        conn.disconnect()


def _rfh2(n: int) -> bytes:
    """An MQRFH2 (native encoding) of one usr folder of ``n`` properties p0..p<n-1>."""
    folder = ("<usr>" + "".join(f"<p{i}>v{i}</p{i}>" for i in range(n)) + "</usr>").encode()
    folder += b" " * (-len(folder) % 4)
    body = struct.pack("=i", len(folder)) + folder
    return struct.pack("=4siiii8sii", b"RFH ", 2, 36 + len(body), CMQC.MQENC_NATIVE, 1208,
                       CMQC.MQFMT_STRING, 0, 1208) + body


def _put(qm, data: bytes) -> None:  # noqa: ANN001
    qm.put1(Q, data, mqpy.MD(Format=CMQC.MQFMT_RF_HEADER_2))


class Reader:
    """The property reader, slowed: at each read, ``during()`` runs first (by default, an
    MQPUT of another connection from another thread, waited for up to PUT_WAIT); records
    whether each put completed."""

    def __init__(self, monkeypatch, root: str) -> None:  # noqa: ANN001
        self.root = root
        self.completed: list[bool] = []
        self.during = self.put_from_another_connection
        real = handover.take_properties

        def slowed(data, md, pset):  # noqa: ANN001, ANN202
            self.during()
            return real(data, md, pset)

        monkeypatch.setattr(handover, "take_properties", slowed)

    def put_from_another_connection(self) -> None:
        done = threading.Event()

        def put() -> None:
            other = mqpy.embedded(QM, data_path=self.root)
            try:
                other.put1(OTHER, b"meanwhile")
                done.set()
            finally:
                other.disconnect()

        thread = threading.Thread(target=put, daemon=True)
        thread.start()
        self.completed.append(done.wait(PUT_WAIT))
        if self.completed[-1]:
            thread.join()  # (else it waits for the lock this get holds: it ends after it)


@pytest.fixture()
def reader(monkeypatch, root):
    return Reader(monkeypatch, root)


def _get(qm, options: int, *, handle: bool = False, buffer: int | None = None,  # noqa: ANN001
         queue: mqpy.Queue | None = None):
    """(data, MQMD, handle or None) of the message a get with ``options`` returns."""
    hmsg = mqpy.MessageHandle(qm, mqpy.CMHO()) if handle else None
    gmo = mqpy.GMO(Version=CMQC.MQGMO_VERSION_4, Options=CMQC.MQGMO_NO_WAIT | options)
    if hmsg is not None:
        gmo.MsgHandle = hmsg.msg_handle
    md = mqpy.MD()
    q = queue or mqpy.Queue(qm, Q, CMQC.MQOO_INPUT_SHARED | CMQC.MQOO_BROWSE)
    try:
        return q.get(buffer, md, gmo), md, hmsg
    finally:
        if queue is None:
            q.close()


def _depth(qm, name: str = Q) -> int:  # noqa: ANN001
    q = mqpy.Queue(qm, name, CMQC.MQOO_INQUIRE)
    try:
        return q.inquire(CMQC.MQIA_CURRENT_Q_DEPTH)
    finally:
        q.close()


@pytest.mark.parametrize(("options", "handle"), [
    (CMQC.MQGMO_BROWSE_FIRST, False),  # IBM's default: PROPCTL COMPAT, no handle
    (CMQC.MQGMO_BROWSE_FIRST | CMQC.MQGMO_PROPERTIES_IN_HANDLE, True),
    (CMQC.MQGMO_NO_SYNCPOINT | CMQC.MQGMO_NO_PROPERTIES, False),
    (CMQC.MQGMO_SYNCPOINT | CMQC.MQGMO_PROPERTIES_IN_HANDLE, True),
], ids=["browse-compat", "browse-into-handle", "get-no-properties", "get-syncpoint-handle"])
def test_another_connection_puts_while_a_gets_properties_are_read(qm, reader, options,
                                                                   handle):
    """Given a message with properties, when a get or browse that must read them runs and
    the reading is slowed, then another connection's MQPUT completes while they are being
    read, and the get returns what it returned before: the data, and the properties where
    its options put them."""
    data = _rfh2(3)
    _put(qm, data + b"BODY")
    got, md, hmsg = _get(qm, options, handle=handle)
    assert reader.completed == [True]
    if handle:
        assert got == b"BODY" and md.Format == CMQC.MQFMT_STRING
        assert hmsg.properties.get("p2") == "v2"
    elif options & CMQC.MQGMO_NO_PROPERTIES:
        assert got == b"BODY" and md.Format == CMQC.MQFMT_STRING
    else:  # COMPAT without a handle: usr properties come as the MQRFH2 they were put in
        assert got == data + b"BODY" and md.Format == CMQC.MQFMT_RF_HEADER_2
    qm.commit()
    assert _depth(qm, OTHER) == 1


def test_a_get_under_syncpoint_backed_out_leaves_the_message_whole(qm, reader):
    """Given a message with properties got into a handle under syncpoint while another
    connection puts, when the unit of work backs out, then the message is back on the queue
    byte for byte as put, with its properties, and is got again."""
    data = _rfh2(50) + b"BODY"
    _put(qm, data)
    got, _md, hmsg = _get(qm, CMQC.MQGMO_SYNCPOINT | CMQC.MQGMO_PROPERTIES_IN_HANDLE,
                          handle=True)
    assert got == b"BODY" and hmsg.properties.get("p49") == "v49"
    assert _depth(qm) == 0  # (got under syncpoint: uncounted unless backed out)
    qm.backout()
    again, md, _ = _get(qm, CMQC.MQGMO_PROPERTIES_FORCE_MQRFH2)
    assert again == data and md.BackoutCount == 1
    assert reader.completed == [True]
    assert _depth(qm) == 0


def test_a_message_another_connection_takes_while_its_properties_are_read(qm, reader, root):
    """Given two messages with properties, when another connection gets the first while the
    first get reads its properties, then that get returns the second, read in turn: each
    message is got once, none is lost."""
    first, second = _rfh2(1) + b"FIRST", _rfh2(2) + b"SECOND"
    _put(qm, first)
    _put(qm, second)
    taken: list[bytes] = []

    def another_takes_the_first() -> None:
        if taken:
            return

        def get() -> None:
            other = mqpy.embedded(QM, data_path=root)
            try:  # as stored: this get reads no property
                taken.append(_get(other, CMQC.MQGMO_PROPERTIES_FORCE_MQRFH2)[0])
            finally:
                other.disconnect()

        thread = threading.Thread(target=get, daemon=True)
        thread.start()
        thread.join(PUT_WAIT)

    reader.during = another_takes_the_first
    got, _md, hmsg = _get(qm, CMQC.MQGMO_PROPERTIES_IN_HANDLE, handle=True)
    assert taken == [first]
    assert got == b"SECOND" and hmsg.properties.get("p1") == "v1"
    assert _depth(qm) == 0


def test_a_message_too_long_for_the_buffer_stays_and_the_cursor_moves_as_before(qm, reader):
    """Given messages with properties, when a get's buffer is shorter than the data without
    them, then it fails MQRC_TRUNCATED_MSG_FAILED and the message stays; a browse that
    reads them moves the cursor message by message as it did."""
    _put(qm, _rfh2(2) + b"0123456789")
    _put(qm, _rfh2(3) + b"second")
    with pytest.raises(mqpy.MQMIError) as err:
        _get(qm, CMQC.MQGMO_PROPERTIES_IN_HANDLE, handle=True, buffer=4)
    assert err.value.reason == CMQC.MQRC_TRUNCATED_MSG_FAILED
    assert _depth(qm) == 2
    q = mqpy.Queue(qm, Q, CMQC.MQOO_BROWSE)
    try:
        seen = [_get(qm, o, handle=True, queue=q)[0] for o in (
            CMQC.MQGMO_BROWSE_FIRST | CMQC.MQGMO_PROPERTIES_IN_HANDLE,
            CMQC.MQGMO_BROWSE_NEXT | CMQC.MQGMO_PROPERTIES_IN_HANDLE,
            CMQC.MQGMO_BROWSE_MSG_UNDER_CURSOR | CMQC.MQGMO_PROPERTIES_IN_HANDLE)]
    finally:
        q.close()
    assert seen == [b"0123456789", b"second", b"second"]
    assert all(reader.completed) and len(reader.completed) == 4


def test_a_loop_caller_reads_the_properties_on_a_thread_of_its_own(qm):
    """Given a message with properties, when an event loop's caller asks for it with
    get_unread, then the call raises propdelivery.Unread having changed nothing (the message
    still on the queue), and the call again with what Unread.judge read on another thread
    gets it, its properties in the handle."""
    from mqpy.engine import propdelivery

    _put(qm, _rfh2(4) + b"BODY")
    conn = qm._conn
    q = mqpy.Queue(qm, Q, CMQC.MQOO_INPUT_SHARED)
    hmsg = mqpy.MessageHandle(qm, mqpy.CMHO())
    gmo = mqpy.GMO(Version=CMQC.MQGMO_VERSION_4,
                   Options=CMQC.MQGMO_NO_WAIT | CMQC.MQGMO_PROPERTIES_IN_HANDLE)
    gmo.MsgHandle = hmsg.msg_handle
    try:
        with pytest.raises(propdelivery.Unread) as unread:
            conn.get_unread(q._hobj, mqpy.MD(), gmo, None)
        assert _depth(qm) == 1 and gmo.MsgHandle == hmsg.msg_handle
        judged: list[propdelivery.Judged] = []
        thread = threading.Thread(target=lambda: judged.append(unread.value.judge()))
        thread.start()
        thread.join()
        md = mqpy.MD()
        data = conn.get_unread(q._hobj, md, gmo, None, None, judged[0])
    finally:
        q.close()
    assert data.endswith(b"BODY") and md.Format == CMQC.MQFMT_RF_HEADER_2
    assert gmo.MsgHandle == propdelivery.HANDED_OVER
    assert _depth(qm) == 0


class Checker:
    """MQPUT's check of an MQRFH2 (the header read well formed, and its properties' length
    for MAXPROPL), slowed as :class:`Reader` slows the property reader: at each check,
    another connection's MQPUT from another thread first, recorded in ``completed``."""

    def __init__(self, monkeypatch, reader: Reader) -> None:  # noqa: ANN001
        from mqpy.engine import mqput, propdelivery, putcheck

        self.completed = reader.completed
        real_header, real_props = mqput._check_header, propdelivery.take_properties

        def header(fmt, data, encoding):  # noqa: ANN001, ANN202
            reader.put_from_another_connection()
            return real_header(fmt, data, encoding)

        def props(data, md, pset):  # noqa: ANN001, ANN202
            reader.put_from_another_connection()
            return real_props(data, md, pset)

        for module in (mqput, putcheck):  # (before the lock, and under it when not read)
            monkeypatch.setattr(module, "_check_header", header)
        monkeypatch.setattr(propdelivery, "take_properties", props)


@pytest.fixture()
def checker(monkeypatch, reader):
    return Checker(monkeypatch, reader)


@pytest.fixture()
def maxpropl(root):
    eng = inprocess.running(QM, root)
    eng.alter_qmgr({"MAXPROPL": 64})
    try:
        yield 64
    finally:
        eng.alter_qmgr({"MAXPROPL": "NOLIMIT"})


def _put_on_handle(qm, data: bytes) -> None:  # noqa: ANN001
    q = mqpy.Queue(qm, Q, CMQC.MQOO_OUTPUT)
    try:
        q.put(data, mqpy.MD(Format=CMQC.MQFMT_RF_HEADER_2))
    finally:
        q.close()


@pytest.mark.parametrize("put", [_put, _put_on_handle], ids=["MQPUT1", "MQPUT"])
def test_another_connection_puts_while_an_mqrfh2_put_is_checked(qm, checker, put):
    """Given a message with an MQRFH2, when it is put and MQPUT's check of the header is
    slowed, then another connection's MQPUT completes while the header is checked, and the
    message is on the queue as put."""
    data = _rfh2(3) + b"BODY"
    put(qm, data)
    assert checker.completed == [True]
    assert _get(qm, CMQC.MQGMO_PROPERTIES_FORCE_MQRFH2)[0] == data
    assert _depth(qm, OTHER) == 1


def test_an_mqrfh2_refused_is_refused_as_before_with_the_lock_free(qm, checker):
    """Given an MQRFH2 that is not well formed, when it is put, then another connection's
    MQPUT completes while it is checked, and the put fails MQRC_RFH_ERROR, nothing put."""
    data = bytearray(_rfh2(1))
    data[-4:] = b"<usr"  # (the folder cut short)
    with pytest.raises(mqpy.MQMIError) as err:
        _put(qm, bytes(data))
    assert err.value.reason == CMQC.MQRC_RFH_ERROR
    assert checker.completed == [True]
    assert _depth(qm) == 0


def test_properties_beyond_maxpropl_are_refused_as_before_with_the_lock_free(qm, checker,
                                                                             maxpropl):
    """Given MAXPROPL(64), when a message whose MQRFH2 holds more than that is put, then
    another connection's MQPUTs complete while the header and its properties are read, the
    put fails MQRC_PROPERTIES_TOO_BIG, and one within it is put."""
    with pytest.raises(mqpy.MQMIError) as err:
        _put(qm, _rfh2(20) + b"BODY")
    assert err.value.reason == CMQC.MQRC_PROPERTIES_TOO_BIG
    assert checker.completed == [True, True]
    _put(qm, _rfh2(1) + b"BODY")
    assert _depth(qm) == 1
