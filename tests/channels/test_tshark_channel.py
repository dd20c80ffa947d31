"""A real channel's traffic, as Wireshark's MQ dissector sees it (skipped without tshark)."""

from __future__ import annotations

import shutil
import subprocess

import pytest
import trio

from tests.channels.pairs import define_pair
from tests.support.pcap import CLIENT, SERVER, Capture
from tests.support.proxy import FaultProxy
from tests.support.waiting import wait_until

TSHARK = shutil.which("tshark")
pytestmark = pytest.mark.skipif(TSHARK is None, reason="tshark is not installed")


async def test_channel_traffic_decodes_with_nothing_malformed(two_qmgrs, tmp_path):
    """Given an SDR-RCVR channel moving 30 messages (one of 100 KB, split over segments) and a
    PING, when every segment that crossed the wire is decoded by tshark as MQ, then each is a
    known segment type and nothing is malformed."""
    qm1, qm2 = two_qmgrs
    async with trio.open_nursery() as nursery:
        c2 = qm2.make_chinit()
        await nursery.start(c2.run, [("127.0.0.1", 0)])
        proxy = FaultProxy(c2.ports[0])
        await nursery.start(proxy.run)
        define_pair(qm1, qm2, proxy.port, BATCHSZ=10)
        for i in range(29):
            qm1.put("TARGET", b"m%02d" % i, qmgr="QM2")
        qm1.put("TARGET", b"L" * 100_000, qmgr="QM2")
        c1 = qm1.make_chinit()
        await nursery.start(c1.run)
        c1.start_channel("QM1.TO.QM2")
        await wait_until(lambda: qm2.committed("TARGET") == 30)
        nursery.cancel_scope.cancel()
    capture = Capture()
    capture.handshake()
    for direction, segment in proxy.recorded:
        capture.send(CLIENT if direction == "s2r" else SERVER, [segment])
    pcap = tmp_path / "channel.pcap"
    capture.write(pcap)
    out = subprocess.run([TSHARK, "-r", str(pcap), "-d", "tcp.port==1414,mq", "-T", "fields",
                          "-e", "mq.tsh.type", "-e", "_ws.malformed", "-E", "separator=|"],
                         capture_output=True, text=True, timeout=120, check=True).stdout
    rows = [line.split("|") for line in out.splitlines()]
    types = {int(row[0], 16) for row in rows if row[0]}
    assert {0x01, 0x02, 0x04, 0x05} <= types, types  # ID, RESYNC, MESSAGE_DATA, STATUS
    assert not [row for row in rows if len(row) > 1 and row[1]], out
    verbose = subprocess.run([TSHARK, "-r", str(pcap), "-d", "tcp.port==1414,mq", "-V"],
                             capture_output=True, text=True, timeout=120, check=True).stdout
    assert "Malformed" not in verbose
    assert "ChannelNme: QM1.TO.QM2" in verbose and "Remote Q: TARGET" in verbose
