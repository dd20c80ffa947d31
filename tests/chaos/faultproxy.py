"""A link between queue managers that the chaos run can break: a TCP proxy on loopback, in
a thread of its own (its own trio loop), that every channel CONNAME naming one queue
manager points at. Unlike tests.support.proxy (a fault at a chosen TSH segment of one
connection), its faults are states of the link, set from outside at any moment:

- ``cut(seconds)``: every connection through it is closed and new ones are refused (closed
  at once) until the time is up -- the partner is unreachable;
- ``delay(seconds, latency)``: each chunk either way is held ``latency`` seconds;
- ``reset()``: every current connection ends with a TCP reset (SO_LINGER 0), once;
- ``one_way(direction, seconds)``: nothing is forwarded ``direction`` ("s2r": caller to
  responder, "r2s": back) while the other way flows -- bytes wait in the proxy as in a
  partitioned network's retransmissions, and go once it heals, if the connection lived.
"""

from __future__ import annotations

import socket
import struct
import threading
import time

import trio

DIRECTIONS = ("s2r", "r2s")


class LinkProxy:
    """A link to the listener on ``target_port`` (of ``target_host``: loopback, or a
    namespace's address, tests.chaos.netns); ``start()`` gives the port to name."""

    def __init__(self, name: str, target_port: int, target_host: str = "127.0.0.1") -> None:
        self.name = name
        self.target_port = target_port
        self.target_host = target_host
        self.port = 0
        self.connections = 0
        self.cut_until = 0.0
        self.delay_until = 0.0
        self.latency = 0.0
        self.blocked_until = {d: 0.0 for d in DIRECTIONS}
        self._live: set[trio.CancelScope] = set()
        self._resets: set[trio.SocketStream] = set()
        self._ready = threading.Event()
        self._token: trio.lowlevel.TrioToken | None = None
        self._scope: trio.CancelScope | None = None
        self._thread = threading.Thread(target=trio.run, args=(self._main,), daemon=True,
                                        name=f"link-{name}")

    # -- the faults, called from any thread --------------------------------------------

    def cut(self, seconds: float) -> None:
        self.cut_until = time.monotonic() + seconds
        self._call(self._end_all, False)

    def delay(self, seconds: float, latency: float) -> None:
        self.latency = latency
        self.delay_until = time.monotonic() + seconds

    def reset(self) -> None:
        self._call(self._end_all, True)

    def one_way(self, direction: str, seconds: float) -> None:
        self.blocked_until[direction] = time.monotonic() + seconds

    def heal(self) -> None:
        """Every fault over now."""
        self.cut_until = self.delay_until = 0.0
        self.blocked_until = {d: 0.0 for d in DIRECTIONS}

    # -- running ------------------------------------------------------------------------

    def start(self) -> int:
        self._thread.start()
        assert self._ready.wait(30), f"link {self.name} did not start"
        return self.port

    def stop(self) -> None:
        self._call(lambda: self._scope.cancel() if self._scope else None)
        self._thread.join(30)

    def _call(self, fn, *args) -> None:
        if self._token is None:
            return
        try:
            self._token.run_sync_soon(fn, *args)
        except trio.RunFinishedError:
            pass

    def _end_all(self, with_reset: bool) -> None:
        if with_reset:
            for stream in list(self._resets):
                _linger_zero(stream)
        for scope in list(self._live):
            scope.cancel()

    async def _main(self) -> None:
        listeners = await trio.open_tcp_listeners(0, host="127.0.0.1")
        self.port = listeners[0].socket.getsockname()[1]
        async with trio.open_nursery() as nursery:
            self._token = trio.lowlevel.current_trio_token()
            self._scope = nursery.cancel_scope
            self._ready.set()
            await trio.serve_listeners(self._handle, listeners)

    async def _handle(self, client: trio.SocketStream) -> None:
        if time.monotonic() < self.cut_until:
            await client.aclose()
            return
        self.connections += 1
        try:
            server = await trio.open_tcp_stream(self.target_host, self.target_port)
        except OSError:
            await client.aclose()
            return
        scope = trio.CancelScope()
        self._live.add(scope)
        self._resets |= {client, server}
        try:
            with scope:
                async with trio.open_nursery() as nursery:
                    nursery.start_soon(self._pump, client, server, "s2r", nursery.cancel_scope)
                    nursery.start_soon(self._pump, server, client, "r2s", nursery.cancel_scope)
        finally:
            self._live.discard(scope)
            self._resets -= {client, server}
            for s in (client, server):
                with trio.CancelScope(shield=True):
                    await s.aclose()

    async def _pump(self, src: trio.SocketStream, dst: trio.SocketStream, direction: str,
                    both: trio.CancelScope) -> None:
        try:
            while True:
                data = await src.receive_some(65536)
                if not data:
                    break
                while time.monotonic() < self.blocked_until[direction]:
                    await trio.sleep(0.05)
                if time.monotonic() < self.delay_until:
                    await trio.sleep(self.latency)
                await dst.send_all(data)
        except (trio.BrokenResourceError, trio.ClosedResourceError, OSError):
            pass
        both.cancel()


def _linger_zero(stream: trio.SocketStream) -> None:
    """Make the stream's close send a TCP reset."""
    try:
        stream.socket.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
    except OSError:
        pass
