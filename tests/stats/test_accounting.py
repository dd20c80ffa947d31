"""Accounting messages: per-connection MQI and queue counters on SYSTEM.ADMIN.ACCOUNTING.QUEUE."""

from __future__ import annotations

import mqpy
from mqpy import CMQC, CMQCFC, inprocess, pcf
from mqpy.mqi import attach


def test_accounting_messages_count_one_connections_work(tmp_path):
    """Given ACCTMQI(ON) and ACCTQ(ON), when a connection puts 3 persistent and 2
    non-persistent messages, gets 4, commits twice and disconnects, then an
    MQCMD_ACCOUNTING_MQI message for that connection carries those counts, and an
    MQCMD_ACCOUNTING_Q message its queue's."""
    root = str(tmp_path)
    first = mqpy.embedded("ACCTQM", data_path=root)
    eng = inprocess.running("ACCTQM", root)
    eng.alter_qmgr({"ACCTMQI": "ON", "ACCTQ": "ON"})
    eng.define("QLOCAL", "APP.Q", {})
    qm = mqpy.embedded("ACCTQM", data_path=root)  # (connected with accounting on)
    q = mqpy.Queue(qm, "APP.Q", CMQC.MQOO_OUTPUT | CMQC.MQOO_INPUT_AS_Q_DEF)
    for i in range(5):
        q.put(b"x" * 10, mqpy.MD(Persistence=1 if i < 3 else 0),
              mqpy.PMO(Options=CMQC.MQPMO_SYNCPOINT))
    qm.commit()
    for _ in range(4):
        q.get(None, mqpy.MD(), mqpy.GMO(Options=CMQC.MQGMO_SYNCPOINT))
    qm.commit()
    q.close()
    qm.disconnect()
    admin = attach(eng)
    acct = mqpy.Queue(admin, "SYSTEM.ADMIN.ACCOUNTING.QUEUE", CMQC.MQOO_INPUT_AS_Q_DEF)
    commands = {}
    while True:
        try:
            data = acct.get()
        except mqpy.MQMIError:
            break
        msg = pcf.parse(data)
        commands.setdefault(msg.header.Command, []).append(msg)
    mqi_msgs = commands.get(CMQCFC.MQCMD_ACCOUNTING_MQI, [])
    mine = [m for m in mqi_msgs if m.get(CMQCFC.MQIAMO_PUTS) == [2, 3]]
    assert mine, mqi_msgs
    assert mine[0].get(CMQCFC.MQIAMO_GETS) == [1, 3]
    assert mine[0].get(CMQCFC.MQIAMO_COMMITS) == 2
    assert CMQCFC.MQCMD_ACCOUNTING_Q in commands
    first.disconnect()
    inprocess.stop_all()
