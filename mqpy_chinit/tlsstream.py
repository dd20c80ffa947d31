"""Channel TLS in trio: the responder tells TLS from plain MQ, the initiator starts it.

A listener cannot know which channel a partner wants before it has read the partner's
INITIAL_DATA, and with TLS that flow is inside the session. So, as MQ's listener does, every
connection is looked at first: a TLS handshake record (first byte 0x16) is answered with the
queue manager's certificate (``tls.server_context`` over QMGR SSLKEYR) and the channel's
own rules are applied once its INITIAL_DATA names it (``tls.check_inbound``); a TSH is plain
MQ. The byte looked at is given back to whoever reads the stream next (:class:`Prefixed`).

An outbound message channel (SDR, SVR, RQSTR) with SSLCIPH opens its connection through
:func:`open_channel_stream`: TLS with exactly its CipherSpec and its own queue manager's
certificate (the key repository its channel initiator names: one per channel initiator, not
one per process, so two queue managers' channel initiators in one process never use each
other's certificates), and the partner's certificate checked against its SSLPEER.

Key repository changes are picked up without a restart: SSLKEYR is asked for at every
handshake, a context is rebuilt when one of its PEM files changes, and REFRESH SECURITY
TYPE(SSL) drops the contexts of a repository outright (:func:`refresh`).
"""

from __future__ import annotations

import os
import ssl
import threading
from collections.abc import Callable, Mapping
from typing import Any

import trio

from mqpy.fap.tls import (
    CA_FILE,
    CERT_FILE,
    KEY_FILE,
    KeyRepositoryError,
    client_context,
    peer_dn,
    server_context,
)
from mqpy.security.chlauth import dn_matches

__all__ = ["ChannelTLSError", "ChannelTLSStream", "Forwarding", "KeyRepository", "Prefixed",
           "accept", "context", "is_tls", "open_channel_stream", "refresh", "tls_identity",
           "tls_session"]

TLS_HANDSHAKE_RECORD = 0x16
HANDSHAKE_TIMEOUT = 30.0


class Forwarding(trio.abc.Stream):
    """A stream over another (``stream``) that changes only how bytes are received: sends,
    closing and the socket are the other stream's."""

    def __init__(self, stream: trio.abc.Stream) -> None:
        self.stream = stream

    @property
    def socket(self) -> Any:
        return getattr(self.stream, "socket", None)

    async def send_all(self, data: bytes | bytearray | memoryview) -> None:
        await self.stream.send_all(data)

    async def wait_send_all_might_not_block(self) -> None:
        await self.stream.wait_send_all_might_not_block()

    async def aclose(self) -> None:
        await self.stream.aclose()


class Prefixed(Forwarding):
    """A stream whose first bytes were already read: they are received again first."""

    def __init__(self, stream: trio.abc.Stream, prefix: bytes) -> None:
        super().__init__(stream)
        self.prefix = prefix
        # every send, and every receive once the prefix is given back, is the stream's own:
        # bound here, a call costs no coroutine of ours
        self.send_all = stream.send_all  # type: ignore[method-assign]
        if not prefix:
            self.receive_some = stream.receive_some  # type: ignore[method-assign]

    async def receive_some(self, max_bytes: int | None = None) -> bytes:
        if self.prefix:
            n = len(self.prefix) if max_bytes is None else max_bytes
            data, self.prefix = self.prefix[:n], self.prefix[n:]
            if not self.prefix:
                self.receive_some = self.stream.receive_some  # type: ignore[method-assign]
            return data
        return await self.stream.receive_some(max_bytes)


class ChannelTLSStream(trio.abc.Stream):
    """A channel's TLS session (``trio.SSLStream``, which cannot be subclassed) that still
    answers ``.socket`` (peer addresses for CHLAUTH and logs), ``cipher()`` and
    ``getpeercert()``."""

    def __init__(self, transport: Prefixed, ctx: ssl.SSLContext) -> None:
        self.transport = transport
        self.tls = trio.SSLStream(transport, ctx, server_side=True)
        # the session's own methods, bound: a call costs no coroutine of ours
        self.receive_some = self.tls.receive_some  # type: ignore[method-assign]
        self.send_all = self.tls.send_all  # type: ignore[method-assign]

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


def tls_session(stream: Any) -> tuple[tuple[str, str, int] | None, dict | None]:
    """(negotiated cipher, verified peer certificate) of a channel's stream; (None, None)
    when it is plain."""
    if not isinstance(stream, ChannelTLSStream):
        return None, None
    return stream.cipher(), stream.getpeercert() or None


def tls_identity(stream: Any) -> dict[str, str]:
    """The TLS partner's subject and issuer DNs for CHLAUTH's SSLPEERMAP ({} when plain)."""
    _cipher, cert = tls_session(stream)
    out = {}
    for key, field in (("ssl_peer", "subject"), ("ssl_issuer", "issuer")):
        dn = peer_dn(cert, field)
        if dn is not None:
            out[key] = dn
    return out


