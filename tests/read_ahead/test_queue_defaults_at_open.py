"""The queue's DEFREADA comes back with MQOPEN (its reply's FOPA): a client that opens a
queue with MQOO_READ_AHEAD_AS_Q_DEF asks for messages ahead (REQUEST_MSGS) only when the
queue's DEFREADA is YES, and never for one with DEFREADA(NO) or DISABLED."""

from __future__ import annotations

import pytest

import mqpy
from mqpy import CMQC
from mqpy.fap.tsh import SegmentType
from tests.support.pcap import _RecordingProxy
from tests.support.site import CHANNEL, QM
from tests.support.site_here import FastpathHereSite

pytestmark = [pytest.mark.system, pytest.mark.timeout(180)]

NP = CMQC.MQPER_NOT_PERSISTENT


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    s = FastpathHereSite(str(tmp_path_factory.mktemp("ra-fopa") / "data"))
    try:
        s.start()
        s.mqsc("DEFINE QLOCAL(RA.DEF.YES) DEFREADA(YES)\nDEFINE QLOCAL(RA.DEF.NO) DEFREADA(NO)\n"
               "DEFINE QLOCAL(RA.DEF.OFF) DEFREADA(DISABLED)\n")
        yield s
    finally:
        s.stop()


def _segment_types(flows: list[tuple[str, bytes]]) -> list[int]:
    return [segment[17] if segment[:4] == b"TSHM" else segment[9] for _, segment in flows]


@pytest.mark.parametrize(("queue", "option", "asks"), [
    ("RA.DEF.YES", CMQC.MQOO_READ_AHEAD_AS_Q_DEF, True),
    ("RA.DEF.NO", CMQC.MQOO_READ_AHEAD_AS_Q_DEF, False),
    ("RA.DEF.NO", CMQC.MQOO_READ_AHEAD, True),
    ("RA.DEF.OFF", CMQC.MQOO_READ_AHEAD, False),
])
def test_a_client_asks_for_messages_ahead_only_where_read_ahead_is_in_effect(
        site, queue, option, asks):
    """Given a queue of a DEFREADA holding three non-persistent messages, when a client opens
    it for input with a read-ahead option and gets them, then it gets all three in order, and
    its channel carries a REQUEST_MSGS only where read ahead is in effect (DEFREADA(YES) with
    MQOO_READ_AHEAD_AS_Q_DEF, MQOO_READ_AHEAD unless DEFREADA(DISABLED))."""
    proxy = _RecordingProxy(site.port)
    qm = mqpy.connect(QM, CHANNEL, f"127.0.0.1({proxy.port})")
    try:
        out = mqpy.Queue(qm, queue, CMQC.MQOO_OUTPUT)
        for i in range(3):
            out.put(b"m%d" % i, mqpy.MD(Persistence=NP))
        out.close()
        q = mqpy.Queue(qm, queue, CMQC.MQOO_INPUT_SHARED | option)
        got = [q.get(None, mqpy.MD(), mqpy.GMO(Options=CMQC.MQGMO_NO_SYNCPOINT))
               for _ in range(3)]
        q.close()
    finally:
        qm.disconnect()
    assert got == [b"m0", b"m1", b"m2"]
    with proxy.lock:
        types = _segment_types(proxy.flows)
    assert (SegmentType.REQUEST_MSGS in types) is asks, types
