"""A connection's asynchronous put status and MQSTAT (:class:`StatCalls`).

An MQPUT or MQPUT1 with MQPMO_ASYNC_RESPONSE, or with MQPMO_RESPONSE_AS_Q_DEF on a queue
whose DEFPRESP is ASYNC (the attribute of the object the application named: an alias or a
remote queue definition keeps its own, a cluster queue its advertised one), completes with
MQCC_OK whatever happens to it: the queue manager counts it as a success, a warning or a
failure (:class:`PutStatus`) and keeps the first error's reason and object, a failure
replacing a first warning. MQSTAT with MQSTAT_TYPE_ASYNC_ERROR returns them and starts the
counts again. A failed asynchronous put in syncpoint spoils the unit of work: MQCMIT backs
it out and fails with MQRC_BACKED_OUT (``uow.SyncpointCalls.commit``).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import attrs

from mqpy import CMQC
from mqpy.engine.callcounts import counted
from mqpy.engine.options import _fail
from mqpy.errors import MQMIError
from mqpy.structs.tables import OD, PMO, STS

__all__ = ["PutStatus", "StatCalls", "is_async", "object_type"]

_OK, _WARNING, _FAILED = CMQC.MQCC_OK, CMQC.MQCC_WARNING, CMQC.MQCC_FAILED
_PMO_ASYNC = CMQC.MQPMO_ASYNC_RESPONSE
_PMO_SYNC = CMQC.MQPMO_SYNC_RESPONSE
_PMO_RESPONSE = _PMO_ASYNC | _PMO_SYNC
_PMO_SYNCPOINT = CMQC.MQPMO_SYNCPOINT
_RECONNECTION_TYPES = (CMQC.MQSTAT_TYPE_RECONNECTION, CMQC.MQSTAT_TYPE_RECONNECTION_ERROR)
#: an object definition's type as MQSTS ObjectType gives it
_OBJECT_TYPES = {"QLOCAL": CMQC.MQOT_LOCAL_Q, "QALIAS": CMQC.MQOT_ALIAS_Q,
                 "QREMOTE": CMQC.MQOT_REMOTE_Q, "QMODEL": CMQC.MQOT_MODEL_Q}


@attrs.define
class PutStatus:
    """The asynchronous puts of a connection since its MQCONN or its last MQSTAT."""

    successes: int = 0
    warnings: int = 0
    failures: int = 0
    comp: int = _OK  #: the first error's (a failure replaces a first warning)
    reason: int = CMQC.MQRC_NONE
    object_type: int = CMQC.MQOT_Q
    object_name: bytes = b""
    object_qmgr: bytes = b""
    resolved_name: bytes = b""
    resolved_qmgr: bytes = b""
    #: a failed asynchronous put in syncpoint: the unit of work can only be backed out
    spoiled: bool = False

    def record(self, comp: int, reason: int, where: tuple[int, bytes, bytes, bytes, bytes]
               ) -> None:
        """Count one asynchronous put's outcome; keep it if it is the first error."""
        if comp == _OK:
            self.successes += 1
            return
        if comp == _WARNING:
            self.warnings += 1
        else:
            self.failures += 1
        if self.comp == _OK or (self.comp == _WARNING and comp == _FAILED):
            self.comp, self.reason = comp, reason
            (self.object_type, self.object_name, self.object_qmgr, self.resolved_name,
             self.resolved_qmgr) = where

    def fill(self, sts: STS) -> None:
        """Give ``sts`` the counts and the first error (the MQSTAT reply)."""
        sts.set(CompCode=self.comp, Reason=self.reason, PutSuccessCount=self.successes,
                PutWarningCount=self.warnings, PutFailureCount=self.failures,
                ObjectType=self.object_type, ObjectName=self.object_name,
                ObjectQMgrName=self.object_qmgr, ResolvedObjectName=self.resolved_name,
                ResolvedQMgrName=self.resolved_qmgr)

    def reset(self) -> None:
        """A successful MQSTAT starts the counts and the first error again (not ``spoiled``:
        that belongs to the unit of work)."""
        spoiled = self.spoiled
        self.__init__()  # type: ignore[misc]
        self.spoiled = spoiled


