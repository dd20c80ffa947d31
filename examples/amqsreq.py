"""amqsreq: put request messages with a reply-to queue and wait for the replies (IBM's sample).

    python -m examples.amqsreq QUEUE [QMGR [REPLYTOQ]]
The replies are matched by CorrelId (the request's MsgId, as a server copies it).
"""

from __future__ import annotations

import sys

import mqpy
from mqpy import CMQC


def main(argv: list[str]) -> int:
    if not argv:
        print("Required parameter missing - queue name", file=sys.stderr)
        return 99
    qname = argv[0]
    qmgr = argv[1] if len(argv) > 1 else ""
    model = argv[2] if len(argv) > 2 else "SYSTEM.DEFAULT.MODEL.QUEUE"
    print("Sample AMQSREQ0 start")
    qm = mqpy.connect(qmgr)
    od = mqpy.OD(ObjectName=model.encode(), DynamicQName=b"AMQSREQ.*")
    replies = mqpy.Queue(qm, od, CMQC.MQOO_INPUT_EXCLUSIVE)
    reply_name = od.ObjectName.rstrip(b" \0").decode()
    print(f"server queue is {qname}\nreplies to {reply_name}")
    out = mqpy.Queue(qm, qname, CMQC.MQOO_OUTPUT)
    sent = []
    for line in sys.stdin:
        text = line.rstrip("\n")
        if not text:
            break
        md = mqpy.MD(MsgType=CMQC.MQMT_REQUEST, Format=CMQC.MQFMT_STRING,
                     ReplyToQ=reply_name.encode(), Report=CMQC.MQRO_COPY_MSG_ID_TO_CORREL_ID)
        out.put(text.encode(), md)
        sent.append(md.MsgId)
    for msgid in sent:
        gmo = mqpy.GMO(Options=CMQC.MQGMO_WAIT | CMQC.MQGMO_NO_SYNCPOINT, WaitInterval=15000,
                       MatchOptions=CMQC.MQMO_MATCH_CORREL_ID)
        try:
            data = replies.get(None, mqpy.MD(CorrelId=msgid), gmo)
            print(f"response <{data.decode('utf-8', 'replace')}>")
        except mqpy.MQMIError as e:
            print(f"no response (reason {e.reason})")
    out.close()
    replies.close()
    qm.disconnect()
    print("Sample AMQSREQ0 end")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
