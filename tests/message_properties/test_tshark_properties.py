"""Given a client's put with message properties, an MQOPEN with a selection string and a get
into a message handle, when Wireshark's MQ dissector decodes the recorded traffic
(``tshark -d tcp.port==1414,mq``), then the properties show as an MQRFH2 in the MQPUT's and
the MQGET reply's message data, the MQOD of version 4 field by field (its selection
string's MQCHARV, its resolved names), and nothing is malformed."""

from __future__ import annotations

from pathlib import Path

import pytest

import mqpy
from mqpy import CMQC
from tests.client.conftest import CHANNEL, QMGR, QUEUE, env  # noqa: F401
from tests.support.pcap import TSHARK, _RecordingProxy
from tests.support.tshark_decode import decode_verbose

pytestmark = [pytest.mark.system,
              pytest.mark.skipif(TSHARK is None, reason="tshark is not installed")]


def test_tshark_decodes_properties_and_a_selection_string(env, tmp_path: Path):  # noqa: F811
    proxy = _RecordingProxy(env.chinit.port)
    qm = mqpy.connect(QMGR, CHANNEL, f"127.0.0.1({proxy.port})")
    handle = mqpy.MessageHandle(qm, mqpy.CMHO())
    handle.properties.set("colour", "blue")
    pmo = mqpy.PMO(Version=CMQC.MQPMO_VERSION_3)
    pmo.OriginalMsgHandle = handle.msg_handle
    mqpy.Queue(qm, QUEUE, CMQC.MQOO_OUTPUT).put(b"seen by tshark",
                                                mqpy.MD(Format=CMQC.MQFMT_STRING), pmo)
    od = mqpy.OD(Version=CMQC.MQOD_VERSION_4, ObjectName=QUEUE.encode())
    od.set_vs("SelectionString", "colour = 'blue'")
    queue = mqpy.Queue(qm, od, CMQC.MQOO_INPUT_SHARED)
    got = mqpy.MessageHandle(qm, mqpy.CMHO())
    gmo = mqpy.GMO(Version=CMQC.MQGMO_VERSION_4,
                   Options=CMQC.MQGMO_NO_WAIT | CMQC.MQGMO_PROPERTIES_IN_HANDLE)
    gmo.MsgHandle = got.msg_handle
    assert queue.get(None, mqpy.MD(), gmo) == b"seen by tshark"
    assert got.properties.get("colour") == "blue"
    queue.close()
    qm.disconnect()

    verbose = decode_verbose(proxy, tmp_path / "properties.pcap")
    assert "Malformed" not in verbose
    # the MQOD of version 4 read field by field: its resolved names where the reply has
    # them, its selection string's MQCHARV
    assert "Selection string" in verbose
    assert f"Resolved Q Name..: {QUEUE}" in verbose
    # the properties as an MQRFH2 in the message data (the MQGET reply's dump)
    assert "Format...: MQHRF2" in verbose
    assert "><colour>blue</c" in verbose
