"""A hostile client's MQPUTs and MQGETs against the paths that serve them from their bytes: the
client host's poller (``mqpy_chinit.clientpoll``, ``svrconn_packed``: MQIBindType FASTPATH),
which keeps what a conversation's last put and get were read as and does not read the same
bytes again, and the channel initiator's relay to the queue manager's bindings socket
(STANDARD), whose busy thread keeps them the same way (``mqpy.syncput_stream``,
``syncget_stream``). Real sockets to a queue manager started by strmqm.

Whatever the client sends, each request gets the answer a new connection sending the same
bytes gets (an MQRC_* for that call, or STATUS and AMQ9504E ending that instance only), a
message is put once or not at all and got once, and the instance's neighbours are served
throughout."""

from __future__ import annotations

import socket
import struct
import time

import attrs
import pytest

import mqpy
from mqpy import CMQC
from mqpy.fap import mqiflows
from mqpy.fap.apiheader import MQIReply
from mqpy.fap.controlflows import Status
from mqpy.fap.statuscodes import StatusCode
from mqpy.fap.tsh import SegmentType
from tests.mqi._modes import QUEUE as ELSEWHERE  # the queue of another instance's client
from tests.robustness.test_svrconn_hostile_flows import (
    _nothing_unexpected,
    _Peer,
    _protocol_error_logged,
    _served,
)
from tests.support.cuts import cut_points
from tests.support.flood import written_without_reading
from tests.support.handles import wait_until_closed_before_have_ended
from tests.support.request_changes import changed, one_field_changes
from tests.support.site import QM, QUEUE, Site
from tests.support.site_here import here_site_per_bind_type

pytestmark = [pytest.mark.system, pytest.mark.timeout(300)]

_T = SegmentType
_NO_SYNCPOINT = CMQC.MQPMO_NO_SYNCPOINT
_NO_WAIT = CMQC.MQGMO_NO_WAIT | CMQC.MQGMO_NO_SYNCPOINT
#: where a client's MQI request's API header and MQMD start (after its TSHM)
_MD_AT = 36 + 16

site = here_site_per_bind_type("hostile_client")


@pytest.fixture
def bystander(site):
    """A client of another channel instance, connected before the hostile flows, with a
    queue of its own open: it must be served after them."""
    site.mark()
    qm = site.client()
    try:
        yield mqpy.Queue(qm, ELSEWHERE, CMQC.MQOO_INPUT_AS_Q_DEF | CMQC.MQOO_OUTPUT)
    finally:
        qm.disconnect()


def _put(peer: _Peer, hobj: int, data: bytes = b"hostile", conv_id: int = 1,
         options: int = _NO_SYNCPOINT) -> bytes:
    """The bytes of an MQPUT of ``data`` on ``hobj`` (a new RequestId each)."""
    return _request(peer, _T.MQPUT, [mqpy.MD(), mqpy.PMO(Options=options), data], hobj,
                    conv_id)


def _get(peer: _Peer, hobj: int, buffer_length: int = 100, conv_id: int = 1) -> bytes:
    return _request(peer, _T.MQGET, [mqpy.MD(), mqpy.GMO(Options=_NO_WAIT), buffer_length],
                    hobj, conv_id)


def _request(peer: _Peer, verb: SegmentType, values, hobj: int, conv_id: int) -> bytes:
    peer.request_id += 1
    event = mqiflows.encode_request(verb, values, hobj=hobj)
    return peer.writer.send(attrs.evolve(event, conv_id=conv_id, request_id=peer.request_id))


def _answer(peer: _Peer, raw: bytes) -> tuple:
    """What ``raw`` sent on ``peer`` is answered with: ("reply", its type, CompCode,
    Reason), ("status", the code of the STATUS that ended the instance), or ("ended", )
    when the instance closed without one."""
    peer.sock.sendall(raw)
    try:
        event = peer.next()
    except (AssertionError, OSError):
        return ("ended",)
    if isinstance(event, Status):
        return ("status", StatusCode(event.code))
    assert isinstance(event, MQIReply), event
    return ("reply", event.segment_type, event.comp, event.reason)


