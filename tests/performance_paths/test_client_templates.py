"""A client connection's usual MQPUT and MQGET made from the request kept for their handle
and read against the last reply (``mqpy.clientcalls``): with replies as a queue manager
sends them, the bytes on the socket and what the application gets are the general
path's, whatever changes from call to call (ids, lengths, RequestIds, structures, a reply's
other fields, a failure, truncation, conversations sharing the instance)."""

from __future__ import annotations

from collections.abc import Callable
from types import SimpleNamespace
from typing import Any

import mqpy
from mqpy import CMQC, bindings_templates, clientcalls
from mqpy.client import ClientConnection
from mqpy.clientchannel import ChannelDefinition
from mqpy.clientinstance import ChannelInstance
from mqpy.fap import mqiflows
from mqpy.fap.framing import SegmentReader, SegmentWriter
from mqpy.fap.tsh import ByteOrder, SegmentType
from tests.client.test_packed_calls import _addressed
from tests.performance_paths.test_bindings_templates import _counted, _message_md

_T = SegmentType
_OK, _WARNING, _FAILED = CMQC.MQCC_OK, CMQC.MQCC_WARNING, CMQC.MQCC_FAILED


class _QueueManager:
    """A socket whose partner answers each request with the next scripted reply (values,
    CompCode, Reason; a function of the request's data: an MQPUT's message) addressed to
    its conversation and RequestId; the requests as they came (``sent``)."""

    def __init__(self) -> None:
        self.script: list[Callable[[Any], tuple]] = []
        self.sent: list[bytes] = []
        self.out: list[bytes] = []
        self.writer = SegmentWriter(32768)
        self.reader = SegmentReader()
        self.reader.max_transmission_size = 32768

    def getpeername(self) -> tuple[str, int]:
        return ("127.0.0.1", 1414)

    def setsockopt(self, *args: Any) -> None:
        pass

    def sendall(self, data: bytes) -> None:
        self.sent.append(data)
        for request in self.reader.feed(data):
            values, comp, reason = self.script.pop(0)(request)
            reply = mqiflows.encode_reply(request.segment_type, values, comp=comp,
                                          reason=reason)
            self.out.append(_addressed(self.writer, reply, request.conv_id,
                                       request.request_id))

    def recv(self, size: int) -> bytes:
        return self.out.pop(0)


def _connections(n: int) -> tuple[_QueueManager, list[ClientConnection]]:
    """``n`` client connections sharing one channel instance (SHARECNV 10) over a
    scripted queue manager."""
    sock = _QueueManager()
    agreed = SimpleNamespace(heartbeat_interval=0, conv_per_socket=10, fap_level=13,
                             max_msg_size=4194304, max_transmission_size=32768)
    reader = SegmentReader()
    reader.partner_byte_order = ByteOrder.LITTLE
    instance = ChannelInstance(sock, ChannelDefinition("APP.SVRCONN", (("127.0.0.1", 1414),)),
                               agreed, reader)
    return sock, [ClientConnection(instance, instance.open_conversation(), "QM1")
                  for _ in range(n)]


def _put_reply(i: int, **fields: Any) -> Callable[[Any], tuple]:
    return lambda request: ([_message_md(i), mqpy.PMO(ResolvedQName=b"Q", **fields)], _OK, 0)


def _get_reply(i: int, data: bytes, comp: int = _OK, reason: int = 0, length: int | None = None,
               **fields: Any) -> Callable[[Any], tuple]:
    gmo = mqpy.GMO(Version=CMQC.MQGMO_VERSION_3, ResolvedQName=b"Q", ReturnedLength=len(data),
                   MsgToken=b"%016d" % i)
    for name, value in fields.items():
        setattr(gmo, name, value)
    return lambda request: ([_message_md(i, Format=CMQC.MQFMT_STRING), gmo,
                             len(data) if length is None else length, data], comp, reason)


def _failed(reason: int) -> Callable[[Any], tuple]:
    return lambda request: (None, _FAILED, reason)


