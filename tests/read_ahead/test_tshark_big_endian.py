"""A big-endian client's read-ahead flows, and a shared instance's own flows in a TSHC, as
Wireshark's MQ dissector sees them (skipped without tshark)."""

from __future__ import annotations

from pathlib import Path

import pytest

from mqpy import CMQC
from mqpy.fap import asyncflows, tshc
from mqpy.fap.asyncflows import MessageRequest, Notice
from mqpy.fap.controlflows import Heartbeat
from mqpy.fap.framing import SegmentWriter
from mqpy.fap.tsh import ByteOrder
from mqpy.structs.tables import MD
from tests.read_ahead.test_tshark import _tshark
from tests.support.pcap import CLIENT, SERVER, TSHARK, Capture

pytestmark = pytest.mark.skipif(TSHARK is None, reason="tshark is not installed")

_BIG = ByteOrder.BIG


def test_tshark_decodes_big_endian_read_ahead_flows_and_a_tshc_heartbeat(tmp_path: Path):
    """Given a big-endian REQUEST_MSGS for handle 3 on conversation 1, two big-endian
    ASYNC_MESSAGEs (their MQMDs big-endian) and the NOTIFICATION ending the answer, then a
    heartbeat of the instance in a TSHC, when tshark decodes them as MQ, then it reads the
    handle, the messages' MQMD and data and the notification's code as big-endian, and
    finds nothing malformed."""
    capture = Capture()
    capture.handshake()
    capture.send(CLIENT, [asyncflows.message_request(
        MessageRequest(3, 262144, CMQC.MQGMO_NO_SYNCPOINT | CMQC.MQGMO_WAIT, 5000), 1, _BIG)])
    md = MD(Format=b"MQSTR", MsgId=b"A" * 24, Priority=7).pack(CMQC.MQENC_INTEGER_NORMAL)
    capture.send(SERVER, [asyncflows.async_message(3, 0, b"Q1", md, b"hello", 1, _BIG)
                          + asyncflows.async_message(3, 1, b"Q1", md, b"world", 1, _BIG),
                          asyncflows.notification(3, Notice.CLIENT_ASYNC_EMPTY,
                                                  CMQC.MQRC_NO_MSG_AVAILABLE, 1, _BIG),
                          tshc.connection_level(SegmentWriter().send(Heartbeat()))])
    pcap = tmp_path / "big-endian.pcap"
    capture.write(pcap)
    summary = _tshark(pcap)
    assert "REQUEST_MSGS" in summary and "Hdl=0x0003" in summary
    assert "ASYNC_MESSAGE" in summary and "Cod=CLIENT_ASYNC_EMPTY" in summary
    assert "HEARTBEAT" in summary
    verbose = _tshark(pcap, "-V")
    assert "Malformed" not in verbose
    assert verbose.count("Format...: MQSTR") == 2
    assert "Byte order: Big endian" in verbose and "StructID..: TSHC" in verbose
    assert "Priority.: 7" in verbose  # the MQMD read big-endian
    assert "hello" in verbose and "world" in verbose
    assert "value...: 0x000007f1 (2033)" in verbose