def _messages(site: Site) -> list[bytes]:
    """The messages on QUEUE, got (the queue left empty)."""
    qm = site.client()
    try:
        queue = mqpy.Queue(qm, QUEUE, CMQC.MQOO_INPUT_AS_Q_DEF)
        got = []
        while True:
            try:
                got.append(queue.get(None, mqpy.MD(), mqpy.GMO(Options=_NO_WAIT)))
            except mqpy.MQMIError as e:
                assert e.reason == CMQC.MQRC_NO_MSG_AVAILABLE, e
                return got
    finally:
        qm.disconnect()


def _ended(site: Site) -> None:
    """The clients closed before have ended (their work backed out)."""
    qm = site.bindings()
    try:
        wait_until_closed_before_have_ended(qm, QUEUE)
    finally:
        qm.disconnect()


def _drained(site: Site) -> None:
    """QUEUE emptied once the connections closed before have ended (:func:`_ended`): no
    message of theirs comes back to it later."""
    _ended(site)
    _messages(site)


def _opened(site: Site) -> tuple[_Peer, int]:
    """A new instance whose conversation 1 has QUEUE open (its first handle)."""
    peer = _Peer(site)
    return peer, peer.connected(1)


_BEFORE = [b"there before"] * 3


def _kept_and_fresh(site: Site, kept: list[bytes], last: bytes) -> list[tuple]:
    """The answer to ``last`` and the messages it leaves on QUEUE: sent on a conversation
    that has sent ``kept`` (each answered OK: its bytes kept), and sent first on a new one
    after another has sent ``kept`` (the queue as it was for the first): [(answer,
    messages left), (answer, messages left)]."""
    out = []
    for fresh in (False, True):
        _drained(site)  # (the last run's got under syncpoint, say, backed out first)
        peer, hobj = _opened(site)
        other = None
        try:
            for data in _BEFORE:
                assert _answer(peer, _put(peer, hobj, data))[2] == CMQC.MQCC_OK
            for raw in kept:
                answer = _answer(peer, raw)
                assert answer[0] == "reply" and answer[2] == CMQC.MQCC_OK, answer
            if fresh:
                other, other_hobj = _opened(site)
                assert other_hobj == hobj  # (a connection's handles are numbered alike)
            out.append((_answer(other or peer, last), sorted(_messages(site))))
        finally:
            peer.close()
            if other is not None:
                other.close()
    return out


def _same_request(peer: _Peer, verb: SegmentType, hobj: int) -> bytes:
    return _put(peer, hobj) if verb == _T.MQPUT else _get(peer, hobj)


@pytest.mark.parametrize("verb", [_T.MQPUT, _T.MQGET], ids=lambda v: v.name)
def test_a_kept_request_changed_in_one_field_is_answered_as_a_new_connection_answers_it(
        site, bystander, verb):
    """Given a conversation that has sent an MQPUT (or MQGET) of the common form twice (its
    bytes kept), when it sends the same bytes with one 4-byte field changed (a length, a
    version, an option, a handle, a count ...), then it gets what a new conversation
    sending those bytes as its first call gets, and the queue is left as that one leaves
    it; another instance's client is served and nothing unexpected is logged."""
    probe, hobj = _opened(site)
    base = _same_request(probe, verb, hobj)
    probe.close()
    for at, value in one_field_changes(base, 24, int(verb)):
        kept, fresh = _kept_and_fresh(site, [base, base], changed(base, at, value))
        assert kept == fresh, (at, value, kept, fresh)
    _nothing_unexpected(site, bystander)


@pytest.mark.parametrize("by", [1, -1], ids=["longer", "shorter"])
def test_a_kept_put_sent_again_with_another_segment_length_ends_only_its_instance(
        site, bystander, by):
    """Given a conversation whose MQPUT was sent twice (its bytes kept), when it sends the
    same put with its segment a byte longer (a byte after the message) or shorter (the
    message cut), the message's length unchanged, then the instance is ended with STATUS
    and AMQ9504E naming the peer (not AMQ9999E), nothing more is put, and another
    instance's client is served."""
    _drained(site)
    peer, hobj = _opened(site)
    try:
        for _ in range(2):
            assert _answer(peer, _put(peer, hobj))[2] == CMQC.MQCC_OK
        raw = _put(peer, hobj)
        raw = raw + b"!" if by > 0 else raw[:-1]
        raw = raw[:4] + len(raw).to_bytes(4, "big") + raw[8:]
        assert _answer(peer, raw)[0] in ("status", "ended")
    finally:
        peer.close()
    _protocol_error_logged(site, "MQPUT")
    assert _messages(site) == [b"hostile", b"hostile"]
    _nothing_unexpected(site, bystander)


