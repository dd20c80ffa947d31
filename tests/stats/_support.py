"""Helpers: drive a workload, read a queue's messages back as parsed PCF; FIXTURE, a recorded
statistics and accounting capture from IBM MQ (in the shared fixtures, when present)."""

from __future__ import annotations

import os

import mqpy
from mqpy import CMQC, pcf


def put(qm, queue: str, n: int, size: int, persistent: bool) -> None:
    q = mqpy.Queue(qm, queue)
    for _ in range(n):
        md = mqpy.MD(Persistence=CMQC.MQPER_PERSISTENT if persistent
                     else CMQC.MQPER_NOT_PERSISTENT)
        q.put(b"x" * size, md)
    q.close()


def get(qm, queue: str, n: int) -> None:
    q = mqpy.Queue(qm, queue, CMQC.MQOO_INPUT_SHARED)
    for _ in range(n):
        q.get(None, mqpy.MD(), mqpy.GMO(Options=CMQC.MQGMO_SYNCPOINT))
    qm.commit()
    q.close()


def drain(qm, queue: str) -> list[tuple[bytes, pcf.PCFMessage]]:
    q = mqpy.Queue(qm, queue, CMQC.MQOO_INPUT_SHARED)
    out = []
    while True:
        md = mqpy.MD()
        try:
            data = q.get(None, md, mqpy.GMO(Options=CMQC.MQGMO_NO_SYNCPOINT))
        except mqpy.MQMIError as e:
            assert e.reason == CMQC.MQRC_NO_MSG_AVAILABLE
            break
        assert md.Format == CMQC.MQFMT_ADMIN
        out.append((bytes(md.MsgId), pcf.parse(data)))
    q.close()
    return out


FIXTURE = os.path.join(os.path.dirname(__file__), "..", "..", "..", "shared", "fixtures",
                       "statistics_q.dat")
