"""amqsput / amqsputc: put each line of standard input on a queue until an empty line or
the end of the input (IBM's sample AMQSPUT0; amqsputc connects as a client).

    amqsput QUEUE [QMGR [OPEN_OPTIONS [CLOSE_OPTIONS [TARGET_QMGR [DYNAMIC_QUEUE]]]]]

The open options default to MQOO_OUTPUT | MQOO_FAIL_IF_QUIESCING (8208), the close options
to MQCO_NONE; TARGET_QMGR and DYNAMIC_QUEUE fill the MQOD's ObjectQMgrName and
DynamicQName. With MQSAMP_USER_ID set, the first line of standard input is the password.
"""

from __future__ import annotations

import sys

import mqpy
from mqpy import CMQC
from mqpy_cli.samples import (
    close,
    entry_point,
    open_queue,
    option_argument,
    target_and_connection,
)

_OPEN_OPTIONS = CMQC.MQOO_OUTPUT | CMQC.MQOO_FAIL_IF_QUIESCING


def _target(argv: list[str], qname: str) -> mqpy.OD:
    """The MQOD of QUEUE, with the target queue manager and dynamic queue name when given
    (IBM's lines for each)."""
    od = mqpy.OD(ObjectName=qname.encode())
    print(f"target queue is {qname}")
    if len(argv) > 4:
        od.ObjectQMgrName = argv[4].encode()
        print(f"target queue manager is {argv[4]}")
    if len(argv) > 5:
        od.DynamicQName = argv[5].encode()
        print(f"dynamic queue name is {argv[5]}")
    return od


def main(argv: list[str], client: bool = False) -> int:
    """Put each line of standard input on QUEUE."""
    print("Sample AMQSPUT0 start", flush=True)
    target = target_and_connection(argv, client=client)
    if isinstance(target, int):
        return target
    qname, qm = target
    od = _target(argv, qname)
    q = open_queue(qm, od, option_argument(argv, 2, "open  options are", _OPEN_OPTIONS), "output")
    pmo = mqpy.PMO(Options=CMQC.MQPMO_NO_SYNCPOINT | CMQC.MQPMO_FAIL_IF_QUIESCING)
    if q is not None:
        for line in sys.stdin:
            text = line.rstrip("\n")
            if not text:
                break
            try:
                q.put(text.encode(), mqpy.MD(Format=CMQC.MQFMT_STRING), pmo)
            except mqpy.MQMIError as e:
                print(f"MQPUT ended with reason code {e.reason}")
                if e.comp == CMQC.MQCC_FAILED:
                    break
    close(qm, q, options=option_argument(argv, 3, "close options are", CMQC.MQCO_NONE)
          if q is not None else CMQC.MQCO_NONE)
    print("Sample AMQSPUT0 end")
    return 0


amqsput = entry_point(main)
amqsputc = entry_point(main, client=True)