def _md_version_2_cut(peer: _Peer, hobj: int, verb: SegmentType) -> bytes:
    """A request whose MQMD says version 2 but whose segment ends within it, after the
    length of an MQMD version 1."""
    raw = _put(peer, hobj) if verb == _T.MQPUT else _get(peer, hobj)
    cut = raw[:_MD_AT + 324]
    return cut[:4] + len(cut).to_bytes(4, "big") + cut[8:]


def _pmo_past_the_segment(peer: _Peer, hobj: int, verb: SegmentType) -> bytes:
    """An MQPUT (MQGET) whose MQPMO (MQGMO) begins in the segment and ends past it."""
    raw = _put(peer, hobj) if verb == _T.MQPUT else _get(peer, hobj)
    cut = raw[:_MD_AT + 364 + 40]
    return cut[:4] + len(cut).to_bytes(4, "big") + cut[8:]


@pytest.mark.parametrize("verb", [_T.MQPUT, _T.MQGET], ids=lambda v: v.name)
@pytest.mark.parametrize("make", [_md_version_2_cut, _pmo_past_the_segment],
                         ids=["mqmd", "options"])
def test_a_request_whose_structures_overrun_its_segment_gets_an_mq_answer(
        site, bystander, verb, make):
    """Given a conversation whose MQPUT or MQGET was sent twice (kept), when it sends one
    whose MQMD, or MQPMO / MQGMO, says it is longer than what is left of the segment, then
    it is answered as a new conversation sending it first is (a failed reply, or STATUS
    and AMQ9504E for the instance), nothing is put or got, and another instance's client
    is served; nothing unexpected is logged."""
    probe, hobj = _opened(site)
    base = _same_request(probe, verb, hobj)
    last = make(probe, hobj, verb)
    probe.close()
    kept, fresh = _kept_and_fresh(site, [base, base], last)
    assert kept == fresh
    answer, left = kept
    assert answer[0] != "reply" or answer[2] == CMQC.MQCC_FAILED, answer
    assert left == sorted(_BEFORE + [b"hostile"] * 2 if verb == _T.MQPUT else _BEFORE[2:])
    _nothing_unexpected(site, bystander)


@pytest.mark.parametrize("step", [7, pytest.param(1, marks=pytest.mark.soak)])
def test_requests_split_in_two_anywhere_are_answered_as_whole_ones(site, bystander, step):
    """Given a conversation with the queue open, when it sends an MQPUT then an MQGET (and
    the same again, kept) cut in two at every byte of each request's head and tail and
    every ``step``th byte between (every byte under ``make soak``), the second part a
    moment later, then each put is answered OK and each get gets the message put before it,
    once: none lost, none twice; another instance's client is served."""
    _drained(site)
    peer, hobj = _opened(site)
    try:
        put_request = _put(peer, hobj, b"cut")
        pair = put_request + _get(peer, hobj)
        for cut in cut_points((len(put_request), len(pair) - len(put_request)), step):
            peer.sock.sendall(pair[:cut])
            time.sleep(0.001)
            peer.sock.sendall(pair[cut:])
            put, got = peer.next(), peer.next()
            assert (put.comp, got.comp) == (CMQC.MQCC_OK, CMQC.MQCC_OK), (cut, put, got)
            assert got.body.endswith(b"cut"), cut
    finally:
        peer.close()
    assert _messages(site) == []
    _served(bystander)


