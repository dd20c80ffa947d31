"""Given an SDR-RCVR channel carrying messages put with properties (a persistent and a
non-persistent one, each with a property in the usr folder and one in mq_usr), when
Wireshark's MQ dissector decodes every segment that crossed the wire
(``tshark -d tcp.port==1414,mq``), then the messages' MQXQH and MQMD read field by field,
their properties show as an MQRFH2 in the message data (Format MQHRF2, its folders'
text), and nothing is malformed."""

from __future__ import annotations

from pathlib import Path

import pytest
import trio

from tests.channels.conftest import make_qmgr, qm1, qm2  # noqa: F401
from tests.channels.pairs import CHANNEL, define_pair
from tests.support.pcap import TSHARK, _RecordingProxy
from tests.support.tshark_decode import decode_verbose
from tests.support.waiting import wait_until

from ._handles import put_with_properties

pytestmark = pytest.mark.skipif(TSHARK is None, reason="tshark is not installed "
                                "(make tools installs it)")


async def test_tshark_decodes_a_channel_carrying_properties(qm1, qm2, tmp_path: Path):  # noqa: F811
    async with trio.open_nursery() as nursery:
        c2 = qm2.make_chinit()
        await nursery.start(c2.run, [("127.0.0.1", 0)])
        proxy = _RecordingProxy(c2.ports[0])
        define_pair(qm1, qm2, proxy.port, BATCHSZ=10)
        put_with_properties(qm1, b"persistent with properties", persistent=True)
        put_with_properties(qm1, b"fast with properties", persistent=False)
        c1 = qm1.make_chinit()
        await nursery.start(c1.run)
        assert c1.start_channel(CHANNEL) is None
        await wait_until(lambda: qm2.committed("TARGET") == 2, 20)
        nursery.cancel_scope.cancel()

    verbose = decode_verbose(proxy, tmp_path / "channel-properties.pcap")
    assert "Malformed" not in verbose
    assert f"ChannelNme: {CHANNEL}" in verbose and "Remote Q: TARGET" in verbose
    assert "Format...: MQHRF2" in verbose  # the MQMD in the MQXQH, its data an MQRFH2
    assert "Rules and Formatting Header" in verbose
    assert "NameValue: <usr><colour>blue</colour></usr>" in verbose
    assert 'NameValue: <mq_usr><n dt="i4">5</n></mq_usr>' in verbose
    assert "persistent with properties".encode().hex() in verbose
    assert "fast with properties".encode().hex() in verbose
