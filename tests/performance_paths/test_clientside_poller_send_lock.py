"""The client host's poller writes the replies it served at once without taking the
instance's send lock around a write that does not wait (``clientpoll.Polled._reply``): the
lock is taken only for what the socket did not take, which the receiver writes and then
gives back. Whatever the write does, the lock ends as the locked write left it, and the
receiver is told the same."""

from __future__ import annotations

import socket
import types

import pytest
import trio

from mqpy_chinit.clientpoll import ClientPoller, Polled
from mqpy_chinit.conversation import ChannelEnded, Conversation, Tail
from mqpy_chinit.states import ChannelStatus
from tests.support.recording_socket import read_while


class _Woken(Polled):
    """A Polled whose receiver's wakes are kept (``woken``), not given to a task."""

    def wake(self, left=None) -> None:
        self.woken.append(left)


def _polled(ours: socket.socket) -> tuple[Polled, list]:
    """A Polled of a conversation on ``ours`` (a plain socket), its receiver's wakes kept."""
    stream = trio.SocketStream(trio.socket.from_stdlib_socket(ours))
    conv = Conversation(stream, ChannelStatus("POLL.LOCK", "SVRCONN"))
    instance = types.SimpleNamespace(conv=conv, send_lock=trio.Semaphore(1, max_value=1))
    polled = _Woken.__new__(_Woken)
    polled.poller, polled.instance, polled.conv = ClientPoller(), instance, conv
    polled.fd, polled.task = ours.fileno(), None
    polled.woken = []
    return polled, polled.woken


@pytest.mark.parametrize("wake", [False, True])
def test_replies_the_socket_takes_whole_leave_the_send_lock_free(wake):
    """Given a parked receiver's plain socket with room, when the poller writes replies it
    served, then the partner has them, the send lock is free, and the receiver is woken only
    when events were left for it."""

    async def main() -> None:
        ours, theirs = socket.socketpair()
        ours.setblocking(False)
        polled, woken = _polled(ours)
        polled._reply([b"a" * 100, b"b" * 50], wake)
        assert theirs.recv(1000) == b"a" * 100 + b"b" * 50
        assert polled.instance.send_lock.value == 1
        assert woken == ([None] if wake else [])
        theirs.close()
        ours.close()

    trio.run(main)


def test_replies_the_socket_does_not_take_whole_leave_the_send_lock_to_the_receiver():
    """Given a parked receiver's plain socket whose partner reads nothing, when the poller
    writes replies larger than its buffers, then the receiver is woken with the tail and
    holds the send lock for it (another task's send waits), and once the tail is written and
    the lock given back the partner has every byte in order."""

    async def main() -> None:
        ours, theirs = socket.socketpair()
        ours.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, 4096)
        ours.setblocking(False)
        polled, woken = _polled(ours)
        segments = [bytes([i]) * 100_000 for i in range(3)]
        polled._reply(segments)
        lock = polled.instance.send_lock
        assert len(woken) == 1 and type(woken[0]) is Tail
        assert lock.value == 0  # (the receiver's, as Polled.wait gives it back)
        with pytest.raises(trio.WouldBlock):
            lock.acquire_nowait()
        got = await read_while(theirs, 300_000, polled.conv.send_tail(woken[0]))
        lock.release()
        assert got == b"".join(segments)
        assert lock.value == 1
        theirs.close()
        ours.close()

    trio.run(main)


def test_a_write_that_fails_leaves_the_send_lock_free_and_tells_the_receiver():
    """Given a parked receiver's socket whose partner has gone, when the poller writes
    replies, then the receiver is woken with the write's ChannelEnded and the send lock is
    free."""

    async def main() -> None:
        ours, theirs = socket.socketpair()
        ours.setblocking(False)
        theirs.close()
        polled, woken = _polled(ours)
        polled._reply([b"a" * 100])
        assert len(woken) == 1 and type(woken[0]) is ChannelEnded
        assert polled.instance.send_lock.value == 1
        ours.close()

    trio.run(main)
