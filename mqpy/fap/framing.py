"""Segments on a byte stream: a sans-IO reader and writer for the MQ channel protocol.

The channel protocol is a stream of *segments*, each a TSH (or TSHM) whose big-endian length
counts the whole segment, followed by a body. A flow longer than the negotiated maximum
transmission size is split by the sender and reassembled by the receiver (seed 000: "large
messages are split by the sending MCA and reassembled at the receiver, transparently"):

- the first segment has ControlFlags1 FIRST, the last has LAST, a one-segment flow has both;
- the first segment alone carries the flow's prefix (the MSH of MESSAGE_DATA, the API header of
  an MQI verb); the remaining bytes are cut into as many segments as the maximum allows, each
  with its own TSH;
- only MESSAGE_DATA and the MQI verbs / replies (0x81-0x9F) and XA flows may span segments;
  packet-mq.c: types below 0x80 "never span several TSH", so those are complete on their own.

``SegmentReader`` is fed arbitrary chunks (one byte at a time or a megabyte at once) and
returns each complete event once its last segment has arrived. What it holds is bounded
whatever the partner sends: one segment not yet whole (at most ``max_transmission_size``
bytes) and the flows begun and not ended, each at most ``flow_limit`` bytes (the message
size agreed, IBM's largest when none was, plus room for headers; a MESSAGE_DATA flow the
length its MSH announced), all together at most ``max_pending``. Before INITIAL_DATA is
agreed (``SegmentReader.before_negotiation``) nothing but one-segment flows of an ID's size
is taken: a partner that has not even named its channel cannot make us buffer more than
that. It rejects a malformed stream
with ``ProtocolError`` carrying the ``MQ_STATUS_ERR_*`` code to send to the partner, and stays
broken afterwards (every later ``feed`` raises the same error): after a protocol error the
channel ends, nothing is resynchronised mid-stream. ``SegmentWriter`` turns events into bytes.

Neither touches a socket, a clock or the queue manager; the trio driver moves the bytes.
"""

from __future__ import annotations

import attrs

from mqpy.fap.apiheader import (
    API_HEADER_LENGTH,
    MQIReply,
    MQIRequest,
    build_mqi_reply,
    build_mqi_segment,
    parse_mqi_segment,
)
from mqpy.fap.controlflows import Status, build_status_segment, parse_status_segment
from mqpy.fap.flows import decode_body, encode_body
from mqpy.fap.messagedata import (
    MSH_LENGTH,
    XQH_WITH_MD_LENGTH,
    MessageData,
    build_message_segment,
    parse_message_segment,
)
from mqpy.fap.statuscodes import ProtocolError, StatusCode
from mqpy.fap.tsh import (
    OUR_CCSID,
    OUR_ENCODING,
    SEGMENT_TYPES,
    TSH_LENGTH,
    TSHM_LENGTH,
    ByteOrder,
    ControlFlags1,
    ControlFlags2,
    Event,
    SegmentHeader,
    SegmentType,
    build_segment_header,
    parse_segment_header,
)

__all__ = [
    "DEFAULT_MAX_TRANSMISSION_SIZE",
    "FLOW_HEADROOM",
    "INITIAL_SEGMENT_SIZE",
    "MAX_MSG_LENGTH",
    "SegmentReader",
    "SegmentWriter",
    "split_segments",
]

#: IBM's TCP default; also what packet-mq.c calls a typical MQ PDU (32766 bytes).
DEFAULT_MAX_TRANSMISSION_SIZE = 32766
#: IBM's largest MAXMSGL (100 MB): the bound of a flow's data when no message size was agreed
#: (0 at both ends: "no limit of mine")
MAX_MSG_LENGTH = 104_857_600
#: Room for a flow's structures beyond its message data (API header, MQMD, MQPMO / MQGMO,
#: MQOD, distribution-list records ...)
FLOW_HEADROOM = 64 * 1024
#: The longest segment taken before INITIAL_DATA is agreed: the largest documented ID (240
#: bytes from FAP 11) in a TSHM, with room for an ID a later FAP level lengthens; it is also
#: the smallest transmission size negotiation accepts (negotiation.MIN_TRANSMISSION_SIZE),
#: which every ID has to fit anyway.
INITIAL_SEGMENT_SIZE = 1024

