"""Client-channel traffic as Wireshark's MQ dissector sees it (skipped without tshark).

Real loopback traffic of a pymqi program (MQCONN, MQOPEN, MQPUT, MQGET, MQINQ, MQCMIT,
MQCLOSE, MQDISC and their replies, over TSHM) is recorded by a relaying proxy in this
process -- no capture privileges needed -- and written as a pcap between 127.0.0.1:50000 and
127.0.0.1:1414 with the pcap builder of tests/wire/test_tshark.py; tshark must decode every
segment with the type we sent and report nothing malformed.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

import mqpy
from mqpy import CMQC
from mqpy.fap.tsh import SegmentType
from tests.client.conftest import CHANNEL, QMGR, QUEUE
from tests.support.pcap import CLIENT, SERVER, TSHARK, Capture, _decode, _RecordingProxy

pytestmark = [pytest.mark.system, pytest.mark.skipif(TSHARK is None, reason="tshark is not installed")]


def test_tshark_decodes_a_client_session(env, tmp_path: Path):
    """Given a pymqi program's session through a SVRCONN, when tshark decodes the recorded
    segments as MQ, then every MQI verb and reply shows its segment type, the API header's
    completion and reason codes are ours, and nothing is malformed."""
    proxy = _RecordingProxy(env.chinit.port)
    qm = mqpy.connect(QMGR, CHANNEL, f"127.0.0.1({proxy.port})")
    queue = mqpy.Queue(qm, QUEUE, CMQC.MQOO_OUTPUT | CMQC.MQOO_INPUT_SHARED | CMQC.MQOO_INQUIRE)
    queue.put(b"seen by tshark", mqpy.MD(Format=CMQC.MQFMT_STRING),
              mqpy.PMO(Options=CMQC.MQPMO_SYNCPOINT))
    qm.commit()
    assert queue.get(None, mqpy.MD(), mqpy.GMO(Options=CMQC.MQGMO_NO_SYNCPOINT)) == \
        b"seen by tshark"
    with pytest.raises(mqpy.MQMIError):
        queue.get(None, mqpy.MD(), mqpy.GMO(Options=CMQC.MQGMO_NO_WAIT))  # a 2033 reply
    assert queue.inquire(CMQC.MQIA_CURRENT_Q_DEPTH) == 0
    queue.close()
    qm.disconnect()

    capture = Capture()
    capture.handshake()
    with proxy.lock:
        flows = list(proxy.flows)
    for direction, segment in flows:
        capture.send(CLIENT if direction == "c" else SERVER, [segment])
    pcap = tmp_path / "client.pcap"
    capture.write(pcap)
    sent_types = [segment[17] if segment[:4] == b"TSHM" else segment[9] for _, segment in flows]
    for verb in ("MQCONN", "MQOPEN", "MQPUT", "MQCMIT", "MQGET", "MQINQ", "MQCLOSE", "MQDISC"):
        assert SegmentType[verb] in sent_types and SegmentType[verb + "_REPLY"] in sent_types

    fields = ["mq.tsh.type", "mq.api.completioncode", "mq.api.reasoncode", "_ws.malformed"]
    result = subprocess.run(
        [TSHARK, "-r", str(pcap), "-d", "tcp.port==1414,mq", "-T", "fields",
         "-E", "occurrence=a", "-E", "separator=|"]
        + [arg for field in fields for arg in ("-e", field)],
        capture_output=True, text=True, timeout=120, check=True)
    rows = [line.split("|") for line in result.stdout.splitlines()]
    decoded = [int(row[0], 16) for row in rows if row[0]]
    assert decoded == sent_types
    assert not [row for row in rows if row[3]], result.stdout  # nothing malformed
    reasons = {int(r) for row in rows for r in row[2].split(",") if r}
    assert CMQC.MQRC_NO_MSG_AVAILABLE in reasons

    verbose = subprocess.run([TSHARK, "-r", str(pcap), "-d", "tcp.port==1414,mq", "-V"],
                             capture_output=True, text=True, timeout=120, check=True).stdout
    assert "Malformed" not in verbose
    assert CHANNEL in verbose and QUEUE in verbose


def test_tshark_decodes_the_user_id_flows(env, tmp_path: Path):
    """Given a client connecting with user and password (an MQCSP), when tshark decodes the
    recorded start of the session, then the USERID_DATA flow shows the UID structure with the
    client's user id, the CONAUTH_INFO flow the CAUT structure with the MQCSP user id and the
    password's length, and nothing is malformed."""
    import getpass

    proxy = _RecordingProxy(env.chinit.port)
    qm = mqpy.connect(QMGR, CHANNEL, f"127.0.0.1({proxy.port})", user="alice",
                      password="s3cret-pw")
    qm.disconnect()
    capture = Capture()
    capture.handshake()
    with proxy.lock:
        flows = list(proxy.flows)
    for direction, segment in flows:
        capture.send(CLIENT if direction == "c" else SERVER, [segment])
    pcap = tmp_path / "userid.pcap"
    capture.write(pcap)
    fields = ["mq.tsh.type", "mq.uid.structid", "mq.uid.userid", "mq.caut.structid",
              "mq.caut.usrlength", "mq.caut.pswlength", "mq.msh.userid", "_ws.malformed"]
    result = subprocess.run(
        [TSHARK, "-r", str(pcap), "-d", "tcp.port==1414,mq", "-T", "fields",
         "-E", "occurrence=a", "-E", "separator=|"]
        + [arg for field in fields for arg in ("-e", field)],
        capture_output=True, text=True, timeout=120, check=True)
    rows = [line.split("|") for line in result.stdout.splitlines()]
    uid = [r for r in rows if r[0] and int(r[0], 16) == SegmentType.USERID_DATA]
    caut = [r for r in rows if r[0] and int(r[0], 16) == SegmentType.CONAUTH_INFO]
    assert uid and uid[0][1] == "UID " and uid[0][2].strip() == getpass.getuser()[:12]
    assert caut and caut[0][3] == "CAUT"
    assert (int(caut[0][4], 0), int(caut[0][5], 0)) == (5, len("s3cret-pw"))
    assert caut[0][6].strip() == "alice"
    assert not [row for row in rows if row[7]], result.stdout


