"""A hostile local application's MQPUTs and MQGETs on the bindings socket against the busy
thread's paths that serve them from their bytes (``mqpy.bindings_thread``): an asynchronous
put (``asyncput_stream``), a synchronous put (``syncput_stream``) and a get without wait
(``syncget_stream``), each kept as the connection's last was read and not read again when
the same bytes come (``KeptRequest``, ``KeptPut``, ``KeptGet``). A real socket to a queue
manager started by strmqm.

Whatever the application sends, each request gets the answer a new connection sending the
same bytes gets (an MQRC_* for that call, or the connection ended for a protocol breach), a
message is put once or not at all and got once, and other connections are served
throughout."""

from __future__ import annotations

import socket
import struct
import time

import pytest

import mqpy
from mqpy import CMQC, bindings
from mqpy.engine import packed
from mqpy.fap.apiheader import MQIReply
from mqpy.fap.tsh import SegmentType
from tests.support.bindings_server import serving_with_faults
from tests.support.cuts import cut_points
from tests.support.daemon_pair import mqsc_here
from tests.support.flood import written_without_reading
from tests.support.handles import wait_until_closed_before_have_ended
from tests.support.installation import Installation, started
from tests.support.request_changes import changed, one_field_changes

pytestmark = pytest.mark.timeout(300)

_T = SegmentType
_Q, _OTHER = "HOSTILE.Q", "HOSTILE.OTHER"
_NO_SYNCPOINT = CMQC.MQPMO_NO_SYNCPOINT
_ASYNC = _NO_SYNCPOINT | CMQC.MQPMO_ASYNC_RESPONSE
_NO_WAIT = CMQC.MQGMO_NO_WAIT | CMQC.MQGMO_NO_SYNCPOINT
#: where a request's MQMD starts (after its TSH and API header)
_MD_AT = 28 + 16


@pytest.fixture(scope="module")
def running(tmp_path_factory):
    """QM1 started by strmqm, with the two queues these tests use."""
    inst = Installation(str(tmp_path_factory.mktemp("hostile_bindings")))
    inst.create(queues=(_Q, _OTHER))
    yield from started(inst)


class _App:
    """A local application speaking the bindings socket by hand: connected, its queue
    open (its first handle)."""

    def __init__(self, running: Installation, queue: str | None = _Q,
                 options: int = CMQC.MQOO_INPUT_AS_Q_DEF | CMQC.MQOO_OUTPUT) -> None:
        self.flows = bindings.Flows()
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.sock.settimeout(20)
        with bindings.bind_address(bindings.socket_path(running.qmdir())) as address:
            self.sock.connect(address)
        self.events: list = []
        assert self.answer(self.request(_T.MQCONN, [("QM1", "hostile"), None]))[1] == 0
        self.hobj = 0
        if queue is not None:
            self.hobj = self.open(queue, options)

    def open(self, queue: str, options: int = CMQC.MQOO_INPUT_AS_Q_DEF | CMQC.MQOO_OUTPUT
             ) -> int:
        self.sock.sendall(self.request(_T.MQOPEN, [mqpy.OD(ObjectName=queue), options]))
        reply = self.next()
        assert reply.comp == CMQC.MQCC_OK, reply
        return reply.hobj

    def request(self, verb: SegmentType, values, hobj: int = 0) -> bytes:
        return self.flows.request(verb, values, hobj)

    def put(self, data: bytes = b"hostile", options: int = _NO_SYNCPOINT,
            md: mqpy.MD | None = None) -> bytes:
        return self.request(_T.MQPUT, [md or mqpy.MD(), mqpy.PMO(Options=options), data],
                            self.hobj)

    def get(self, buffer_length: int = 100) -> bytes:
        return self.request(_T.MQGET, [mqpy.MD(), mqpy.GMO(Options=_NO_WAIT), buffer_length],
                            self.hobj)

    def next(self):
        while not self.events:
            data = self.sock.recv(65536)
            if not data:
                raise EOFError("the queue manager closed the connection")
            self.events += self.flows._reader.feed(data)
        return self.events.pop(0)

    def answer(self, raw: bytes) -> tuple:
        """What ``raw`` is answered with: ("reply", CompCode, Reason, the reply's body's
        length), or ("ended", ) when the queue manager closed the connection."""
        self.sock.sendall(raw)
        try:
            reply = self.next()
        except (EOFError, OSError):
            return ("ended",)
        assert isinstance(reply, MQIReply), reply
        return ("reply", reply.comp, reply.reason)

    def close(self) -> None:
        self.sock.close()


