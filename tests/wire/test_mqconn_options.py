"""An MQCONNX's MQCNO Options in the MQCONN flow: where IBM's client puts them (the MQCONN
body's Options field, at offset 112, in the flow's byte order), as Wireshark's MQ dissector
reads them (skipped when tshark is absent), and the channel initiator's CSEC tail, which
carries a client's accounting options to the queue manager and nothing else."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from mqpy import CMQC
from mqpy.fap import mqiflows, mqiparams
from mqpy.fap.framing import SegmentWriter
from mqpy.fap.tsh import ByteOrder, SegmentType
from tests.support.pcap import CLIENT, TSHARK, Capture

ORDERS = (ByteOrder.LITTLE, ByteOrder.BIG)
#: an application's MQCNO Options: accounting, and options that are the client's own
OPTIONS = (CMQC.MQCNO_ACCOUNTING_MQI_ENABLED | CMQC.MQCNO_ACCOUNTING_Q_DISABLED
           | CMQC.MQCNO_RECONNECT | CMQC.MQCNO_HANDLE_SHARE_BLOCK)


def _mqconn(order: ByteOrder, options: int) -> mqiflows.MQIRequest:
    return mqiflows.encode_request(SegmentType.MQCONN, [("QM1", "amqsput", options), None],
                                   byte_order=order, conv_id=1, request_id=1)


@pytest.mark.parametrize("order", ORDERS)
def test_an_mqconn_carries_its_mqcno_options_where_ibm_lays_them_out(order):
    """Given an MQCONNX's MQCNO Options, when its MQCONN request is encoded (either byte
    order), then the body's Options field (offset 112) holds them in that order, and the
    request decodes to the names with those options."""
    request = _mqconn(order, OPTIONS)
    little = order == ByteOrder.LITTLE
    assert request.body[112:116] == OPTIONS.to_bytes(4, "little" if little else "big")
    names, security = mqiflows.decode_request(request, order).values
    assert names == ("QM1", "amqsput") and names.options == OPTIONS and security is None


def test_a_channel_initiators_csec_carries_a_clients_accounting_options_only():
    """Given a client's MQCNO Options with bits beside the accounting ones (bits that share
    CSEC's own flags: MQCNO_FASTPATH_BINDING 1, MQCNO_SERIALIZE_CONN_TAG_Q_MGR 2), when
    the channel initiator's MQCONN for it carries them in its CSEC tail, then the queue
    manager reads the accounting options only: no MQCSP, no adopted identity."""
    options = OPTIONS | CMQC.MQCNO_FASTPATH_BINDING | CMQC.MQCNO_SERIALIZE_CONN_TAG_Q_MGR
    security = mqiparams.ConnSecurity(None, user="alice", channel="APP.SVRCONN",
                                      address="127.0.0.1", options=options)
    request = mqiflows.encode_request(SegmentType.MQCONN, [("QM1", "amqsput"), security])
    names, decoded = mqiflows.decode_request(request, ByteOrder.LITTLE).values
    assert names.options == 0
    assert decoded == mqiparams.ConnSecurity(
        None, user="alice", channel="APP.SVRCONN", address="127.0.0.1",
        options=CMQC.MQCNO_ACCOUNTING_MQI_ENABLED | CMQC.MQCNO_ACCOUNTING_Q_DISABLED)


@pytest.mark.skipif(TSHARK is None, reason="tshark is not installed: Wireshark's MQ "
                    "dissector cannot be asked how it reads the MQCONN's Options")
def test_wiresharks_dissector_reads_the_options_of_our_mqconn(tmp_path: Path):
    """Given a client's MQCONN carrying MQCNO Options in each byte order, when tshark decodes
    it as MQ, then its mq.conn.options field is those options and nothing is malformed."""
    capture = Capture()
    capture.handshake()
    for order in ORDERS:  # (the TSH's Encoding says the body's byte order)
        writer = SegmentWriter(max_transmission_size=4096, byte_order=order)
        capture.send(CLIENT, writer.segments(_mqconn(order, OPTIONS)))
    pcap = tmp_path / "mqconn.pcap"
    capture.write(pcap)
    fields = ["mq.conn.qm", "mq.conn.appname", "mq.conn.options", "_ws.malformed"]
    result = subprocess.run(
        [TSHARK, "-r", str(pcap), "-d", "tcp.port==1414,mq", "-T", "fields",
         "-E", "occurrence=a", "-E", "separator=|"]
        + [arg for field in fields for arg in ("-e", field)],
        capture_output=True, text=True, timeout=120, check=True)
    rows = [line.split("|") for line in result.stdout.splitlines() if line.split("|")[0]]
    assert [(qm.strip(), appl.strip(), int(options, 0), malformed)
            for qm, appl, options, malformed in rows] == [("QM1", "amqsput", OPTIONS, "")] * 2
