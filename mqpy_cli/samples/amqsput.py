"""amqsput: put each line of standard input as a message on a queue, until an empty line or
the end of the input (IBM's sample AMQSPUT0).

    amqsput QUEUE [QMGR]
"""

from __future__ import annotations

import sys

import mqpy
from mqpy import CMQC
from mqpy_cli.samples import close, entry_point, open_queue, queue_and_connection


def main(argv: list[str]) -> int:
    """Put each line of standard input on QUEUE."""
    print("Sample AMQSPUT0 start")
    target = queue_and_connection(argv)
    if isinstance(target, int):
        return target
    qname, qm = target
    print(f"target queue is {qname}")
    q = open_queue(qm, qname, CMQC.MQOO_OUTPUT | CMQC.MQOO_FAIL_IF_QUIESCING, "output")
    if q is not None:
        for line in sys.stdin:
            text = line.rstrip("\n")
            if not text:
                break
            try:
                q.put(text.encode(), mqpy.MD(Format=CMQC.MQFMT_STRING))
            except mqpy.MQMIError as e:
                print(f"MQPUT ended with reason code {e.reason}")
                if e.comp == CMQC.MQCC_FAILED:
                    break
    close(qm, q)
    print("Sample AMQSPUT0 end")
    return 0


amqsput = entry_point(main)
