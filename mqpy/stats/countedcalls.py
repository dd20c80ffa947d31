"""The MQI calls whose counting is not in their own modules: MQOPEN and MQCLOSE that fail,
MQINQ, MQSET, MQSTAT, MQSUB and MQSUBRQ (:class:`CountedCalls`), counted in the queue
manager's MQI statistics and the connection's MQI accounting record as IBM's "MQI accounting
message data" and "MQI statistics message data" count them: OpenFailCount, CloseFailCount,
InqCount / InqFailCount, SetCount / SetFailCount, StatCount / StatFailCount, SubCountDur /
SubCountNDur / SubFailCount, SubRqCount / SubRqFailCount.

1. Each call is one, whatever number of selectors an MQINQ or MQSET has
   (:meth:`CountedCalls.inquire_all`: the bindings and client flows carry several).
2. A call that completes, even with a warning (MQCC_WARNING), is counted as done; one that
   fails (MQCC_FAILED) in the failed count. (A successful MQOPEN or MQCLOSE counts itself,
   in ``mqpy.engine.mqopen``.)
3. As every MQI call does, the connection's first call past the end of its accounting
   period writes its intermediate record before it is counted itself: reading its counters
   (``ConnectionAccounting.mqi``) is the one comparison that sees the deadline.

A mixin placed before the calls' own classes in ``mqpy.engine.connection.Connection``: each
method here wraps the next one in the method resolution order. Counts under the engine's
lock; never counts a put or a get (their hot paths count themselves).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, Any, TypeVar

from mqpy import CMQC
from mqpy.engine.stats import MQICounters
from mqpy.errors import MQMIError

if TYPE_CHECKING:
    from mqpy.structs.pubsubstructs import SD, SRO
    from mqpy.structs.tables import OD, STS

_T = TypeVar("_T")


def _count(qmgr: MQICounters, conn: MQICounters, field: str | int) -> None:
    """One more in ``field`` of both counters (an int: that element of ``subs``)."""
    for counters in (qmgr, conn):
        if type(field) is int:
            counters.subs[field] += 1
        else:
            setattr(counters, field, getattr(counters, field) + 1)


class CountedCalls:
    """MQOPEN, MQCLOSE, MQINQ, MQSET, MQSTAT, MQSUB and MQSUBRQ of a connection, counted
    (rules 1-3); the calls themselves are the next classes' in the MRO."""

    engine: Any
    accounting: Any

    def open(self, od: OD, options: int, *, no_model: bool = False) -> int:
        try:
            return super().open(od, options, no_model=no_model)  # type: ignore[misc]
        except MQMIError as e:
            self._failed(e, "open_fails")
            raise

    def close(self, hobj: int, options: int = CMQC.MQCO_NONE) -> None:
        try:
            super().close(hobj, options)  # type: ignore[misc]
        except MQMIError as e:
            self._failed(e, "close_fails")
            raise

    def inquire(self, hobj: int, selector: int) -> int | bytes:
        return self._counted("inqs", "inq_fails", super().inquire,  # type: ignore[misc]
                             hobj, selector)

    def inquire_qmgr(self, selector: int) -> int | bytes:
        return self._counted("inqs", "inq_fails", super().inquire_qmgr,  # type: ignore[misc]
                             selector)

    def inquire_all(self, hobj: int, selectors: Iterable[int]) -> list[int | bytes]:
        """One MQINQ of ``selectors`` (``hobj`` 0: of the queue manager), counted once."""
        one = super().inquire  # type: ignore[misc]
        qmgr = super().inquire_qmgr  # type: ignore[misc]

        def each() -> list[int | bytes]:
            if hobj == 0:
                return [qmgr(s) for s in selectors]
            return [one(hobj, s) for s in selectors]

        return self._counted("inqs", "inq_fails", each)

    def set_many(self, hobj: int, settings: Iterable[tuple[int, int | bytes | str]]) -> None:
        self._counted("sets", "set_fails", super().set_many,  # type: ignore[misc]
                      hobj, settings)

    def stat(self, status_type: int, sts: STS | None = None) -> STS:
        return self._counted("stats", "stat_fails", super().stat,  # type: ignore[misc]
                             status_type, sts)

    def sub(self, sd: SD, hobj: int = CMQC.MQHO_NONE) -> tuple[int, int]:
        kind = 0 if sd.Options & CMQC.MQSO_DURABLE else 1  # SubCountDur, SubCountNDur
        return self._counted(kind, "sub_fails", super().sub, sd, hobj)  # type: ignore[misc]

    def subrq(self, hsub: int, action: int, sro: SRO | None = None) -> SRO:
        return self._counted("subrqs", "subrq_fails", super().subrq,  # type: ignore[misc]
                             hsub, action, sro)

    def _counted(self, done: str | int, failed: str, call: Callable[..., _T],
                 *args: object) -> _T:
        """``call(*args)``, counted in ``done`` when it completes, in ``failed`` when it
        fails (rule 2), under the engine's lock."""
        eng = self.engine
        with eng.lock:
            try:
                result = call(*args)
            except MQMIError as e:
                _count(eng.stats.mqi, self.accounting.mqi,
                       failed if e.comp == CMQC.MQCC_FAILED else done)
                raise
            _count(eng.stats.mqi, self.accounting.mqi, done)
            return result

    def _failed(self, e: MQMIError, field: str) -> None:
        if e.comp == CMQC.MQCC_FAILED:
            with self.engine.lock:
                _count(self.engine.stats.mqi, self.accounting.mqi, field)
