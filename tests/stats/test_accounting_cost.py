"""What a disconnect with accounting on costs: the records' bytes are made without building
each PCF parameter through construct (``records.pack``), and are exactly the bytes
``pcf.build`` makes, so IBM's amqsmon and pymqi read them as before."""

from __future__ import annotations

import pytest

from mqpy import CMQCFC, pcf
from mqpy.engine.stats import MQICounters, QueueCounters
from mqpy.pcf import CFBS, CFGR, CFH, CFST, PCFMessage
from mqpy.stats import records as R


def _info(channel: str = "") -> R.ConnectionInfo:
    return R.ConnectionInfo(connection_id=b"\1" * 24, appl_name="app-with-odd-len",
                            user="mqm", conn_time=1_700_000_000.0, seq=3, channel=channel,
                            conn_name="10.0.0.1(1414)" if channel else "")


def _counters() -> tuple[MQICounters, QueueCounters]:
    mqi = MQICounters(connects=1, opens=2, puts=[3, 4], put_bytes=[2**40, 5], gets=[1, 0],
                      commits=7)
    queue = QueueCounters(puts=[1, 2], put_bytes=[10, 2**35], gets=[3, 4],
                          time_on_q_total=[0.5, 1.25], time_on_q_count=[2, 5])
    return mqi, queue


def _messages() -> list[PCFMessage]:
    mqi, queue = _counters()
    start, end = 1_700_000_000.0, 1_700_000_100.0
    infos = [R.QueueInfo(f"Q.{n}", crdate="2026-11-30", crtime="04.00.00") for n in range(3)]
    return [
        R.accounting_mqi("QM1", _info(), mqi, start, end),
        R.accounting_mqi("QM1", _info("APP.SVRCONN"), mqi, start, end,
                         disc_type=CMQCFC.MQDISCONNECT_IMPLICIT),
        *R.accounting_q("QM1", _info(), [(i, queue) for i in infos], start, end),
        *R.accounting_q("QM1", _info(), [], start, end),
        R.mqi_statistics("QM1", mqi, start, end, conns_max=4,
                         storage=R.StorageInterval(log_bytes=2**33, pagesets={0: (3, 9)})),
        *R.queue_statistics("QM1", [(infos[0], queue, 6)], start, end),
        PCFMessage(CFH(Command=CMQCFC.MQCMD_ACCOUNTING_MQI),
                   [CFST(1, b"kept pad", Pad=b"  \0\0"), CFBS(2, b"abc"),
                    CFGR(3, [CFBS(4, b"", Pad=b"")])]),
        PCFMessage(CFH(Command=CMQCFC.MQCMD_ACCOUNTING_MQI), []),
    ]


@pytest.mark.parametrize("n", range(len(_messages())))
def test_a_records_bytes_are_pcf_builds(n):
    """Given an accounting or statistics message (MQI and queue accounting, a client's, a
    last one, a queue record of no queues, MQI and queue statistics, parameters with kept
    padding, none at all), when it is packed for the accounting queue, then its bytes are
    exactly ``pcf.build``'s, and parse back to the same message."""
    msg = _messages()[n]
    packed = R.pack(msg)
    assert packed == pcf.build(msg)
    assert pcf.parse(packed).params == msg.params
