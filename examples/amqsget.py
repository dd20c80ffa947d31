"""amqsget: get and print messages until none arrives for 15 seconds (IBM's sample).

    python -m examples.amqsget QUEUE [QMGR]
"""

from __future__ import annotations

import sys

import mqpy
from mqpy import CMQC

WAIT_MS = 15000  # IBM's sample waits 15 seconds for the next message


def main(argv: list[str]) -> int:
    if not argv:
        print("Required parameter missing - queue name", file=sys.stderr)
        return 99
    qname, qmgr = argv[0], (argv[1] if len(argv) > 1 else "")
    print("Sample AMQSGET0 start")
    qm = mqpy.connect(qmgr)
    q = mqpy.Queue(qm, qname, CMQC.MQOO_INPUT_AS_Q_DEF | CMQC.MQOO_FAIL_IF_QUIESCING)
    while True:
        gmo = mqpy.GMO(Options=CMQC.MQGMO_WAIT | CMQC.MQGMO_NO_SYNCPOINT
                       | CMQC.MQGMO_CONVERT, WaitInterval=WAIT_MS)
        try:
            data = q.get(None, mqpy.MD(), gmo)
        except mqpy.MQMIError as e:
            if e.reason == CMQC.MQRC_NO_MSG_AVAILABLE:
                print("no more messages")
                break
            print(f"MQGET ended with reason code {e.reason}")
            break
        print(f"message <{data.decode('utf-8', 'replace')}>")
    q.close()
    qm.disconnect()
    print("Sample AMQSGET0 end")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
