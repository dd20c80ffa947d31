"""Units of work: MQBEGIN, then puts and gets under syncpoint, backed out and committed.

A local (bindings) connection's MQBEGIN answers MQRC_NO_EXTERNAL_PARTICIPANTS when no other
resource manager takes part; a client connection cannot issue MQBEGIN, and its unit of work
starts with the first call under syncpoint. The connection: MQ_QMGR (default QM1), MQ_QUEUE
(default DEV.QUEUE.1); MQ_CHANNEL, MQ_CONN_INFO, MQ_USER, MQ_PASSWORD for a client.
"""

import os

import ibmmq
from ibmmq import CMQC

qmgr = ibmmq.QueueManager(None)
if os.environ.get("MQ_CHANNEL"):
    cd = ibmmq.CD(ChannelName=os.environ["MQ_CHANNEL"],
                  ConnectionName=os.environ["MQ_CONN_INFO"])
    qmgr.connectWithOptions(os.environ.get("MQ_QMGR", "QM1"), cd=cd,
                            user=os.environ.get("MQ_USER"),
                            password=os.environ.get("MQ_PASSWORD"))
else:
    qmgr.connectWithOptions(os.environ.get("MQ_QMGR", "QM1"))

try:
    qmgr.begin()
except ibmmq.MQMIError as e:
    if e.reason == CMQC.MQRC_NO_EXTERNAL_PARTICIPANTS:
        print("MQBEGIN: only MQ resources take part in the unit of work")
    elif e.reason == CMQC.MQRC_ENVIRONMENT_ERROR:
        print("MQBEGIN is not available to a client: the first syncpoint call starts the unit")
    else:
        raise

queue = ibmmq.Queue(qmgr, os.environ.get("MQ_QUEUE", "DEV.QUEUE.1"),
                    CMQC.MQOO_OUTPUT | CMQC.MQOO_INPUT_AS_Q_DEF)
in_unit = ibmmq.PMO(Options=CMQC.MQPMO_SYNCPOINT)
queue.put(b"first, backed out", ibmmq.MD(), in_unit)
qmgr.backout()
try:
    queue.get(None, ibmmq.MD(), ibmmq.GMO(Options=CMQC.MQGMO_NO_WAIT))
except ibmmq.MQMIError as e:
    print("After backout:", ibmmq.CMQSTRC.MQRC_DICT[e.reason])

queue.put(b"second, committed", ibmmq.MD(), ibmmq.PMO(Options=CMQC.MQPMO_SYNCPOINT))
qmgr.commit()
gmo = ibmmq.GMO(Options=CMQC.MQGMO_NO_WAIT | CMQC.MQGMO_SYNCPOINT)
print("After commit:", queue.get(None, ibmmq.MD(), gmo).decode("utf8"))
qmgr.commit()
queue.close()
qmgr.disconnect()
