"""Put messages without waiting for the queue manager, then ask it how they went (MQSTAT).

MQPMO_ASYNC_RESPONSE makes each MQPUT return at once; the queue manager counts what
succeeded and failed and keeps the first error, which MQSTAT(MQSTAT_TYPE_ASYNC_ERROR) returns
in an MQSTS. The connection comes from the environment as in put_get.py.
"""

import os

import ibmmq
from ibmmq import CMQC

qmgr = ibmmq.connect(os.environ.get("MQ_QMGR", "QM1"), os.environ.get("MQ_CHANNEL"),
                     os.environ.get("MQ_CONN_INFO"), os.environ.get("MQ_USER"),
                     os.environ.get("MQ_PASSWORD"))
queue = ibmmq.Queue(qmgr, os.environ.get("MQ_QUEUE", "DEV.QUEUE.1"),
                    CMQC.MQOO_OUTPUT | CMQC.MQOO_INPUT_AS_Q_DEF)

pmo = ibmmq.PMO(Options=CMQC.MQPMO_NO_SYNCPOINT | CMQC.MQPMO_ASYNC_RESPONSE)
for n in range(1, 4):
    md = ibmmq.MD()
    queue.put(f"asynchronous {n}", md, pmo)
    print(f"Put {n} returned, MsgId made before the queue manager answered:",
          md.MsgId != CMQC.MQMI_NONE)

sts = qmgr.stat(CMQC.MQSTAT_TYPE_ASYNC_ERROR)
print("MQSTAT: succeeded", sts.PutSuccessCount, "warnings", sts.PutWarningCount,
      "failed", sts.PutFailureCount, "reason", ibmmq.MQMIError(sts.CompCode, sts.Reason)
      .error_as_string() if sts.Reason else "MQRC_NONE")

gmo = ibmmq.GMO(Options=CMQC.MQGMO_NO_SYNCPOINT | CMQC.MQGMO_WAIT, WaitInterval=5000)
got = [queue.get(None, ibmmq.MD(), gmo).decode("utf8") for _ in range(3)]
print("Got:", ", ".join(got))

queue.close()
qmgr.disconnect()
