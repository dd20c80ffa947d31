"""The client host's poller: the common calls of idle plain client sockets served from one
epoll, without a task switch per call.

A SVRCONN instance's receiver (``svrconn.SvrconnInstance._receive``) waits for its client
in ``Conversation.take``. In the client host (FASTPATH) a plain socket's receiver *parks*
instead (:meth:`Polled.wait`): its socket joins this poller's epoll (level-triggered,
registered once per park) and the task sleeps. The poller, one task for every parked
socket, waits on the epoll's own descriptor, reads each socket it reports and, when what it
read is MQI requests the receiver would serve at once (``svrconn_inline``: an MQPUT, an
MQGET without wait, of the common form, on an engine conversation with nothing queued),
serves them itself, in the receiver's order and with its code, and writes their replies at
once; the receiver stays parked. Anything else -- a request of another verb, a heartbeat,
a STATUS, read ahead's flows, the client's end, an error, a protocol error, a reply the
socket did not take whole, a send of another task in progress -- goes to the receiver as
it would have found it (the events left in ``Conversation.pending``, or what the read found
left by ``Conversation.found_by_another``) and the receiver is woken; it parks again when it
next waits.

Per call this costs a read, a write and a share of one epoll wait, where the receiver's own
wait cost a registration of the socket in trio's epoll, a wake-up and a trip through the
scheduler. Timers (heartbeats, the receive timeout, DISCINT), STOP CHANNEL and the end of the
queue manager are unchanged: they cancel the parked receiver, which leaves the epoll.
"""

from __future__ import annotations

import errno
import os
import select
from collections.abc import Awaitable, Callable
from typing import Any

import outcome
import trio

from mqpy.fap.apiheader import MQIRequest
from mqpy.fap.statuscodes import ProtocolError
from mqpy_chinit import svrconn, svrconn_packed
from mqpy_chinit.conversation import ChannelEnded, Tail
from mqpy_chinit.svrconn_conversation import A_REPLY

__all__ = ["ClientPoller", "Polled"]

#: One read takes whatever the client has sent, up to this (as the receiver's own).
RECEIVE_SIZE = 65536
#: The epoll is read again at once after serving what it reported, up to this many times
#: in a row, before the poller waits on it in trio's turn with the other tasks: each turn
#: costs trio's own epoll wait and a switch to this task, and while some clients were
#: served others' calls came.
PASSES = 4


class ClientPoller:
    """One epoll over the parked receivers' sockets, served by :meth:`run`."""

    def __init__(self) -> None:
        self.epoll = select.epoll()
        self.parked: dict[int, Polled] = {}
        self.served = 0  #: requests served here (not by the receivers)

    def svrconn_handler(self) -> Callable[..., Awaitable[None]]:
        """A channel initiator's ``svrconn_handler``: ``svrconn.serve_client`` with each
        instance's receiver parked here when its socket is a plain one the conversation
        drives itself (TLS and the rest wait as before)."""

        async def serve_client(chinit: Any, conv: Any, first: Any,
                               definition: dict[str, object]) -> None:
            instance = svrconn.SvrconnInstance(chinit, conv, first, definition)
            if conv.sock is not None:
                conv.polled = Polled(self, instance)
            await instance.run()

        return serve_client

    async def run(self) -> None:
        """Serve the parked sockets until cancelled (the client host's end)."""
        epoll, parked = self.epoll, self.parked
        try:
            while True:
                await trio.lowlevel.wait_readable(epoll.fileno())
                # the sockets ready, served; then again those that became ready meanwhile
                # (clients answered that called again while others were served), a few
                # times at most before the other tasks' turn
                for _pass in range(PASSES):
                    ready = epoll.poll(0)
                    if not ready:
                        break
                    for fd, _ in ready:
                        polled = parked.get(fd)
                        if polled is None:
                            continue
                        try:
                            polled.serve()
                        except Exception as exc:  # noqa: BLE001 - that connection's alone
                            polled.wake(exc)  # raised in its receiver, as if it had served
        finally:
            for polled in list(parked.values()):
                polled.wake(None)
            epoll.close()


