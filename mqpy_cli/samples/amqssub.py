"""amqssub / amqssubc: subscribe to a topic string and print each publication until none
arrives for 30 seconds (IBM's sample AMQSSUBA; amqssubc connects as a client).

    amqssub TOPIC_STRING [QMGR [SUBSCRIPTION_OPTIONS]]

The subscription is non-durable with a managed destination (MQSO_CREATE |
MQSO_NON_DURABLE | MQSO_FAIL_IF_QUIESCING | MQSO_MANAGED) unless SUBSCRIPTION_OPTIONS gives
the MQSD's Options. A publication longer than IBM's 1023-byte buffer ends the sample with
MQGET's 2080, as IBM's does. With MQSAMP_USER_ID set, the password is read from standard
input.
"""

from __future__ import annotations

import mqpy
from mqpy import CMQC
from mqpy_cli.samples import (
    close,
    entry_point,
    option_argument,
    target_and_connection,
)

WAIT_MS = 30000  # IBM's sample waits 30 seconds for the next publication
BUFFER_LENGTH = 1023  # IBM's buffer (1024 bytes, one kept for the terminator)
_SUB_OPTIONS = CMQC.MQSO_CREATE | CMQC.MQSO_NON_DURABLE | CMQC.MQSO_FAIL_IF_QUIESCING \
    | CMQC.MQSO_MANAGED


def _subscribe(qm: mqpy.QueueManager, topic: str, options: int) -> mqpy.Subscription | None:
    """MQSUB of ``topic``; None after IBM's two lines when it fails."""
    sd = mqpy.SD(Options=options)
    sd.set_vs("ObjectString", topic)
    sub = mqpy.Subscription(qm)
    try:
        sub.sub(sub_desc=sd)
    except mqpy.MQMIError as e:
        print(f"MQSUB ended with reason code {e.reason}")
        print("unable to subscribe to topic", flush=True)
        return None
    return sub


def _print_publications(sub: mqpy.Subscription) -> None:
    """Get and print publications until none arrives in WAIT_MS or a get fails."""
    while True:
        gmo = mqpy.GMO(Options=CMQC.MQGMO_WAIT | CMQC.MQGMO_NO_SYNCPOINT
                       | CMQC.MQGMO_CONVERT | CMQC.MQGMO_NO_PROPERTIES,
                       WaitInterval=WAIT_MS)
        print(f"Calling MQGET : {WAIT_MS // 1000} seconds wait time", flush=True)
        try:
            data = sub.get(BUFFER_LENGTH, mqpy.MD(), gmo)
        except mqpy.MQMIError as e:
            if e.reason == CMQC.MQRC_NO_MSG_AVAILABLE:
                print("no more messages")
            else:
                print(f"MQGET ended with reason code {e.reason}")
            return
        print(f"message <{data.decode('utf-8', 'replace')}>", flush=True)


def main(argv: list[str], client: bool = False) -> int:
    """Subscribe to TOPIC_STRING and print its publications."""
    print("Sample AMQSSUBA start", flush=True)
    target = target_and_connection(argv, what="topic string", client=client)
    if isinstance(target, int):
        return target
    topic, qm = target
    sub = _subscribe(qm, topic, option_argument(argv, 2, "MQSUB SD.Options are", _SUB_OPTIONS))
    if sub is not None:
        _print_publications(sub)
        try:
            sub.close(CMQC.MQCO_NONE)
        except mqpy.MQMIError as e:
            print(f"MQCLOSE ended with reason code {e.reason}")
    close(qm, sub.get_sub_queue() if sub is not None else None)
    print("Sample AMQSSUBA end")
    return 0


amqssub = entry_point(main)
amqssubc = entry_point(main, client=True)
