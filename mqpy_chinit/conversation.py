"""A channel's conversation: events over one TCP (or TLS) stream, with its status counters.

The message channel agents and the SVRCONN use it; ``framing.py`` cuts and joins the
segments, this module only moves them and counts buffers.
"""

from __future__ import annotations

import collections
import time

import attrs
import trio

from mqpy_chinit.framing import SegmentReader, SegmentWriter
from mqpy_chinit.states import ChannelStatus
from mqpy_chinit.wire import ControlFlags1, Event, ProtocolError, Status, StatusCode

MAX_TRANSMISSION_SIZE = 32766


@attrs.define
class ChannelEnded(Exception):  # noqa: N818 - it is an event, named as MQ names it
    """The channel instance ended abnormally: what to log, and whether a retry may help."""

    msgid: str
    text: str
    retry: bool = True  # False: the channel goes to STOPPED (operator action needed)
    status_code: StatusCode | None = None  # what the partner was, or is to be, told

    def __str__(self) -> str:
        return f"{self.msgid}: {self.text}"


class Conversation:
    """Events over one TCP stream, with the status counters of the channel it carries."""

    def __init__(self, stream: trio.abc.Stream, status: ChannelStatus,
                 max_transmission_size: int = MAX_TRANSMISSION_SIZE) -> None:
        self.stream = stream
        self.status = status
        self.reader = SegmentReader(max_transmission_size)
        self.writer = SegmentWriter(max_transmission_size)
        self.pending: collections.deque[Event] = collections.deque()
        self.last_received = time.monotonic()

    def agreed(self, max_transmission_size: int, max_msg_size: int) -> None:
        self.reader.max_transmission_size = max_transmission_size
        self.reader.max_msg_size = max_msg_size
        self.writer = SegmentWriter(max_transmission_size)

    async def send(self, event: Event) -> None:
        await self.send_many([event])

    async def send_many(self, events: list[Event]) -> None:
        """Events written together: one system call for a run of a batch's messages."""
        segments = [seg for event in events for seg in self.writer.segments(event)]
        try:
            await self.stream.send_all(b"".join(segments))
        except (trio.BrokenResourceError, trio.ClosedResourceError, OSError) as exc:
            raise ChannelEnded("AMQ9206E", f"Error sending data: {exc}") from None
        self.status.buffers_sent += len(segments)

    async def recv(self, timeout: float | None) -> Event:
        if self.pending:  # already in: no timer to arm (a batch's messages come many a read)
            await trio.lowlevel.checkpoint()
            return self.pending.popleft()
        with trio.move_on_after(timeout if timeout is not None else float("inf")) as scope:
            while not self.pending:
                try:
                    data = await self.stream.receive_some(65536)
                except (trio.BrokenResourceError, trio.ClosedResourceError, OSError) as exc:
                    raise ChannelEnded("AMQ9208E", f"Error on receive from host: {exc}") \
                        from None
                if not data:
                    raise ChannelEnded("AMQ9209E", "Connection to host closed.")
                self.status.buffers_received += 1
                self.last_received = time.monotonic()
                try:
                    self.pending.extend(self.reader.feed(data))
                except ProtocolError as exc:
                    await self._refuse(exc.status_code)
                    raise ChannelEnded("AMQ9504E", f"Protocol error: {exc}", True,
                                       exc.status_code) from None
        if scope.cancelled_caught:
            raise ChannelEnded("AMQ9259E", "Connection timed out: nothing received within "
                               f"{timeout:.0f} seconds.")
        return self.pending.popleft()

    async def _refuse(self, code: StatusCode) -> None:
        try:
            await self.send(Status(code=code, flags=ControlFlags1.ERROR))
        except ChannelEnded:
            pass

    async def close(self, code: StatusCode | None = None) -> None:
        if code is not None:
            await self._refuse(code)
        await self.stream.aclose()
