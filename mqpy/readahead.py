"""Read ahead on the application's side of a connection: MQGET served from a buffer the
queue manager streams non-persistent messages into (``mqpy.streamer``).

A handle opened for input, not for browse, and without MQOO_NO_READ_AHEAD has a
:class:`ReadAheadBuffer`. Its first MQGET decides (IBM's "MQGET options and read ahead"):

1. Options not permitted with read ahead (MQGMO_SYNCPOINT, MQGMO_SET_SIGNAL,
   MQGMO_MARK_SKIP_BACKOUT, MQGMO_MSG_UNDER_CURSOR, MQGMO_LOCK, MQGMO_UNLOCK), a browse, or a
   selection by MsgId / CorrelId on the first MQGET turn read ahead off for the handle: every
   get is then a plain MQGET. On a later MQGET they are MQRC_OPTIONS_ERROR (2046). So do a
   group's options on the first MQGET (MQGMO_LOGICAL_ORDER, MQGMO_ALL_MSGS_AVAILABLE, a
   selection by GroupId, MsgSeqNumber or Offset): the queue manager keeps a group's order
   and state, which a buffer of messages taken ahead would not; a later selection of those
   is a plain MQGET.
2. Options that may not change between gets (MQGMO_SYNCPOINT_IF_PERSISTENT,
   MQGMO_NO_SYNCPOINT, MQGMO_ACCEPT_TRUNCATED_MSG, MQGMO_CONVERT, MQGMO_LOGICAL_ORDER,
   MQGMO_COMPLETE_MSG, MQGMO_ALL_MSGS_AVAILABLE, MQGMO_ALL_SEGMENTS_AVAILABLE, the property
   options; the MQMD's Encoding and CodedCharSetId with MQGMO_CONVERT) changed: MQRC_OPTIONS_CHANGED
   (2457). MQGMO_WAIT / NO_WAIT, WaitInterval and MQGMO_FAIL_IF_QUIESCING may change.
3. A later selection by MsgId / CorrelId takes the first matching message of the buffer, or
   is a plain MQGET when none matches (messages with other identifiers stay buffered).
4. The queue manager decides whether read ahead is in effect (the queue's DEFREADA, the open
   options: ``engine.readahead``). Its MQOPEN reply's FOPA (``fap.fopa``) gives DEFREADA,
   so that a handle for which it is not has no buffer and sends no request; without an FOPA
   the first request is answered that it is not, and the handle goes on with plain MQGETs.

The buffer is refilled a window at a time (REQUEST_MSGS, one write, answered by a batch of
ASYNC_MESSAGE segments in one write); the next window is asked for while the application
still has messages to take, so a stream of gets costs no round trip each. MQCLOSE with
MQCO_QUIESCE while messages are buffered is MQRC_READ_AHEAD_MSGS (2458), the handle staying
open; any other MQCLOSE, MQDISC or the application's end loses them (they are non-persistent
and were removed from the queue when sent: never delivered twice).

:class:`ReadAheadVerbs` is the mixin a connection over a socket takes: it needs
``_stream_send(bytes)`` and ``_stream_pump()`` of its transport.
"""

from __future__ import annotations

import collections
import struct
import threading
import weakref
from collections.abc import Callable
from typing import Any

from mqpy import CMQC
from mqpy.errors import MQMIError
from mqpy.fap import asyncflows, mqiflows
from mqpy.fap.asyncflows import MessageRequest, Notice
from mqpy.fap.statuscodes import ProtocolError, StatusCode
from mqpy.fap.tsh import FIRST_LAST, TSH_LENGTH, ByteOrder, OtherSegment, SegmentType
from mqpy.properties import handover
from mqpy.structs.mdcodec import KeptMD
from mqpy.structs.tables import GMO

__all__ = ["WINDOW", "ReadAheadBuffer", "ReadAheadVerbs", "not_permitted", "stream_sink",
           "unchangeable"]

