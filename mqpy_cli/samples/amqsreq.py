"""amqsreq / amqsreqc: put each line of standard input as a request with a reply-to queue,
then wait for the replies (IBM's sample AMQSREQ0; amqsreqc connects as a client).

    amqsreq QUEUE [QMGR [MODEL]]

A reply is shown as ``response <text>``; a report message (a server such as amqsinq
answering a request it could not serve) as ``  report with feedback = <n>``, IBM's line.
With MQSAMP_USER_ID set, the first line of standard input is the password.
The reply-to queue is a temporary dynamic queue made from MODEL (default
SYSTEM.DEFAULT.MODEL.QUEUE); replies are matched by CorrelId (the request's MsgId, as a
server copies it).
"""

from __future__ import annotations

import sys

import mqpy
from mqpy import CMQC
from mqpy_cli.samples import (
    RC_MISSING_PARAMETER,
    close,
    connect,
    credentials,
    entry_point,
    open_queue,
)

WAIT_MS = 15000  # IBM's sample waits 15 seconds for each reply


def _put_requests(out: mqpy.Queue, reply_name: str) -> list[bytes]:
    """Put each line of standard input as a request; their MsgIds."""
    sent = []
    for line in sys.stdin:
        text = line.rstrip("\n")
        if not text:
            break
        md = mqpy.MD(MsgType=CMQC.MQMT_REQUEST, Format=CMQC.MQFMT_STRING,
                     ReplyToQ=reply_name.encode(), Report=CMQC.MQRO_COPY_MSG_ID_TO_CORREL_ID)
        try:
            out.put(text.encode(), md)
        except mqpy.MQMIError as e:
            print(f"MQPUT ended with reason code {e.reason}")
            break
        sent.append(md.MsgId)
    return sent


def main(argv: list[str], client: bool = False) -> int:
    """Send each line of standard input to QUEUE as a request and print the replies."""
    print("Sample AMQSREQ0 start", flush=True)
    if not argv:
        print("Required parameter missing - queue name")
        return RC_MISSING_PARAMETER
    qname = argv[0]
    qmgr = argv[1] if len(argv) > 1 else ""
    model = argv[2] if len(argv) > 2 else "SYSTEM.DEFAULT.MODEL.QUEUE"
    user, password = credentials()
    qm = connect(qmgr, client=client, user=user, password=password)
    if isinstance(qm, int):
        return qm
    od = mqpy.OD(ObjectName=model.encode(), DynamicQName=b"AMQSREQ.*")
    replies = open_queue(qm, od, CMQC.MQOO_INPUT_EXCLUSIVE, "input")
    out = None
    if replies is not None:
        reply_name = od.ObjectName.rstrip(b" \0").decode()
        print(f"server queue is {qname}\nreplies to {reply_name}")
        out = open_queue(qm, qname, CMQC.MQOO_OUTPUT | CMQC.MQOO_FAIL_IF_QUIESCING, "output")
    if out is not None:
        for msgid in _put_requests(out, reply_name):
            gmo = mqpy.GMO(Options=CMQC.MQGMO_WAIT | CMQC.MQGMO_NO_SYNCPOINT
                           | CMQC.MQGMO_CONVERT, WaitInterval=WAIT_MS,
                           MatchOptions=CMQC.MQMO_MATCH_CORREL_ID)
            md = mqpy.MD(CorrelId=msgid)
            try:
                data = replies.get(None, md, gmo)
            except mqpy.MQMIError as e:
                print("no more replies" if e.reason == CMQC.MQRC_NO_MSG_AVAILABLE
                      else f"MQGET ended with reason code {e.reason}")
                break
            if md.MsgType == CMQC.MQMT_REPORT:
                print(f"  report with feedback = {md.Feedback}")
            else:
                print(f"response <{data.decode('utf-8', 'replace')}>", flush=True)
    close(qm, out, replies)
    print("Sample AMQSREQ0 end")
    return 0


amqsreq = entry_point(main)
amqsreqc = entry_point(main, client=True)
