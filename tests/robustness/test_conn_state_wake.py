"""NOTIFICATION CONN_STATE (``mqpy.connstate``) on the bindings socket: it wakes the MQGET
that waits on that connection, however the application's writes fall into the queue
manager's reads."""

from __future__ import annotations

import socket
import time

import pytest

import mqpy
from mqpy import CMQC, bindings, connstate
from mqpy.fap.tsh import SegmentType

pytestmark = pytest.mark.timeout(120)

_T = SegmentType
_Q = "SYSTEM.DEFAULT.LOCAL.QUEUE"
_WAIT_MS = 3000


def _connected(running) -> tuple[socket.socket, bindings.Flows, int]:
    flows = bindings.Flows()
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    sock.settimeout(20)
    with bindings.bind_address(bindings.socket_path(running.qmdir())) as address:
        sock.connect(address)
    reader = flows._reader
    hobj = 0
    for request in (flows.request(_T.MQCONN, [("QM1", "waker"), None], 0),
                    flows.request(_T.MQOPEN, [mqpy.OD(ObjectName=_Q),
                                              CMQC.MQOO_INPUT_AS_Q_DEF], 0)):
        sock.sendall(request)
        events: list = []
        while not events:
            events = reader.feed(sock.recv(65536))
        hobj = events[0].hobj
    return sock, flows, hobj


def _waiting_get(flows: bindings.Flows, hobj: int) -> bytes:
    """An MQGET of a MsgId no message has, waiting _WAIT_MS."""
    md = mqpy.MD(MsgId=b"NO SUCH MESSAGE".ljust(24))
    gmo = mqpy.GMO(Options=CMQC.MQGMO_WAIT, WaitInterval=_WAIT_MS, Version=2,
                   MatchOptions=CMQC.MQMO_MATCH_MSG_ID)
    return flows.request(_T.MQGET, [md, gmo, 100], hobj)


def _seconds_to_reply(sock: socket.socket, flows: bindings.Flows, started: float) -> float:
    reader = flows._reader
    events: list = []
    while not events:
        events = reader.feed(sock.recv(65536))
    assert events[0].reason == CMQC.MQRC_NO_MSG_AVAILABLE
    return time.monotonic() - started


@pytest.mark.parametrize("together", [False, True])
def test_a_conn_state_written_after_a_waiting_get_ends_it_at_once(running, together):
    """Given an MQGET waiting 3 s, when the application writes CONN_STATE after it (a moment
    later, or at once so that one read of the queue manager brings both), then the get ends
    with MQRC_NO_MSG_AVAILABLE well before its wait is over."""
    sock, flows, hobj = _connected(running)
    with sock:
        started = time.monotonic()
        if together:
            sock.sendall(_waiting_get(flows, hobj) + connstate.flow())
        else:
            sock.sendall(_waiting_get(flows, hobj))
            time.sleep(0.2)
            sock.sendall(connstate.flow())
        assert _seconds_to_reply(sock, flows, started) < _WAIT_MS / 2000
