"""REFRESH SECURITY TYPE(SSL) restarts a quiesced TLS sender once, however many refreshes
were asked for while it was finishing its batch (mqpy_chinit.sslrefresh), driven against a
stand-in for the channel initiator's running-instance tables."""

from __future__ import annotations

import trio

from mqpy_chinit import sslrefresh
from mqpy_chinit.states import ChannelStatus

NAME = "TLS.SDR"


class _Sender:
    definition = {"CHLTYPE": "SDR", "SSLCIPH": "TLS_AES_128_GCM_SHA256",
                  "CONNAME": "127.0.0.1(1)"}

    def __init__(self) -> None:
        self.stop_requested = trio.Event()


class _Initiator:
    """The attributes and calls of ChannelInitiator that refresh_ssl uses."""

    def __init__(self, nursery: trio.Nursery) -> None:
        self.nursery = nursery
        self.senders = {NAME: _Sender()}
        self.statuses = {NAME: ChannelStatus(NAME, "SDR")}
        self.receivers: dict = {}
        self.running = {NAME: trio.CancelScope()}
        self.starts: list[str] = []

    def _key_repository(self) -> str:
        return "/nonexistent/key"

    def start_channel(self, name: str, definition: dict) -> None:
        self.starts.append(name)
        self.running[name] = trio.CancelScope()
        return None

    def log(self, msgid: str, text: str) -> None:
        pass


async def test_two_refreshes_restart_a_quiescing_sender_once(autojump_clock):
    """Given a TLS sender finishing its batch after REFRESH SECURITY TYPE(SSL), when a second
    refresh comes before it ends, then it is started again once when it ends; and when that
    new instance later ends (DISCINT, STOP CHANNEL STATUS(INACTIVE)), nothing starts it
    again: no restart task is left waiting behind it."""
    async with trio.open_nursery() as nursery:
        chinit = _Initiator(nursery)
        await sslrefresh.refresh_ssl(chinit)
        await sslrefresh.refresh_ssl(chinit)
        await trio.sleep(1)
        assert chinit.starts == []
        del chinit.running[NAME]  # the quiesced instance ends
        await trio.sleep(1)
        assert chinit.starts == [NAME]
        del chinit.running[NAME]  # the new instance ends on its own
        await trio.sleep(1)
        assert chinit.starts == [NAME]
        nursery.cancel_scope.cancel()
