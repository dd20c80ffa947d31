"""amqsput: put each line of standard input as a message on a queue (IBM's sample).

    python -m examples.amqsput QUEUE [QMGR]
"""

from __future__ import annotations

import sys

import mqpy
from mqpy import CMQC


def main(argv: list[str]) -> int:
    if not argv:
        print("Required parameter missing - queue name", file=sys.stderr)
        return 99
    qname, qmgr = argv[0], (argv[1] if len(argv) > 1 else "")
    print("Sample AMQSPUT0 start")
    try:
        qm = mqpy.connect(qmgr)
        q = mqpy.Queue(qm, qname, CMQC.MQOO_OUTPUT | CMQC.MQOO_FAIL_IF_QUIESCING)
    except mqpy.MQMIError as e:
        print(f"MQCONN/MQOPEN ended with reason code {e.reason}")
        return e.reason
    print(f"target queue is {qname}")
    for line in sys.stdin:
        text = line.rstrip("\n")
        if not text:
            break
        q.put(text.encode(), mqpy.MD(Format=CMQC.MQFMT_STRING))
    q.close()
    qm.disconnect()
    print("Sample AMQSPUT0 end")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