#: Bytes of messages asked for at a time; the next window is asked for once fewer than
#: half of them are left in the buffer.
WINDOW = 256 * 1024

_G = CMQC
#: Rule 1.
NOT_PERMITTED = (_G.MQGMO_SYNCPOINT | _G.MQGMO_SET_SIGNAL | _G.MQGMO_MARK_SKIP_BACKOUT
                 | _G.MQGMO_MSG_UNDER_CURSOR | _G.MQGMO_LOCK | _G.MQGMO_UNLOCK)
_BROWSE = (_G.MQGMO_BROWSE_FIRST | _G.MQGMO_BROWSE_NEXT | _G.MQGMO_BROWSE_MSG_UNDER_CURSOR)
#: Rule 2.
UNCHANGEABLE = (_G.MQGMO_SYNCPOINT_IF_PERSISTENT | _G.MQGMO_NO_SYNCPOINT
                | _G.MQGMO_ACCEPT_TRUNCATED_MSG | _G.MQGMO_CONVERT | _G.MQGMO_LOGICAL_ORDER
                | _G.MQGMO_COMPLETE_MSG | _G.MQGMO_ALL_MSGS_AVAILABLE
                | _G.MQGMO_ALL_SEGMENTS_AVAILABLE | _G.MQGMO_MARK_BROWSE_HANDLE
                | _G.MQGMO_MARK_BROWSE_CO_OP | _G.MQGMO_UNMARK_BROWSE_CO_OP
                | _G.MQGMO_UNMARK_BROWSE_HANDLE | _G.MQGMO_UNMARKED_BROWSE_MSG
                | _G.MQGMO_PROPERTIES_FORCE_MQRFH2 | _G.MQGMO_NO_PROPERTIES
                | _G.MQGMO_PROPERTIES_IN_HANDLE | _G.MQGMO_PROPERTIES_COMPATIBILITY)
#: A group's options and selections, which turn read ahead off (rule 1).
GROUP_OPTIONS = _G.MQGMO_LOGICAL_ORDER | _G.MQGMO_ALL_MSGS_AVAILABLE
GROUP_MATCHES = _G.MQMO_MATCH_GROUP_ID | _G.MQMO_MATCH_MSG_SEQ_NUMBER | _G.MQMO_MATCH_OFFSET
#: What the queue manager takes a window with (the rest are the application side's).
_SENT_OPTIONS = _G.MQGMO_WAIT | _G.MQGMO_FAIL_IF_QUIESCING | _G.MQGMO_NO_SYNCPOINT
_NO_ID = (b"", bytes(24))

# a buffer's states
UNDECIDED, ON, OFF = "undecided", "on", "off"


def not_permitted(options: int) -> bool:
    return bool(options & NOT_PERMITTED)


def unchangeable(options: int, md: Any) -> tuple[int, int, int]:
    """What rule 2 holds fixed of a get: its options, and the MQMD's Encoding and CCSID
    when it converts."""
    if md is not None and options & _G.MQGMO_CONVERT:
        return options & UNCHANGEABLE, md.Encoding, md.CodedCharSetId
    return options & UNCHANGEABLE, 0, 0


def _selection(md: Any, gmo: Any) -> tuple[bytes | None, bytes | None]:
    """The MsgId and CorrelId an MQGET selects by (None: not that one)."""
    if md is None:
        return None, None
    d = md.__dict__
    if d["MsgId"] in _NO_ID and d["CorrelId"] in _NO_ID:
        return None, None
    match = gmo.MatchOptions if gmo.Version >= 2 else (_G.MQMO_MATCH_MSG_ID
                                                      | _G.MQMO_MATCH_CORREL_ID)
    msgid, correlid = bytes(md.MsgId), bytes(md.CorrelId)
    msgid = msgid.ljust(24, b"\0") if match & _G.MQMO_MATCH_MSG_ID \
        and msgid.strip(b"\0") else None
    correlid = correlid.ljust(24, b"\0") if match & _G.MQMO_MATCH_CORREL_ID \
        and correlid.strip(b"\0") else None
    return msgid, correlid


