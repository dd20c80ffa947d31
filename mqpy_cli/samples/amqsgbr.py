"""amqsgbr / amqsgbrc: browse the messages of a queue, showing each one's number and data
(IBM's sample AMQSGBR0; amqsgbrc connects as a client).

    amqsgbr QUEUE [QMGR]

The messages stay on the queue. The queue's resolved name heads the list, padded to 48
characters as IBM's ``%-48.48s`` pads it; a message longer than IBM's 65535-byte buffer is
shown truncated, with ``  --- truncated``.
"""

from __future__ import annotations

import mqpy
from mqpy import CMQC
from mqpy_cli.samples import RC_MISSING_PARAMETER, close, connect, entry_point, open_queue

BUFFER_LENGTH = 65535  # IBM's buffer (65536 bytes, one kept for the terminator)


def _browse(q: mqpy.Queue) -> None:
    """Show every message, first to last, until none is left or a get fails."""
    shown = 0
    while True:
        md = mqpy.MD(Version=CMQC.MQMD_VERSION_2)
        gmo = mqpy.GMO(Version=CMQC.MQGMO_VERSION_2, MatchOptions=CMQC.MQMO_NONE,
                       Options=CMQC.MQGMO_NO_WAIT | CMQC.MQGMO_BROWSE_NEXT
                       | CMQC.MQGMO_ACCEPT_TRUNCATED_MSG)
        reason = CMQC.MQRC_NONE
        try:
            data = q.get(BUFFER_LENGTH, md, gmo)
        except mqpy.MQMIError as e:
            if e.comp == CMQC.MQCC_FAILED:
                print("no more messages" if e.reason == CMQC.MQRC_NO_MSG_AVAILABLE
                      else f"MQGET ended with reason code {e.reason}")
                return
            data, reason = e.message, e.reason
        if shown == 0:
            resolved = gmo.ResolvedQName.rstrip(b" \0").decode("latin-1")
            print(f"Messages for {resolved:<48.48}")
        shown += 1
        text = data.split(b"\0", 1)[0].decode("utf-8", "replace")  # C's %s ends at a NUL
        print(f"{shown} <{text}>", flush=True)
        if reason == CMQC.MQRC_TRUNCATED_MSG_ACCEPTED:
            print("  --- truncated")
        elif reason != CMQC.MQRC_NONE:
            print(f"MQGET ended with reason code {reason}")


def main(argv: list[str], client: bool = False) -> int:
    """Browse QUEUE, showing each message's data."""
    print("Sample AMQSGBR0 (browse) start", flush=True)
    if not argv:
        print("Required parameter missing - queue name")
        return RC_MISSING_PARAMETER
    qname, qmgr = argv[0], (argv[1] if len(argv) > 1 else "")
    print(qmgr)
    qm = connect(qmgr, "MQCONN ended with reason code {reason}", client=client)
    if isinstance(qm, int):
        return qm
    q = open_queue(qm, qname, CMQC.MQOO_BROWSE | CMQC.MQOO_FAIL_IF_QUIESCING, "input")
    if q is not None:
        _browse(q)
    close(qm, q)
    print("Sample AMQSGBR0 (browse) end")
    return 0


amqsgbr = entry_point(main)
amqsgbrc = entry_point(main, client=True)
