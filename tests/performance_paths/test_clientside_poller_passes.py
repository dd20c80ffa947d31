"""The client host's poller reads its epoll again at once after serving what it reported
(``clientpoll.PASSES`` times at most) before it waits in trio's turn: a client whose call
comes while others are served is served in the same turn, and the other tasks still have
their turn after a bounded number of passes."""

from __future__ import annotations

import socket

import trio

from mqpy_chinit import clientpoll
from mqpy_chinit.clientpoll import ClientPoller


class _Socket:
    """A Polled's stand-in on one end of a socketpair: each serve reads what came and
    calls ``then`` (the next client's call, say)."""

    def __init__(self, poller: ClientPoller, name: str, log: list) -> None:
        self.ours, self.theirs = socket.socketpair()
        self.ours.setblocking(False)
        self.name, self.log, self.then = name, log, None
        poller.parked[self.ours.fileno()] = self
        poller.epoll.register(self.ours.fileno(), clientpoll.select.EPOLLIN)

    def serve(self) -> None:
        self.ours.recv(100)
        self.log.append(self.name)
        if self.then is not None:
            self.then()

    def wake(self, left: object = None) -> None:
        """(The poller's end: nothing parked here to wake.)"""

    def close(self) -> None:
        self.ours.close()
        self.theirs.close()


def _turns(chain: int) -> tuple[list, int]:
    """(the serves in order, trio turns the poller waited in) for ``chain`` clients each of
    whose call comes while the one before is served."""

    async def main() -> tuple[list, int]:
        poller = ClientPoller()
        log: list = []
        sockets = [_Socket(poller, f"c{i}", log) for i in range(chain)]
        for before, after in zip(sockets, sockets[1:], strict=False):
            before.then = lambda after=after: after.theirs.send(b"x")
        waits = 0
        wait_readable = trio.lowlevel.wait_readable

        async def counted(fd: int) -> None:
            nonlocal waits
            waits += 1
            await wait_readable(fd)

        trio.lowlevel.wait_readable = counted
        try:
            async with trio.open_nursery() as nursery:
                nursery.start_soon(poller.run)
                sockets[0].theirs.send(b"x")
                with trio.fail_after(5):
                    while len(log) < chain:
                        await trio.sleep(0.01)
                nursery.cancel_scope.cancel()
        finally:
            trio.lowlevel.wait_readable = wait_readable
            poller.parked.clear()
            for s in sockets:
                s.close()
        return log, waits

    return trio.run(main)


def test_a_call_that_comes_while_another_is_served_is_served_in_the_same_turn():
    """Given clients each of whose calls comes while the one before is served, when the
    first calls, then all are served in order within one turn of the poller (one wait in
    trio's epoll before, one after), as many as PASSES allows."""
    log, waits = _turns(clientpoll.PASSES)
    assert log == [f"c{i}" for i in range(clientpoll.PASSES)]
    assert waits == 2


def test_the_poller_gives_the_other_tasks_their_turn_after_its_passes():
    """Given more such clients than PASSES, when the first calls, then every one is served
    in order, the poller having waited in trio's turn between its passes."""
    log, waits = _turns(clientpoll.PASSES + 2)
    assert log == [f"c{i}" for i in range(clientpoll.PASSES + 2)]
    assert waits == 3
