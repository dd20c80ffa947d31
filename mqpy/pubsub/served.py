"""MQSUB and MQSUBRQ served to a bindings or client connection: the request decoded
(``mqpy.fap.pubsubflows``), the connection's call made on a worker thread of its port (a
``loopcalls`` port: an engine connection's, or a bindings connection's for a channel) or
straight through an asynchronous one (the channel initiator's own connection to its queue
manager, ``AsyncMQIVerbs``), the reply encoded. The bindings listener's and the SVRCONN's handler tables name these."""

from __future__ import annotations

from typing import Any

import trio

from mqpy.fap import mqiflows
from mqpy.fap.apiheader import MQIReply

__all__ = ["sub", "subrq"]


async def _call(port: Any, name: str, *args: Any) -> Any:
    """The call ``name`` through ``port``: awaited where it has it, else on a thread."""
    method = getattr(port, name, None)
    if method is not None:
        return await method(*args)
    return await trio.to_thread.run_sync(getattr(port.conn, name), *args, limiter=port.limiter)


async def sub(port: Any, d: mqiflows.Decoded) -> MQIReply:
    """MQSUB: the reply carries the MQSD and the destination's Hobj, the Hsub in the API
    header."""
    sd, hobj = d.values  # type: ignore[misc]
    qhobj, hsub = await _call(port, "sub", sd, hobj)
    return mqiflows.encode_reply(d.verb, [sd, qhobj], hobj=hsub)


async def subrq(port: Any, d: mqiflows.Decoded) -> MQIReply:
    """MQSUBRQ on the Hsub of the API header: the reply carries the MQSRO."""
    action, sro = d.values  # type: ignore[misc]
    done = await _call(port, "subrq", d.hobj, action, sro)
    return mqiflows.encode_reply(d.verb, [done])
