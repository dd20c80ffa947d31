"""A TCP conversation written as a libpcap file, for Wireshark's MQ dissector (tshark) to
decode: Ethernet / IPv4 / TCP frames between 127.0.0.1:50000 and 127.0.0.1:1414 with lengths
and IPv4 checksums correct, built in pure Python (no network is used); tshark's decoding of
such a file; a proxy that records a connection's segments in the order they flowed."""

from __future__ import annotations

import shutil
import socket
import struct
import subprocess
import threading
from pathlib import Path

TSHARK = shutil.which("tshark")

CLIENT = (b"\x7f\x00\x00\x01", 50000)
SERVER = (b"\x7f\x00\x00\x01", 1414)


def _checksum(header: bytes) -> int:
    total = sum(struct.unpack(f"!{len(header) // 2}H", header))
    while total >> 16:
        total = (total & 0xFFFF) + (total >> 16)
    return ~total & 0xFFFF


class Capture:
    """A TCP conversation written as a libpcap file (LINKTYPE_ETHERNET)."""

    def __init__(self) -> None:
        self.frames: list[bytes] = []
        self.seq = {CLIENT: 1000, SERVER: 5000}
        self.ip_id = 1

    def _frame(self, src: tuple[bytes, int], dst: tuple[bytes, int], flags: int, payload: bytes) -> None:
        ack = self.seq[dst] if flags & 0x10 else 0
        tcp = struct.pack("!HHIIBBHHH", src[1], dst[1], self.seq[src], ack, 5 << 4, flags, 65535, 0, 0)
        total = 20 + len(tcp) + len(payload)
        ip = struct.pack("!BBHHHBBH4s4s", 0x45, 0, total, self.ip_id, 0x4000, 64, 6, 0, src[0], dst[0])
        ip = ip[:10] + struct.pack("!H", _checksum(ip)) + ip[12:]
        self.ip_id += 1
        ethernet = b"\x00" * 6 + b"\x00" * 6 + b"\x08\x00"
        self.frames.append(ethernet + ip + tcp + payload)
        self.seq[src] += len(payload) + (1 if flags & 0x02 else 0)

    def handshake(self) -> None:
        self._frame(CLIENT, SERVER, 0x02, b"")  # SYN
        self._frame(SERVER, CLIENT, 0x12, b"")  # SYN ACK
        self._frame(CLIENT, SERVER, 0x10, b"")  # ACK

    def send(self, src: tuple[bytes, int], segments: list[bytes]) -> None:
        dst = SERVER if src == CLIENT else CLIENT
        for segment in segments:
            self._frame(src, dst, 0x18, segment)  # PSH ACK

    def write(self, path: Path) -> None:
        out = [struct.pack("<IHHiIII", 0xA1B2C3D4, 2, 4, 0, 0, 262144, 1)]
        for index, frame in enumerate(self.frames):
            out.append(struct.pack("<IIII", 1700000000 + index, 0, len(frame), len(frame)))
            out.append(frame)
        path.write_bytes(b"".join(out))


TSHARK = shutil.which("tshark")


class _RecordingProxy:
    """Relays one TCP connection and records its segments in the order they flowed."""

    def __init__(self, target_port: int) -> None:
        self.target_port = target_port
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.port = self.listener.getsockname()[1]
        self.flows: list[tuple[str, bytes]] = []
        self.lock = threading.Lock()
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self) -> None:
        client, _ = self.listener.accept()
        server = socket.create_connection(("127.0.0.1", self.target_port))
        for src, dst, direction in ((client, server, "c"), (server, client, "s")):
            threading.Thread(target=self._pump, args=(src, dst, direction),
                             daemon=True).start()

    def _pump(self, src: socket.socket, dst: socket.socket, direction: str) -> None:
        buf = b""
        try:
            while data := src.recv(65536):
                buf += data
                while len(buf) >= 8 and len(buf) >= int.from_bytes(buf[4:8], "big"):
                    length = int.from_bytes(buf[4:8], "big")
                    segment, buf = buf[:length], buf[length:]
                    with self.lock:  # record before relaying: the order is the wire's
                        self.flows.append((direction, segment))
                    dst.sendall(segment)
        except OSError:
            pass
        finally:
            for s in (src, dst):
                try:
                    s.shutdown(socket.SHUT_RDWR)
                except OSError:
                    pass


def _decode(flows: list[tuple[str, bytes]], tmp_path: Path, fields: list[str]) -> list[list[str]]:
    capture = Capture()
    capture.handshake()
    for direction, segment in flows:
        capture.send(CLIENT if direction == "c" else SERVER, [segment])
    pcap = tmp_path / "session.pcap"
    capture.write(pcap)
    result = subprocess.run(
        [TSHARK, "-r", str(pcap), "-d", "tcp.port==1414,mq", "-T", "fields",
         "-E", "occurrence=a", "-E", "separator=|"]
        + [arg for field in fields for arg in ("-e", field)],
        capture_output=True, text=True, timeout=120, check=True)
    return [line.split("|") for line in result.stdout.splitlines()]
