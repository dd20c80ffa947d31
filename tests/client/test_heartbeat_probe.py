"""When a client connection asks its partner for a heartbeat: once nothing has been *heard* for
HBINT, whatever was sent meanwhile, so that the partner has HBINT to answer before the receive
timeout (twice HBINT below 60 s) runs out."""

from __future__ import annotations

import time
import types

import trio
import trio.testing

from mqpy import clientinstance
from mqpy.fap.controlflows import Heartbeat
from mqpy.fap.tsh import ControlFlags1
from mqpy_chinit.svrconn import SvrconnInstance


def _socket(hbint: int, heard_ago: float, sent_ago: float):
    now = time.monotonic()
    sent: list[object] = []
    # last_sent: what the old rule counted as activity (the connection no longer keeps it)
    sock = types.SimpleNamespace(hbint=hbint, last_received=now - heard_ago,
                                 last_sent=now - sent_ago, last_probe=0.0, tshm=False,
                                 send=sent.append)
    sock._control = lambda: {}
    return sock, sent


def test_a_client_that_just_sent_but_heard_nothing_for_hbint_still_probes():
    """Given HBINT(1), nothing heard for 1.2 s and a request sent 0.1 s ago, when the reader
    checks, then it asks for a heartbeat (CONFIRM_REQUEST): its own send is no sign that the
    partner is alive. Before, the send put the probe off by a whole HBINT."""
    sock, sent = _socket(hbint=1, heard_ago=1.2, sent_ago=0.1)
    clientinstance.ChannelInstance._heartbeat_due(sock)
    assert len(sent) == 1 and isinstance(sent[0], Heartbeat)
    assert sent[0].flags & ControlFlags1.CONFIRM_REQUEST


def test_a_probe_is_not_repeated_until_it_is_hbint_old():
    """Given a probe just sent and no answer yet, when the reader checks again within HBINT,
    then no second probe goes; once HBINT has passed without an answer, one does."""
    sock, sent = _socket(hbint=1, heard_ago=1.5, sent_ago=1.5)
    clientinstance.ChannelInstance._heartbeat_due(sock)
    clientinstance.ChannelInstance._heartbeat_due(sock)
    assert len(sent) == 1
    sock.last_probe -= 1.0
    clientinstance.ChannelInstance._heartbeat_due(sock)
    assert len(sent) == 2


def test_nothing_is_sent_while_the_partner_is_heard():
    """Given HBINT(1) and something heard 0.5 s ago, then no probe goes."""
    sock, sent = _socket(hbint=1, heard_ago=0.5, sent_ago=3.0)
    clientinstance.ChannelInstance._heartbeat_due(sock)
    assert sent == []


def test_the_svrconn_that_just_answered_but_heard_nothing_for_hbint_probes_the_client():
    """Given an SVRCONN instance with HBINT(1) that answered an MQGET 0.1 s ago and has heard
    nothing from its client for 1.2 s, when its timer ticks, then it asks the client for a
    heartbeat at once (and only once), and does not end the instance: the client has until
    the receive timeout (2 s) to answer. Before, its own reply put the probe off by HBINT,
    and the receive timeout could come first (AMQ9259E)."""

    now = time.monotonic()
    sent: list[object] = []

    async def send(event: object) -> None:
        sent.append(event)

    inst = types.SimpleNamespace(
        hbint=1, discint=0, busy=False, closing=False, last_call=now,
        last_sent=now - 0.1,  # the reply just sent: the old rule counted it as activity
        last_probe=0.0, conv=types.SimpleNamespace(last_received=now - 1.2),
        status=types.SimpleNamespace(substate="RECEIVE"), _send=send, _control=lambda: {},
        log=lambda *a: sent.append(("log", a)), _end=lambda: sent.append("ended"))

    async def main() -> None:
        with trio.move_on_after(0.9):  # the timer's first ticks (virtual time)
            await SvrconnInstance._timers(inst)

    trio.run(main, clock=trio.testing.MockClock(autojump_threshold=0))
    assert len(sent) == 1 and isinstance(sent[0], Heartbeat)
    assert sent[0].flags & ControlFlags1.CONFIRM_REQUEST