def test_a_request_sent_a_byte_at_a_time_is_answered_as_a_whole_one(site, bystander):
    """Given a conversation with the queue open, when it sends an MQPUT and an MQGET one
    byte a write (twice: the second time as kept), then each is answered as if sent
    whole."""
    _drained(site)
    peer, hobj = _opened(site)
    try:
        for _ in range(2):
            for raw in (_put(peer, hobj, b"bytewise"), _get(peer, hobj)):
                for i in range(len(raw)):
                    peer.sock.sendall(raw[i:i + 1])
                reply = peer.next()
                assert reply.comp == CMQC.MQCC_OK, reply
            assert reply.body.endswith(b"bytewise")
    finally:
        peer.close()
    assert _messages(site) == []
    _served(bystander)


BUFFER_LENGTHS = {
    "negative": (-2, CMQC.MQRC_BUFFER_LENGTH_ERROR, True),
    "the most negative": (-0x80000000, CMQC.MQRC_BUFFER_LENGTH_ERROR, True),
    "zero": (0, CMQC.MQRC_TRUNCATED_MSG_FAILED, True),
    "huge": (0x7FFFFFFF, CMQC.MQRC_NONE, False),
}


@pytest.mark.parametrize("case", BUFFER_LENGTHS.values(), ids=BUFFER_LENGTHS.keys())
def test_an_mqget_with_a_huge_or_negative_buffer_length_gets_its_mq_answer(
        site, bystander, case):
    """Given two messages on the queue, when a conversation sends an MQGET whose
    BufferLength is negative, zero or the largest there is, twice (the second read as
    kept), then each gets what MQ answers (2005 MQRC_BUFFER_LENGTH_ERROR, 2080
    MQRC_TRUNCATED_MSG_FAILED, or the message), a message not got stays on the queue, and
    another instance's client is served."""
    buffer_length, reason, stays = case
    _drained(site)
    peer, hobj = _opened(site)
    try:
        for data in (b"first", b"second"):
            assert _answer(peer, _put(peer, hobj, data))[2] == CMQC.MQCC_OK
        for _ in range(2):
            answer = _answer(peer, _get(peer, hobj, buffer_length))
            assert answer[3] == reason, answer
    finally:
        peer.close()
    assert _messages(site) == ([b"first", b"second"] if stays else [])
    _nothing_unexpected(site, bystander)


def test_kept_requests_after_their_handle_is_closed_act_on_nothing(site, bystander):
    """Given a conversation whose MQPUT and MQGET on a handle were sent twice (kept), when
    it closes the handle, opens another queue (a handle of its own again, a message put
    there) and sends the same bytes, then each fails MQRC_HOBJ_ERROR (2019): nothing is
    put on or got from either queue."""
    _drained(site)
    peer, hobj = _opened(site)
    try:
        put, get = _put(peer, hobj, b"kept"), _get(peer, hobj)
        for _ in range(2):
            assert _answer(peer, put)[2] == CMQC.MQCC_OK
            assert _answer(peer, put)[2] == CMQC.MQCC_OK
            assert _answer(peer, get)[2] == CMQC.MQCC_OK
        closed = peer.call(1, _T.MQCLOSE, [0], hobj)
        assert closed.comp == CMQC.MQCC_OK, closed
        for _ in range(2):
            assert _answer(peer, put)[2:] == (CMQC.MQCC_FAILED, CMQC.MQRC_HOBJ_ERROR)
            assert _answer(peer, get)[2:] == (CMQC.MQCC_FAILED, CMQC.MQRC_HOBJ_ERROR)
        other = peer.call(1, _T.MQOPEN, [mqpy.OD(ObjectName=ELSEWHERE.encode()),
                                          CMQC.MQOO_INPUT_AS_Q_DEF | CMQC.MQOO_OUTPUT])
        assert other.comp == CMQC.MQCC_OK and other.hobj != hobj, other
        assert _answer(peer, _put(peer, other.hobj, b"the other's"))[2] == CMQC.MQCC_OK
        for _ in range(2):
            assert _answer(peer, put)[2:] == (CMQC.MQCC_FAILED, CMQC.MQRC_HOBJ_ERROR)
            assert _answer(peer, get)[2:] == (CMQC.MQCC_FAILED, CMQC.MQRC_HOBJ_ERROR)
        peer.sock.sendall(_get(peer, other.hobj))
        got = peer.next()
        assert got.comp == CMQC.MQCC_OK and got.body.endswith(b"the other's"), got
        assert _answer(peer, _get(peer, other.hobj))[3] == CMQC.MQRC_NO_MSG_AVAILABLE
    finally:
        peer.close()
    assert _messages(site) == [b"kept", b"kept"]
    _nothing_unexpected(site, bystander)


