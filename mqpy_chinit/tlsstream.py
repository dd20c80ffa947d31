"""Channel TLS in trio: the responder tells TLS from plain MQ, the initiator starts it.

A listener cannot know which channel a partner wants before it has read the partner's
INITIAL_DATA, and with TLS that flow is inside the session. So, as MQ's listener does, every
connection is looked at first: a TLS handshake record (first byte 0x16) is answered with the
queue manager's certificate (``tls.server_context`` over QMGR SSLKEYR) and the channel's
own rules are applied once its INITIAL_DATA names it (``tls.check_inbound``); a TSH is plain
MQ. The byte looked at is given back to whoever reads the stream next (:class:`Prefixed`).

An outbound message channel (SDR, SVR, RQSTR) with SSLCIPH opens its connection through
:func:`open_channel_stream`: TLS with exactly its CipherSpec and the queue manager's own
certificate, and the partner's certificate checked against its SSLPEER.
"""

from __future__ import annotations

import os
import ssl
import threading
from collections.abc import Callable, Mapping
from typing import Any

import trio

from mqpy.security.chlauth import dn_matches
from mqpy_chinit.tls import (
    CA_FILE,
    CERT_FILE,
    KEY_FILE,
    KeyRepositoryError,
    client_context,
    peer_dn,
    server_context,
)

__all__ = ["ChannelTLSError", "ChannelTLSStream", "Prefixed", "accept", "context",
           "open_channel_stream",
           "set_key_repository", "tls_identity", "tls_session"]

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


# ---------------------------------------------------------------------------- the initiator

def _no_key_repository() -> str:
    return ""


#: QMGR SSLKEYR of this channel initiator's queue manager (set by the channel initiator;
#: one per process, as a channel initiator serves one queue manager).
_key_repository: Callable[[], str] = _no_key_repository


def set_key_repository(get: Callable[[], str]) -> None:
    """Tell outbound channels where the queue manager's key repository is."""
    global _key_repository
    _key_repository = get


class ChannelTLSError(OSError):
    """An outbound channel's TLS could not start (an AMQ message id leads its text)."""


async def open_channel_stream(host: str, port: int, definition: Mapping[str, object]
                              ) -> trio.abc.Stream:
    """TCP to a partner, with TLS when the channel's SSLCIPH is set (``tls``): the queue
    manager's certificate from SSLKEYR, exactly the channel's CipherSpec, and SSLPEER
    checked against the partner's certificate. ChannelTLSError (an OSError) if it fails."""
    stream = await trio.open_tcp_stream(host, port)
    cipher = str(definition.get("SSLCIPH") or "").strip()
    if not cipher:
        return stream
    try:
        ctx = await trio.to_thread.run_sync(lambda: context("client", _key_repository(),
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