async def accept(stream: trio.SocketStream, repository: Callable[[], str],
                 log: Callable[[str, str], None], peer: str
                 ) -> trio.abc.Stream | None:
    """The stream to read the channel from: TLS when the partner starts TLS, else plain.

    ``repository()`` gives QMGR SSLKEYR (asked only when TLS arrives). None when the
    connection is unusable (closed, a failed handshake, no key repository); logged."""
    with trio.move_on_after(HANDSHAKE_TIMEOUT):
        try:
            first = await stream.receive_some(65536)
        except (trio.BrokenResourceError, trio.ClosedResourceError, OSError):
            return None
        if not first:
            return None
        prefixed = Prefixed(stream, first)
        if first[0] != TLS_HANDSHAKE_RECORD:
            return prefixed
        try:
            ctx = await trio.to_thread.run_sync(lambda: context("server", repository()))
        except Exception as exc:  # noqa: BLE001 - no usable key repository: refuse, logged
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


# ---------------------------------------------------------------------------- contexts

_contexts: dict[tuple, ssl.SSLContext] = {}
_contexts_lock = threading.Lock()


def _stamp(repository: str) -> tuple:
    out = []
    for name in (CERT_FILE, KEY_FILE, CA_FILE):
        try:
            st = os.stat(os.path.join(repository, name))
            out.append((st.st_mtime_ns, st.st_size, st.st_ino))
        except OSError:
            out.append(None)
    return tuple(out)


def context(kind: str, repository: str, cipher: str = "") -> ssl.SSLContext:
    """The ``server`` or ``client`` (for ``cipher``) context of ``repository``, built once
    and reused until one of its PEM files changes (a new certificate is picked up at the
    next connection, as after IBM's REFRESH SECURITY TYPE(SSL)). Blocking (it reads the
    files): call it from a worker thread, never the event loop."""
    key = (kind, repository, cipher, _stamp(repository))
    with _contexts_lock:
        ctx = _contexts.get(key)
    if ctx is None:
        ctx = server_context(repository) if kind == "server" else \
            client_context(repository, cipher)
        with _contexts_lock:
            for old in [k for k in _contexts if k[:3] == key[:3]]:
                del _contexts[old]
            _contexts[key] = ctx
    return ctx


def refresh(repository: str) -> int:
    """REFRESH SECURITY TYPE(SSL): forget every context built from ``repository`` (the
    next handshake reads its files again); how many were dropped."""
    with _contexts_lock:
        gone = [k for k in _contexts if k[1] == repository]
        for k in gone:
            del _contexts[k]
    return len(gone)


def is_tls(stream: Any) -> bool:
    """Does ``stream`` carry a TLS session (inbound or outbound)?"""
    return isinstance(stream, (ChannelTLSStream, trio.SSLStream))


# ---------------------------------------------------------------------------- the initiator

#: where a channel initiator's queue manager keeps its keys: QMGR SSLKEYR, asked for at each
#: handshake (a blocking call: it may ask the queue manager).
KeyRepository = Callable[[], str]


class ChannelTLSError(OSError):
    """An outbound channel's TLS could not start (an AMQ message id leads its text)."""


async def open_channel_stream(host: str, port: int, definition: Mapping[str, object],
                              key_repository: KeyRepository | None = None
                              ) -> trio.abc.Stream:
    """TCP to a partner, with TLS when the channel's SSLCIPH is set (``tls``): the
    certificate of ``key_repository`` (the channel initiator's QMGR SSLKEYR), exactly the
    channel's CipherSpec, and SSLPEER checked against the partner's certificate.
    ChannelTLSError (an OSError) if it fails, or if TLS is asked for and no key repository
    was given."""
    cipher = str(definition.get("SSLCIPH") or "").strip()
    stream = await trio.open_tcp_stream(host, port)
    if not cipher:
        return stream
    try:
        if key_repository is None:
            raise KeyRepositoryError("this channel initiator names no key repository")
        ctx = await trio.to_thread.run_sync(lambda: context("client", key_repository(),
                                                           cipher))
    except (KeyError, KeyRepositoryError) as exc:
        await stream.aclose()
        raise ChannelTLSError(f"AMQ9635E: CipherSpec '{cipher}' or the key repository is "
                              f"not usable: {exc}.") from None
    tls_stream = trio.SSLStream(stream, ctx)
    try:
        await tls_stream.do_handshake()
    except (trio.BrokenResourceError, ssl.SSLError) as exc:
        await stream.aclose()
        raise ChannelTLSError(f"AMQ9665E: the TLS handshake with {host}({port}) failed: "
                              f"{exc.__cause__ or exc}.") from None
    sslpeer = str(definition.get("SSLPEER") or "").strip()
    dn = peer_dn(tls_stream.getpeercert())
    if sslpeer and (dn is None or not dn_matches(sslpeer, dn)):
        await tls_stream.aclose()
        raise ChannelTLSError(f"AMQ9636E: SSL distinguished name '{dn or ''}' of "
                              f"{host}({port}) does not match the peer name '{sslpeer}'.")
    return tls_stream