class Polled:
    """The hooks of one SVRCONN instance's conversation into the poller."""

    __slots__ = ("conv", "fd", "instance", "poller", "task")

    def __init__(self, poller: ClientPoller, instance: Any) -> None:
        self.poller = poller
        self.instance = instance
        self.conv = instance.conv
        self.fd = self.conv.sock.fileno()
        self.task: Any = None

    async def wait(self) -> bool:
        """Park the receiver until the poller leaves it something: events in
        ``conv.pending``, or what a read found (its end, its error) left by
        ``conv.found_by_another``; False at once when the poller has ended. Replies the
        poller could not write whole are written here, under the send lock it took for
        them; a write that failed raises its ChannelEnded here, as the receiver's own write
        would."""
        poller = self.poller
        if poller.epoll.closed:
            return False
        if self.conv.sock.fileno() != self.fd:
            # closed by another task (the instance refusing its client) after the poller
            # woke us: its number is not ours to park (another connection's socket may
            # have it by now); the next read ends the channel as a read of a closed
            # socket does
            self.conv.found_by_another(OSError(errno.EBADF, os.strerror(errno.EBADF)))
            return True
        self.task = trio.lowlevel.current_task()
        poller.parked[self.fd] = self
        try:
            poller.epoll.register(self.fd, select.EPOLLIN)
        except FileExistsError:
            poller.epoll.modify(self.fd, select.EPOLLIN)

        def abort(_: Any) -> trio.lowlevel.Abort:
            self._leave()
            return trio.lowlevel.Abort.SUCCEEDED

        left = await trio.lowlevel.wait_task_rescheduled(abort)
        if isinstance(left, Exception):  # a failed write (ChannelEnded), or a fault
            raise left
        if left is not None:
            try:
                await self.conv.send_tail(left)
            finally:
                self.instance.send_lock.release()
        return True

    def _leave(self) -> None:
        self.task = None
        parked = self.poller.parked
        if parked.get(self.fd) is self:  # (the number may be another socket's by now)
            del parked[self.fd]
            try:
                self.poller.epoll.unregister(self.fd)
            except (OSError, ValueError):
                pass

    def wake(self, left: Tail | Exception | None = None) -> None:
        """The receiver's turn: it takes what was left for it (``left``: replies to write,
        or the failure of their write, or a fault met serving its requests)."""
        task = self.task
        self._leave()
        if task is not None:
            trio.lowlevel.reschedule(task, outcome.Value(left))

    def serve(self) -> None:
        """The socket is readable: serve what it brought at once if the receiver would,
        else hand it to the receiver."""
        conv = self.conv
        try:
            data = conv.sock.recv(RECEIVE_SIZE)
        except BlockingIOError:
            return  # woken for nothing
        except OSError as exc:
            data = exc
        if type(data) is not bytes or not data:
            conv.found_by_another(data)  # the end, or an error: the receiver says so
            self.wake()
            return
        lock = self.instance.send_lock
        if conv._sending or lock.value == 0 or conv.trio_socket.did_shutdown_SHUT_WR:
            self._leave_read(data)  # another task's write is in progress
            return
        # the MQPUTs and MQGETs at its head served from their bytes (svrconn_packed), the
        # rest as the receiver would serve it
        served = svrconn_packed.serve(self.instance, data)
        replies, end, count = ([], 0, 0) if served is None else served
        self.poller.served += count
        left: list[Any] = []
        if end < len(data):
            try:
                events = conv._events(data[end:] if end else data)
            except ProtocolError as exc:
                conv.found_by_another(exc)  # told to the client by the receiver, as it would be
                self.wake()
                return
            more, left = self._served(events)
            replies += more
        if left:
            conv.pending.extend(left)
        if replies:
            self._reply(replies, bool(left))
        elif left:
            self.wake()

    def _leave_read(self, data: bytes) -> None:
        """``data`` read while another task writes: its events for the receiver."""
        try:
            events = self.conv._events(data)
        except ProtocolError as exc:
            self.conv.found_by_another(exc)
            self.wake()
            return
        if events:
            self.conv.pending.extend(events)
            self.wake()

    def _reply(self, replies: list[bytes], wake: bool = False) -> None:
        """Write ``replies`` at once, as under the send lock (free: :meth:`serve` looked);
        the receiver is woken to write what the socket did not take (or told of the
        write's failure), or when ``wake``. The write does not wait, so no other task can
        run while it is made: the lock is taken only for a Tail, which the receiver writes
        and then gives it back (taken and given back around a write that does not wait, it
        was a cost no task could see)."""
        try:
            tail: Tail | Exception | None = self.conv.send_at_once(replies,
                                                                   A_REPLY * len(replies))
        except ChannelEnded as exc:
            tail = exc
        if type(tail) is Tail:
            self.instance.send_lock.acquire_nowait()
        if wake or tail is not None:
            self.wake(tail)

    def _served(self, events: list[Any]) -> tuple[list[bytes], list[Any]]:
        """The replies of the requests at the head of ``events`` the receiver would serve
        at once (``CallsServedAtOnce._serve_now``), served; and the events left for it."""
        serve_now = self.instance._serve_now
        replies: list[bytes] = []
        for i, ev in enumerate(events):
            segments = serve_now(ev) if type(ev) is MQIRequest else None
            if segments is None:
                return replies, events[i:]
            replies += segments
            self.poller.served += 1
        return replies, []
