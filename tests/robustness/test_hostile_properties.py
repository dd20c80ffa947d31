"""Hostile MQRFH2 headers and message properties against a queue manager started by strmqm:
an entity-expansion bomb, a NameValueLength past the header, a negative one, nesting
100,000 deep, odd NameValueCCSIDs, a property name of 2 MB and a value of 20 MB,
reserved names (JMS*, mq.*, Root.MQMD.*) set by an application or written into its own
MQRFH2, and thousands of properties. Each gets an MQ answer for its call only (MQPUT
refuses a header that is not well formed, MQRC_RFH_ERROR; a folder the property reader
cannot read is delivered as the data it was put), nothing is lost, no application can make
another's MQINQMP report an MQMD field it did not set, and the work a message costs is
linear in it."""

from __future__ import annotations

import struct
import threading
import time

import pytest

import mqpy
from mqpy import CMQC
from mqpy.properties.propset import PropertySet
from tests.support.site import ADMIT_OWNER, Site

pytestmark = pytest.mark.timeout(300)

Q = "HOSTILE.PROPS"
OTHER = "HOSTILE.OTHER"
BOMB = (b'<!DOCTYPE usr [<!ENTITY a "aaaaaaaaaa">'
        + b"".join(f'<!ENTITY {n} "{("&" + p + ";") * 10}">'.encode()
                   for p, n in zip("abcdefg", "bcdefgh", strict=True))
        + b"]><usr><x>&h;</x></usr>")


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    s = Site(str(tmp_path_factory.mktemp("props"))).start()
    try:
        s.mqsc_here(ADMIT_OWNER + f"ALTER QMGR MAXMSGL(104857600)\n"
                    f"DEFINE QLOCAL({Q}) MAXMSGL(104857600)\nDEFINE QLOCAL({OTHER})\n")
        yield s
    finally:
        s.stop()


@pytest.fixture()
def qm(site):
    conn = site.bindings()
    try:
        yield conn
    finally:
        q = mqpy.Queue(conn, Q, CMQC.MQOO_INPUT_SHARED)
        try:
            while True:
                q.get(None, mqpy.MD(), mqpy.GMO(Options=CMQC.MQGMO_NO_WAIT))
        except mqpy.MQMIError:
            pass
        q.close()
        conn.disconnect()


def _rfh2(folders: list[bytes], ccsid: int = 1208, lengths: list[int] | None = None) -> bytes:
    """An MQRFH2 (little-endian) of ``folders`` as given, each padded to 4 bytes, their
    NameValueLengths ``lengths`` when given (a lie, perhaps)."""
    body = b""
    for i, folder in enumerate(folders):
        folder += b" " * (-len(folder) % 4)
        body += struct.pack("<i", lengths[i] if lengths else len(folder)) + folder
    return struct.pack("<4siiii8sii", b"RFH ", 2, 36 + len(body), CMQC.MQENC_NATIVE, 1208,
                       CMQC.MQFMT_STRING, 0, ccsid) + body


def _put(qm, data: bytes) -> None:
    qm.put1(Q, data + b"BODY", mqpy.MD(Format=CMQC.MQFMT_RF_HEADER_2))


def _get(qm, options: int, *, browse: bool = False, handle: bool = True):  # noqa: ANN202
    """(data, MQMD, handle) of the next message, got with ``options`` (and a handle, unless
    ``handle`` is False: then None)."""
    hmsg = mqpy.MessageHandle(qm, mqpy.CMHO()) if handle else None
    gmo = mqpy.GMO(Version=CMQC.MQGMO_VERSION_4, Options=CMQC.MQGMO_NO_WAIT | options
                   | (CMQC.MQGMO_BROWSE_FIRST if browse else 0))
    if hmsg is not None:
        gmo.MsgHandle = hmsg.msg_handle
    md = mqpy.MD()
    q = mqpy.Queue(qm, Q, CMQC.MQOO_BROWSE if browse else CMQC.MQOO_INPUT_SHARED)
    try:
        return q.get(None, md, gmo), md, hmsg
    finally:
        q.close()


def _all(handle) -> dict[str, object]:  # noqa: ANN001
    """Every property of ``handle`` by MQINQMP of ``%`` with INQ_NEXT."""
    out: dict[str, object] = {}
    option = CMQC.MQIMPO_INQ_FIRST
    while True:
        try:
            value, name = handle.properties.get("%", impo_options=option)
        except mqpy.MQMIError as e:
            assert e.reason == CMQC.MQRC_PROPERTY_NOT_AVAILABLE
            return out
        out[name.decode()] = value
        option = CMQC.MQIMPO_INQ_NEXT


