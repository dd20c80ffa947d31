"""The responder's side of channel TLS in trio: tell TLS from plain MQ, then shake hands.

A listener cannot know which channel a partner wants before it has read the partner's
INITIAL_DATA, and with TLS that flow is inside the session. So, as MQ's listener does, every
connection is looked at first: a TLS handshake record (first byte 0x16) is answered with the
queue manager's certificate (``tls.server_context`` over QMGR SSLKEYR) and the channel's
own rules are applied once its INITIAL_DATA names it (``tls.check_inbound``); a TSH is plain
MQ. The byte looked at is given back to whoever reads the stream next (:class:`Prefixed`).
"""

from __future__ import annotations

import ssl
from collections.abc import Callable
from typing import Any

import trio

from mqpy_chinit.tls import KeyRepositoryError, server_context

__all__ = ["ChannelTLSStream", "Prefixed", "accept"]

TLS_HANDSHAKE_RECORD = 0x16
HANDSHAKE_TIMEOUT = 30.0


class Prefixed(trio.abc.Stream):
    """A stream whose first bytes were already read: they are received again first."""

    def __init__(self, stream: trio.abc.Stream, prefix: bytes) -> None:
        self.stream = stream
        self.prefix = prefix

    @property
    def socket(self) -> Any:
        return getattr(self.stream, "socket", None)

    async def receive_some(self, max_bytes: int | None = None) -> bytes:
        if self.prefix:
            n = len(self.prefix) if max_bytes is None else max_bytes
            data, self.prefix = self.prefix[:n], self.prefix[n:]
            return data
        return await self.stream.receive_some(max_bytes)

    async def send_all(self, data: bytes | bytearray | memoryview) -> None:
        await self.stream.send_all(data)

    async def wait_send_all_might_not_block(self) -> None:
        await self.stream.wait_send_all_might_not_block()

    async def aclose(self) -> None:
        await self.stream.aclose()


class ChannelTLSStream(trio.abc.Stream):
    """A channel's TLS session (``trio.SSLStream``, which cannot be subclassed) that still
    answers ``.socket`` (peer addresses for CHLAUTH and logs), ``cipher()`` and
    ``getpeercert()``."""

    def __init__(self, transport: Prefixed, ctx: ssl.SSLContext) -> None:
        self.transport = transport
        self.tls = trio.SSLStream(transport, ctx, server_side=True)

    @property
    def socket(self) -> Any:
        return self.transport.socket

    def cipher(self) -> tuple[str, str, int] | None:
        return self.tls.cipher()

    def getpeercert(self) -> dict | None:
        return self.tls.getpeercert()

    async def do_handshake(self) -> None:
        await self.tls.do_handshake()

    async def receive_some(self, max_bytes: int | None = None) -> bytes:
        return await self.tls.receive_some(max_bytes)

    async def send_all(self, data: bytes | bytearray | memoryview) -> None:
        await self.tls.send_all(data)

    async def wait_send_all_might_not_block(self) -> None:
        await self.tls.wait_send_all_might_not_block()

    async def aclose(self) -> None:
        await self.tls.aclose()


async def accept(stream: trio.SocketStream, repository: Callable[[], str],
                 log: Callable[[str, str], None], peer: str
                 ) -> trio.abc.Stream | None:
    """The stream to read the channel from: TLS when the partner starts TLS, else plain.

    ``repository()`` gives QMGR SSLKEYR (asked only when TLS arrives). None when the
    connection is unusable (closed, a failed handshake, no key repository); logged."""
    with trio.move_on_after(HANDSHAKE_TIMEOUT):
        try:
            first = await stream.receive_some(1)
        except (trio.BrokenResourceError, trio.ClosedResourceError, OSError):
            return None
        if not first:
            return None
        prefixed = Prefixed(stream, first)
        if first[0] != TLS_HANDSHAKE_RECORD:
            return prefixed
        path = await trio.to_thread.run_sync(repository)
        try:
            ctx = server_context(path)
        except KeyRepositoryError as exc:
            log("AMQ9657E", f"The key repository could not be opened for a TLS connection "
                f"from {peer}: {exc}.")
            return None
        tls = ChannelTLSStream(prefixed, ctx)
        try:
            await tls.do_handshake()
        except (trio.BrokenResourceError, ssl.SSLError, OSError) as exc:
            log("AMQ9665E", f"The TLS handshake with {peer} failed: {exc.__cause__ or exc}.")
            return None
        return tls
    log("AMQ9259E", f"Connection timed out: {peer} started no channel within "
        f"{HANDSHAKE_TIMEOUT:.0f} seconds.")
    return None
