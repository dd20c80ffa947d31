"""Both ends of a real loopback TCP connection, for tests of what runs on a socket."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

import trio


@asynccontextmanager
async def loopback_pair() -> AsyncIterator[tuple[trio.SocketStream, trio.SocketStream]]:
    """Both ends of a loopback TCP connection: (ours, the partner's)."""
    listeners = await trio.open_tcp_listeners(0, host="127.0.0.1")
    port = listeners[0].socket.getsockname()[1]
    partner = await trio.open_tcp_stream("127.0.0.1", port)
    ours = await listeners[0].accept()
    try:
        yield ours, partner
    finally:
        for s in (ours, partner, *listeners):
            await s.aclose()
