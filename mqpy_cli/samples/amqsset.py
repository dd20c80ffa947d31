"""amqsset / amqssetc: the set server, started by a trigger monitor with an MQTMC2 (IBM's
sample AMQSSETA; amqssetc connects as a client).

    amqsset MQTMC2

Each request on the queue the trigger message names holds a queue name; the sample opens
that queue for set and inhibits puts to it (MQSET InhibitPut MQQA_PUT_INHIBITED), then
replies to the request's ReplyToQ. When the MQOPEN or the MQSET fails it sends a report
message instead, its Feedback the call's reason. It ends when no request has come for 5
seconds.

IBM documents the reply as a confirmation that puts are inhibited, not its wording: the
reply is mqpy's, in MQSC's names (``APP.Q: PUT(DISABLED)``).
"""

from __future__ import annotations

import mqpy
from mqpy import CMQC
from mqpy_cli.samples import entry_point
from mqpy_cli.samples.amqsinq import queue_name
from mqpy_cli.samples.triggered import Answer, serve


def _inhibit_puts(qm: mqpy.QueueManager, data: bytes) -> Answer:
    name = queue_name(data)
    try:
        q = mqpy.Queue(qm, name, CMQC.MQOO_SET | CMQC.MQOO_FAIL_IF_QUIESCING)
    except mqpy.MQMIError as e:
        return CMQC.MQMT_REPORT, b"", e.reason
    try:
        q.set(CMQC.MQIA_INHIBIT_PUT, CMQC.MQQA_PUT_INHIBITED)
    except mqpy.MQMIError as e:
        return CMQC.MQMT_REPORT, b"", e.reason
    finally:
        q.close()
    return CMQC.MQMT_REPLY, f"{name}: PUT(DISABLED)".encode(), CMQC.MQFB_NONE


def main(argv: list[str], client: bool = False) -> int:
    """Inhibit puts to the queue each request of the triggered queue names."""
    print("Sample AMQSSETA start", flush=True)
    rc = serve(argv, _inhibit_puts, client=client)
    if rc == 0:
        print("Sample AMQSSETA end")
    return rc


amqsset = entry_point(main)
amqssetc = entry_point(main, client=True)
