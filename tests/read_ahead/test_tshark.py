"""Read ahead's flows as Wireshark's MQ dissector sees them (skipped without tshark)."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from mqpy import CMQC
from mqpy.fap import asyncflows
from mqpy.fap.asyncflows import MessageRequest, Notice
from mqpy.structs.tables import MD
from tests.support.pcap import CLIENT, SERVER, TSHARK, Capture

pytestmark = pytest.mark.skipif(TSHARK is None, reason="tshark is not installed")


def _tshark(pcap: Path, *args: str) -> str:
    return subprocess.run([TSHARK, "-r", str(pcap), "-d", "tcp.port==1414,mq", *args],
                          capture_output=True, text=True, timeout=120, check=True).stdout


def test_tshark_decodes_a_request_its_messages_and_the_notification(tmp_path: Path) -> None:
    """Given a REQUEST_MSGS for handle 3, two ASYNC_MESSAGEs with their MQMD and data in one
    write, and the NOTIFICATION ending the answer, when tshark decodes them as MQ, then it
    names each flow, the handle, the messages' MQMD and data and the notification's code,
    and finds nothing malformed."""
    capture = Capture()
    capture.handshake()
    capture.send(CLIENT, [asyncflows.message_request(
        MessageRequest(3, 262144, CMQC.MQGMO_NO_SYNCPOINT | CMQC.MQGMO_WAIT, 5000))])
    md = MD(Format=b"MQSTR", MsgId=b"A" * 24).pack()
    capture.send(SERVER, [asyncflows.async_message(3, 0, b"Q1", md, b"hello")
                          + asyncflows.async_message(3, 1, b"Q1", md, b"world"),
                          asyncflows.notification(3, Notice.CLIENT_ASYNC_EMPTY,
                                                  CMQC.MQRC_NO_MSG_AVAILABLE)])
    pcap = tmp_path / "readahead.pcap"
    capture.write(pcap)
    summary = _tshark(pcap)
    assert "REQUEST_MSGS" in summary and "Hdl=0x0003" in summary
    assert "ASYNC_MESSAGE" in summary and "NOTIFICATION" in summary
    assert "Cod=CLIENT_ASYNC_EMPTY" in summary
    verbose = _tshark(pcap, "-V")
    assert "Malformed" not in verbose
    assert verbose.count("Format...: MQSTR") == 2
    assert "hello" in verbose and "world" in verbose
    assert "value...: 0x000007f1 (2033)" in verbose
