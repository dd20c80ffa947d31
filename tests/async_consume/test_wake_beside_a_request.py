"""The CONN_STATE wake of MQCTL STOP / SUSPEND / MQDISC is never written into another
thread's request over bindings.

Given a bindings connection whose dispatcher's wait has just ended (the stopping thread saw
it waiting) and whose callback is now writing a request, when the stopping thread writes its
CONN_STATE flow, then the queue manager reads the whole request and then the flow: a socket
write of a long request goes out in several pieces (the kernel queues a Unix stream
socket's long write a part at a time, and ``sendall`` loops after a partial send), so the
flow must wait for the request's last byte, never land between two pieces of it.
"""

from __future__ import annotations

import threading

import pytest

import mqpy
from mqpy import CMQC, bindings, connstate
from mqpy.fap import mqiflows
from mqpy.fap.apiheader import MQIRequest
from mqpy.fap.framing import SegmentReader, SegmentWriter
from mqpy.fap.tsh import OtherSegment
from mqpy.fap.tsh import SegmentType as T

#: where the socket below splits a long write, as the kernel may
PIECE = 512
#: how long the first piece waits for another thread's write to come in between
OTHER_WRITE_S = 0.5


class _PiecewiseSocket:
    """A socket that writes a long request in two pieces, letting another thread's write
    in between if it comes (what it received: ``sent``), and answers every read with
    ``reply``."""

    def __init__(self, reply: bytes) -> None:
        self.reply = reply
        self.sent = bytearray()
        self.first_piece = threading.Event()
        self.other_wrote = threading.Event()

    def sendall(self, data: bytes) -> None:
        if len(data) > PIECE:
            self.sent += data[:PIECE]
            self.first_piece.set()
            self.other_wrote.wait(OTHER_WRITE_S)
            self.sent += data[PIECE:]
        else:
            self.sent += data
            self.other_wrote.set()

    def recv(self, n: int, *flags: int) -> bytes:
        return self.reply

    def close(self) -> None:
        pass


@pytest.mark.parametrize("size", [4096, 100_000], ids=["packed-put", "general-put"])
def test_given_a_request_being_written_when_the_wake_comes_then_it_follows_the_request(
        size: int) -> None:
    reply = SegmentWriter(bindings.MAX_TRANSMISSION_SIZE).send(
        mqiflows.encode_reply(T.MQPUT, [mqpy.MD(), mqpy.PMO()]))
    sock = _PiecewiseSocket(reply)
    conn = bindings.BindingsConnection(sock, "QM")  # type: ignore[arg-type]
    put = threading.Thread(target=conn.put, args=(
        5, mqpy.MD(), mqpy.PMO(Options=CMQC.MQPMO_NO_SYNCPOINT), b"m" * size))
    put.start()
    assert sock.first_piece.wait(5)
    wake = threading.Thread(target=conn.wake_waiting_get)
    wake.start()
    put.join(5)
    wake.join(5)
    assert not put.is_alive() and not wake.is_alive()

    events = SegmentReader(bindings.MAX_TRANSMISSION_SIZE,
                           max_msg_size=bindings.MAX_MSG_SIZE).feed(bytes(sock.sent))
    assert [type(e) for e in events] == [MQIRequest, OtherSegment]
    assert events[0].segment_type == T.MQPUT
    assert mqiflows.decode_request(events[0]).values[2] == b"m" * size
    assert connstate.is_wake(events[1])