@pytest.mark.parametrize("data", [
    _rfh2([BOMB]),
    _rfh2([b"<usr><a>1</a></usr>"], lengths=[2**31 - 1]),
    _rfh2([b"<usr><a>1</a></usr>"], lengths=[-4]),
    _rfh2([b"<usr><a>1</usr>"]),
], ids=["entity-bomb", "huge-NameValueLength", "negative-NameValueLength", "not-well-formed"])
def test_a_header_that_is_not_well_formed_is_refused_at_mqput(qm, data):
    """Given an MQRFH2 an expansion bomb, a NameValueLength past the header or below 0, or a
    folder that is not XML, when it is put, then MQPUT fails MQRC_RFH_ERROR at once and the
    queue is as it was."""
    start = time.monotonic()
    with pytest.raises(mqpy.MQMIError) as err:
        _put(qm, data)
    assert err.value.reason == CMQC.MQRC_RFH_ERROR
    assert time.monotonic() - start < 2
    with pytest.raises(mqpy.MQMIError) as none:
        _get(qm, CMQC.MQGMO_PROPERTIES_IN_HANDLE)
    assert none.value.reason == CMQC.MQRC_NO_MSG_AVAILABLE


@pytest.mark.parametrize("folder,ccsid", [
    (b"<usr>" + b"<a>" * 100_000 + b"1" + b"</a>" * 100_000 + b"</usr>", 1208),
    (b"<usr><a>1</a></usr>", 1200),  # not UTF-16 at all: an odd number of bytes, too
    (b"<usr><a>1</a></usr>", 13488),
    (b"<usr><a dt='i4'>99999999999</a></usr>", 1208),
    (b"<usr><a dt='bin.hex'>xyz</a></usr>", 1208),
], ids=["nested-100000", "ccsid-1200", "ccsid-13488", "i4-out-of-range", "bin.hex-not-hex"])
@pytest.mark.parametrize("options", [CMQC.MQGMO_PROPERTIES_IN_HANDLE,
                                     CMQC.MQGMO_PROPERTIES_AS_Q_DEF,
                                     CMQC.MQGMO_PROPERTIES_FORCE_MQRFH2])
def test_a_folder_the_reader_cannot_read_is_delivered_as_it_was_put(qm, folder, ccsid,
                                                                     options):
    """Given a folder nested too deep, in a NameValueCCSID it is not in (or none at all),
    or with a value its dt cannot be, when the message is got, then the get works and
    returns the MQRFH2 as data, byte for byte as put: nothing is lost, nothing raised."""
    data = _rfh2([folder], ccsid=ccsid)
    _put(qm, data)
    got, md, _handle = _get(qm, options)
    assert got == data + b"BODY"
    assert md.Format == CMQC.MQFMT_RF_HEADER_2


@pytest.mark.parametrize("ccsid", [-1, 0, 37, 2**31 - 1])
def test_a_namevalueccsid_of_no_unicode_is_read_as_utf8(qm, ccsid):
    """A NameValueCCSID that names no Unicode CCSID (IBM allows 1200, 1208, 13488 and
    17584) is read as UTF-8: the property is there, the call works."""
    _put(qm, _rfh2([b"<usr><a>1</a></usr>"], ccsid=ccsid))
    got, _md, handle = _get(qm, CMQC.MQGMO_PROPERTIES_IN_HANDLE)
    assert got == b"BODY" and _all(handle) == {"a": "1"}


def test_a_huge_name_and_a_huge_value_are_read_in_linear_time(qm):
    """A property named by 2 MB and one of 20 MB's value come back whole, in seconds."""
    name = "n" * 2_000_000
    folder = (f"<usr><{name}>v</{name}><big>".encode() + b"v" * 20_000_000 + b"</big></usr>")
    start = time.monotonic()
    _put(qm, _rfh2([folder]))
    got, _md, handle = _get(qm, CMQC.MQGMO_PROPERTIES_IN_HANDLE)
    assert got == b"BODY"
    assert len(handle.properties.get("big", max_value_length=30_000_000)) == 20_000_000
    assert time.monotonic() - start < 60


RESERVED = [("JMSXUserID", "mqm"), ("JMSXAppID", "x"), ("mq.a.b", "x"), ("Root.x", "x"),
            ("Body.x", "x"), ("Root.MQMD.Version", 1), ("NULL", "x"), ("usr.AND", "x")]


@pytest.mark.parametrize("name,value", RESERVED)
def test_a_reserved_name_set_by_an_application_is_property_name_error(qm, name, value):
    handle = mqpy.MessageHandle(qm, mqpy.CMHO())
    ptype = CMQC.MQTYPE_INT32 if isinstance(value, int) else CMQC.MQTYPE_STRING
    with pytest.raises(mqpy.MQMIError) as err:
        handle.properties.set(name, value, property_type=ptype)
    assert err.value.reason == CMQC.MQRC_PROPERTY_NAME_ERROR