def _script() -> list[tuple]:
    """(connection, verb, call's arguments, the reply) of an application's calls: runs of
    the same structures (made from the kept request, read against the last reply) broken
    by others."""
    calls: list[tuple] = []
    pmo, gmo = mqpy.PMO(Options=CMQC.MQPMO_NO_SYNCPOINT), mqpy.GMO(Version=3)
    for i in range(8):  # the same structures, another message length now and then
        calls.append((0, "put", (5, mqpy.MD, pmo, b"m" * (10 + i // 3)), _put_reply(i)))
    calls.append((0, "put", (5, mqpy.MD, pmo, b"x" * 40000), _put_reply(9)))  # 2 segments
    calls.append((0, "put", (5, mqpy.MD, pmo, b"m" * 10), _failed(CMQC.MQRC_Q_FULL)))
    calls.append((0, "put", (5, mqpy.MD, pmo, b"m" * 10), _put_reply(10, ResolvedQMgrName=b"QM9")))
    for options in (CMQC.MQPMO_NEW_MSG_ID, CMQC.MQPMO_SYNCPOINT, CMQC.MQPMO_SET_IDENTITY_CONTEXT):
        for i in range(3):
            calls.append((0, "put", (5, lambda: mqpy.MD(MsgId=b"I" * 24, UserIdentifier=b"who"),
                                     mqpy.PMO(Options=options), b"o"), _put_reply(20 + i)))
    for version in (1, 2):
        for i in range(3):
            calls.append((1, "put", (7, lambda v=version: mqpy.MD(Version=v), pmo, b"v"),
                          _put_reply(30 + i)))  # the other conversation, its own handle
    for i in range(6):
        calls.append((i % 2, "get", (5, mqpy.MD, gmo, 100), _get_reply(i, b"d%d" % i)))
    for i in range(3):  # another format, then the same again; truncation accepted
        calls.append((0, "get", (5, mqpy.MD, gmo, 100), _get_reply(40 + i, b"e", Options=1)))
    calls.append((0, "get", (5, mqpy.MD, gmo, 2),
                  _get_reply(50, b"tr", _WARNING, CMQC.MQRC_TRUNCATED_MSG_ACCEPTED, 5)))
    calls.append((0, "get", (5, mqpy.MD, gmo, 2), _failed(CMQC.MQRC_TRUNCATED_MSG_FAILED)))
    calls.append((0, "get", (5, mqpy.MD, gmo, 100), _get_reply(51, b"d" * 7)))
    calls.append((0, "get", (5, mqpy.MD, gmo, None), _get_reply(52, b"d" * 7)))
    calls.append((0, "get", (5, lambda: mqpy.MD(MsgId=b"M" * 24), gmo, None),
                  _get_reply(53, b"d" * 7)))
    return calls


def _run(general: bool) -> tuple[list, list]:
    """The script through two connections sharing an instance: what the application saw
    and the bytes sent."""
    sock, conns = _connections(2)
    if general:
        for conn in conns:
            conn._packable = lambda: False  # type: ignore[method-assign]
    seen: list = []
    for index, verb, (hobj, md_of, opts, extra), reply in _script():
        sock.script.append(reply)
        md = md_of()
        conn = conns[index]
        try:
            if verb == "put":
                seen.append(conn.put(hobj, md, opts, extra))
            else:
                seen.append(conn.get(hobj, md, opts, extra))
        except mqpy.MQMIError as e:
            seen.append((e.comp, e.reason, getattr(e, "original_length", None)))
        seen.append((dict(md.__dict__), dict(opts.__dict__)))
    return seen, sock.sent


def test_kept_requests_and_replies_read_against_the_last_are_the_general_paths(monkeypatch):
    """Given an application's script of puts and gets on two conversations of one channel
    instance (runs of the same structures, message lengths changing, a message longer than
    a segment, a failure, a reply naming another queue manager, MQPMO_NEW_MSG_ID, syncpoint
    and context options, MQMD versions, an MQGMO reply of another form, truncation 2079 and
    2080, a MsgId given), when it runs with the kept requests and then with the general
    path only, then the bytes sent and everything the application saw are the same, and
    requests were made from kept ones and replies read against the last."""
    made = _counted(monkeypatch, clientcalls, "_from_kept")
    read = _counted(monkeypatch, bindings_templates, "read_against")
    fast, fast_sent = _run(general=False)
    assert len([m for m in made if m is not None]) >= 10
    assert len([r for r in read if r is not None]) >= 6
    general, general_sent = _run(general=True)
    assert general_sent == fast_sent
    assert general == fast


def test_a_request_id_past_its_field_is_not_made_from_the_kept_request():
    """Given a kept MQPUT request, when the conversation's RequestId has gone past its
    4-byte field, then no request is made from the kept one (the general path's framing
    says what is wrong), nor one longer than a segment."""
    sock, (conn,) = _connections(1)
    pmo = mqpy.PMO()
    for i in range(2):  # (the second with the MQPMO as the first reply left it)
        sock.script.append(_put_reply(i))
        conn.put(5, mqpy.MD(), pmo, b"a")
    kept = conn._templates.kept(_T.MQPUT, 5, mqpy.MD(), pmo)
    assert clientcalls._from_kept(kept, 2**32 - 1, b"a", 32768) is not None
    assert clientcalls._from_kept(kept, 2**32, b"a", 32768) is None
    assert clientcalls._from_kept(kept, 3, b"a" * 32768, 32768) is None
