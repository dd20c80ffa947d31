"""A client's MQPUT and MQGET that come as one whole segment are served by the client host's
poller from their bytes (``mqpy_chinit.svrconn_packed``, ``engine.packed``): the same
replies, queues, channel counters and statistics as the receiver's way (the segment reader's
event, ``CallsServedAtOnce._serve_now``), which takes everything else, hostile requests
included."""

from __future__ import annotations

import os
import types

import pytest
import trio

import mqpy
from mqpy import CMQC, loopcalls
from mqpy.engine import mqput as engine_mqput
from mqpy.engine.qmgr import QueueManagerEngine
from mqpy.fap import mqiflows
from mqpy.fap.apiheader import MQIRequest
from mqpy.fap.framing import SegmentWriter
from mqpy.fap.statuscodes import ProtocolError
from mqpy.fap.tsh import SegmentType
from mqpy_chinit import svrconn_packed
from mqpy_chinit.conversation import Conversation
from mqpy_chinit.states import ChannelStatus
from mqpy_chinit.svrconn import SvrconnInstance
from mqpy_chinit.svrconn_conversation import ClientConversation
from mqpy_chinit.svrconn_inline import CallsServedAtOnce
from tests.performance_paths.test_async_put_stream import _Clock, _md, _plain
from tests.support.queue_contents import _NEW_ID, alike_three_ways, got_back

_T = SegmentType
_WHOLE = mqiflows.WHOLE_MESSAGE
_CONV = 1
_SEGMENT = 32766
_BIG = _SEGMENT + 100  # a reply of more than one segment
_MAXMSGL = 4 * _BIG


class _Instance(CallsServedAtOnce):
    """What the poller's serving reads of a ``SvrconnInstance``: one conversation of a
    channel instance sharing conversations, on an engine connection; the replies its
    conversation's task sends kept."""

    _max_length = SvrconnInstance._max_length
    _reply_order = SvrconnInstance._reply_order
    _unexpected = SvrconnInstance._unexpected

    def __init__(self, conn: object, max_msg_size: int) -> None:
        self.conv = Conversation(types.SimpleNamespace(), ChannelStatus("SVR", "SVRCONN"))
        self.conv.agreed(_SEGMENT, max_msg_size)
        self.conv.authenticated()
        send, receive = trio.open_memory_channel(16)
        limiter = trio.CapacityLimiter(1)
        self.cc = ClientConversation(_CONV, send, receive, loopcalls.EngineVerbs(conn, limiter))
        self.conversations = {_CONV: self.cc}
        self.sharing, self.max_msg_size, self.name = 10, max_msg_size, "SVR"
        self.status = self.conv.status
        self.registry = types.SimpleNamespace(limiter=limiter)
        self.busy, self.last_call = 0, 0.0
        self.logged: list[str] = []
        self.sent: list[bytes] = []

    def log(self, msgid: str, text: str) -> None:
        self.logged.append(msgid)

    async def _send_replies(self, replies: list[bytes]) -> None:
        self.sent += replies


def _served(inst: _Instance, data: bytes) -> list:
    """``data``, one read of the client's socket, served as the poller serves it: the calls
    at its head from their bytes, the rest from the reader's events at once until one is
    left for the receiver; the calls queued for the conversation's task (a log force due)
    then answered by it."""
    served = svrconn_packed.serve(inst, data)
    replies, end, _count = ([], 0, 0) if served is None else served
    left: list = []
    if end < len(data):
        try:
            events = inst.conv._events(data[end:] if end else data)
        except ProtocolError as exc:
            return [replies, ["protocol error", exc.status_code]]
        for i, ev in enumerate(events):
            served = inst._serve_now(ev) if type(ev) is MQIRequest else None
            if served is None:
                left = [repr(e) for e in events[i:]]
                break
            replies += served
    cc = inst.cc
    while cc.queued:
        answer = cc.receive.receive_nowait()
        cc.queued -= 1
        trio.run(inst._answer, cc, answer)
        replies += inst.sent
        inst.sent.clear()
    return [replies, left]


def _request(verb: SegmentType, values: list, hobj: int, request_id: int) -> bytes:
    """A client's request as the general path frames it."""
    return SegmentWriter().send(MQIRequest(segment_type=verb, hobj=hobj, conv_id=_CONV,
                                           request_id=request_id,
                                           body=mqiflows.request_body(verb, values)))