def _ended(queue: str = _Q) -> None:
    """The applications closed before have ended (their work backed out)."""
    qm = mqpy.connect("QM1")
    try:
        wait_until_closed_before_have_ended(qm, queue)
    finally:
        qm.disconnect()


def _messages(queue: str = _Q) -> list[bytes]:
    """The messages on ``queue``, got (the queue left empty)."""
    qm = mqpy.connect("QM1")
    try:
        opened = mqpy.Queue(qm, queue, CMQC.MQOO_INPUT_AS_Q_DEF)
        got = []
        while True:
            try:
                got.append(opened.get(None, mqpy.MD(), mqpy.GMO(Options=_NO_WAIT)))
            except mqpy.MQMIError as e:
                assert e.reason == CMQC.MQRC_NO_MSG_AVAILABLE, e
                return got
    finally:
        qm.disconnect()


def _others_served(running: Installation) -> None:
    """Another connection puts and gets a message of its own on another queue."""
    other = mqpy.connect("QM1")
    try:
        queue = mqpy.Queue(other, _OTHER, CMQC.MQOO_INPUT_AS_Q_DEF | CMQC.MQOO_OUTPUT)
        queue.put(b"still served")
        assert queue.get() == b"still served"
    finally:
        other.disconnect()


def _nothing_unexpected(running: Installation) -> None:
    _others_served(running)
    log = _log(running)
    assert "AMQ9999E" not in log and "Traceback" not in log, log


def _log(running: Installation) -> str:
    with open(f"{running.qmdir()}/errors/AMQERR01.LOG", encoding="utf-8",
              errors="replace") as f:
        return f.read()


_BEFORE = [b"there before"] * 3


def _kept_and_fresh(running: Installation, kept: list[bytes], last: bytes) -> list[tuple]:
    """The answer to ``last`` and the messages it leaves on the queue: sent by an
    application that has sent ``kept`` (each answered OK: its bytes kept), and sent first
    by a new one after another has sent ``kept`` (the queue as it was for the first):
    [(answer, messages left), (answer, messages left)]."""
    out = []
    for fresh in (False, True):
        _ended()  # (the last run's get under syncpoint, say, backed out first)
        _messages()
        app = _App(running)
        other = None
        try:
            for data in _BEFORE:
                assert app.answer(app.put(data))[1] == CMQC.MQCC_OK
            for raw in kept:
                answer = app.answer(raw)
                assert answer[:2] == ("reply", CMQC.MQCC_OK), answer
            if fresh:
                other = _App(running)
                assert other.hobj == app.hobj  # (a connection's handles are numbered alike)
            out.append(((other or app).answer(last), sorted(_messages())))
        finally:
            app.close()
            if other is not None:
                other.close()
    return out


_KINDS = {"put": lambda app: app.put(), "async put": lambda app: app.put(options=_ASYNC),
          "get": lambda app: app.get()}


@pytest.mark.parametrize("kind", _KINDS.values(), ids=_KINDS.keys())
def test_a_kept_request_changed_in_one_field_is_answered_as_a_new_connection_answers_it(
        running, kind):
    """Given an application that has sent an MQPUT (synchronous or asynchronous) or an
    MQGET of the common form twice (its bytes kept), when it sends the same bytes with one
    4-byte field changed (a length, a version, an option, a handle, a count ...), then it
    gets what a new connection sending those bytes as its first call gets, and the queue
    is left as that one leaves it; other connections are served and nothing unexpected is
    logged."""
    probe = _App(running)
    base = kind(probe)
    probe.close()
    for at, value in one_field_changes(base, 30, len(base)):
        value = _lasting(base, at, value)
        kept, fresh = _kept_and_fresh(running, [base, base], changed(base, at, value))
        assert kept == fresh, (at, value)
    _nothing_unexpected(running)


#: where a put's MQMD's Expiry is (tenths of a second)
_EXPIRY_AT = _MD_AT + 16
#: an Expiry no run of these tests outlasts (an hour)
_AN_HOUR = 36000


def _lasting(raw: bytes, at: int, value: int) -> int:
    """``value`` for the field at ``at`` of ``raw``, but an hour for a put's Expiry of a
    few tenths of a second: a message that expires while the test looks (later on a loaded
    machine on one side than on the other) is no message lost or kept, and changes what
    each side finds on the queue."""
    if raw[9] == _T.MQPUT and at == _EXPIRY_AT and 0 < value < _AN_HOUR:
        return _AN_HOUR
    return value