def test_root_mqmd_set_in_a_handle_does_not_change_the_messages_mqmd(qm):
    """Given Root.MQMD.UserIdentifier and PutApplName set in a handle (allowed: IBM's
    MQPMO_MD_FOR_OUTPUT_ONLY reads them), when the message is put, then its MQMD carries
    the connection's identity: no context is set without context authority."""
    handle = mqpy.MessageHandle(qm, mqpy.CMHO())
    handle.properties.set("Root.MQMD.UserIdentifier", "mqm")
    handle.properties.set("Root.MQMD.PutApplName", "FORGED")
    pmo = mqpy.PMO(Version=CMQC.MQPMO_VERSION_3)
    pmo.OriginalMsgHandle = handle.msg_handle
    md = mqpy.MD()
    qm.put1(Q, b"x", md, pmo)
    got_md = _get(qm, CMQC.MQGMO_PROPERTIES_FORCE_MQRFH2)[1]
    assert got_md.PutApplName.rstrip() != b"FORGED"
    assert got_md.UserIdentifier == md.UserIdentifier


@pytest.mark.parametrize("folder", [
    b"<usr><Root.MQMD.UserIdentifier>mqm</Root.MQMD.UserIdentifier></usr>",
    b"<Root content='properties'><MQMD><UserIdentifier>mqm</UserIdentifier></MQMD></Root>",
    b"<usr><_x0052_oot.MQMD.UserIdentifier>mqm</_x0052_oot.MQMD.UserIdentifier></usr>",
])
def test_an_mqmd_field_written_into_an_mqrfh2_is_no_property(qm, folder):
    """Given an application's own MQRFH2 naming Root.MQMD.UserIdentifier (as an element,
    as a folder, or escaped), when another gets the message into a handle, then no such
    property is there: MQINQMP cannot be made to report a user id the MQMD does not
    hold."""
    _put(qm, _rfh2([folder]))
    _data, _md, handle = _get(qm, CMQC.MQGMO_PROPERTIES_IN_HANDLE)
    assert not any(n.startswith("Root.") for n in _all(handle))
    with pytest.raises(mqpy.MQMIError) as err:
        handle.properties.get("Root.MQMD.UserIdentifier")
    assert err.value.reason == CMQC.MQRC_PROPERTY_NOT_AVAILABLE


def test_mqinqmp_through_20000_properties_is_linear():
    """MQINQMP of ``%`` with INQ_NEXT through 20,000 properties: each call starts where
    the cursor is (it took 14 s when each looked for the cursor from the start)."""
    pset = PropertySet(validate=False)
    folder = "".join(f"<p{i}>v</p{i}>" for i in range(20_000))
    from mqpy.properties import rfh2props

    rfh2props.read_folders([f"<usr>{folder}</usr>".encode()], pset)
    start = time.process_time()
    option, seen = CMQC.MQIMPO_INQ_FIRST, 0
    while True:
        try:
            pset.inquire("%", options=option)
        except mqpy.MQMIError:
            break
        seen, option = seen + 1, CMQC.MQIMPO_INQ_NEXT
    assert seen == 20_000
    assert time.process_time() - start < 2


def _many(n: int) -> bytes:
    return _rfh2([("<usr>" + "".join(f"<p{i}>v</p{i}>" for i in range(n)) + "</usr>")
                  .encode()])


def _stall_while(site, action) -> float:  # noqa: ANN001
    """The longest an MQPUT of another connection to another queue waited while
    ``action()`` ran."""
    other = site.bindings()
    waits: list[float] = []
    stop = threading.Event()

    def putter() -> None:
        q = mqpy.Queue(other, OTHER, CMQC.MQOO_OUTPUT)
        while not stop.is_set():
            t = time.monotonic()
            q.put(b"x")
            waits.append(time.monotonic() - t)
            time.sleep(0.01)
        q.close()

    thread = threading.Thread(target=putter)
    thread.start()
    try:
        time.sleep(0.3)
        action()
        time.sleep(0.1)
    finally:
        stop.set()
        thread.join()
        other.disconnect()
    return max(waits)


def test_a_message_got_as_stored_costs_the_queue_manager_no_property_reading(site, qm):
    """Given a message whose MQRFH2 holds 200,000 properties (3.8 MB), when it is browsed
    with MQGMO_PROPERTIES_FORCE_MQRFH2, then it comes back as put at once and nobody else
    waits: the options alone decide, so its properties are not read (it took 3.5 s and
    held every other connection as long)."""
    data = _many(200_000)
    _put(qm, data)

    def browse() -> None:
        start = time.monotonic()
        got = _get(qm, CMQC.MQGMO_PROPERTIES_FORCE_MQRFH2, browse=True, handle=False)[0]
        assert got == data + b"BODY"
        assert time.monotonic() - start < 1

    assert _stall_while(site, browse) < 1


