"""A workload of usual and unusual MQPUT, MQGET, MQCMIT and MQBACK calls, for holding a fast
path's answers to the general path's: run it once each way and compare what it saw."""

from __future__ import annotations

from typing import Any

import mqpy
from mqpy import CMQC

__all__ = ["md_fields", "puts_and_gets"]

_RUN_DEPENDENT = {"MsgId", "PutDate", "PutTime"}
_NO_MSG = (CMQC.MQCC_FAILED, CMQC.MQRC_NO_MSG_AVAILABLE, None, None)


def md_fields(md: mqpy.MD) -> dict[str, Any]:
    """The MQMD's fields less those that differ from run to run (the ids, the time)."""
    return {k: v for k, v in md.__dict__.items() if k not in _RUN_DEPENDENT}


def puts_and_gets(qm: mqpy.QueueManager, queue: str, full: str, mds: list[mqpy.MD],
                  suffix: str = "") -> list[Any]:
    """Puts with each of ``mds``, puts that fail or go the long way, gets of many forms
    (truncated, by MsgId, in syncpoint), commits and backouts, on ``queue`` and ``full``
    (MAXDEPTH 1) through ``qm``: everything the application saw, a failure as (CompCode,
    Reason, original length, message), resolved queue names less ``suffix`` (the two runs
    use two queues)."""
    seen: list[Any] = []

    def call(fn: Any, *args: Any) -> None:
        try:
            seen.append(fn(*args))
        except mqpy.MQMIError as e:
            seen.append((e.comp, e.reason, getattr(e, "original_length", None),
                         getattr(e, "message", None)))

    def name(text: bytes) -> bytes:
        return text.rstrip().removesuffix(suffix.encode())

    q = mqpy.Queue(qm, queue, CMQC.MQOO_OUTPUT | CMQC.MQOO_INPUT_SHARED)
    filled = mqpy.Queue(qm, full, CMQC.MQOO_OUTPUT)
    for i, md in enumerate(mds):
        pmo = mqpy.PMO(Options=CMQC.MQPMO_SYNCPOINT if i % 2 else CMQC.MQPMO_NO_SYNCPOINT)
        call(q.put, b"m%d" % i, md, pmo)
        seen.append((md_fields(md), name(pmo.ResolvedQName)))
    call(q.put, b"no mqmd")
    call(q.put, b"long" * 20000, mqpy.MD(), mqpy.PMO())  # longer than a packed request
    call(q.put, b"bad", mqpy.MD(Version=99), mqpy.PMO())
    call(q.put, b"bad", mqpy.MD(Persistence=5), mqpy.PMO())
    call(filled.put, b"one", mqpy.MD(), mqpy.PMO())
    call(filled.put, b"two", mqpy.MD(), mqpy.PMO())
    call(qm.commit)
    for gmo, length in ((mqpy.GMO(Options=CMQC.MQGMO_SYNCPOINT), None),
                        (mqpy.GMO(), 2),
                        (mqpy.GMO(Options=CMQC.MQGMO_ACCEPT_TRUNCATED_MSG), 1),
                        (mqpy.GMO(Options=CMQC.MQGMO_SYNCPOINT), 0)):
        md = mqpy.MD()
        call(q.get, length, md, gmo)
        seen.append((md_fields(md), name(gmo.ResolvedQName), gmo.ReturnedLength))
    call(qm.backout)
    call(q.get, None, mqpy.MD(MsgId=b"M" * 24), mqpy.GMO())
    while seen[-1] != _NO_MSG:
        call(q.get, None, None, mqpy.GMO(Options=CMQC.MQGMO_SYNCPOINT))
    call(qm.commit)
    call(q.get)
    return seen


def md_forms() -> list[mqpy.MD]:
    """MQMDs of the forms a packed call must carry as the general path does: the defaults,
    persistence and priority, MsgId/CorrelId/Format, a version 1 with a reply-to queue and a
    report."""
    return [mqpy.MD(), mqpy.MD(Persistence=CMQC.MQPER_PERSISTENT, Priority=7),
            mqpy.MD(MsgId=b"M" * 24, CorrelId=b"C" * 24, Format=CMQC.MQFMT_STRING),
            mqpy.MD(Version=1, ReplyToQ="RQ", Report=CMQC.MQRO_COA)]
