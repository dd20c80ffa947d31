"""Our segments, as Wireshark's MQ dissector sees them (skipped when tshark is absent).

A pcap is built in pure Python (libpcap header, Ethernet / IPv4 / TCP frames between
127.0.0.1:50000 and 127.0.0.1:1414, lengths and IPv4 checksums correct; no network is used)
and decoded with ``tshark -d tcp.port==1414,mq``. Every MQ segment must decode with the
segment type, flags and length we wrote, and tshark must report nothing malformed.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from mqpy.fap.controlflows import Heartbeat, Ping, Reset, Status
from mqpy.fap.framing import SegmentWriter
from mqpy.fap.initialdata import InitialData
from mqpy.fap.messagedata import MessageData
from mqpy.fap.statuscodes import StatusCode
from mqpy.fap.tsh import ByteOrder, ControlFlags1, SegmentType, parse_segment_header
from mqpy.structs.tables import XQH
from tests.support.pcap import CLIENT, SERVER, TSHARK, Capture

pytestmark = pytest.mark.skipif(TSHARK is None, reason="tshark is not installed")


def _message(seqnum: int, data: bytes, **common: object) -> MessageData:
    """A message as an SDR sends it: MQXQH for TARGET.Q@QM2 whose MQMD says MQSTR."""

    xqh = XQH(RemoteQName=b"TARGET.Q", RemoteQMgrName=b"QM2")
    xqh.MsgDesc.set(Format=b"MQSTR", CodedCharSetId=1208, PutApplName=b"amqsput")
    return MessageData.from_xqh(seqnum, xqh, data, **common)


def _conversation() -> tuple[Capture, list[tuple[int, int, int]]]:
    """The capture and, per MQ segment, (segment type, ControlFlags1, segment length)."""
    writer = SegmentWriter(max_transmission_size=4096, byte_order=ByteOrder.LITTLE)
    flows = [
        (CLIENT, InitialData(fap_level=10, channel_name="QM1.TO.QM2", qmgr_name="QM1")),
        (SERVER, InitialData(fap_level=10, channel_name="QM1.TO.QM2", qmgr_name="QM2")),
        (CLIENT, _message(1, b"<hello/>")),
        (CLIENT, _message(2, bytes(10000), flags=ControlFlags1.CONFIRM_REQUEST)),
        (SERVER, Status(code=0)),
        (CLIENT, Heartbeat(flags=ControlFlags1.CONFIRM_REQUEST)),
        (SERVER, Heartbeat()),
        (CLIENT, Ping(data=b"ping data")),
        (CLIENT, Reset(seqnum=1)),
        (SERVER, Status(code=StatusCode.USER_CLOSED, value=0)),
    ]
    capture = Capture()
    capture.handshake()
    expected = []
    for src, event in flows:
        segments = writer.segments(event)
        capture.send(src, segments)
        for segment in segments:
            header = parse_segment_header(segment)
            expected.append((header.segment_type, int(header.flags1), header.segment_length))
    return capture, expected


def test_tshark_decodes_every_segment_we_write(tmp_path: Path) -> None:
    """Given an ID exchange, MESSAGE_DATA with XQH+MD (one whole, one split over 4 KB
    segments), STATUS, HEARTBEAT, PING and RESET in a pcap, when tshark decodes it as MQ,
    then each segment shows our type, flags and length and nothing is malformed."""
    capture, expected = _conversation()
    pcap = tmp_path / "mq.pcap"
    capture.write(pcap)
    fields = ["mq.tsh.type", "mq.tsh.cflags1", "mq.tsh.seglength", "mq.tsh.byteorder", "_ws.malformed", "_ws.expert.message"]
    result = subprocess.run(
        [TSHARK, "-r", str(pcap), "-d", "tcp.port==1414,mq", "-T", "fields", "-E", "occurrence=a", "-E", "separator=|"]
        + [arg for field in fields for arg in ("-e", field)],
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    rows = [line.split("|") for line in result.stdout.splitlines()]
    mq_rows = [row for row in rows if row[0]]
    decoded = [(int(t, 16), int(f, 16), int(n)) for t, f, n, *_ in mq_rows]
    assert decoded == expected
    assert all(row[3] == "0x02" for row in mq_rows)
    assert not [row for row in rows if row[4]], result.stdout  # nothing malformed
    assert not [row for row in mq_rows if row[5]], result.stdout  # no expert info on MQ

    verbose = subprocess.run(
        [TSHARK, "-r", str(pcap), "-d", "tcp.port==1414,mq", "-V"],
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    ).stdout
    assert "Malformed" not in verbose
    assert not [line for line in verbose.splitlines() if "SegmType" in line and "Unknown" in line]
    assert "Format...: MQSTR" in verbose and "CCSID....:  (1208)" in verbose
    assert "Msg Type.: MQMT_DATAGRAM (8)" in verbose and "Code=USER_CLOSED" in _summary(pcap)
    assert "ChannelNme: QM1.TO.QM2" in verbose
    assert "Rmt QMgr: QM2" in verbose and "Remote Q: TARGET.Q" in verbose
    assert SegmentType.MESSAGE_DATA.name in verbose and "HEARTBEAT" in verbose


def _summary(pcap: Path) -> str:
    """tshark's one-line-per-frame view (its Info column names STATUS codes)."""
    return subprocess.run(
        [TSHARK, "-r", str(pcap), "-d", "tcp.port==1414,mq"],
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    ).stdout