_SEGMENT_TYPES = frozenset(int(t) for t in SegmentType)
_MQI_EVENTS = (MQIRequest, MQIReply)
_FIRST, _LAST = int(ControlFlags1.FIRST), int(ControlFlags1.LAST)
_MESSAGE_DATA = bytes([SegmentType.MESSAGE_DATA])  # a TSH's segment type byte (offset 9)
_STATUS_DATA = bytes([SegmentType.STATUS_DATA])


class SegmentWriter:
    """Events to segments, in one byte order, never longer than ``max_transmission_size``.

    The maximum is a plain attribute: the channel lowers it once INITIAL_DATA has been
    negotiated. ``byte_order`` / ``encoding`` / ``ccsid`` fill every TSH we send.
    """

    def __init__(
        self,
        max_transmission_size: int = DEFAULT_MAX_TRANSMISSION_SIZE,
        *,
        byte_order: ByteOrder = ByteOrder.LITTLE,
        encoding: int = OUR_ENCODING,
        ccsid: int = OUR_CCSID,
        flags2: ControlFlags2 = ControlFlags2.NONE,
    ) -> None:
        self.max_transmission_size = max_transmission_size
        self.byte_order = ByteOrder(byte_order)
        self.encoding = encoding
        self.ccsid = ccsid
        self.flags2 = flags2

    def _one_segment(self, event: Event) -> bytes | None:
        """An MQI flow, a message or a STATUS without a value that fits one segment
        (nearly every call and reply, every message of a channel but the long ones, every
        batch's answer) in one go; None for anything else."""
        kind = type(event)
        if kind is MessageData:
            if (event.conv_id is None and event.byte_order == self.byte_order
                    and TSH_LENGTH + MSH_LENGTH + len(event.xqh) + len(event.data)
                    <= self.max_transmission_size):
                return build_message_segment(event, self.byte_order, self.encoding,
                                             self.ccsid, self.flags2)
            return None
        if kind is Status:
            if event.value is None and event.conv_id is None:
                return build_status_segment(event, self.byte_order, self.encoding,
                                            self.ccsid, self.flags2)
            return None
        if kind not in _MQI_EVENTS:
            return None
        header_length = TSH_LENGTH if event.conv_id is None else TSHM_LENGTH
        if header_length + API_HEADER_LENGTH + len(event.body) > self.max_transmission_size:
            return None
        return build_mqi_segment(event, self.byte_order, self.encoding, self.ccsid,
                                 self.flags2)

    def reply(self, segment_type: int, comp: int, reason: int, hobj: int,
              body: tuple[bytes, ...], conv_id: int | None,
              request_id: int | None) -> bytes | None:
        """The one segment :meth:`send` makes of an MQI reply event with these fields (no
        flags, no LUW, ReplyLength its own length) and ``body`` joined, without the event;
        None when it does not fit one segment."""
        total = (TSH_LENGTH if conv_id is None else TSHM_LENGTH) + API_HEADER_LENGTH \
            + sum(map(len, body))
        if total > self.max_transmission_size:
            return None
        return build_mqi_reply(segment_type, comp, reason, hobj, body, self.byte_order,
                               self.encoding, self.ccsid, self.flags2, conv_id, request_id)

    def segments(self, event: Event) -> list[bytes]:
        """The segments that carry ``event``, FIRST on the first and LAST on the last."""
        one = self._one_segment(event)
        if one is not None:
            return [one]
        return self._segments(event)

    def _segments(self, event: Event) -> list[bytes]:
        prefix, payload = encode_body(event, self.byte_order)
        segment_type = SEGMENT_TYPES.get(event.segment_type) or SegmentType(event.segment_type)
        header_length = TSHM_LENGTH if event.conv_id is not None else TSH_LENGTH
        room = self.max_transmission_size - header_length
        flow = prefix + payload

        if isinstance(event, (MQIRequest, MQIReply)) and event.reply_length is None:
            # [inf] ReplyLength: the length the whole flow would have as one segment.
            total = header_length + len(flow)
            flow = total.to_bytes(4, "big") + flow[4:]

        if not segment_type.may_span_segments or len(flow) <= room:
            if len(flow) > room:
                raise ValueError(
                    f"{segment_type.name} of {header_length + len(flow)} bytes exceeds the "
                    f"maximum transmission size {self.max_transmission_size} and cannot be split"
                )
            chunks = [flow]
        else:
            if room <= len(prefix):
                raise ValueError(
                    f"maximum transmission size {self.max_transmission_size} leaves no room for "
                    f"data after the {len(prefix)}-byte {segment_type.name} prefix"
                )
            chunks = [flow[i : i + room] for i in range(0, len(flow), room)]

        out = []
        last = len(chunks) - 1
        event_flags = int(event.flags)
        for index, chunk in enumerate(chunks):
            flags = event_flags
            if index == 0:
                flags |= _FIRST
            if index == last:
                flags |= _LAST
            header = build_segment_header(
                segment_type,
                header_length + len(chunk),
                flags1=flags,
                flags2=self.flags2,
                luwid=event.luwid,
                byte_order=self.byte_order,
                encoding=self.encoding,
                ccsid=self.ccsid,
                conv_id=event.conv_id,
                request_id=event.request_id,
            )
            out.append(header + chunk)
        return out

    def send(self, event: Event) -> bytes:
        """All of ``event``'s segments, concatenated, ready for the socket."""
        one = self._one_segment(event)
        if one is not None:
            return one
        return b"".join(self._segments(event))

    def send_counted(self, event: Event) -> tuple[bytes, int]:
        """``send(event)`` and how many segments it made (a channel counts buffers sent)."""
        one = self._one_segment(event)
        if one is not None:
            return one, 1
        segments = self._segments(event)
        return b"".join(segments), len(segments)


