"""amqsech / amqsechc: the echo server, started by a trigger monitor with an MQTMC2 (IBM's
sample AMQSECHA; amqsechc connects as a client).

    amqsech MQTMC2

It gets each request from the queue the trigger message names and puts its data back, as a
reply, on the request's ReplyToQ; it ends when no request has come for 5 seconds. As IBM's,
a request longer than its 99-byte buffer is echoed truncated (MQGET's 2079 shown).
"""

from __future__ import annotations

import mqpy
from mqpy import CMQC
from mqpy_cli.samples import entry_point
from mqpy_cli.samples.triggered import Answer, serve

BUFFER_LENGTH = 99  # IBM's buffer (100 bytes, one kept for the terminator)


def _echo(qm: mqpy.QueueManager, data: bytes) -> Answer:
    return CMQC.MQMT_REPLY, data, CMQC.MQFB_NONE


def main(argv: list[str], client: bool = False) -> int:
    """Echo the requests of the triggered queue to their reply-to queues."""
    print("Sample AMQSECHA start", flush=True)
    rc = serve(argv, _echo, BUFFER_LENGTH, client=client)
    if rc == 0:
        print("Sample AMQSECHA end")
    return rc


amqsech = entry_point(main)
amqsechc = entry_point(main, client=True)
