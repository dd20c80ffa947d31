"""Free TCP ports on 127.0.0.1 for listeners a test starts."""

from __future__ import annotations

import socket


def free_port() -> int:
    """A port nothing listens on now (the kernel's choice, released at once)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]