def split_segments(
    event: Event,
    max_transmission_size: int = DEFAULT_MAX_TRANSMISSION_SIZE,
    *,
    byte_order: ByteOrder = ByteOrder.LITTLE,
) -> list[bytes]:
    """One-shot ``SegmentWriter(...).segments(event)``."""
    return SegmentWriter(max_transmission_size, byte_order=byte_order).segments(event)


@attrs.define
class _Reassembly:
    """A flow whose FIRST segment has arrived but not yet its LAST."""

    header: SegmentHeader
    flags: ControlFlags1
    parts: list[bytes]
    received: int
    limit: int  # total body bytes allowed: announced by its prefix, else the reader's limit


class SegmentReader:
    """Bytes in, complete events out.

    ``max_transmission_size`` bounds every segment (lower it after negotiation);
    ``max_msg_size`` (0: none agreed, IBM's largest, MAX_MSG_LENGTH) bounds the application
    data of a reassembled message and, with FLOW_HEADROOM, every other reassembled flow, so a
    partner cannot make us buffer more than the channel agreed to carry. ``max_pending``
    bounds the bytes of all flows begun and not ended together (None: one flow's limit;
    0: no flow may span segments). Attributes: the channel changes them as it goes.
    ``partner_byte_order`` / ``partner_encoding`` / ``partner_ccsid`` are those of the last TSH;
    what decodes a flow's body is its event's own ``byte_order`` (MQI and other flows: its
    TSH's, a split flow's FIRST segment's), never the last TSH's: one read may hold flows in
    both byte orders.
    """

    def __init__(
        self,
        max_transmission_size: int = DEFAULT_MAX_TRANSMISSION_SIZE,
        max_msg_size: int = 0,
        *,
        max_pending: int | None = None,
    ) -> None:
        self.max_transmission_size = max_transmission_size
        self.max_msg_size = max_msg_size
        self.max_pending = max_pending
        self.partner_byte_order: ByteOrder | None = None
        self.partner_encoding: int | None = None
        self.partner_ccsid: int | None = None
        self._buffer = bytearray()
        self._pos = 0  # where the next segment starts in _buffer, during feed
        self._reassembly: dict[int | None, _Reassembly] = {}
        self._error: ProtocolError | None = None
        self._pending = 0  # bytes of the flows in _reassembly
        self.segments = 0  # segments taken so far (transmissions received: BUFSRCVD)

    @classmethod
    def before_negotiation(cls) -> SegmentReader:
        """A reader for a connection whose INITIAL_DATA has not been agreed: segments of an
        ID's size (INITIAL_SEGMENT_SIZE), none of a split flow. ``Conversation.agreed``
        raises its limits to the negotiated ones."""
        return cls(INITIAL_SEGMENT_SIZE, max_pending=0)

    @property
    def flow_limit(self) -> int:
        """The most body bytes one reassembled flow may reach (MQI verbs, XA flows ...)."""
        return (self.max_msg_size or MAX_MSG_LENGTH) + FLOW_HEADROOM

    @property
    def pending(self) -> int:
        """Bytes held for flows whose FIRST segment has arrived but not their LAST."""
        return self._pending

    @property
    def reassembling(self) -> bool:
        """True while a split flow has had its FIRST segment but not its LAST."""
        return bool(self._reassembly)

    @property
    def buffered(self) -> int:
        """Bytes received that do not yet make a whole segment."""
        return len(self._buffer)

    @property
    def missing(self) -> int:
        """Bytes still to come of the segment begun in an earlier read (0: none begun, or
        its length not yet known)."""
        buffer = self._buffer
        if len(buffer) < 8:
            return 0
        return max(0, int.from_bytes(buffer[4:8], "big") - len(buffer))

    def feed(self, data: bytes) -> list[Event]:
        """Take ``data`` from the stream; return the events it completes, in order."""
        if self._error is not None:
            raise self._error
        events: list[Event] = []
        buffered = len(self._buffer)
        if not self._reassembly and type(data) is bytes and (
                not buffered or (buffered >= 8 and len(data) + buffered
                                 >= int.from_bytes(self._buffer[4:8], "big"))):
            # whole one-segment MQI flows and messages straight from the bytes received, as
            # long as they last; whatever follows them takes the general way. A segment
            # begun in an earlier read (a read seldom ends where a segment does) is joined
            # to this one when this one completes it: the bytes buffered are all that
            # segment's (the reads before left only its beginning), so each byte received
            # is copied once more at most, however the reads cut it -- a long flow (an SPI
            # RUN's, a run of gets' reply) cut by 64 KB reads, whose last read is the
            # shorter, among them
            if buffered:
                data = bytes(self._buffer) + data
                self._buffer.clear()
            pos, end, limit = 0, len(data), self.max_transmission_size
            max_msg_size = self.max_msg_size
            while pos < end:
                kind = data[pos + 9:pos + 10]
                if kind == _MESSAGE_DATA:
                    flow = parse_message_segment(data, pos, limit, max_msg_size)
                elif kind == _STATUS_DATA:
                    flow = parse_status_segment(data, pos, limit)
                else:
                    flow = parse_mqi_segment(data, pos, limit)
                if flow is None:
                    break
                (event, length, self.partner_byte_order, self.partner_encoding,
                 self.partner_ccsid) = flow
                events.append(event)
                pos += length
                self.segments += 1
            if pos == end:
                return events
            if pos:
                data = data[pos:]
        self._buffer += data
        self._pos = 0
        try:
            while True:
                segment = self._next_segment()
                if segment is None:
                    return events
                event = self._on_segment(segment)
                if event is not None:
                    events.append(event)
        except ProtocolError as exc:
            self._error = exc
            raise
        finally:
            # the segments taken leave the buffer at once, not one by one (each would move
            # everything behind it)
            del self._buffer[:self._pos]

    # -- framing ----------------------------------------------------------------------------

    def _next_segment(self) -> bytes | None:
        buffer = self._buffer
        pos = self._pos
        # Reject as early as the bytes allow: a bad id or length never waits for more data.
        head = bytes(buffer[pos:pos + 4])
        if head and not any(sid.startswith(head) for sid in (b"TSH ", b"TSHC", b"TSHM")):
            raise ProtocolError(
                StatusCode.PROTOCOL_SEGMENT_ERROR, f"segment starts with {head!r}, not a TSH"
            )
        if len(buffer) - pos < 8:
            return None
        length = int.from_bytes(buffer[pos + 4:pos + 8], "big")
        minimum = TSHM_LENGTH if head == b"TSHM" else TSH_LENGTH
        if length < minimum:
            raise ProtocolError(
                StatusCode.PROTOCOL_LENGTH_ERROR, f"segment length {length} is below {minimum}"
            )
        if length > self.max_transmission_size:
            raise ProtocolError(
                StatusCode.PROTOCOL_LENGTH_ERROR,
                f"segment length {length} exceeds the maximum transmission size "
                f"{self.max_transmission_size}",
            )
        if len(buffer) - pos < length:
            return None
        segment = bytes(buffer[pos:pos + length])
        self._pos = pos + length
        self.segments += 1
        return segment

    def _on_segment(self, segment: bytes) -> Event | None:
        header = parse_segment_header(segment)
        if header.segment_type not in _SEGMENT_TYPES:
            raise ProtocolError(
                StatusCode.PROTOCOL_SEGMENT_TYPE,
                f"unknown segment type 0x{header.segment_type:02X}",
            )
        self.partner_byte_order = header.byte_order
        self.partner_encoding = header.encoding
        self.partner_ccsid = header.ccsid
        body = segment[header.header_length :]
        segment_type = SEGMENT_TYPES[header.segment_type]
        flags1 = int(header.flags1)
        first = bool(flags1 & _FIRST)
        last = bool(flags1 & _LAST)

        pending = self._reassembly.get(header.conv_id)
        if pending is not None:
            if first or header.segment_type != pending.header.segment_type:
                raise ProtocolError(
                    StatusCode.PROTOCOL_SEGMENT_ERROR,
                    f"{segment_type.name} segment (flags {header.flags1!r}) inside a split "
                    f"{SegmentType(pending.header.segment_type).name} flow",
                )
            pending.received += len(body)
            if pending.received > pending.limit:
                raise ProtocolError(
                    StatusCode.MESSAGE_LENGTH_ERROR,
                    f"split {segment_type.name} grew to {pending.received} bytes, "
                    f"more than the {pending.limit} announced or allowed",
                )
            self._hold(len(body), segment_type)
            pending.parts.append(body)
            pending.flags |= header.flags1
            if not last:
                return None
            del self._reassembly[header.conv_id]
            self._pending -= pending.received
            complete = attrs.evolve(pending.header, flags1=pending.flags)
            return decode_body(complete, b"".join(pending.parts))

        if not segment_type.may_span_segments or (first and last):
            self._check_message_size(segment_type, body)
            return decode_body(header, body)
        if not first:
            raise ProtocolError(
                StatusCode.PROTOCOL_SEGMENT_ERROR,
                f"{segment_type.name} continuation segment without a FIRST segment",
            )
        if self.max_pending == 0:
            raise ProtocolError(
                StatusCode.PROTOCOL_SEGMENT_ERROR,
                f"split {segment_type.name} flow before the channel's INITIAL_DATA was agreed",
            )
        limit = self._check_message_size(segment_type, body)
        if len(body) > limit:
            raise ProtocolError(
                StatusCode.MESSAGE_LENGTH_ERROR,
                f"split {segment_type.name} of {len(body)} bytes already, more than the "
                f"{limit} announced or allowed",
            )
        self._hold(len(body), segment_type)
        self._reassembly[header.conv_id] = _Reassembly(
            header=header,
            flags=header.flags1,
            parts=[body],
            received=len(body),
            limit=limit,
        )
        return None

    def _hold(self, size: int, segment_type: SegmentType) -> None:
        """Count ``size`` more bytes held for split flows, within ``max_pending``."""
        total = self._pending + size
        bound = self.flow_limit if self.max_pending is None else self.max_pending
        if total > bound:
            raise ProtocolError(
                StatusCode.MESSAGE_LENGTH_ERROR,
                f"split {segment_type.name} flows would hold {total} bytes, more than the "
                f"{bound} allowed at once",
            )
        self._pending = total

    def _check_message_size(self, segment_type: SegmentType, body: bytes) -> int:
        """The total body length a flow may reach: for MESSAGE_DATA, its MSH's MsgLength,
        checked against the maximum message length up front; for any other flow
        ``flow_limit`` (an MQI flow's data is bounded by the message size plus headers).

        The MQXQH (428 bytes) is not counted against the channel's maximum message length.
        """
        if segment_type != SegmentType.MESSAGE_DATA:
            return self.flow_limit
        if len(body) < MSH_LENGTH or body[:4] != b"MSH ":
            raise ProtocolError(StatusCode.PROTOCOL_MSH_ERROR, "MESSAGE_DATA without an MSH")
        order = "little" if self.partner_byte_order == ByteOrder.LITTLE else "big"
        msg_length = int.from_bytes(body[16:20], order)
        max_msg_size = self.max_msg_size or MAX_MSG_LENGTH
        if msg_length > max_msg_size + XQH_WITH_MD_LENGTH:
            raise ProtocolError(
                StatusCode.MESSAGE_LENGTH_ERROR,
                f"message of {msg_length} bytes exceeds the maximum message length "
                f"{max_msg_size}",
            )
        return MSH_LENGTH + msg_length