def _resized(raw: bytes, by: int) -> bytes:
    """``raw`` a byte longer (a byte after it) or shorter (its last byte cut), its
    segment's length saying so, the message's length as it was."""
    raw = raw + b"!" if by > 0 else raw[:-1]
    return raw[:4] + len(raw).to_bytes(4, "big") + raw[8:]


def _md_version_2_cut(raw: bytes, by: int) -> bytes:
    """``raw`` cut within its MQMD (version 2), after an MQMD version 1's length."""
    return _cut(raw, _MD_AT + 324)


def _options_past_the_segment(raw: bytes, by: int) -> bytes:
    """``raw`` cut within its MQPMO / MQGMO."""
    return _cut(raw, _MD_AT + 364 + 40)


def _cut(raw: bytes, at: int) -> bytes:
    cut = raw[:at]
    return cut[:4] + len(cut).to_bytes(4, "big") + cut[8:]


_OVERRUNS = {"a byte longer": (_resized, 1), "a byte shorter": (_resized, -1),
             "mqmd": (_md_version_2_cut, 0), "options": (_options_past_the_segment, 0)}


@pytest.mark.parametrize("kind", _KINDS.values(), ids=_KINDS.keys())
@pytest.mark.parametrize("overrun", _OVERRUNS.values(), ids=_OVERRUNS.keys())
def test_a_kept_request_whose_lengths_do_not_add_up_gets_what_a_new_connection_gets(
        running, kind, overrun):
    """Given an application whose MQPUT (synchronous or asynchronous) or MQGET was sent
    twice (kept), when it sends the same request a byte longer or shorter than its
    structures say, or with its MQMD or MQPMO / MQGMO running past the segment's end, then
    it is answered as a new connection sending those bytes first is (a failed call, or the
    connection ended for a protocol breach), nothing more is put or got, and other
    connections are served; nothing unexpected is logged."""
    probe = _App(running)
    base = kind(probe)
    probe.close()
    change, by = overrun
    kept, fresh = _kept_and_fresh(running, [base, base], change(base, by))
    assert kept == fresh
    answer, left = kept
    assert answer[0] == "ended" or answer[1] == CMQC.MQCC_FAILED, answer
    assert left == sorted(_BEFORE + [b"hostile"] * 2 if base[9] == _T.MQPUT else _BEFORE[2:])
    _nothing_unexpected(running)


@pytest.mark.parametrize("step", [7, pytest.param(1, marks=pytest.mark.soak)])
def test_requests_split_in_two_anywhere_are_answered_as_whole_ones(running, step):
    """Given an application with the queue open, when it sends an MQPUT then an MQGET (and
    the same again: kept) cut in two at every byte of each request's head and tail and
    every ``step``th byte between (every byte under ``make soak``), the second part a
    moment later, then each put is answered OK and each get gets the message put before it,
    once: none lost, none twice."""
    _messages()
    app = _App(running)
    try:
        put_request = app.put(b"cut")
        pair = put_request + app.get()
        for cut in cut_points((len(put_request), len(pair) - len(put_request)), step):
            app.sock.sendall(pair[:cut])
            time.sleep(0.001)
            app.sock.sendall(pair[cut:])
            put, got = app.next(), app.next()
            assert (put.comp, got.comp) == (CMQC.MQCC_OK, CMQC.MQCC_OK), (cut, put, got)
            assert got.body.endswith(b"cut"), cut
    finally:
        app.close()
    assert _messages() == []
    _others_served(running)


def test_asynchronous_puts_split_at_every_byte_are_each_put_once(running):
    """Given an application with the queue open, when it sends three asynchronous puts
    (the same bytes: kept) cut in two at every byte in turn, then each is put once, in
    order, and answered."""
    _messages()
    app = _App(running)
    try:
        three = b"".join(app.put(b"%d" % i, _ASYNC) for i in range(3))
        for cut in range(1, len(three), 7):
            app.sock.sendall(three[:cut])
            time.sleep(0.001)
            app.sock.sendall(three[cut:])
            assert [app.next().comp for _ in range(3)] == [CMQC.MQCC_OK] * 3
    finally:
        app.close()
    assert _messages() == [b"0", b"1", b"2"] * len(range(1, len(three), 7))
    _others_served(running)


