"""amqsget: get and print messages until none arrives for 15 seconds (IBM's sample
AMQSGET0).

    amqsget QUEUE [QMGR]
"""

from __future__ import annotations

import mqpy
from mqpy import CMQC
from mqpy_cli.samples import close, entry_point, open_queue, queue_and_connection

WAIT_MS = 15000  # IBM's sample waits 15 seconds for the next message


def main(argv: list[str]) -> int:
    """Get and print the messages of QUEUE."""
    print("Sample AMQSGET0 start")
    target = queue_and_connection(argv)
    if isinstance(target, int):
        return target
    qname, qm = target
    q = open_queue(qm, qname, CMQC.MQOO_INPUT_AS_Q_DEF | CMQC.MQOO_FAIL_IF_QUIESCING, "input")
    while q is not None:
        gmo = mqpy.GMO(Options=CMQC.MQGMO_WAIT | CMQC.MQGMO_NO_SYNCPOINT
                       | CMQC.MQGMO_CONVERT, WaitInterval=WAIT_MS)
        try:
            data = q.get(None, mqpy.MD(), gmo)
        except mqpy.MQMIError as e:
            if e.reason == CMQC.MQRC_NO_MSG_AVAILABLE:
                print("no more messages")
            else:
                print(f"MQGET ended with reason code {e.reason}")
            break
        print(f"message <{data.decode('utf-8', 'replace')}>")
    close(qm, q)
    print("Sample AMQSGET0 end")
    return 0


amqsget = entry_point(main)
