"""amqspub / amqspubc: publish each line of standard input on a topic string until an empty
line or the end of the input (IBM's sample AMQSPUBA; amqspubc connects as a client).

    amqspub TOPIC_STRING [QMGR [PUBLISH_OPTIONS]]

The put-message options default to MQPMO_FAIL_IF_QUIESCING | MQPMO_NO_SYNCPOINT; each line
is an MQSTR publication. With MQSAMP_USER_ID set, the first line of standard input is the
password.
"""

from __future__ import annotations

import sys

import mqpy
from mqpy import CMQC
from mqpy_cli.samples import (
    RC_MISSING_PARAMETER,
    close,
    entry_point,
    open_queue,
    option_argument,
    target_and_connection,
)

_PUBLISH_OPTIONS = CMQC.MQPMO_FAIL_IF_QUIESCING | CMQC.MQPMO_NO_SYNCPOINT


def topic_od(topic_string: str) -> mqpy.OD:
    """The MQOD (version 4) of a topic string."""
    od = mqpy.OD(ObjectType=CMQC.MQOT_TOPIC, Version=CMQC.MQOD_VERSION_4)
    od.set_vs("ObjectString", topic_string)
    return od


def main(argv: list[str], client: bool = False) -> int:
    """Publish each line of standard input on TOPIC_STRING."""
    print("Sample AMQSPUBA start", flush=True)
    if not argv:
        print("Required parameter missing - topic string")
        return RC_MISSING_PARAMETER
    pmo = mqpy.PMO(Options=option_argument(argv, 2, "publish options are", _PUBLISH_OPTIONS))
    target = target_and_connection(argv, what="topic string", client=client)
    if isinstance(target, int):
        return target
    topic, qm = target
    print(f"target topic is {topic}")
    hobj = open_queue(qm, topic_od(topic), CMQC.MQOO_OUTPUT | CMQC.MQOO_FAIL_IF_QUIESCING,
                      "publish options are", kind="topic")
    if hobj is not None:
        for line in sys.stdin:
            text = line.rstrip("\n")
            if not text:
                break
            try:
                hobj.put(text.encode(), mqpy.MD(Format=CMQC.MQFMT_STRING), pmo)
            except mqpy.MQMIError as e:
                print(f"MQPUT ended with reason code {e.reason}", flush=True)
                if e.comp == CMQC.MQCC_FAILED:
                    break
    close(qm, hobj)
    print("Sample AMQSPUBA end")
    return 0


amqspub = entry_point(main)
amqspubc = entry_point(main, client=True)
