"""Asynchronous MQPUTs that an application sends in a row over the bindings socket, the
last one cut short where the busy thread reads them from their bytes
(``mqpy.asyncput_stream``): only that connection is answered or ended; the daemon goes on
serving every other application and writes no traceback."""

from __future__ import annotations

import glob
import os
import socket
import struct
import time

import pytest

import mqpy
from mqpy import CMQC, asyncput_stream, bindings
from mqpy.fap.tsh import TSH_LENGTH, SegmentType

pytestmark = pytest.mark.timeout(120)

_T = SegmentType
_Q = "SYSTEM.DEFAULT.LOCAL.QUEUE"
_MD_V2 = 364  # an MQMD version 2's length
_API_HEADER = 16


def _hostile(running, tail: bytes) -> None:
    """MQCONN, MQOPEN, then asynchronous puts close together (the busy thread serves them)
    followed by ``tail`` in the same write; read until the daemon closes or 2 s pass."""
    flows = bindings.Flows()
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    sock.settimeout(10)
    with bindings.bind_address(bindings.socket_path(running.qmdir())) as address:
        sock.connect(address)
    with sock:
        reader = flows._reader
        sock.sendall(flows.request(_T.MQCONN, [("QM1", "hostile"), None], 0))
        events: list = []
        while not events:
            events = reader.feed(sock.recv(65536))
        sock.sendall(flows.request(_T.MQOPEN, [mqpy.OD(ObjectName=_Q), CMQC.MQOO_OUTPUT], 0))
        events = []
        while not events:
            events = reader.feed(sock.recv(65536))
        hobj = events[0].hobj
        put = flows.request(_T.MQPUT, [mqpy.MD(), mqpy.PMO(
            Options=CMQC.MQPMO_ASYNC_RESPONSE | CMQC.MQPMO_NO_SYNCPOINT), b"x"], hobj)
        sock.settimeout(2)
        try:
            for _ in range(20):  # the first puts make the connection busy: a thread reads
                sock.sendall(put)
                time.sleep(0.002)
                sock.sendall(put * 5 + tail)
                time.sleep(0.002)
            while sock.recv(65536):
                pass
        except (TimeoutError, OSError):
            pass


def _cut_put(at: int) -> bytes:
    """An asynchronous MQPUT whose segment (its TSH length saying so) ends ``at`` bytes into
    its MQPMO."""
    put = bindings.Flows().request(_T.MQPUT, [mqpy.MD(), mqpy.PMO(
        Options=CMQC.MQPMO_ASYNC_RESPONSE), b"cut"], 1)
    length = TSH_LENGTH + _API_HEADER + _MD_V2 + at
    return put[:4] + struct.pack(">I", length) + put[8:length]


def test_every_cut_of_an_asynchronous_put_is_left_to_the_general_path():
    """Given an asynchronous MQPUT whose TSH length says it ends at any byte before its
    message, last of a read or followed by another request, when the bytes path reads it,
    then it leaves it to the general path (None) and raises nothing."""
    whole = bindings.Flows().request(_T.MQPUT, [mqpy.MD(), mqpy.PMO(
        Options=CMQC.MQPMO_ASYNC_RESPONSE), b"cut"], 1)
    assert asyncput_stream.request(whole, 0, 1 << 20) is not None
    for length in range(TSH_LENGTH + _API_HEADER, len(whole)):
        cut = whole[:4] + struct.pack(">I", length) + whole[8:length]
        for read in (cut, cut + whole):
            assert asyncput_stream.request(read, 0, 1 << 20) is None, length


@pytest.mark.parametrize("at", [8, 9, 12, 130])
def test_an_asynchronous_put_cut_short_in_its_mqpmo_ends_only_its_connection(running, at):
    """Given an application whose asynchronous puts come together, the last cut short inside
    its MQPMO (after the MQPMO's StrucId and Version), when the busy thread reads them, then
    another application connected before goes on putting and getting, a new one connects,
    and no FDC nor traceback is written."""
    other = mqpy.connect("QM1")
    try:
        q = mqpy.Queue(other, _Q, CMQC.MQOO_OUTPUT | CMQC.MQOO_INPUT_AS_Q_DEF)
        _hostile(running, _cut_put(at))
        q.put(b"still served")
        q.close()
    finally:
        other.disconnect()
    mqpy.connect("QM1").disconnect()
    errors = os.path.join(running.qmdir(), "errors")
    assert glob.glob(os.path.join(errors, "*.FDC")) == []
    for path in glob.glob(os.path.join(errors, "*.LOG")):
        with open(path, encoding="latin-1") as f:
            assert "Traceback" not in f.read()