def _calls(h: dict[str, int]) -> list:
    """Puts and gets of many forms, each a read; units of work ended between them."""
    q, out, pmo, gmo = h["Q"], h["OUT"], mqpy.PMO, mqpy.GMO
    no_sync = CMQC.MQPMO_NO_SYNCPOINT
    calls: list = [
        (_T.MQPUT, [_md(1), pmo(Options=no_sync), b"one"], out),
        (_T.MQPUT, [_md(2, Persistence=CMQC.MQPER_PERSISTENT), pmo(Options=no_sync),
                    b"2" * 1024], out),
        (_T.MQPUT, [_md(3, Version=1), pmo(Version=1), b"v1"], out),
        (_T.MQPUT, [_md(4, Persistence=CMQC.MQPER_PERSISTENT), pmo(Options=CMQC.MQPMO_SYNCPOINT),
                    b"in syncpoint"], out),
        "commit",
        (_T.MQPUT, [mqpy.MD(), pmo(Options=CMQC.MQPMO_NEW_MSG_ID), b"new id"], out),
        (_T.MQPUT, [_md(6, Report=CMQC.MQRO_COA, ReplyToQ="REPLY"), pmo(), b"COA"], out),
        (_T.MQPUT, [_md(7), pmo(Options=CMQC.MQPMO_ASYNC_RESPONSE), b"async"], out),
        (_T.MQPUT, [_md(8), pmo(), b"b" * _BIG], out),
        (_T.MQPUT, [_md(9), pmo(), b"m" * (_MAXMSGL + 1)], out),
        (_T.MQPUT, [_md(10), pmo(), b"to a handle for input"], q),
        (_T.MQPUT, [_md(11), pmo(), b"no such handle"], 99),
        (_T.MQPUT, [_md(12), pmo(Version=3), b"pmo v3"], out),
        (_T.MQPUT, [_md(13, Priority=12), pmo(), b"priority beyond"], out),
        (_T.MQGET, [mqpy.MD(), gmo(Options=CMQC.MQGMO_NO_SYNCPOINT), _WHOLE], q),
        (_T.MQGET, [mqpy.MD(), gmo(), _WHOLE], q),  # the persistent one: a log force
        (_T.MQGET, [mqpy.MD(Version=1), gmo(Version=3), _WHOLE], q),
        (_T.MQGET, [mqpy.MD(), gmo(Version=1), 5000], q),
        (_T.MQGET, [mqpy.MD(), gmo(), 10], q),
        (_T.MQGET, [mqpy.MD(), gmo(Options=CMQC.MQGMO_ACCEPT_TRUNCATED_MSG), 10], q),
        (_T.MQGET, [mqpy.MD(), gmo(Options=CMQC.MQGMO_SYNCPOINT), _WHOLE], q),
        "backout",
        (_T.MQGET, [_md(6), gmo(), _WHOLE], q),
        (_T.MQGET, [mqpy.MD(MsgId=b"X" * 24), gmo(MatchOptions=0), _WHOLE], q),
        (_T.MQGET, [mqpy.MD(), gmo(Options=CMQC.MQGMO_BROWSE_FIRST), _WHOLE], h["BROWSE"]),
        (_T.MQGET, [mqpy.MD(), gmo(), _WHOLE], out),
        (_T.MQGET, [mqpy.MD(), gmo(), -5], q),
        (_T.MQGET, [mqpy.MD(), gmo(Options=CMQC.MQGMO_WAIT, WaitInterval=10), _WHOLE], q),
    ] + [(_T.MQGET, [mqpy.MD(), gmo(), _WHOLE], q) for _ in range(10)] \
        + [(_T.MQGET, [mqpy.MD(), gmo(), _WHOLE], h["EMPTY"])]
    return calls


