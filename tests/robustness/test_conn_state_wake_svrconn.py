"""NOTIFICATION CONN_STATE on a SVRCONN conversation served by the engine of this process
(``mqpy_chinit.svrconn_wake``): a wake read together with the get it is for ends that get's
wait as soon as it begins, and a wake no call waits for is nobody's."""

from __future__ import annotations

import trio
import trio.testing

from mqpy import loopcalls
from mqpy_chinit import svrconn_wake
from mqpy_chinit.svrconn_conversation import ClientConversation


class _EngineVerbs(loopcalls.EngineVerbs):
    """An EngineVerbs with nothing behind it: only its watch is used."""

    def __init__(self) -> None:
        self.watch = None


def _conversation() -> ClientConversation:
    send, receive = trio.open_memory_channel(1)
    cc = ClientConversation(None, send, receive)
    cc.backend = _EngineVerbs()
    svrconn_wake.watch_waits(cc)
    return cc


def _wake(cc: ClientConversation) -> None:
    svrconn_wake.woken({None: cc}, None, False)  # type: ignore[arg-type] - not read unshared


async def test_a_wake_read_with_its_queued_get_ends_the_wait_when_it_begins():
    """Given a get queued to the conversation's task, when the wake comes before the get
    begins to wait, then its wait (the watch) returns at once."""
    cc = _conversation()
    cc.queued = 1
    _wake(cc)
    with trio.fail_after(1):
        await cc.backend.watch()


async def test_a_wake_while_the_get_waits_ends_it():
    cc = _conversation()
    cc.calling = True
    async with trio.open_nursery() as nursery:
        ended = trio.Event()

        async def waiting() -> None:
            await cc.backend.watch()
            ended.set()

        nursery.start_soon(waiting)
        await trio.testing.wait_all_tasks_blocked()
        _wake(cc)
        with trio.fail_after(1):
            await ended.wait()


async def test_a_wake_when_no_call_is_queued_or_served_is_dropped():
    """Given a conversation with no call, when a wake comes, then a later get still waits."""
    cc = _conversation()
    _wake(cc)
    with trio.move_on_after(0.2) as waited:
        await cc.backend.watch()
    assert waited.cancelled_caught
