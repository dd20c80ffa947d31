"""amqsinq / amqsinqc: the inquire server, started by a trigger monitor with an MQTMC2
(IBM's sample AMQSINQA; amqsinqc connects as a client).

    amqsinq MQTMC2

Each request on the queue the trigger message names holds a queue name; the sample opens
that queue for inquire, MQINQs its InhibitGet, CurrentQDepth and OpenInputCount, and replies
to the request's ReplyToQ with the three values. When the MQOPEN or the MQINQ fails it
sends a report message instead, its Feedback the call's reason (amqsreq shows
``report with feedback = 2085`` for a queue that does not exist). It ends when no request
has come for 5 seconds.

IBM documents which attributes the reply holds, not its wording: the reply is mqpy's,
in MQSC's names (``APP.Q: GET(ENABLED) CURDEPTH(3) IPPROCS(0)``).
"""

from __future__ import annotations

import mqpy
from mqpy import CMQC
from mqpy_cli.samples import entry_point
from mqpy_cli.samples.triggered import Answer, serve

_GET = {CMQC.MQQA_GET_ALLOWED: "ENABLED", CMQC.MQQA_GET_INHIBITED: "DISABLED"}


def queue_name(data: bytes) -> str:
    """The queue a request names: its text up to the first blank, NUL or line end."""
    text = data.decode("latin-1").replace("\0", " ").strip()
    return text.split()[0] if text else ""


def _inquire(qm: mqpy.QueueManager, data: bytes) -> Answer:
    name = queue_name(data)
    try:
        q = mqpy.Queue(qm, name, CMQC.MQOO_INQUIRE | CMQC.MQOO_FAIL_IF_QUIESCING)
    except mqpy.MQMIError as e:
        return CMQC.MQMT_REPORT, b"", e.reason
    try:
        values = q.inquire([CMQC.MQIA_INHIBIT_GET, CMQC.MQIA_CURRENT_Q_DEPTH,
                            CMQC.MQIA_OPEN_INPUT_COUNT])
    except mqpy.MQMIError as e:
        return CMQC.MQMT_REPORT, b"", e.reason
    finally:
        q.close()
    get = _GET.get(values[CMQC.MQIA_INHIBIT_GET], str(values[CMQC.MQIA_INHIBIT_GET]))
    text = (f"{name}: GET({get}) CURDEPTH({values[CMQC.MQIA_CURRENT_Q_DEPTH]}) "
            f"IPPROCS({values[CMQC.MQIA_OPEN_INPUT_COUNT]})")
    return CMQC.MQMT_REPLY, text.encode(), CMQC.MQFB_NONE


def main(argv: list[str], client: bool = False) -> int:
    """Answer each request of the triggered queue with the attributes of the queue it names."""
    print("Sample AMQSINQA start", flush=True)
    rc = serve(argv, _inquire, client=client)
    if rc == 0:
        print("Sample AMQSINQA end")
    return rc


amqsinq = entry_point(main)
amqsinqc = entry_point(main, client=True)
