"""A peer that writes and never reads: how much a queue manager takes before it stops."""

from __future__ import annotations

import socket
import time

#: How long the socket stays full before the peer gives up (the other end stopped reading).
STALLED_S = 1.0


def written_without_reading(sock: socket.socket, request: bytes, at_most: int) -> int:
    """``request`` written again and again on ``sock``, no reply read, until the other end
    stops taking them (the socket full for STALLED_S) or ``at_most`` bytes went: the bytes
    it took."""
    sock.setblocking(False)
    block = memoryview(request * max(1, (1 << 20) // len(request)))
    rest, sent, stalled_since = block, 0, None
    while sent < at_most:
        try:
            n = sock.send(rest)
        except BlockingIOError:
            stalled_since = stalled_since or time.monotonic()
            if time.monotonic() - stalled_since > STALLED_S:
                break
            time.sleep(0.01)
            continue
        stalled_since = None
        sent += n
        rest = rest[n:] or block
    return sent