#: ASYNC_MESSAGE's header up to the resolved queue name (asyncflows.ASYNC_MESSAGE_HEAD)
_ASYNC_HEAD = asyncflows.ASYNC_MESSAGE_HEAD.sizeof()
#: The longest segment :func:`split_stream` takes (the bindings socket's largest)
MAX_STREAM_SEGMENT = 1 << 20
_MSGID = slice(48, 72)
_CORRELID = slice(72, 96)


class ReadAheadBuffer:
    """One handle's read-ahead state: its buffered messages (MQMD bytes, data, resolved
    queue name) and what its first MQGET fixed."""

    __slots__ = ("buffered", "check_msg", "empty", "fixed", "hobj", "md_reader", "messages",
                 "outstanding", "state", "taken")

    def __init__(self, hobj: int) -> None:
        self.hobj = hobj
        self.state = UNDECIDED
        self.fixed: tuple[int, int, int] | None = None
        self.messages: collections.deque[tuple[bytes, bytes, bytes]] = collections.deque()
        self.buffered = 0  # bytes in messages
        self.outstanding = False  # a REQUEST_MSGS not yet fully answered
        self.check_msg = False  # the queue manager's next message is the usual get's
        self.empty = False  # its last answer: no more message now
        self.taken = 0  # bytes taken since the last request (REQUEST_MSGS' RecvBytes)
        #: reads each message's MQMD into the caller's against the one before
        self.md_reader = KeptMD()

    def on_flow(self, event: OtherSegment) -> None:
        """An ASYNC_MESSAGE or NOTIFICATION for this handle, as the reader's event."""
        body = event.body
        if event.segment_type == SegmentType.ASYNC_MESSAGE:
            if not self.on_message(body, 0, len(body)):
                raise ProtocolError(StatusCode.PROTOCOL_INVALID_DATA,
                                    "ASYNC_MESSAGE: lengths do not match its message")
            return
        notice = asyncflows.parse_notification(body)
        self.on_notice(notice.code, notice.value)

    def on_message(self, data: bytes, start: int, end: int) -> bool:
        """The ASYNC_MESSAGE body ``data[start:end]`` into the buffer; False (nothing
        taken) when its lengths do not add up."""
        if end - start < _ASYNC_HEAD:
            return False
        actual, _status, name_length = _ASYNC_LENGTHS.unpack_from(data, start)
        at = start + _ASYNC_HEAD + name_length + (4 - (3 + name_length) % 4) % 4
        md_length = mqiflows.size_at(data, at, mqiflows.MD_SIZES)
        if not md_length or actual < 0 or at + md_length + actual != end:
            return False
        name = data[start + _ASYNC_HEAD:start + _ASYNC_HEAD + name_length]
        self.messages.append((data[at:at + md_length], data[at + md_length:end], name))
        self.buffered += actual
        return True

    def on_notice(self, code: int, value: int) -> None:
        """The NOTIFICATION that ends an answer to this handle's REQUEST_MSGS."""
        self.outstanding = False
        if code == Notice.STREAMING_FAILURE:
            self.state = OFF
        elif code == Notice.CHECK_MSG:
            self.check_msg = True
        else:
            self.empty = value == _G.MQRC_NO_MSG_AVAILABLE

    def pop_matching(self, msgid: bytes | None, correlid: bytes | None
                     ) -> tuple[bytes, bytes, bytes] | None:
        """The first buffered message with these identifiers (rule 3), taken out."""
        for i, message in enumerate(self.messages):
            md = message[0]
            if (msgid is None or md[_MSGID] == msgid) \
                    and (correlid is None or md[_CORRELID] == correlid):
                del self.messages[i]
                self.buffered -= len(message[1])
                return message
        return None


