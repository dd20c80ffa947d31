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


async def read_while(partner, total: int, sending) -> bytes:
    """What ``partner`` (a blocking socket) receives, ``total`` bytes read on a worker
    thread, while the awaitable ``sending`` (made by the caller) runs: for tests of writes
    larger than a socket's buffers, which complete only while the other end reads."""
    import trio

    got = bytearray()

    def read_all() -> None:
        while len(got) < total:
            got.extend(partner.recv(65536))

    async with trio.open_nursery() as nursery:
        nursery.start_soon(trio.to_thread.run_sync, read_all)
        await sending
    return bytes(got)
