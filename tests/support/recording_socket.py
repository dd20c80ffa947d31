"""A stand-in for a bindings socket in tests of what an application sends."""

from __future__ import annotations


class RecordingSocket:
    """A socket that keeps what is sent and has nothing to read."""

    def __init__(self) -> None:
        self.sent: list[bytes] = []

    def sendall(self, data: bytes) -> None:
        self.sent.append(bytes(data))

    def recv(self, n: int, *flags: int) -> bytes:
        raise BlockingIOError

    def close(self) -> None:
        pass