def test_a_message_with_200000_properties_does_not_stall_other_connections(site, qm):
    """Given the same message got with IBM's default (PROPCTL COMPAT, properties into no
    handle), when it is browsed, then another connection's MQPUTs to another queue go on
    completing while the browse reads its properties (none did while they were read under
    the engine's lock, or in the event loop that serves both connections)."""
    _put(qm, _many(200_000))
    got: list[bytes] = []
    done, start, end = _other_puts(site, 0.1, lambda: got.append(_get(
        qm, CMQC.MQGMO_PROPERTIES_AS_Q_DEF, browse=True, handle=False)[0]))
    assert got[0].endswith(b"BODY")
    assert sum(start < t < end for t in done) >= 3


def _other_puts(site, interval: float, action) -> tuple[list[float], float, float]:  # noqa: ANN001
    """Run ``action()`` while another connection puts to another queue every ``interval``
    seconds: when each of its MQPUTs completed, and when ``action`` began and ended."""
    other = site.bindings()
    done: list[float] = []
    stop = threading.Event()

    def putter() -> None:
        q = mqpy.Queue(other, OTHER, CMQC.MQOO_OUTPUT)
        while not stop.is_set():
            q.put(b"x")
            done.append(time.monotonic())
            stop.wait(interval)
        q.close()

    thread = threading.Thread(target=putter)
    thread.start()
    try:
        while not done:  # (the putter connected and putting)
            time.sleep(0.01)
        start = time.monotonic()
        action()
        end = time.monotonic()
    finally:
        stop.set()
        thread.join()
        other.disconnect()
    return done, start, end


def _puts_went_on_throughout(site, action) -> bool:  # noqa: ANN001
    """Whether MQPUTs of another connection to another queue (one every hundredth of a
    second) completed in each quarter of the time ``action()`` ran: a call that holds the
    queue manager's lock while it reads holds them for most of its time, and leaves at
    least two quarters without one."""
    done, start, end = _other_puts(site, 0.01, action)
    quarter = (end - start) / 4
    seen = {int((t - start) // quarter) for t in done if start < t < end}
    return seen == {0, 1, 2, 3}


@pytest.fixture(params=["bindings", "client"])
def caller(request, site):
    conn = getattr(site, request.param)()
    try:
        yield conn
    finally:
        conn.disconnect()


@pytest.mark.parametrize("caller", ["bindings", "client"], indirect=True)
def test_a_selector_passing_25000_properties_does_not_stall_other_connections(site, qm,
                                                                             caller):
    """Given four messages of 25,000 properties (0.4 MB each) that a selector does not
    select, then one it does, when a get through the selector passes them (bindings,
    client), then another connection's MQPUTs go on completing while their properties are
    read (none did while a selector read them under the engine's lock), and the get
    returns the last."""
    many = _many(25_000)
    for _ in range(4):
        _put(qm, many)
    _put(qm, _rfh2([b"<usr><colour>red</colour></usr>"]))
    od = mqpy.OD(Version=CMQC.MQOD_VERSION_4, ObjectName=Q.encode())
    od.set_vs("SelectionString", "colour = 'red'")
    q = mqpy.Queue(caller, od, CMQC.MQOO_INPUT_SHARED)
    got: list[bytes] = []
    try:
        went_on = _puts_went_on_throughout(site, lambda: got.append(q.get(
            None, mqpy.MD(), mqpy.GMO(Options=CMQC.MQGMO_NO_WAIT | CMQC.MQGMO_NO_PROPERTIES))))
    finally:
        q.close()
    assert got == [b"BODY"]
    assert went_on


@pytest.fixture()
def maxpropl(site):
    site.mqsc_here("ALTER QMGR MAXPROPL(104857600)\n")
    try:
        yield
    finally:
        site.mqsc_here("ALTER QMGR MAXPROPL(NOLIMIT)\n")


def test_a_put_of_25000_properties_does_not_stall_other_connections(site, qm, caller,
                                                                      maxpropl):
    """Given a queue manager with a MAXPROPL (every property of an MQRFH2 put is then read),
    when a message of 25,000 properties (0.4 MB) is put (bindings, client), then another
    connection's MQPUTs go on completing while its MQRFH2 is checked and read (none did
    while MQPUT read it under the engine's lock), and it is on the queue."""
    data = _many(25_000) + b"BODY"
    q = mqpy.Queue(caller, Q, CMQC.MQOO_OUTPUT)
    try:
        went_on = _puts_went_on_throughout(site, lambda: q.put(data, mqpy.MD(
            Format=CMQC.MQFMT_RF_HEADER_2)))
    finally:
        q.close()
    assert went_on
    assert _get(qm, CMQC.MQGMO_PROPERTIES_FORCE_MQRFH2, handle=False)[0] == data
