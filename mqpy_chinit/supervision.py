"""What the channel initiator's supervision needs to tell failures apart: the reasons that
mean its queue manager went (the ordinary end of the channel initiator), the MQ reasons of an
exception or exception group, and the FDC written for a failure nobody expected.
"""

from __future__ import annotations

import os
from typing import Any

import mqpy
from mqpy import CMQC, errorlog

#: the reasons that mean the queue manager went (killed, ending, or gone before MQCONN)
QMGR_GONE = (CMQC.MQRC_CONNECTION_BROKEN, CMQC.MQRC_Q_MGR_QUIESCING,
             CMQC.MQRC_Q_MGR_STOPPING, CMQC.MQRC_Q_MGR_NOT_AVAILABLE)


def qmgr_gone(exc: BaseException) -> bool:
    """Is ``exc`` an MQ error saying the queue manager went?"""
    return isinstance(exc, mqpy.MQMIError) and exc.reason in QMGR_GONE


def first_leaf(exc: BaseException) -> BaseException:
    """``exc``, or the first exception at the bottom of an exception group."""
    while isinstance(exc, BaseExceptionGroup) and exc.exceptions:
        exc = exc.exceptions[0]
    return exc


def split_qmgr_gone(exc: BaseException) -> tuple[BaseException | None, BaseException | None]:
    """``exc`` (or each leaf of an exception group) as (the MQ errors saying the queue
    manager went, everything else); either is None when there is none."""
    if isinstance(exc, BaseExceptionGroup):
        return exc.split(qmgr_gone)
    return (exc, None) if qmgr_gone(exc) else (None, exc)


def mq_reasons(exc: BaseException) -> list[int]:
    """The MQ reasons of an exception (or of every leaf of an exception group); [] if any
    leaf is not an MQ error."""
    if isinstance(exc, BaseExceptionGroup):
        found = [mq_reasons(e) for e in exc.exceptions]
        return [r for f in found for r in f] if all(found) else []
    return [exc.reason] if isinstance(exc, mqpy.MQMIError) else []


def record_failure(chinit: Any, probe: str, exc: BaseException,
                   component: str = "rrmRepositoryManager") -> str | None:
    """An FDC in ``chinit``'s queue-manager errors directory (next to the cluster cache);
    its file name, or None when there is no such directory or it cannot be written."""
    if not chinit.cluster_cache:
        return None
    directory = os.path.join(os.path.dirname(str(chinit.cluster_cache)), "errors")
    try:
        return errorlog.write_fdc(directory, probe, component, exc, qmgr=chinit.qmgr_name)
    except OSError:
        return None
