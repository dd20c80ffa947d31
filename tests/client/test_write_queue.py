"""Writes of the conversations that share a plain channel instance: a thread that finds
another writing leaves its flow for that one and does not wait for the socket; the flows go
in the order they came; a failed write is the writer's (``mqpy.clientinstance.ChannelInstance._write``;
client connections, SHARECNV)."""

from __future__ import annotations

import threading
import types

from mqpy import clientchannel, clientinstance
from mqpy.fap.framing import SegmentReader


class _HeldSocket:
    """A plain socket whose first sendall waits until ``release`` is set (or fails)."""

    def __init__(self, fail: bool = False) -> None:
        self.sent: list[bytes] = []
        self.entered = threading.Event()
        self.release = threading.Event()
        self.fail = fail

    def getpeername(self) -> tuple[str, int]:
        return ("127.0.0.1", 1414)

    def setsockopt(self, *args: object) -> None:
        pass

    def sendall(self, data: bytes) -> None:
        if not self.entered.is_set():
            self.entered.set()
            assert self.release.wait(30)
            if self.fail:
                raise ConnectionResetError("reset")
        self.sent.append(bytes(data))


def _instance(sock: _HeldSocket) -> clientinstance.ChannelInstance:
    agreed = types.SimpleNamespace(heartbeat_interval=300, conv_per_socket=10,
                                   max_msg_size=4194304, max_transmission_size=32768)
    definition = clientchannel.ChannelDefinition(channel="APP.SVRCONN",
                                          connections=(("127.0.0.1", 1414),))
    return clientinstance.ChannelInstance(sock, definition, agreed, SegmentReader(32768))  # type: ignore[arg-type]


def test_a_flow_queued_behind_a_write_goes_after_it_in_order():
    """Given a thread writing a flow that the socket has not taken yet, when two other
    threads write theirs, then they return without waiting for the socket, and once it
    takes the first, theirs follow it in the order they came."""
    sock = _HeldSocket()
    instance = _instance(sock)
    writer = threading.Thread(target=instance._write, args=(b"first",))
    writer.start()
    assert sock.entered.wait(30)
    for flow in (b"second", b"third"):
        other = threading.Thread(target=instance._write, args=(flow,))
        other.start()
        other.join(30)
        assert not other.is_alive()  # it left its flow: no wait for the socket
    assert sock.sent == []
    sock.release.set()
    writer.join(30)
    assert sock.sent == [b"first", b"secondthird"]
    instance._write(b"fourth")  # nobody writing now: straight to the socket
    assert sock.sent[-1] == b"fourth"


def test_a_failed_write_is_the_writers_and_the_next_write_goes():
    """Given a write that fails, then the writer gets the error (its call then loses the
    socket), and the instance is not left believing someone still writes."""
    sock = _HeldSocket(fail=True)
    instance = _instance(sock)
    errors: list[BaseException] = []

    def write() -> None:
        try:
            instance._write(b"first")
        except OSError as e:
            errors.append(e)

    writer = threading.Thread(target=write)
    writer.start()
    assert sock.entered.wait(30)
    sock.release.set()
    writer.join(30)
    assert [type(e) for e in errors] == [ConnectionResetError]
    instance._write(b"next")
    assert sock.sent == [b"next"]