def test_tshark_decodes_a_distribution_list_session(env, tmp_path: Path):
    """Given a client that opens a distribution list of two queues (an MQOD version 2 with
    its MQOR records) and puts to it with MQPMR records, when tshark decodes the traffic,
    then the MQOD shows version 2, two records and the MQORs straight behind the MQOD's
    208 bytes (ObjectRecOffset 208), the MQPUT carries one MQPMR per destination, and
    nothing is malformed.  spec: dqm-intercommunication 9.48

    The MQOR names themselves are not checked: the dissector (Wireshark 4.0) reads the
    records at the MQOD's own start whatever ObjectRecOffset says, so no layout would show
    them; this was tried with offsets 16 to 260."""
    for name in ("DL.A", "DL.B"):
        env.define("QLOCAL", name)
    proxy = _RecordingProxy(env.chinit.port)
    qm = mqpy.connect(QMGR, CHANNEL, f"127.0.0.1({proxy.port})")
    queue = mqpy.Queue(qm, ["DL.A", "DL.B"], CMQC.MQOO_OUTPUT)
    records = [mqpy.PMR(CorrelId=b"corr-%d" % i) for i in range(2)]
    queue.put(b"to both", mqpy.MD(), mqpy.PMO(RecsPresent=2, PutMsgRecPtr=records,
                                               PutMsgRecFields=CMQC.MQPMRF_CORREL_ID))
    queue.close()
    qm.disconnect()
    with proxy.lock:
        flows = list(proxy.flows)

    rows = _decode(flows, tmp_path, ["mq.tsh.type", "mq.od.version", "mq.od.nbrrec",
                                     "mq.od.offsetor", "mq.pmr.correlid", "_ws.malformed"])
    assert not [row for row in rows if row[5]], rows  # nothing malformed
    opens = [row for row in rows if row[0] and int(row[0], 16) == SegmentType.MQOPEN]
    assert opens and opens[0][1:4] == ["2", "2", "208"]
    opened = [segment for direction, segment in flows if direction == "c"
              and segment[17] == SegmentType.MQOPEN]
    assert b"DL.A" in opened[0] and b"DL.B" in opened[0]
    puts = [row for row in rows if row[0] and int(row[0], 16) == SegmentType.MQPUT]
    assert puts and puts[0][4].count(",") == 1  # one MQPMR per destination