def _run(root: str, monkeypatch: pytest.MonkeyPatch, reads=None,
         max_msg_size: int = _MAXMSGL) -> list:
    """The calls served one read each; then what each gave, the queues, the channel's
    counters and the statistics."""
    monkeypatch.setattr(engine_mqput, "time", _Clock)
    eng = QueueManagerEngine.create(os.path.join(root, "qmgrs", "QM"), "QM")
    try:
        for name in ("Q", "EMPTY", "REPLY"):
            eng.define("QLOCAL", name, {"MAXMSGL": _MAXMSGL, "DEFPSIST": "YES"})
        conn = eng.connect("client")
        h = {"Q": conn.open(mqpy.OD(ObjectName="Q"), CMQC.MQOO_INPUT_SHARED),
             "OUT": conn.open(mqpy.OD(ObjectName="Q"), CMQC.MQOO_OUTPUT),
             "BROWSE": conn.open(mqpy.OD(ObjectName="Q"), CMQC.MQOO_BROWSE),
             "EMPTY": conn.open(mqpy.OD(ObjectName="EMPTY"), CMQC.MQOO_INPUT_SHARED)}
        inst = _Instance(conn, max_msg_size)
        ids: dict[bytes, int] = {}

        def known(found) -> bytes:
            return b"<%d>" % ids.setdefault(found.group(), len(ids))

        seen: list = []
        for n, call in enumerate(reads(h) if reads else _calls(h)):
            if call in ("commit", "backout"):
                getattr(conn, call)()
                continue
            if call == "put a long one":
                conn.put(h["OUT"], _md(99), mqpy.PMO(), b"L" * 3000)
                continue
            data = call if type(call) is bytes else _request(call[0], call[1], call[2], n + 1)
            replies, *rest = _served(inst, data)
            seen.append([[_NEW_ID.sub(known, r) for r in replies], *rest])
        status = inst.status
        seen.append((status.msgs, status.bytes_sent, status.bytes_received,
                     status.net_bytes_received, status.buffers_received, inst.conv.reader.segments,
                     inst.conv.reader.partner_encoding, inst.conv.reader.partner_ccsid,
                     inst.logged))
        seen += got_back(conn, ("Q", "REPLY"), ids)
        seen.append((_plain(eng.stats.mqi), _plain(conn.accounting.mqi)))
        return seen
    finally:
        eng.close()


def test_puts_and_gets_are_served_from_their_bytes_as_the_receivers_way_serves_them(
        tmp_path, monkeypatch):
    """Given client puts and gets of many forms (MQMD and MQPMO / MQGMO versions, persistent
    ones with a log force, syncpoint with commit and backout, a report, an asynchronous put,
    messages longer than a segment and than MAXMSGL, handles not open for the call or
    unknown, truncation, selection, browse, a bad BufferLength, a waiting get, an empty
    queue), when the poller serves each read from its bytes and then the receiver's way,
    then the replies, what is left for the receiver, the queues, the channel's counters and
    the statistics are the same, and the bytes path served many of them."""
    alike_three_ways(lambda root: _run(root, monkeypatch), tmp_path, monkeypatch,
                     svrconn_packed, "serve", 12)


def _hostile(h: dict[str, int]) -> list[bytes]:
    """Puts and gets whose bytes are wrong in each way a segment can be."""
    put = _request(_T.MQPUT, [mqpy.MD(), mqpy.PMO(), b"x" * 100], h["OUT"], 1)
    get = _request(_T.MQGET, [mqpy.MD(), mqpy.GMO(), _WHOLE], h["Q"], 2)
    md_at = 36 + 16  # after the TSHM and the API header
    gmo_at = md_at + 364
    big_endian = put[:16] + b"\x01" + put[17:]
    persistent = _request(_T.MQPUT, [mqpy.MD(Persistence=CMQC.MQPER_PERSISTENT), mqpy.PMO(),
                                     b"p"], h["OUT"], 3)
    light = _request(_T.MQPUT, [mqpy.MD(Persistence=CMQC.MQPER_NOT_PERSISTENT), mqpy.PMO(),
                                b"np"], h["OUT"], 4)
    return [
        put[:-1], put + b"\0", put[:20], put[:4] + (len(put) + 9).to_bytes(4, "big") + put[8:],
        put[:4] + (10).to_bytes(4, "big") + put[8:], big_endian, b"TSH " + put[4:],
        put[:md_at] + b"XXXX" + put[md_at + 4:],
        put[:md_at + 4] + (9).to_bytes(4, "little") + put[md_at + 8:],
        put[:-104] + (200).to_bytes(4, "little") + put[-100:],
        put[:18] + b"\x10" + put[19:],  # FIRST only
        get[:gmo_at] + b"XXXX" + get[gmo_at + 4:],
        get[:gmo_at + 4] + (9).to_bytes(4, "little") + get[gmo_at + 8:],
        get[:-4], get + put, put + get,
        put[:8] + (7).to_bytes(4, "big") + put[12:],  # another conversation
        put + b"NOT A TSH" + bytes(60), put + get[:-1], put + put + get,
        put + big_endian + get, persistent + get + put,
        put + get[:gmo_at] + b"XXXX" + get[gmo_at + 4:],
        light + light + get + get + get,
    ]


