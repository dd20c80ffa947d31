"""The daemon's bindings socket (<qmgr dir>/qm.sock) fed malformed MQI requests: the bad
connection ends, the daemon goes on serving every other application, and nothing it writes
holds a traceback."""

from __future__ import annotations

import glob
import os
import socket

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import mqpy
from mqpy import bindings
from mqpy.fap import mqiflows
from mqpy.fap.apiheader import MQIRequest
from mqpy.fap.framing import SegmentWriter
from mqpy.fap.tsh import SegmentType

pytestmark = pytest.mark.timeout(120)

_VERBS = [t for t in SegmentType if 0x81 <= t <= 0x8F]


def _session(running, requests: list[bytes]) -> None:
    """Connect, send every request, half-close, read until the daemon closes."""
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    sock.settimeout(30)
    with bindings.bind_address(bindings.socket_path(running.qmdir())) as address:
        sock.connect(address)
    with sock:
        for data in requests:
            sock.sendall(data)
        sock.shutdown(socket.SHUT_WR)
        while sock.recv(65536):
            pass


@settings(max_examples=80, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(connected=st.booleans(), verb=st.sampled_from(_VERBS),
       hobj=st.sampled_from([0, 1, 2, 0xFFFFFFFF]), body=st.binary(max_size=600),
       cut=st.integers(0, 700))
def test_malformed_requests_end_only_that_connection(running, connected, verb, hobj, body,
                                                     cut):
    """Given an MQI verb with any body (after an MQCONN or without one), whole or cut
    short, then the daemon still serves a new application and writes no FDC and no
    traceback."""
    writer = SegmentWriter(bindings.MAX_TRANSMISSION_SIZE)
    requests = []
    if connected:
        requests.append(writer.send(mqiflows.encode_request(
            SegmentType.MQCONN, [("QM1", "robust"), None], hobj=0)))
    requests.append(writer.send(MQIRequest(segment_type=verb, hobj=hobj, body=body))[:cut])
    _session(running, requests)
    qm = mqpy.connect("QM1")
    qm.disconnect()
    _no_fault_written(running)


def _no_fault_written(running) -> None:
    """No FDC, no traceback in the queue manager's error logs."""
    errors = os.path.join(running.qmdir(), "errors")
    assert glob.glob(os.path.join(errors, "*.FDC")) == []
    for path in glob.glob(os.path.join(errors, "*.LOG")):
        with open(path, encoding="latin-1") as f:
            assert "Traceback" not in f.read()