BUFFER_LENGTHS = {
    "negative": (-2, CMQC.MQRC_BUFFER_LENGTH_ERROR, True),
    "the most negative": (-0x80000000, CMQC.MQRC_BUFFER_LENGTH_ERROR, True),
    "zero": (0, CMQC.MQRC_TRUNCATED_MSG_FAILED, True),
    "huge": (0x7FFFFFFF, CMQC.MQRC_NONE, False),
}


@pytest.mark.parametrize("case", BUFFER_LENGTHS.values(), ids=BUFFER_LENGTHS.keys())
def test_an_mqget_with_a_huge_or_negative_buffer_length_gets_its_mq_answer(running, case):
    """Given two messages on the queue, when an application sends an MQGET whose
    BufferLength is negative, zero or the largest there is, twice (the second read as
    kept), then each gets what MQ answers (2005 MQRC_BUFFER_LENGTH_ERROR, 2080
    MQRC_TRUNCATED_MSG_FAILED, or the message), and a message not got stays on the
    queue."""
    buffer_length, reason, stays = case
    _messages()
    app = _App(running)
    try:
        for data in (b"first", b"second"):
            assert app.answer(app.put(data))[1] == CMQC.MQCC_OK
        get = app.get(buffer_length)
        for _ in range(2):
            assert app.answer(get)[2] == reason
    finally:
        app.close()
    assert _messages() == ([b"first", b"second"] if stays else [])
    _nothing_unexpected(running)


@pytest.mark.parametrize("options", [_NO_SYNCPOINT, _ASYNC], ids=["sync", "async"])
def test_kept_requests_after_their_handle_is_closed_act_on_nothing(running, options):
    """Given an application whose MQPUT and MQGET on a handle were sent twice (kept), when
    it closes the handle, opens another queue (another handle, a message put there) and
    sends the same bytes, then each is answered as a connection that never had the handle is (MQRC_HOBJ_ERROR,
    2019; an asynchronous put's failure is MQSTAT's to tell): nothing is put on or got
    from either queue."""
    _messages()
    _messages(_OTHER)
    app = _App(running)
    stranger = _App(running, None)
    try:
        put, get = app.put(b"kept", options), app.get()
        unknown = (stranger.answer(put), stranger.answer(get))
        assert unknown[1][1:] == (CMQC.MQCC_FAILED, CMQC.MQRC_HOBJ_ERROR)
        if options == _NO_SYNCPOINT:
            assert unknown[0][1:] == (CMQC.MQCC_FAILED, CMQC.MQRC_HOBJ_ERROR)
        for _ in range(2):
            assert app.answer(put)[1] == CMQC.MQCC_OK
            assert app.answer(put)[1] == CMQC.MQCC_OK
            assert app.answer(get)[1] == CMQC.MQCC_OK
        assert app.answer(app.request(_T.MQCLOSE, [0], app.hobj))[1] == CMQC.MQCC_OK
        for _ in range(2):
            assert (app.answer(put), app.answer(get)) == unknown
        app.hobj = other = app.open(_OTHER)
        assert app.answer(app.put(b"the other's"))[1] == CMQC.MQCC_OK
        for _ in range(2):
            assert (app.answer(put), app.answer(get)) == unknown
    finally:
        app.close()
        stranger.close()
    assert other != 1
    assert _messages() == [b"kept", b"kept"]
    assert _messages(_OTHER) == [b"the other's"]
    _nothing_unexpected(running)


def test_another_connections_handle_takes_none_of_its_messages(running):
    """Given an application with the queue open that put a message (its put and get
    kept), when another application that opened nothing sends those bytes as they were
    (the first's handle number), then each fails MQRC_HOBJ_ERROR (an asynchronous put's
    failure is MQSTAT's to tell), nothing is put, and the first still gets its
    message."""
    _messages()
    owner = _App(running)
    thief = _App(running, None)
    try:
        put, get = owner.put(b"the owner's"), owner.get()
        for _ in range(2):
            assert owner.answer(put)[1] == CMQC.MQCC_OK
            assert owner.answer(get)[1] == CMQC.MQCC_OK
        assert owner.answer(put)[1] == CMQC.MQCC_OK
        for raw in (get, get, put, put):
            assert thief.answer(raw)[1:] == (CMQC.MQCC_FAILED, CMQC.MQRC_HOBJ_ERROR)
        async_put = owner.put(b"async", _ASYNC)
        for _ in range(2):  # (its failure is MQSTAT's to tell)
            assert thief.answer(async_put)[0] == "reply"
        owner.sock.sendall(get)
        got = owner.next()
        assert got.comp == CMQC.MQCC_OK and got.body.endswith(b"the owner's")
    finally:
        owner.close()
        thief.close()
    assert _messages() == []
    _others_served(running)


