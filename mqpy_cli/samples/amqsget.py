"""amqsget / amqsgetc: get and print messages until none arrives for 15 seconds (IBM's
sample AMQSGET0; amqsgetc connects as a client).

    amqsget QUEUE [QMGR [OPEN_OPTIONS [CLOSE_OPTIONS]]]

The open options default to MQOO_INPUT_AS_Q_DEF | MQOO_FAIL_IF_QUIESCING (8193). With
MQSAMP_USER_ID set, the password is read from standard input.
"""

from __future__ import annotations

import mqpy
from mqpy import CMQC
from mqpy_cli.samples import (
    close,
    entry_point,
    open_queue,
    option_argument,
    target_and_connection,
)

WAIT_MS = 15000  # IBM's sample waits 15 seconds for the next message
_OPEN_OPTIONS = CMQC.MQOO_INPUT_AS_Q_DEF | CMQC.MQOO_FAIL_IF_QUIESCING


def main(argv: list[str], client: bool = False) -> int:
    """Get and print the messages of QUEUE."""
    print("Sample AMQSGET0 start", flush=True)
    target = target_and_connection(argv, client=client)
    if isinstance(target, int):
        return target
    qname, qm = target
    q = open_queue(qm, qname, option_argument(argv, 2, "open  options are", _OPEN_OPTIONS), "input")
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
        print(f"message <{data.decode('utf-8', 'replace')}>", flush=True)
    close(qm, q, options=option_argument(argv, 3, "close options are", CMQC.MQCO_NONE)
          if q is not None else CMQC.MQCO_NONE)
    print("Sample AMQSGET0 end")
    return 0


amqsget = entry_point(main)
amqsgetc = entry_point(main, client=True)