_TSH_LE = struct.Struct(">4sIBBB")  # StructId, SegmentLength, ByteOrder, type, flags1
_SEGMENT_HEAD = TSH_LENGTH
_WHOLE = int(FIRST_LAST)
_STREAM_TYPES = (int(SegmentType.ASYNC_MESSAGE), int(SegmentType.NOTIFICATION))
_ASYNC_AT = struct.Struct("<4xi")  # an ASYNC_MESSAGE's or NOTIFICATION's Hobj
_ASYNC_LENGTHS = struct.Struct("<32xi16xHB")  # ActualMsgLength, Status, name length
_NOTICE = struct.Struct("<8xii")  # a NOTIFICATION's Code, Value


def split_stream(data: bytes, buffers: dict[int, ReadAheadBuffer]) -> tuple[int, int]:
    """Read ahead's whole one-segment flows (TSH, little-endian) at the front of ``data``
    (which starts a segment), handed to their handles' buffers without making events of
    them: how many bytes they took (the rest is the reader's: another flow, a segment not
    yet whole), and how many bytes the stream's segment the rest starts lacks (0: the rest
    starts something else). The same checks as the reader's: a flow that is not what it
    should be stops the split, and the reader judges it."""
    pos, end = 0, len(data)
    head = _TSH_LE
    while pos + _SEGMENT_HEAD <= end:
        struc, length, order, segment_type, flags = head.unpack_from(data, pos)
        if struc != b"TSH " or order != ByteOrder.LITTLE or flags != _WHOLE \
                or segment_type not in _STREAM_TYPES or length < _SEGMENT_HEAD + 16 \
                or length > MAX_STREAM_SEGMENT:
            break
        if pos + length > end:
            return pos, pos + length - end
        body = pos + _SEGMENT_HEAD
        buffer = buffers.get(_ASYNC_AT.unpack_from(data, body)[0])
        if buffer is not None:
            if segment_type == SegmentType.ASYNC_MESSAGE:
                if not buffer.on_message(data, body, pos + length):
                    break
            else:
                buffer.on_notice(*_NOTICE.unpack_from(data, body))
        pos += length
    return pos, 0


def stream_sink(conn: ReadAheadVerbs) -> Callable[[OtherSegment], None]:
    """The function a transport hands read ahead's flows to, for ``conn``: it holds the
    connection weakly, so that an application's dropped connection is still freed (and its
    socket closed) at once, as a connection without read ahead is."""
    ref = weakref.ref(conn)

    def sink(event: OtherSegment) -> None:
        target = ref()
        if target is not None:
            target._on_stream_flow(event)

    return sink