def _reset(sock: socket.socket) -> None:
    """Close ``sock`` at once, whatever it has not sent (SO_LINGER 0)."""
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
    sock.close()


@pytest.mark.parametrize("close", [_reset, socket.socket.close], ids=["reset", "closed"])
@pytest.mark.parametrize("persistence", [CMQC.MQPER_NOT_PERSISTENT, CMQC.MQPER_PERSISTENT],
                         ids=["nonpersistent", "persistent"])
def test_puts_followed_at_once_by_the_applications_end_are_put_once_or_backed_out(
        running, close, persistence):
    """Given an application whose puts were kept, when it sends a put outside syncpoint,
    an asynchronous one and one under syncpoint (the kept bytes) and ends at once, then
    the two outside syncpoint are on the queue once each and the one under syncpoint is
    backed out; other connections are served."""
    _messages()
    app = _App(running)
    md = mqpy.MD(Persistence=persistence)
    outside = app.put(b"out", md=md)
    async_put = app.put(b"async", _ASYNC, md)
    inside = app.put(b"in", CMQC.MQPMO_SYNCPOINT, md)
    for raw in (outside, async_put, inside):
        assert app.answer(raw)[1] == CMQC.MQCC_OK
    assert app.answer(app.request(_T.MQBACK, []))[1] == CMQC.MQCC_OK
    app.sock.sendall(outside + async_put + inside)
    close(app.sock)
    expected = sorted([b"out", b"out", b"async", b"async"])
    deadline = time.monotonic() + 10
    while (left := sorted(_messages())) != expected and time.monotonic() < deadline:
        _put_back(left)
        time.sleep(0.1)
    assert left == expected
    _nothing_unexpected(running)


def _put_back(messages: list[bytes]) -> None:
    qm = mqpy.connect("QM1")
    try:
        queue = mqpy.Queue(qm, _Q, CMQC.MQOO_OUTPUT)
        for data in messages:
            queue.put(data)
    finally:
        qm.disconnect()


#: how much an application may have written without reading before the queue manager
#: stops reading it: socket buffers (a few hundred KB) and a read; far below the offer
_HELD_BACK_AT_MOST = 8 << 20
_OFFERED = 32 << 20


@pytest.mark.parametrize("options", [_NO_SYNCPOINT, _ASYNC], ids=["sync", "async"])
def test_an_application_putting_without_reading_its_replies_is_held_back(running, options):
    """Given an application with the queue open, when it writes puts (synchronous, or
    asynchronous: their replies nobody waits for) without end and never reads, then the
    queue manager stops reading it once its replies fill the socket (what was written is
    held in socket buffers, not in the queue manager), other connections are served
    meanwhile, and once the application goes no more messages are on the queue than it
    wrote, each once."""
    _messages()
    app = _App(running)
    try:
        request = app.put(b"f" * 100, options)
        written = written_without_reading(app.sock, request, _OFFERED)
        assert written < _HELD_BACK_AT_MOST
        _others_served(running)
    finally:
        app.close()
    time.sleep(0.5)
    left = _messages()
    assert 0 < len(left) <= written // len(request) and set(left) == {b"f" * 100}
    _nothing_unexpected(running)


def test_a_context_the_handle_was_not_opened_for_is_refused_kept_or_not(running):
    """Given an application with the queue open for output alone (no context), when it
    puts again and again (kept, synchronously and asynchronously) with
    MQPMO_SET_ALL_CONTEXT or MQPMO_SET_IDENTITY_CONTEXT and an MQMD naming another user,
    then each synchronous put fails (MQRC_NOT_OPEN_FOR_SET_ALL, MQRC_NOT_OPEN_FOR_SET_IDENT)
    and nothing is put."""
    _messages()
    app = _App(running, _Q, CMQC.MQOO_OUTPUT)
    try:
        md = mqpy.MD(UserIdentifier=b"mqm", ApplIdentityData=b"forged")
        for options in (CMQC.MQPMO_SET_ALL_CONTEXT, CMQC.MQPMO_SET_IDENTITY_CONTEXT):
            for response in (_NO_SYNCPOINT, _ASYNC):
                raw = app.put(b"forged", options | response, md)
                for _ in range(3):
                    answer = app.answer(raw)
                    if response == _ASYNC:  # (its failure is MQSTAT's to tell)
                        assert answer[0] == "reply"
                        continue
                    assert answer[1] == CMQC.MQCC_FAILED and answer[2] in (
                        CMQC.MQRC_NOT_OPEN_FOR_SET_ALL, CMQC.MQRC_NOT_OPEN_FOR_SET_IDENT), \
                        answer
    finally:
        app.close()
    assert _messages() == []
    _nothing_unexpected(running)


