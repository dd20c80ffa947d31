"""Browse the messages on a queue without removing them, then remove them.

Connects with QueueManager.connect_with_options: a CD and a CNO asking for a client binding
when MQ_CHANNEL and MQ_CONN_INFO are set, the credentials in a CSP when MQ_USER is; bindings
mode otherwise. MQ_QMGR (default QM1) and MQ_QUEUE (default DEV.QUEUE.1) name the queue.
"""

import os

import ibmmq
from ibmmq import CMQC, CMQXC

user = os.environ.get("MQ_USER")
csp = None
if user:
    csp = ibmmq.CSP()
    csp.CSPUserId = user
    csp.CSPPassword = os.environ.get("MQ_PASSWORD", "")

qmgr = ibmmq.QueueManager(None)
if os.environ.get("MQ_CHANNEL"):
    cd = ibmmq.CD()
    cd.ChannelName = os.environ["MQ_CHANNEL"]
    cd.ConnectionName = os.environ["MQ_CONN_INFO"]
    cd.ChannelType = CMQXC.MQCHT_CLNTCONN
    cd.TransportType = CMQXC.MQXPT_TCP
    cno = ibmmq.CNO(Options=CMQC.MQCNO_CLIENT_BINDING)
    qmgr.connect_with_options(os.environ.get("MQ_QMGR", "QM1"), cd=cd, cno=cno, csp=csp)
else:
    qmgr.connect_with_options(os.environ.get("MQ_QMGR", "QM1"), csp=csp)

od = ibmmq.OD()
od.ObjectName = os.environ.get("MQ_QUEUE", "DEV.QUEUE.1")
queue = ibmmq.Queue(qmgr, od, CMQC.MQOO_OUTPUT | CMQC.MQOO_BROWSE | CMQC.MQOO_INPUT_AS_Q_DEF
                    | CMQC.MQOO_INQUIRE)
for n in range(1, 4):
    queue.put(f"message {n}".encode("utf8"))

gmo = ibmmq.GMO()
gmo.Options = CMQC.MQGMO_BROWSE_FIRST | CMQC.MQGMO_NO_WAIT
browsed = 0
while True:
    try:
        md = ibmmq.MD()
        msg = queue.get(None, md, gmo)
    except ibmmq.MQMIError as e:
        if e.reason == CMQC.MQRC_NO_MSG_AVAILABLE:
            print("No more messages.")
            break
        raise
    browsed += 1
    print(f"Browsed {browsed}: {msg.decode('utf8')} (priority {md.Priority})")
    gmo.Options = CMQC.MQGMO_BROWSE_NEXT | CMQC.MQGMO_NO_WAIT

print("Current depth:", queue.inquire(CMQC.MQIA_CURRENT_Q_DEPTH))

removed = 0
while True:
    try:
        queue.get(None, ibmmq.MD(), ibmmq.GMO(Options=CMQC.MQGMO_NO_WAIT))
        removed += 1
    except ibmmq.MQMIError as e:
        if e.reason != CMQC.MQRC_NO_MSG_AVAILABLE:
            raise
        break
print("Removed:", removed)
queue.close()
qmgr.disconnect()
