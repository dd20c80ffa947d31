"""A TCP proxy the tests control: cut, stall or truncate a channel's traffic at a chosen
segment. It parses only the TSH framing (length at offset 4, segment type at offset 9)."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from typing import Any

import attrs
import trio

from mqpy.fap.framing import SegmentReader
from mqpy.fap.tsh import SegmentType

# decide(direction, segment_type, index_in_direction) -> "pass" | "drop-and-cut" | "cut"
# | "delay" (the segment, and what follows it that way, passes DELAY seconds later)
# | "delay-drop-and-cut" (DELAY seconds later, as "drop-and-cut")
# | "hold" (the segment, and what follows it that way, passes once the proxy's ``release``
#   says so -- e.g. once the other way has passed the next batch's messages: a state
#   reached whatever the machine's speed -- or after ``hold_max`` seconds, or when the
#   other way ends, as a delayed segment still goes through)
# | "hold-drop-and-cut" (held as "hold", then as "drop-and-cut")
Policy = Callable[[str, int, int], str]


DELAY = 0.3


def once(direction: str, seg_type: int, action: str) -> Policy:
    """``action`` on the first segment of ``seg_type`` going ``direction``; the rest pass."""
    fired = []

    def policy(d, t, i):
        if not fired and d == direction and t == seg_type:
            fired.append(1)
            return action
        return "pass"
    return policy


def nth_message(n: int) -> Policy:
    """The ``n``th message going from sender to receiver is dropped and the link cut."""
    seen = []

    def policy(d, t, i):
        if d == "s2r" and t == SegmentType.MESSAGE_DATA:
            seen.append(i)
            if len(seen) == n:
                return "drop-and-cut"
        return "pass"
    return policy


class FaultProxy:
    def __init__(self, target_port: int, policy: Policy | None = None,
                 rewrite: Callable[[str, bytes], bytes] | None = None,
                 release: Callable[[FaultProxy], bool] | None = None,
                 hold_max: float = 30.0) -> None:
        self.target_port = target_port
        self.policy = policy or (lambda d, t, i: "pass")
        self.release = release or (lambda proxy: True)
        self.hold_max = hold_max
        self.holding = 0  # segments held back by a "hold" now
        self.rewrite = rewrite or (lambda d, seg: seg)  # (direction, segment) -> segment
        self.port = 0
        self.cuts = 0
        self.connections = 0
        self.recorded: list[tuple[str, bytes]] = []  # (direction, segment) in passing order
        self.delaying = 0  # segments held back by a "delay" (or "hold") now

    def passed(self, direction: str, segment_type: int) -> int:
        """How many segments of ``segment_type`` have passed ``direction`` (all connections)."""
        return sum(1 for d, seg in self.recorded if d == direction and seg[9] == segment_type)

    async def run(self, *, task_status=trio.TASK_STATUS_IGNORED) -> None:
        listeners = await trio.open_tcp_listeners(0, host="127.0.0.1")
        self.port = listeners[0].socket.getsockname()[1]
        task_status.started(self.port)
        await trio.serve_listeners(self._handle, listeners)

    async def _handle(self, client: trio.SocketStream) -> None:
        self.connections += 1
        try:
            server = await trio.open_tcp_stream("127.0.0.1", self.target_port)
        except OSError:
            await client.aclose()
            return
        async with trio.open_nursery() as nursery:
            cut = trio.Event()
            ending = trio.Event()  # one way has ended: a held segment goes now

            async def pump(src, dst, direction):
                buf = b""
                index = 0
                try:
                    while True:
                        data = await src.receive_some(65536)
                        if not data:
                            break
                        buf += data
                        out = b""
                        while len(buf) >= 8:
                            length = int.from_bytes(buf[4:8], "big")
                            if len(buf) < length:
                                break
                            seg, buf = buf[:length], buf[length:]
                            action = self.policy(direction, seg[9], index)
                            index += 1
                            if action == "delay":
                                if out:
                                    await dst.send_all(out)
                                    out = b""
                                self.delaying += 1
                                try:
                                    await trio.sleep(DELAY)
                                    seg = self.rewrite(direction, seg)
                                    self.recorded.append((direction, seg))
                                    await dst.send_all(seg)
                                finally:
                                    self.delaying -= 1
                                continue
                            if action in ("hold", "hold-drop-and-cut"):
                                if out:
                                    await dst.send_all(out)
                                    out = b""
                                self.delaying += 1
                                self.holding += 1
                                try:
                                    with trio.move_on_after(self.hold_max):
                                        while not self.release(self) and not ending.is_set():
                                            await trio.sleep(0.01)
                                    if action == "hold":
                                        seg = self.rewrite(direction, seg)
                                        self.recorded.append((direction, seg))
                                        await dst.send_all(seg)
                                finally:
                                    self.holding -= 1
                                    self.delaying -= 1
                                if action == "hold":
                                    continue
                                action = "drop-and-cut"
                            if action == "delay-drop-and-cut":
                                if out:
                                    await dst.send_all(out)
                                    out = b""
                                await trio.sleep(DELAY)
                                action = "drop-and-cut"
                            if action == "pass":
                                seg = self.rewrite(direction, seg)
                                out += seg
                                self.recorded.append((direction, seg))
                            else:
                                if action == "cut":
                                    out += seg
                                if out:
                                    await dst.send_all(out)
                                self.cuts += 1
                                cut.set()
                                return
                        if out:
                            await dst.send_all(out)
                except (trio.BrokenResourceError, trio.ClosedResourceError, OSError):
                    pass
                ending.set()
                while self.delaying:  # what the other way holds back still goes through
                    await trio.sleep(0.01)
                cut.set()

            nursery.start_soon(pump, client, server, "s2r")
            nursery.start_soon(pump, server, client, "r2s")
            await cut.wait()
            nursery.cancel_scope.cancel()
        for s in (client, server):
            with trio.CancelScope(shield=True):
                await s.aclose()


class ThreadedProxy:
    """A FaultProxy in a thread of its own (its own trio loop), for tests whose channels run
    in daemons: ``start()`` gives the port to name in CONNAME, ``stop()`` ends it."""

    def __init__(self, target_port: int, policy: Policy | None = None, **options: Any) -> None:
        self.proxy = FaultProxy(target_port, policy, **options)
        self._ready = threading.Event()
        self._token: trio.lowlevel.TrioToken | None = None
        self._scope: trio.CancelScope | None = None
        self._thread = threading.Thread(target=trio.run, args=(self._main,), daemon=True)

    async def _main(self) -> None:
        async with trio.open_nursery() as nursery:
            self._token = trio.lowlevel.current_trio_token()
            self._scope = nursery.cancel_scope
            await nursery.start(self.proxy.run)
            self._ready.set()

    def start(self) -> int:
        self._thread.start()
        assert self._ready.wait(30), "the proxy did not start"
        return self.proxy.port

    def stop(self) -> None:
        if self._token is not None and self._scope is not None:
            try:
                self._token.run_sync_soon(self._scope.cancel)
            except trio.RunFinishedError:
                pass
        self._thread.join(30)


@attrs.define
class Segment:
    direction: str  # "s2r" caller to responder, "r2s" back
    seg_type: int
    data: bytes
    at: float
    forwarded: bool = True


class TapProxy:
    """A TCP proxy that records every segment (parsed by TSH length only) and can

    - ``silent = True``: swallow caller-to-responder traffic, sockets left open (a partner
      gone quiet, a hung network);
    - ``hang()``: close the caller's side of every current connection but keep the
      responder's side open and mute (the caller saw a failure, the responder never will);
    - ``policy(direction, seg_type, index) -> "pass" | "drop"``: drop single segments;
    - ``delays[(direction, seg_type)] = seconds``: hold such segments that long (a slow link).
    """

    def __init__(self, target_port: int, policy=None, local_address: str | None = None
                 ) -> None:
        self.target_port = target_port
        self.policy = policy or (lambda d, t, i: "pass")
        self.local_address = local_address
        self.port = 0
        self.segments: list[Segment] = []
        self.silent = False
        self.delays: dict[tuple[str, int], float] = {}  # (direction, type) -> seconds held
        self.connections = 0
        self.orphans_closed = 0  # hung connections whose responder closed its end
        self._hangs: list[trio.Event] = []

    async def run(self, *, task_status=trio.TASK_STATUS_IGNORED) -> None:
        listeners = await trio.open_tcp_listeners(0, host="127.0.0.1")
        self.port = listeners[0].socket.getsockname()[1]
        task_status.started(self.port)
        await trio.serve_listeners(self._handle, listeners)

    def hang(self) -> None:
        for ev in self._hangs:
            ev.set()
        self._hangs.clear()

    def of_type(self, seg_type: int, direction: str | None = None) -> list[Segment]:
        return [s for s in self.segments
                if s.seg_type == seg_type and direction in (None, s.direction)]

    def events(self, direction: str) -> list[object]:
        """The segments of one direction decoded into channel events."""
        reader = SegmentReader(1 << 20)
        out: list[object] = []
        for s in self.segments:
            if s.direction == direction:
                try:
                    out.extend(reader.feed(s.data))
                except Exception:  # a partial or exotic segment: not what we look for
                    reader = SegmentReader(1 << 20)
        return out

    async def _handle(self, client: trio.SocketStream) -> None:
        self.connections += 1
        try:
            server = await trio.open_tcp_stream("127.0.0.1", self.target_port,
                                                local_address=self.local_address)
        except OSError:
            await client.aclose()
            return
        hang = trio.Event()
        self._hangs.append(hang)
        ended = trio.Event()
        hung = [False]

        async def pump(src, dst, direction):
            buf, index = b"", 0
            try:
                while True:
                    data = await src.receive_some(65536)
                    if not data:
                        if direction == "r2s" and hung[0]:
                            self.orphans_closed += 1
                        break
                    buf += data
                    while len(buf) >= 8 and len(buf) >= int.from_bytes(buf[4:8], "big"):
                        length = int.from_bytes(buf[4:8], "big")
                        seg, buf = buf[:length], buf[length:]
                        action = self.policy(direction, seg[9], index)
                        index += 1
                        forward = not (hung[0] or action == "drop"
                                       or (self.silent and direction == "s2r"))
                        self.segments.append(Segment(direction, seg[9], seg, time.monotonic(),
                                                     forward))
                        if forward:
                            delay = self.delays.get((direction, seg[9]))
                            if delay:
                                await trio.sleep(delay)
                            await dst.send_all(seg)
            except (trio.BrokenResourceError, trio.ClosedResourceError, OSError):
                if direction == "r2s" and hung[0]:
                    self.orphans_closed += 1
            ended.set()

        s2r_scope = trio.CancelScope()

        async def s2r():
            with s2r_scope:
                await pump(client, server, "s2r")

        async def watch_hang():
            await hang.wait()
            # the caller's side goes; the responder's stays open and hears nothing more
            hung[0] = True
            s2r_scope.cancel()
            with trio.CancelScope(shield=True):
                await client.aclose()

        try:
            async with trio.open_nursery() as nursery:
                nursery.start_soon(s2r)
                nursery.start_soon(pump, server, client, "r2s")
                nursery.start_soon(watch_hang)
                await ended.wait()
                nursery.cancel_scope.cancel()
        finally:
            if hang in self._hangs:
                self._hangs.remove(hang)
            for s in (client, server):
                with trio.CancelScope(shield=True):
                    await s.aclose()