def test_an_engine_fault_in_a_get_served_from_its_bytes_is_answered_with_an_mqget_reply(
        tmp_path, monkeypatch):
    """Given an application getting messages quickly (served from their bytes by the busy
    thread), when the engine faults in those gets, then each fails with
    MQRC_UNEXPECTED_ERROR (2195) in an MQGET reply, as the general path answers it: the
    reply of another verb is no answer to an MQGET."""
    with serving_with_faults(str(tmp_path)) as (_server, faults):
        app = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        app.settimeout(20)
        with bindings.bind_address(bindings.socket_path(f"{tmp_path}/qmgrs/QM")) as address:
            app.connect(address)
        flows = bindings.Flows()

        def call(raw: bytes) -> MQIReply:
            app.sendall(raw)
            events: list = []
            while not events:
                events = flows._reader.feed(app.recv(65536))
            return events[0]

        assert call(flows.request(_T.MQCONN, [("QM", "faulty"), None], 0)).comp == 0
        hobj = call(flows.request(_T.MQOPEN, [mqpy.OD(ObjectName="Q"),
                                              CMQC.MQOO_OUTPUT | CMQC.MQOO_INPUT_SHARED], 0)).hobj
        for _ in range(100):
            assert call(flows.request(_T.MQPUT, [mqpy.MD(), mqpy.PMO(), b"m"], hobj)).comp == 0

        def fault(*args):
            raise RuntimeError("an engine fault in the bytes path's get")

        monkeypatch.setattr(packed, "get", fault)
        get = flows.request(_T.MQGET, [mqpy.MD(), mqpy.GMO(Options=_NO_WAIT), 100], hobj)
        replies = [call(get) for _ in range(50)]
        app.close()
        assert faults, "the busy thread served no get from its bytes"
        assert {r.segment_type for r in replies} == {_T.MQGET_REPLY}, replies


#: a queue altered between two runs of the same requests, and what each then answers
ALTERED = {
    "PUT(DISABLED)": ("PUT(DISABLED)", "put", CMQC.MQRC_PUT_INHIBITED),
    "GET(DISABLED)": ("GET(DISABLED)", "get", CMQC.MQRC_GET_INHIBITED),
    "MAXDEPTH(1)": ("MAXDEPTH(1)", "put", CMQC.MQRC_Q_FULL),
    "MAXMSGL(0)": ("MAXMSGL(0)", "put", CMQC.MQRC_MSG_TOO_BIG_FOR_Q),
}


@pytest.mark.parametrize("case", ALTERED.values(), ids=ALTERED.keys())
def test_a_queue_altered_between_kept_requests_answers_them_as_altered(running, case):
    """Given an application whose MQPUT and MQGET were sent again and again (kept) with a
    message left on the queue, when the operator alters the queue (puts or gets inhibited,
    its depth or message length lowered) and the application sends the same bytes, then
    each is refused as the altered queue refuses it, and nothing more is put or got."""
    attribute, verb, reason = case
    mqsc_here(running, "QM1", "DEFINE QLOCAL(HOSTILE.ALTERED) REPLACE\n")
    app = _App(running, "HOSTILE.ALTERED")
    try:
        put, get = app.put(b"before"), app.get()
        for _ in range(2):
            assert app.answer(put)[1:] == (CMQC.MQCC_OK, 0)
            assert app.answer(put)[1:] == (CMQC.MQCC_OK, 0)
            assert app.answer(get)[1:] == (CMQC.MQCC_OK, 0)
        proc = mqsc_here(running, "QM1", f"ALTER QLOCAL(HOSTILE.ALTERED) {attribute}\n")
        assert proc.returncode == 0, proc.stdout
        for _ in range(3):
            assert app.answer(put if verb == "put" else get)[1:] == (CMQC.MQCC_FAILED, reason)
    finally:
        app.close()
    mqsc_here(running, "QM1", "ALTER QLOCAL(HOSTILE.ALTERED) GET(ENABLED)\n")
    assert _messages("HOSTILE.ALTERED") == [b"before", b"before"]
