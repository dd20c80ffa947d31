"""PING CHANNEL at the responding end: the partner's test data sent back as it came, until
the partner closes the conversation. A ping is no channel start: it claims no running
instance (no adopt MCA, no "in use"), registers no status and needs no queue-manager
connection."""

from __future__ import annotations

from mqpy.fap.controlflows import Ping, Status
from mqpy.fap.statuscodes import StatusCode
from mqpy.fap.tsh import Event
from mqpy_chinit.conversation import ChannelEnded, Conversation
from mqpy_chinit.mca import CONFIRM_TIMEOUT


async def first_flow(conv: Conversation, timeout: float | None) -> Event | None:
    """A responder's first flow after the ID exchange: a start's (RESYNC, RESET, ...), or
    None when it was a PING CHANNEL, answered to its end."""
    first = await conv.recv(timeout)
    if isinstance(first, Ping):
        await answer(conv, first)
        return None
    return first


async def answer(conv: Conversation, first: Ping) -> None:
    """Answer ``first`` and every later PING of the conversation; return when the partner
    closes it (its STATUS); anything else is a protocol error (AMQ9504E)."""
    ev: Event = first
    while isinstance(ev, Ping):
        await conv.send(Ping(data=ev.data))
        ev = await conv.recv(CONFIRM_TIMEOUT)
    if not isinstance(ev, Status):
        await conv.close(StatusCode.PROTOCOL_SEGMENT_TYPE)
        raise ChannelEnded("AMQ9504E", "Protocol error: a PING CHANNEL conversation sent "
                           f"{type(ev).__name__} after its test data.", False)