def test_another_conversations_handle_takes_none_of_its_messages(site, bystander):
    """Given conversation 3 of an instance with the queue open and a message put (its put
    and get kept), and conversation 1 connected with nothing open, when conversation 1
    sends conversation 3's get and put as they were (its handle number), then each fails
    MQRC_HOBJ_ERROR on conversation 1, and conversation 3 still gets its message."""
    _drained(site)
    peer = _Peer(site)
    try:
        assert peer.call(1, _T.MQCONN, [(QM, "nothing open")]).comp == CMQC.MQCC_OK
        hobj = peer.connected(3)
        for _ in range(2):
            assert _answer(peer, _put(peer, hobj, b"for 3", 3))[2] == CMQC.MQCC_OK
            assert _answer(peer, _get(peer, hobj, conv_id=3))[2] == CMQC.MQCC_OK
        assert _answer(peer, _put(peer, hobj, b"for 3", 3))[2] == CMQC.MQCC_OK
        for raw in (_get(peer, hobj, conv_id=1), _put(peer, hobj, b"from 1", 1)):
            peer.sock.sendall(raw)
            reply = peer.next()
            assert reply.conv_id == 1, reply
            assert (reply.comp, reply.reason) == (CMQC.MQCC_FAILED, CMQC.MQRC_HOBJ_ERROR)
        peer.sock.sendall(_get(peer, hobj, conv_id=3))
        got = peer.next()
        assert got.conv_id == 3 and got.comp == CMQC.MQCC_OK and got.body.endswith(b"for 3")
    finally:
        peer.close()
    assert _messages(site) == []
    _served(bystander)


def test_a_conversation_another_instance_has_is_not_this_ones(site, bystander):
    """Given instance A with conversation 1 holding a message under syncpoint, when
    instance B sends A's MQGET and MQCMIT bytes as they are (ConvId 1, A's handle), never
    having connected, then B is told MQRC_HCONN_ERROR (2018) for each, and A's unit of
    work is its own: its commit makes the message, once."""
    _drained(site)
    a, hobj = _opened(site)
    b = _Peer(site)
    try:
        put = _put(a, hobj, b"A's", options=CMQC.MQPMO_SYNCPOINT)
        assert _answer(a, put)[2] == CMQC.MQCC_OK
        for raw in (_get(b, hobj), _request(b, _T.MQCMIT, [], 0, 1), put):
            reply = _answer(b, raw)
            assert reply[2:] == (CMQC.MQCC_FAILED, CMQC.MQRC_HCONN_ERROR), reply
        assert _messages(site) == []  # (not committed)
        assert a.call(1, _T.MQCMIT, []).comp == CMQC.MQCC_OK
    finally:
        a.close()
        b.close()
    assert _messages(site) == [b"A's"]
    _served(bystander)


def _reset(sock: socket.socket) -> None:
    """Close ``sock`` at once with a reset (no FIN: what the peer read is all it gets)."""
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
    sock.close()


@pytest.mark.parametrize("close", [_reset, socket.socket.close], ids=["reset", "closed"])
def test_a_put_followed_at_once_by_the_peers_close_is_put_once_or_backed_out(
        site, bystander, close):
    """Given a conversation whose puts were kept, when it sends a put outside syncpoint and
    one under syncpoint (kept bytes, and a persistent one) and closes its socket at once
    (a FIN or a reset), then the one outside syncpoint is on the queue once and the one
    under syncpoint is backed out; the instance's end is logged without AMQ9999E and
    another instance's client is served."""
    _drained(site)
    for persistence in (CMQC.MQPER_NOT_PERSISTENT, CMQC.MQPER_PERSISTENT):
        peer, hobj = _opened(site)
        md = mqpy.MD(Persistence=persistence)
        outside = _request(peer, _T.MQPUT, [md, mqpy.PMO(Options=_NO_SYNCPOINT), b"out"],
                           hobj, 1)
        inside = _request(peer, _T.MQPUT, [md, mqpy.PMO(Options=CMQC.MQPMO_SYNCPOINT),
                                           b"in"], hobj, 1)
        for raw in (outside, inside):
            assert _answer(peer, raw)[2] == CMQC.MQCC_OK
        assert peer.call(1, _T.MQBACK, []).comp == CMQC.MQCC_OK
        peer.sock.sendall(outside + inside)
        close(peer.sock)
        _ended(site)  # (what it read served, its unit of work backed out)
        left = _messages(site)
        assert left == [b"out", b"out"], left
    _nothing_unexpected(site, bystander)


