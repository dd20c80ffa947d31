"""A listener (runmqlsr, a process of its own) fed garbage: every bad connection is closed
with an AMQ message in AMQERR01.LOG, the listener keeps serving the next one, and nothing a
peer sends can forge a line of the error log or put a traceback anywhere."""

from __future__ import annotations

import os
import re
import socket
import struct
import subprocess
import sys

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from mqpy.fap.framing import SegmentWriter
from mqpy.fap.initialdata import InitialData
from tests.support.installation import Installation, chinit_command

pytestmark = pytest.mark.timeout(120)


@pytest.fixture(scope="module")
def listener(running):
    """runmqlsr on 127.0.0.1, an ephemeral port; its stderr checked at the end."""
    proc = subprocess.Popen(chinit_command(running, "runmqlsr", "-m", "QM1", "-t", "tcp",
                                           "-i", "127.0.0.1", "-p", "0"),
                            env=running.env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True)
    line = proc.stdout.readline()
    assert "AMQ8021I" in line, line + proc.stderr.read()
    port = int(line.rsplit("port ", 1)[1].rstrip(").\n"))
    try:
        yield port, proc
    finally:
        proc.terminate()
        _, err = proc.communicate(timeout=30)
        assert "Traceback" not in err


def _log(running) -> str:
    with open(os.path.join(running.qmdir(), "errors", "AMQERR01.LOG"), encoding="latin-1") as f:
        return f.read()


def _exchange(port: int, data: bytes) -> bytes:
    """Send ``data``, half-close, and read until the listener closes the connection."""
    with socket.create_connection(("127.0.0.1", port), timeout=30) as sock:
        sock.sendall(data)
        sock.shutdown(socket.SHUT_WR)
        out = b""
        while chunk := sock.recv(65536):
            out += chunk
    return out


def _still_serving(port: int) -> None:
    """A well-formed start for an unknown channel still gets its answer (a STATUS)."""
    first = SegmentWriter().send(InitialData(fap_level=10, channel_name="NO.SUCH.CHL"))
    assert _exchange(port, first)[:4] == b"TSH "


def test_a_channel_name_cannot_forge_a_log_entry(running, listener):
    """Given an INITIAL_DATA whose channel name holds a line break and an AMQ id, then the
    log's AMQ9519E shows the break as its escape (and names the channel once)."""
    port, proc = listener
    forged = "X\nAMQ8003I: FORGED"[:20]
    _exchange(port, SegmentWriter().send(InitialData(fap_level=10, channel_name=forged)))
    _still_serving(port)
    log = _log(running)
    assert "\nAMQ8003I: FORGED" not in log
    assert re.search(r"AMQ9519E: Channel 'X\\nAMQ8003I: FORGED' not found\.", log)
    assert "Channel '':" not in log
    assert proc.poll() is None


def _tsh(length: int, segment_type: int = 1) -> bytes:
    """A TSH (28 bytes) claiming ``length`` for its segment, nothing after it."""
    return (b"TSH " + struct.pack(">i", length) + bytes([1, segment_type, 0, 0])
            + bytes(4) + struct.pack(">hh", 0, 0) + struct.pack(">i", 0) + bytes(4))[:28]


@settings(max_examples=60, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.one_of(
    st.binary(max_size=300),
    st.builds(_tsh, st.sampled_from([0, 1, 27, 28, 29, 32766, 2**31 - 1, -1]),
              st.integers(0, 255)),
    st.builds(lambda cut: SegmentWriter().send(
        InitialData(fap_level=10, channel_name="SYSTEM.DEF.SVRCONN"))[:cut],
        st.integers(0, 300)),
))
def test_garbage_and_truncated_frames_close_only_that_connection(running, listener, data):
    """Given any bytes, a truncated INITIAL_DATA or a TSH with an absurd length, then the
    listener closes that connection and serves the next."""
    port, proc = listener
    _exchange(port, data)
    assert proc.poll() is None
    _still_serving(port)
    assert "Traceback" not in _log(running)


def test_start_listener_on_a_port_in_use_is_amq9218(tmp_path):
    """Given a LISTENER object whose port another program holds, when START LISTENER runs
    (through the channel initiator strmqm started), then AMQ9218E names the port and the
    command fails; the queue manager goes on."""
    inst = Installation(str(tmp_path))
    inst.env.pop("MQPY_NO_CHINIT")
    inst.create(queues=())
    try:
        inst.start()
        with socket.socket() as holder:
            holder.bind(("127.0.0.1", 0))
            holder.listen()
            port = holder.getsockname()[1]
            code = ("import sys; from mqpy_cli.runmqsc import runmqsc; "
                    "runmqsc.main(args=['QM1'], prog_name='runmqsc')")
            proc = subprocess.run(
                [sys.executable, "-c", code], env=inst.env, capture_output=True, text=True,
                timeout=60, input=f"DEFINE LISTENER(L1) TRPTYPE(TCP) IPADDR('127.0.0.1') "
                                  f"PORT({port})\nSTART LISTENER(L1)\nPING QMGR\n")
        assert f"AMQ9218E: The TCP/IP listener program could not bind to port number {port}" \
            in proc.stdout, proc.stdout
        assert proc.returncode == 10
        assert "AMQ8415I" in proc.stdout  # PING QMGR: still served
    finally:
        inst.kill_all()
