"""What Wireshark's MQ dissector makes of the flows a recording proxy (tests.support.pcap)
relayed: written as a pcap between 127.0.0.1:50000 and :1414, decoded by ``tshark -V``."""

from __future__ import annotations

import subprocess
from pathlib import Path

from tests.support.pcap import CLIENT, SERVER, TSHARK, Capture, _RecordingProxy


def decode_verbose(proxy: _RecordingProxy, pcap: Path) -> str:
    """tshark's full decode (``-d tcp.port==1414,mq -V``) of everything ``proxy`` relayed."""
    capture = Capture()
    capture.handshake()
    with proxy.lock:
        flows = list(proxy.flows)
    for direction, segment in flows:
        capture.send(CLIENT if direction == "c" else SERVER, [segment])
    capture.write(pcap)
    return subprocess.run([str(TSHARK), "-r", str(pcap), "-d", "tcp.port==1414,mq", "-V"],
                          capture_output=True, text=True, timeout=120, check=True).stdout