def is_async(options: int, defpresp: Any) -> bool:
    """Whether a put with MQPMO ``options`` is asynchronous on an object whose DEFPRESP is
    ``defpresp``; both response options at once is the put's MQRC_OPTIONS_ERROR, which the
    synchronous path gives."""
    response = options & _PMO_RESPONSE
    if response:
        return response == _PMO_ASYNC
    return defpresp == "ASYNC"


def object_type(objtype: str) -> int:
    """MQSTS ObjectType of an object definition's type (MQOT_Q for a cluster queue)."""
    return _OBJECT_TYPES.get(objtype, CMQC.MQOT_Q)


def _name(value: Any) -> bytes:
    if isinstance(value, str):
        value = value.encode("latin-1", "replace")
    return bytes(value).rstrip(b" \x00")


class StatCalls:
    """MQSTAT, and the asynchronous put of a :class:`~mqpy.engine.connection.Connection`."""

    put_status: PutStatus

    def put_asynchronously(self, pmo: PMO, where: Callable[[], tuple[int, bytes, bytes,
                                                                          bytes, bytes]],
                           put: Callable[[], int]) -> int:
        """Make ``put`` (the synchronous MQPUT / MQPUT1) as an asynchronous one: its outcome
        counted, the call completes with MQCC_OK (returns 0). ``where``: the object for a
        first error (type, name, queue manager, resolved name and queue manager)."""
        status = self.put_status
        try:
            warning = put()
        except MQMIError as e:
            status.record(e.comp, e.reason, where())
            if e.comp == _FAILED and pmo.Options & _PMO_SYNCPOINT:
                status.spoiled = True
            return 0
        if warning:
            status.record(_WARNING, warning, where())
        else:
            status.successes += 1
        return 0

    def where_handle(self, hobj: int) -> tuple[int, bytes, bytes, bytes, bytes]:
        """The MQSTS object of a put on ``hobj`` (blanks when it is not an open queue)."""
        h = getattr(self, "handles", {}).get(hobj)
        if h is None:
            return CMQC.MQOT_Q, b"", b"", b"", b""
        resolved = h.resolved or self._resolved(h)  # type: ignore[attr-defined]
        return (object_type(h.obj.objtype), _name(h.obj.name), _name(h.remote_qm or b""),
                _name(resolved[0]), _name(resolved[1]))

    @staticmethod
    def where_od(od: OD, pmo: PMO) -> tuple[int, bytes, bytes, bytes, bytes]:
        """The MQSTS object of an MQPUT1 (as its MQOD named it, resolved as its MQPMO says)."""
        return (od.ObjectType, _name(od.ObjectName), _name(od.ObjectQMgrName),
                _name(pmo.ResolvedQName), _name(pmo.ResolvedQMgrName))

    @counted("stats", "stat_fails")
    def stat(self, status_type: int, sts: STS | None = None) -> STS:
        """MQSTAT: MQSTAT_TYPE_ASYNC_ERROR fills ``sts`` (a new MQSTS if None) with the
        asynchronous puts since the last MQSTAT and starts them again. The reconnection
        types are for client connections only: MQRC_ENVIRONMENT_ERROR here (a client
        connection answers them itself); another type is MQRC_STAT_TYPE_ERROR."""
        self.check_usable()  # type: ignore[attr-defined]
        sts = STS() if sts is None else sts
        if sts.StrucId != CMQC.MQSTS_STRUC_ID or sts.Version not in (
                CMQC.MQSTS_VERSION_1, CMQC.MQSTS_VERSION_2):
            raise _fail(CMQC.MQRC_STS_ERROR)
        if status_type in _RECONNECTION_TYPES:
            raise _fail(CMQC.MQRC_ENVIRONMENT_ERROR)
        if status_type != CMQC.MQSTAT_TYPE_ASYNC_ERROR:
            raise _fail(CMQC.MQRC_STAT_TYPE_ERROR)
        with self.engine.lock:  # type: ignore[attr-defined]
            status = self.put_status
            status.fill(sts)
            status.reset()
        return sts