@pytest.mark.parametrize("case", range(24))
def test_hostile_puts_and_gets_get_what_the_receivers_way_gives_them(tmp_path, monkeypatch,
                                                                     case):
    """Given a put or get whose length, byte order, structures, flags or conversation are
    wrong, or a read holding part of one or two of them, when the poller reads it, then the
    outcome (replies, what is left for the receiver, a protocol error, queues, counters) is
    the receiver's way's."""
    def reads(h):
        return [_hostile(h)[case]]

    fast = _run(str(tmp_path / "fast"), monkeypatch, reads)
    monkeypatch.setattr(svrconn_packed, "serve", lambda *args: None)
    assert _run(str(tmp_path / "general"), monkeypatch, reads) == fast


def _beyond_maxmsgl(h: dict[str, int]) -> list:
    """A put longer than the channel's MAXMSGL, then gets of a message longer than it."""
    gmo = mqpy.GMO
    return [_request(_T.MQPUT, [_md(1), mqpy.PMO(), b"p" * 3000], h["OUT"], 1),
            _request(_T.MQPUT, [_md(2), mqpy.PMO(), b"q" * 1500], h["OUT"], 2),
            _request(_T.MQGET, [mqpy.MD(), gmo(), _WHOLE], h["Q"], 3),
            "put a long one",
            _request(_T.MQGET, [mqpy.MD(), gmo(), _WHOLE], h["Q"], 4),
            _request(_T.MQGET, [mqpy.MD(), gmo(), 5000], h["Q"], 5),
            _request(_T.MQGET, [mqpy.MD(), gmo(Options=CMQC.MQGMO_ACCEPT_TRUNCATED_MSG),
                                _WHOLE], h["Q"], 6)]


def test_the_channels_maxmsgl_bounds_what_is_served_from_bytes(tmp_path, monkeypatch):
    """Given a channel whose MAXMSGL (2,000) is below the queue's, when a client puts 3,000
    bytes and gets a 3,000-byte message (whole, into a 5,000-byte buffer, accepting
    truncation), then each outcome is the receiver's way's: the put left to the task (which
    fails it 2010), the gets failing MQRC_TRUNCATED_MSG_FAILED or truncated alike."""
    fast = _run(str(tmp_path / "fast"), monkeypatch, _beyond_maxmsgl, 2000)
    monkeypatch.setattr(svrconn_packed, "serve", lambda *args: None)
    assert _run(str(tmp_path / "general"), monkeypatch, _beyond_maxmsgl, 2000) == fast


def _persistent(h: dict[str, int]) -> list:
    """A persistent put and a get of it, outside syncpoint: each forces the log."""
    md = mqpy.MD(Persistence=CMQC.MQPER_PERSISTENT)
    return [_request(_T.MQPUT, [md, mqpy.PMO(Options=CMQC.MQPMO_NO_SYNCPOINT), b"p"],
                     h["OUT"], 1),
            _request(_T.MQGET, [mqpy.MD(), mqpy.GMO(Options=CMQC.MQGMO_NO_SYNCPOINT), _WHOLE],
                     h["Q"], 2)]


def test_a_log_force_that_fails_fails_the_call_as_the_receivers_way_fails_it(tmp_path,
                                                                           monkeypatch):
    """Given a persistent put and get served from their bytes, when the log force due before
    each answer fails (MQRC_RESOURCE_PROBLEM), then each call's reply and the counters are
    the receiver's way's."""
    async def failing(*args):
        raise mqpy.MQMIError(CMQC.MQCC_FAILED, CMQC.MQRC_RESOURCE_PROBLEM)

    monkeypatch.setattr(loopcalls, "force", failing)
    fast = _run(str(tmp_path / "fast"), monkeypatch, _persistent)
    assert any(CMQC.MQRC_RESOURCE_PROBLEM.to_bytes(4, "little") in r for r in fast[0][0])
    monkeypatch.setattr(svrconn_packed, "serve", lambda *args: None)
    assert _run(str(tmp_path / "general"), monkeypatch, _persistent) == fast
