"""Segments written and read in the ways the fast-path tests compare: a writer of either byte
order, a reader fed one byte at a time (always the general path), an event's fields with
their types."""

from __future__ import annotations

import attrs

from mqpy.fap.framing import SegmentReader, SegmentWriter
from mqpy.fap.tsh import ByteOrder, ControlFlags2, Event


def _writer(order: ByteOrder, maximum: int = 32766) -> SegmentWriter:
    return SegmentWriter(maximum, byte_order=order, encoding=273 if order == ByteOrder.BIG else 546,
                         ccsid=1208, flags2=ControlFlags2.NONE)


def _trickled(raw: bytes, reader: SegmentReader) -> list[Event]:
    """The events of ``raw`` fed one byte at a time: always the general path."""
    return [event for i in range(len(raw)) for event in reader.feed(raw[i:i + 1])]


def _fields(event: Event) -> list[tuple[type, object]]:
    return [(type(v), v) for v in attrs.astuple(event, recurse=False)]
