"""Put a message on a queue, then get that message back by its message id.

MQCONN(X), MQOPEN, MQPUT, MQGET, MQCLOSE and MQDISC with the ibmmq package. The connection
comes from the environment: MQ_QMGR (default QM1) and MQ_QUEUE (default DEV.QUEUE.1); for a
client connection MQ_CHANNEL and MQ_CONN_INFO ("host(port)"), with MQ_USER and MQ_PASSWORD
when the channel asks for them. Without MQ_CHANNEL the program connects in bindings mode.
"""

import os

import ibmmq
from ibmmq import CMQC

qmgr = ibmmq.connect(os.environ.get("MQ_QMGR", "QM1"), os.environ.get("MQ_CHANNEL"),
                     os.environ.get("MQ_CONN_INFO"), os.environ.get("MQ_USER"),
                     os.environ.get("MQ_PASSWORD"))
queue = ibmmq.Queue(qmgr, os.environ.get("MQ_QUEUE", "DEV.QUEUE.1"),
                    CMQC.MQOO_OUTPUT | CMQC.MQOO_INPUT_AS_Q_DEF)

# A str body is sent as text: the MQMD's Format becomes MQSTR
put_md = ibmmq.MD()
pmo = ibmmq.PMO(Options=CMQC.MQPMO_NO_SYNCPOINT | CMQC.MQPMO_NEW_MSG_ID)
queue.put("Hello from an ibmmq program", put_md, pmo)
print("Put a message, MsgId set by the queue manager:", put_md.MsgId != CMQC.MQMI_NONE)

# Get exactly that message, waiting up to five seconds for it
get_md = ibmmq.MD(MsgId=put_md.MsgId)
gmo = ibmmq.GMO(Options=CMQC.MQGMO_WAIT | CMQC.MQGMO_NO_SYNCPOINT | CMQC.MQGMO_CONVERT,
                WaitInterval=5000, MatchOptions=CMQC.MQMO_MATCH_MSG_ID)
gmo.Version = CMQC.MQGMO_VERSION_2
body = queue.get(None, get_md, gmo)
print("Got:", body.decode("utf8"))
print("Format:", ibmmq.to_string(get_md.Format))

queue.close()
qmgr.disconnect()
print("Done.")