#: how much a client may have written without reading before the instance stops reading
#: it: socket buffers (a few MB on loopback) and a read; far below what the flood offers
_HELD_BACK_AT_MOST = 16 << 20
_OFFERED = 64 << 20


@pytest.mark.parametrize("options", [_NO_SYNCPOINT, _NO_SYNCPOINT | CMQC.MQPMO_ASYNC_RESPONSE],
                         ids=["sync", "async"])
def test_a_client_putting_without_reading_its_replies_is_held_back(site, bystander, options):
    """Given a conversation with the queue open, when it writes puts without end and never
    reads a reply, then the instance stops reading it once its replies fill the socket
    (what was written is held in socket buffers, not in the queue manager), another
    instance's client is served meanwhile, and once the flooding client goes no more
    messages are on the queue than it wrote, each once."""
    _drained(site)
    peer, hobj = _opened(site)
    try:
        request = _put(peer, hobj, b"f" * 100, options=options)
        written = written_without_reading(peer.sock, request, _OFFERED)
        assert written < _HELD_BACK_AT_MOST
        _served(bystander)
    finally:
        peer.close()
    _ended(site)  # (every put it read made, or failed, first)
    left = _messages(site)
    assert 0 < len(left) <= written // len(request) and set(left) == {b"f" * 100}
    _nothing_unexpected(site, bystander)


def test_a_context_the_handle_was_not_opened_for_is_refused_kept_or_not(site, bystander):
    """Given a conversation with the queue open for output alone (no context), when it puts
    again and again (kept) with MQPMO_SET_ALL_CONTEXT and an MQMD naming another user, then
    each put fails MQRC_NOT_OPEN_FOR_SET_ALL (2098) and nothing is put; the same bytes
    with the default context then put messages in the connection's own user's name."""
    _drained(site)
    peer = _Peer(site)
    try:
        assert peer.call(1, _T.MQCONN, [(QM, "context")]).comp == CMQC.MQCC_OK
        opened = peer.call(1, _T.MQOPEN, [mqpy.OD(ObjectName=QUEUE.encode()),
                                           CMQC.MQOO_OUTPUT])
        hobj = opened.hobj
        md = mqpy.MD(UserIdentifier=b"mqm", ApplIdentityData=b"forged")
        for options in (CMQC.MQPMO_SET_ALL_CONTEXT, CMQC.MQPMO_SET_IDENTITY_CONTEXT):
            raw = _request(peer, _T.MQPUT, [md, mqpy.PMO(Options=_NO_SYNCPOINT | options),
                                            b"forged"], hobj, 1)
            for _ in range(3):
                answer = _answer(peer, raw)
                assert answer[2] == CMQC.MQCC_FAILED and answer[3] in (
                    CMQC.MQRC_NOT_OPEN_FOR_SET_ALL, CMQC.MQRC_NOT_OPEN_FOR_SET_IDENT), answer
        assert _messages(site) == []
    finally:
        peer.close()
    _nothing_unexpected(site, bystander)