class ReadAheadVerbs:
    """MQOPEN, MQGET, MQCLOSE and MQDISC with read ahead, over a transport that offers
    ``_stream_send(data)`` (write without waiting for anything) and ``_stream_pump()`` (read
    once what has come, handing stream flows to :meth:`_on_stream_flow`)."""

    _ra_buffers: dict[int, ReadAheadBuffer]
    _ra_lock: threading.RLock

    def _ra_init(self) -> None:
        self._ra_buffers = {}
        self._ra_lock = threading.RLock()

    def _ra_split(self, data: bytes) -> tuple[int, int]:
        """:func:`split_stream` into this connection's buffers."""
        return split_stream(data, self.__dict__.get("_ra_buffers") or {})

    def _on_stream_flow(self, event: OtherSegment) -> None:
        """A flow of the stream (ASYNC_MESSAGE, NOTIFICATION) read with any reply."""
        buffers = self.__dict__.get("_ra_buffers")
        if not buffers:
            return  # the handle was closed: its messages are lost
        hobj = int.from_bytes(event.body[4:8], "little")
        buffer = buffers.get(hobj)
        if buffer is not None:
            buffer.on_flow(event)

    # -- the verbs ----------------------------------------------------------------------

    def open(self, od: Any, options: int) -> int:
        hobj = super().open(od, options)  # type: ignore[misc]
        if options & (_G.MQOO_INPUT_AS_Q_DEF | _G.MQOO_INPUT_SHARED | _G.MQOO_INPUT_EXCLUSIVE) \
                and not options & (_G.MQOO_BROWSE | _G.MQOO_NO_READ_AHEAD):
            defaults = self.__dict__.get("opened_defaults", {}).get(hobj)
            if defaults is not None and not defaults.reads_ahead(options):
                return hobj  # the queue's DEFREADA, as its MQOPEN reply said: plain gets
            if "_ra_buffers" not in self.__dict__:
                self._ra_init()
            self._ra_buffers[hobj] = ReadAheadBuffer(hobj)
        return hobj

    def close(self, hobj: int, options: int = CMQC.MQCO_NONE) -> None:
        buffers = self.__dict__.get("_ra_buffers")
        buffer = buffers.get(hobj) if buffers else None
        if buffer is not None:
            with self._ra_lock:
                if options & _G.MQCO_QUIESCE:
                    while buffer.outstanding:
                        self._stream_pump()
                    if buffer.messages:
                        raise MQMIError(_G.MQCC_WARNING, _G.MQRC_READ_AHEAD_MSGS)
                super().close(hobj, options & ~_G.MQCO_QUIESCE)  # type: ignore[misc]
                buffers.pop(hobj, None)  # what is left in it is lost
                return
        super().close(hobj, options)  # type: ignore[misc]

    def get(self, hobj: int, md: Any, gmo: Any, max_length: int | None) -> bytes:
        buffers = self.__dict__.get("_ra_buffers")
        buffer = buffers.get(hobj) if buffers else None
        if buffer is None or buffer.state is OFF:
            return super().get(hobj, md, gmo, max_length)  # type: ignore[misc]
        if gmo is None:
            gmo = GMO()
        elif gmo.Options & handover.PROPERTY_OPTIONS:  # checked as the queue manager's MQGET
            handover.check_options(gmo)
        with self._ra_lock:
            return self._ra_get(hobj, buffer, md, gmo, max_length)

    def _ra_get(self, hobj: int, buffer: ReadAheadBuffer, md: Any, gmo: Any,
                max_length: int | None) -> bytes:
        options = gmo.Options
        msgid, correlid = _selection(md, gmo)
        plain = super().get  # type: ignore[misc]
        in_group = gmo.Version >= _G.MQGMO_VERSION_2 and gmo.MatchOptions & GROUP_MATCHES
        if buffer.state is UNDECIDED:
            if options & (NOT_PERMITTED | _BROWSE | GROUP_OPTIONS) or msgid or correlid \
                    or in_group:
                buffer.state = OFF  # rule 1
                return plain(hobj, md, gmo, max_length)
            buffer.fixed = unchangeable(options, md)
            buffer.state = ON
        elif options & NOT_PERMITTED:
            raise MQMIError(_G.MQCC_FAILED, _G.MQRC_OPTIONS_ERROR)
        elif unchangeable(options, md) != buffer.fixed:
            raise MQMIError(_G.MQCC_FAILED, _G.MQRC_OPTIONS_CHANGED)
        elif options & _BROWSE or in_group:
            return plain(hobj, md, gmo, max_length)  # (not open for browse: the call says)
        if msgid or correlid:  # rule 3
            message = buffer.pop_matching(msgid, correlid)
            if message is None:
                return plain(hobj, md, gmo, max_length)
            return self._ra_deliver(buffer, message, md, gmo, max_length, taken=True)
        while True:
            if buffer.messages:
                return self._ra_deliver(buffer, buffer.messages[0], md, gmo, max_length)
            if buffer.outstanding:
                self._stream_pump()
                continue
            if buffer.state is OFF:
                return plain(hobj, md, gmo, max_length)
            if buffer.check_msg:
                buffer.check_msg = False
                buffer.empty = False
                return plain(hobj, md, gmo, max_length)
            self._ra_request(hobj, buffer, options, gmo.WaitInterval)
            while buffer.outstanding:
                self._stream_pump()
            if not buffer.messages and buffer.empty and not buffer.check_msg \
                    and buffer.state is ON:
                buffer.empty = False
                raise MQMIError(_G.MQCC_FAILED, _G.MQRC_NO_MSG_AVAILABLE)

    def _ra_request(self, hobj: int, buffer: ReadAheadBuffer, options: int,
                    wait_interval: int) -> None:
        """Ask for the next window (one write; its answer is read as it comes)."""
        buffer.outstanding = True
        buffer.empty = False
        request = MessageRequest(hobj, WINDOW, options & _SENT_OPTIONS,
                                 wait_interval if options & _G.MQGMO_WAIT else 0,
                                 buffer.taken)
        buffer.taken = 0
        self._stream_send(asyncflows.message_request(request, self._stream_conv_id()))

    def _ra_deliver(self, buffer: ReadAheadBuffer, message: tuple[bytes, bytes, bytes],
                    md: Any, gmo: Any, max_length: int | None, taken: bool = False) -> bytes:
        """The buffered ``message`` to the caller, as MQGET gives one (truncation too); it
        leaves the buffer unless it does not fit and may not be truncated."""
        md_bytes, data, resolved = message
        size = len(data)  # as buffered
        handed = None
        if handover.carries_properties(md_bytes):  # handed over as MQGET hands them over
            handed = handover.streamed(gmo, self.__dict__.get("opened_defaults", {}).get(
                buffer.hobj), md, md_bytes, data)
            data = handed.body
        elif md is not None:
            buffer.md_reader.read(md, md_bytes)
        gd = gmo.__dict__  # (the values are of the fields' types: set as the engine sets them)
        gd["ResolvedQName"] = resolved
        gd["ReturnedLength"] = len(data)
        fits = max_length is None or len(data) <= max_length
        if fits or gmo.Options & _G.MQGMO_ACCEPT_TRUNCATED_MSG:
            if not taken:
                buffer.messages.popleft()
                buffer.buffered -= size
            buffer.taken += size
            if not buffer.outstanding and not buffer.empty and not buffer.check_msg \
                    and buffer.buffered < WINDOW // 2:
                self._ra_request(buffer.hobj, buffer, gmo.Options, 0)
        if fits:
            return handed.prefix + data if handed is not None else data
        reason = (_G.MQRC_TRUNCATED_MSG_ACCEPTED if gmo.Options & _G.MQGMO_ACCEPT_TRUNCATED_MSG
                  else _G.MQRC_TRUNCATED_MSG_FAILED)
        if taken and reason == _G.MQRC_TRUNCATED_MSG_FAILED:
            buffer.messages.appendleft(message)  # it stays, at the front
            buffer.buffered += size
        gmo.ReturnedLength = max_length
        part = data[:max_length]  # (in the buffer whether it is accepted or not, as IBM's)
        raise MQMIError(_G.MQCC_WARNING, reason, original_length=len(data),
                        message=part if handed is None else handed.prefix + part)

    def read_ahead_empty(self, hobj: int) -> bool:
        """Is ``hobj``'s read-ahead buffer (one in effect) empty? (MQCBCF_READA_BUFFER_EMPTY)"""
        buffers = self.__dict__.get("_ra_buffers")
        buffer = buffers.get(hobj) if buffers else None
        return buffer is not None and buffer.state is ON and not buffer.messages

    def _ra_forget(self) -> None:
        """The connection ended: every buffered message is lost."""
        buffers = self.__dict__.get("_ra_buffers")
        if buffers:
            buffers.clear()

    # -- the transport's ----------------------------------------------------------------

    def _stream_conv_id(self) -> int | None:
        """The ConvId read ahead's requests carry (a shared conversation's), or None."""
        return None

    def _stream_send(self, data: bytes) -> None:
        raise NotImplementedError

    def _stream_pump(self) -> None:
        raise NotImplementedError
