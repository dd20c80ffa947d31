"""Ask the command server about the queue manager and its queues with PCF.

Inquire Queue Manager with a list of attributes, Inquire Queue with the "responses" list (the
replies with their MQCFH, kept even when one reports an error), and an inquiry that fails.
The connection: MQ_QMGR (default QM1); MQ_CHANNEL, MQ_CONN_INFO, MQ_USER and MQ_PASSWORD for a
client connection; bindings mode without MQ_CHANNEL.
"""

import os

import ibmmq
from ibmmq import CMQC, CMQCFC

csp = ibmmq.CSP()
if os.environ.get("MQ_USER"):
    csp.CSPUserId = os.environ["MQ_USER"]
    csp.CSPPassword = os.environ.get("MQ_PASSWORD", "")
qmgr = ibmmq.connect(os.environ.get("MQ_QMGR", "QM1"), os.environ.get("MQ_CHANNEL"),
                     os.environ.get("MQ_CONN_INFO"), csp=csp)
pcf = ibmmq.PCFExecute(qmgr, response_wait_interval=10000)

(qm,) = pcf.MQCMD_INQUIRE_Q_MGR({CMQCFC.MQIACF_Q_MGR_ATTRS: [CMQC.MQCA_Q_MGR_NAME,
                                                            CMQC.MQIA_PLATFORM]})
print("Queue manager:", ibmmq.to_string(qm[CMQC.MQCA_Q_MGR_NAME]))
print("Platform is UNIX:", qm[CMQC.MQIA_PLATFORM] == CMQC.MQPL_UNIX)

request = [ibmmq.CFST(Parameter=CMQC.MQCA_Q_NAME, String="DEV.*"),
           ibmmq.CFIN(Parameter=CMQC.MQIA_Q_TYPE, Value=CMQC.MQQT_LOCAL),
           ibmmq.CFIL(Parameter=CMQCFC.MQIACF_Q_ATTRS,
                      Values=[CMQC.MQIA_CURRENT_Q_DEPTH, CMQC.MQIA_MAX_Q_DEPTH])]
responses = []
pcf.MQCMD_INQUIRE_Q(request, responses=responses)
for attrs, cfh in responses:
    print(f"Queue {ibmmq.to_string(attrs[CMQC.MQCA_Q_NAME])}: depth "
          f"{attrs[CMQC.MQIA_CURRENT_Q_DEPTH]} of {attrs[CMQC.MQIA_MAX_Q_DEPTH]}, "
          f"reason {ibmmq.CMQSTRC.MQRC_DICT[cfh.Reason]}")

try:
    pcf.MQCMD_INQUIRE_Q({CMQC.MQCA_Q_NAME: "NO.SUCH.QUEUE"})
except ibmmq.MQMIError as e:
    print("NO.SUCH.QUEUE:", ibmmq.CMQSTRC.MQRC_DICT[e.reason])

pcf.disconnect()
qmgr.disconnect()
