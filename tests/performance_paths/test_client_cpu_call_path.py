"""What a client call's path must keep, whatever is written out on it to make it cheaper
(``ChannelInstance.exchange``: the reading role taken, the socket read and the role given
back; ``Templates.kept``: the fields compared with the kept request's, types and all): the
same reply fields as the reader's events, the partner heard from, the role handed on, a
lost socket lost, a field of an equal value but another type not taken for the kept one's."""

from __future__ import annotations

import socket
import threading
import time
from types import SimpleNamespace

import pytest

import mqpy
from mqpy.bindings_templates import Templates
from mqpy.clientchannel import ChannelDefinition
from mqpy.clientinstance import ChannelInstance, InstanceLost
from mqpy.fap import mqiflows
from mqpy.fap.framing import SegmentReader, SegmentWriter
from mqpy.fap.tsh import ByteOrder, SegmentType
from tests.client.test_packed_calls import _addressed

_T = SegmentType
_PUT_REPLY = int(mqiflows.reply_type(_T.MQPUT))


class _Text(bytes):
    """A field value equal to bytes but of another type (a structure keeps it as given)."""


def _instance() -> tuple[ChannelInstance, socket.socket]:
    """A channel instance (SHARECNV 10, no heartbeats) on one end of a socket pair; the
    other end, as the queue manager's."""
    ours, theirs = socket.socketpair()
    agreed = SimpleNamespace(heartbeat_interval=0, conv_per_socket=10, fap_level=13,
                             max_msg_size=4194304, max_transmission_size=32768)
    reader = SegmentReader()
    reader.partner_byte_order = ByteOrder.LITTLE
    instance = ChannelInstance(_Peer(ours), ChannelDefinition(
        "APP.SVRCONN", (("127.0.0.1", 1414),)), agreed, reader)
    return instance, theirs


class _Peer:
    """A socket pair's end that says it is connected to a queue manager's port."""

    def __init__(self, sock: socket.socket) -> None:
        self._sock = sock

    def __getattr__(self, name: str):  # noqa: ANN204 - the socket's own
        return getattr(self._sock, name)

    def getpeername(self) -> tuple[str, int]:
        return ("127.0.0.1", 1414)


def _put_reply_bytes(conv_id: int, request_id: int) -> bytes:
    reply = mqiflows.encode_reply(_T.MQPUT, [mqpy.MD(), mqpy.PMO(ResolvedQName=b"Q")])
    return _addressed(SegmentWriter(32768), reply, conv_id, request_id)


def _request(instance: ChannelInstance, conv_id: int, request_id: int) -> bytes:
    return instance.frame(_T.MQPUT, mqiflows.request_body(
        _T.MQPUT, [mqpy.MD(), mqpy.PMO(), b"data"]), 7, conv_id, request_id)


def _answered(theirs: socket.socket, reply: bytes, pieces: int = 1) -> threading.Thread:
    """The queue manager's end: reads a request, writes ``reply`` in ``pieces`` writes."""

    def answer() -> None:
        theirs.recv(65536)
        step = -(-len(reply) // pieces)
        for at in range(0, len(reply), step):
            if at:
                time.sleep(0.2)  # (so that the call reads the first piece alone)
            theirs.sendall(reply[at:at + step])

    thread = threading.Thread(target=answer, daemon=True)
    thread.start()
    return thread


def test_a_reply_read_by_the_call_is_the_general_readers():
    """Given a conversation alone on its instance, when its call's reply comes whole, then
    the call gives the fields the reader's event has, counts the partner as heard from,
    and leaves nobody reading; when it comes in two pieces, then the general reader's event."""
    instance, theirs = _instance()
    conv = instance.open_conversation()
    reply = _put_reply_bytes(conv.conv_id, 1)
    event = SegmentReader().feed(reply)[0]
    instance.last_received = 0.0
    _answered(theirs, reply)
    flow = instance.exchange(conv, _request(instance, conv.conv_id, 1), _PUT_REPLY)
    assert flow == (int(event.segment_type), event.comp, event.reason, event.hobj, event.body)
    assert instance.last_received > 0.0
    assert not instance.reading and instance.in_calls == 0 and not instance.waiters
    reply = _put_reply_bytes(conv.conv_id, 2)
    thread = _answered(theirs, reply, pieces=2)
    flow = instance.exchange(conv, _request(instance, conv.conv_id, 2), _PUT_REPLY)
    thread.join()
    assert flow == SegmentReader().feed(reply)[0]
    assert not instance.reading and instance.in_calls == 0


def test_the_role_passes_to_a_conversation_still_waiting():
    """Given two conversations of one instance, when one's call ends while the other is
    registered as waiting, then the other is handed the reading role, not left waiting."""
    instance, theirs = _instance()
    first, second = instance.open_conversation(), instance.open_conversation()
    with instance.role_lock:  # the second waits for the reader (registered by its _join)
        instance.in_calls += 1
        instance.waiters[second.conv_id] = second
    _answered(theirs, _put_reply_bytes(first.conv_id, 1))
    instance.exchange(first, _request(instance, first.conv_id, 1), _PUT_REPLY)
    assert second.replies.get(timeout=5) is not None  # _TURN: its to read now
    assert instance.reading and second.conv_id not in instance.waiters


def test_a_socket_closed_under_the_call_loses_the_instance():
    """Given a call waiting for its reply, when the queue manager's end closes, then the
    call fails as lost (InstanceLost), the instance is broken and nobody reads it."""
    instance, theirs = _instance()
    conv = instance.open_conversation()

    def close() -> None:
        theirs.recv(65536)
        theirs.close()

    threading.Thread(target=close, daemon=True).start()
    with pytest.raises(InstanceLost):
        instance.exchange(conv, _request(instance, conv.conv_id, 1), _PUT_REPLY)
    assert instance.broken and not instance.reading and instance.in_calls == 0


@pytest.mark.parametrize("structure", ["md", "opts"])
@pytest.mark.parametrize("verb", [_T.MQPUT, _T.MQGET])
def test_a_field_equal_but_of_another_type_is_not_the_kept_ones(verb, structure):
    """Given a request kept for a handle, when the next call's MQMD or MQPMO / MQGMO has a
    field equal to the kept one's but of another type (a bytes subclass, a bool), then the
    kept request is not used (the general path packs that call); with the same types it is."""
    opts_class = mqpy.PMO if verb is _T.MQPUT else mqpy.GMO
    templates = Templates()
    templates.keep_request(verb, 5, mqpy.MD(), opts_class(), 10, b"P" * 700, (12,))
    assert templates.kept(verb, 5, mqpy.MD(), opts_class()) is not None
    for other in (_Text, bool):
        md, opts = mqpy.MD(), opts_class()
        target = md if structure == "md" else opts
        if other is bool:
            target.__dict__["Version"] = bool(target.__dict__["Version"])  # (1 == True)
            assert target.__dict__["Version"] == 1
        else:
            name = "Format" if structure == "md" else "ResolvedQName"
            target.__dict__[name] = _Text(target.__dict__[name])
        assert templates.kept(verb, 5, md, opts) is None