def test_conversations_sending_the_same_bytes_at_once_each_get_their_own_messages(
        site, bystander):
    """Given two conversations of one instance, each with a queue of its own open as its
    first handle (the same handle number) and two messages on it, when the client writes
    their MQGETs interleaved in one go -- the same bytes but for the ConvId and RequestId,
    whole or a byte a write -- then each conversation gets its own queue's messages, in
    order, and the third get finds none: no conversation is answered with another's."""
    site.mqsc_here("DEFINE QLOCAL(HOSTILE.Q) REPLACE\n")
    peer = _Peer(site)
    try:
        one = peer.connected(1)
        assert peer.call(3, _T.MQCONN, [(QM, "three")]).comp == CMQC.MQCC_OK
        three = peer.call(3, _T.MQOPEN, [mqpy.OD(ObjectName=b"HOSTILE.Q"),
                                         CMQC.MQOO_INPUT_AS_Q_DEF | CMQC.MQOO_OUTPUT]).hobj
        assert one == three
        for whole in (True, False):
            for i in range(2):
                assert _answer(peer, _put(peer, one, b"one %d" % i, 1))[2] == CMQC.MQCC_OK
                assert _answer(peer, _put(peer, three, b"three %d" % i, 3))[2] \
                    == CMQC.MQCC_OK
            gets = b"".join(_get(peer, one, conv_id=conv) for conv in (1, 3, 1, 3, 1, 3))
            if whole:
                peer.sock.sendall(gets)
            else:
                for i in range(len(gets)):
                    peer.sock.sendall(gets[i:i + 1])
            replies = sorted((peer.next() for _ in range(6)), key=lambda r: r.request_id)
            for conv, name in ((1, b"one"), (3, b"three")):
                mine = [r for r in replies if r.conv_id == conv]
                assert [r.comp for r in mine] == [0, 0, CMQC.MQCC_FAILED], mine
                assert mine[2].reason == CMQC.MQRC_NO_MSG_AVAILABLE
                assert [r.body.endswith(b"%s %d" % (name, i)) for i, r in
                        enumerate(mine[:2])] == [True, True], mine
    finally:
        peer.close()


#: a queue altered between two runs of the same requests, and what each then answers
ALTERED = {
    "PUT(DISABLED)": ("PUT(DISABLED)", _T.MQPUT, CMQC.MQRC_PUT_INHIBITED),
    "GET(DISABLED)": ("GET(DISABLED)", _T.MQGET, CMQC.MQRC_GET_INHIBITED),
    "MAXDEPTH(1)": ("MAXDEPTH(1)", _T.MQPUT, CMQC.MQRC_Q_FULL),
    "MAXMSGL(0)": ("MAXMSGL(0)", _T.MQPUT, CMQC.MQRC_MSG_TOO_BIG_FOR_Q),
}


@pytest.mark.parametrize("case", ALTERED.values(), ids=ALTERED.keys())
def test_a_queue_altered_between_kept_requests_answers_them_as_altered(site, bystander, case):
    """Given a conversation whose MQPUT and MQGET were sent again and again (kept) with a
    message left on the queue, when the operator alters the queue (puts or gets inhibited,
    its depth or message length lowered) and the conversation sends the same bytes, then
    each is refused as the altered queue refuses it, and nothing more is put or got."""
    attribute, verb, reason = case
    site.mqsc_here("DEFINE QLOCAL(HOSTILE.ALTERED) REPLACE\n")
    peer = _Peer(site)
    try:
        assert peer.call(1, _T.MQCONN, [(QM, "altered")]).comp == CMQC.MQCC_OK
        hobj = peer.call(1, _T.MQOPEN, [mqpy.OD(ObjectName=b"HOSTILE.ALTERED"),
                                        CMQC.MQOO_INPUT_AS_Q_DEF | CMQC.MQOO_OUTPUT]).hobj
        put, get = _put(peer, hobj, b"before"), _get(peer, hobj)
        for _ in range(2):
            assert _answer(peer, put)[2:] == (CMQC.MQCC_OK, 0)
            assert _answer(peer, put)[2:] == (CMQC.MQCC_OK, 0)
            assert _answer(peer, get)[2:] == (CMQC.MQCC_OK, 0)
        site.mqsc_here(f"ALTER QLOCAL(HOSTILE.ALTERED) {attribute}\n")
        for _ in range(3):
            answer = _answer(peer, put if verb == _T.MQPUT else get)
            assert answer[2:] == (CMQC.MQCC_FAILED, reason), answer
        site.mqsc_here("ALTER QLOCAL(HOSTILE.ALTERED) GET(ENABLED)\n")
        left = [_answer(peer, get) for _ in range(3)]
        assert [a[3] for a in left] == [0, 0, CMQC.MQRC_NO_MSG_AVAILABLE], left
    finally:
        peer.close()
    _nothing_unexpected(site, bystander)
