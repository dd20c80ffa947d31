"""A SVRCONN receiver parked with the client host's poller (``clientpoll.Polled``) whose
socket another task has closed (the instance refusing its client: ``conv.close`` from the
conversation's task) while the receiver had been woken and not yet cancelled: the receiver
ends its channel as its own read of a closed socket ends it (ChannelEnded, AMQ9208E), and
never parks the closed socket's descriptor number, which another connection's socket may
have by then. Before, it registered the number in the epoll: EBADF raised out of the
receiver (the instance ended by an unexpected error, AMQ9999E), or another connection's
socket taken for its own."""

from __future__ import annotations

import socket
import types

import pytest
import trio

from mqpy_chinit.clientpoll import ClientPoller, Polled
from mqpy_chinit.conversation import ChannelEnded, Conversation
from mqpy_chinit.states import ChannelStatus


def _parked_conversation(poller: ClientPoller) -> tuple[Conversation, socket.socket]:
    """A conversation on a plain socket whose receiver parks with ``poller``; the peer."""
    ours, theirs = socket.socketpair()
    ours.setblocking(False)
    conv = Conversation(trio.SocketStream(trio.socket.from_stdlib_socket(ours)),
                        ChannelStatus("POLL.CLOSED", "SVRCONN"))
    instance = types.SimpleNamespace(conv=conv, send_lock=trio.Semaphore(1, max_value=1))
    conv.polled = Polled(poller, instance)
    return conv, theirs


def test_a_receiver_whose_socket_was_closed_ends_as_its_own_read_would_end_it():
    """Given a receiver parked with the poller, woken with a request served, when another
    task closes its socket before it runs and it waits for the next request, then its
    channel ends as a read of the closed socket ends it (AMQ9208E), and nothing of it is
    left in the poller."""

    async def main() -> None:
        poller = ClientPoller()
        conv, theirs = _parked_conversation(poller)
        polled = conv.polled
        fd = polled.fd
        async with trio.open_nursery() as nursery:
            nursery.start_soon(poller.run)
            ended: list[BaseException] = []

            async def receiver() -> None:
                try:
                    while True:
                        await conv.take()
                except Exception as exc:  # noqa: BLE001 - (what ended it, whatever it is)
                    ended.append(exc)

            nursery.start_soon(receiver)
            await trio.testing.wait_all_tasks_blocked()
            assert poller.parked == {fd: polled}
            conv.pending.append("a request")  # (left by the poller, which wakes it) ...
            polled.wake()
            await conv.stream.aclose()  # ... and a task closes the socket before it runs
            await trio.testing.wait_all_tasks_blocked()
            assert len(ended) == 1 and type(ended[0]) is ChannelEnded
            assert ended[0].msgid == "AMQ9208E"
            assert poller.parked == {}
            nursery.cancel_scope.cancel()
        theirs.close()

    trio.run(main)


def test_a_receiver_that_leaves_the_poller_late_leaves_anothers_socket_parked():
    """Given a receiver parked with the poller whose socket is closed, and a new
    connection's receiver parked with the same descriptor number, when the first is
    cancelled (its instance's end), then the second stays parked and is served: its
    request comes to it."""

    async def main() -> None:
        poller = ClientPoller()
        first, first_peer = _parked_conversation(poller)
        async with trio.open_nursery() as nursery:
            nursery.start_soon(poller.run)
            first_scope = trio.CancelScope()

            async def first_receiver() -> None:
                with first_scope:
                    await first.take()

            nursery.start_soon(first_receiver)
            await trio.testing.wait_all_tasks_blocked()
            number = first.polled.fd
            first.sock.close()  # (the trio stream's socket, closed under it)
            first_peer.close()
            second, second_peer = _parked_conversation(poller)
            if second.polled.fd != number:
                pytest.skip("the descriptor number was not given out again")
            got: list = []

            async def second_receiver() -> None:
                try:
                    got.append(await second.take())
                except ChannelEnded as exc:  # (what its read was: not a TSH)
                    got.append(exc.msgid)

            nursery.start_soon(second_receiver)
            await trio.testing.wait_all_tasks_blocked()
            first_scope.cancel()
            await trio.testing.wait_all_tasks_blocked()
            assert poller.parked.get(number) is second.polled
            second_peer.send(b"\0")  # (not a segment: handed to its receiver, which ends)
            with trio.fail_after(5):
                while not got:
                    await trio.sleep(0.01)
            assert got == ["AMQ9504E"]
            nursery.cancel_scope.cancel()
        second_peer.close()

    trio.run(main)
