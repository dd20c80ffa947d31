"""MQSTAT and an asynchronous put on a client channel as Wireshark's MQ dissector sees them
(skipped without tshark): the recorded flows (tests/support/pcap.py) decode as MQPUT with
MQPMO_ASYNC_RESPONSE, MQSTAT and MQSTAT_REPLY, nothing malformed."""

from __future__ import annotations

from pathlib import Path

import pytest

import mqpy
from mqpy import CMQC
from mqpy.fap.tsh import SegmentType
from tests.support.pcap import TSHARK, _decode, _RecordingProxy
from tests.support.site import CHANNEL, QM

from .conftest import ASYNC, OUT

pytestmark = [pytest.mark.system, pytest.mark.timeout(180),
              pytest.mark.skipif(TSHARK is None, reason="tshark is not installed")]


def test_tshark_decodes_an_asynchronous_put_and_mqstat(site, tmp_path: Path):
    """Given a client that puts asynchronously to a put-inhibited queue and then calls
    MQSTAT, when tshark decodes the recorded segments as MQ, then it shows the MQPUT with
    its MQPMO's ASYNC_RESPONSE option, the MQSTAT and its reply, and nothing malformed."""
    proxy = _RecordingProxy(site.port)
    qm = mqpy.connect(QM, CHANNEL, f"127.0.0.1({proxy.port})")
    q = mqpy.Queue(qm, "AP.INHIBITED", OUT)
    q.put(b"refused", mqpy.MD(), mqpy.PMO(Options=ASYNC))
    sts = qm.stat(CMQC.MQSTAT_TYPE_ASYNC_ERROR)
    assert sts.Reason == CMQC.MQRC_PUT_INHIBITED
    q.close()
    qm.disconnect()

    with proxy.lock:
        flows = list(proxy.flows)
    sent_types = [segment[17] if segment[:4] == b"TSHM" else segment[9] for _, segment in flows]
    assert SegmentType.MQSTAT in sent_types and SegmentType.MQSTAT_REPLY in sent_types
    rows = _decode(flows, tmp_path, ["mq.tsh.type", "mq.pmo.options.ASYNC_RESPONSE",
                                     "_ws.malformed"])
    assert [int(row[0], 16) for row in rows if row[0]] == sent_types
    assert not [row for row in rows if row[2]], rows
    put_rows = [row for row in rows if row[0] and int(row[0], 16) == SegmentType.MQPUT]
    assert put_rows and put_rows[0][1] in ("1", "True"), rows
