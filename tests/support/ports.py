"""Free TCP ports on 127.0.0.1 for listeners a test starts.

Not the kernel's choice: that is a port of the ephemeral range, which the kernel also gives
as the local port of the next outgoing connection (a client's, a channel's, a test's in
another worker), and a listener started on it a moment later then fails to bind (AMQ9218E,
"Address already in use"). A port drawn below that range is never given so."""

from __future__ import annotations

import random
import socket

#: the lowest port drawn (below it: ports other services on the machine may hold)
LOWEST = 10000
_DRAWS = 200


def _ephemeral_range() -> tuple[int, int]:
    try:
        with open("/proc/sys/net/ipv4/ip_local_port_range") as f:
            low, high = (int(v) for v in f.read().split())
            return low, high
    except (OSError, ValueError):
        return 32768, 60999  # Linux's default


def free_port() -> int:
    """A port nothing is bound to now, outside the kernel's ephemeral range where it can
    (the kernel's choice if none is free there)."""
    low, high = _ephemeral_range()
    candidates = range(LOWEST, low) if low - LOWEST >= 1000 else range(high + 1, 65536)
    draw = random.Random()
    for _ in range(_DRAWS):
        port = draw.choice(candidates)
        with socket.socket() as s:
            try:
                s.bind(("127.0.0.1", port))
            except OSError:
                continue
            return port
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]
