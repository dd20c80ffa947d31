"""The counting of a connection's MQI calls in the queue manager's MQI statistics and the
connection's MQI accounting record, declared on each call where its MQ module defines it
(:func:`counted`), as IBM's "MQI accounting message data" and "MQI statistics message data"
count them. The put and get hot paths count themselves."""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, TypeVar

from mqpy import CMQC
from mqpy.errors import MQMIError

if TYPE_CHECKING:
    from mqpy.engine.stats import MQICounters

_F = TypeVar("_F", bound=Callable[..., Any])


def _count(qmgr: MQICounters, conn: MQICounters, field: str | int) -> None:
    """One more in ``field`` of both counters (an int: that element of ``subs``)."""
    for counters in (qmgr, conn):
        if type(field) is int:
            counters.subs[field] += 1
        else:
            setattr(counters, field, getattr(counters, field) + 1)


def counted(done: str | Callable[..., int] | None, failed: str) -> Callable[[_F], _F]:
    """A connection's MQI call counted in the queue manager's MQI statistics and the
    connection's MQI accounting record, as IBM's "MQI accounting message data" counts it:
    in ``done`` when it completes, even with a warning (MQCC_WARNING), in ``failed`` when it
    fails (MQCC_FAILED); one call whatever number of selectors it has. ``done`` may be a
    function of the call's arguments (an index of ``subs``), or None for a call that counts
    its own success (MQOPEN, MQCLOSE: then only a failure is counted here, and no lock is
    taken for the call). As every MQI call does, reading the connection's counters
    (``ConnectionAccounting.mqi``) first writes its intermediate record when its accounting
    period has ended."""

    def decorate(call: _F) -> _F:
        if done is None:
            @functools.wraps(call)
            def failures_counted(self: Any, *args: Any, **kwargs: Any) -> Any:
                try:
                    return call(self, *args, **kwargs)
                except MQMIError as e:
                    if e.comp == CMQC.MQCC_FAILED:
                        with self.engine.lock:
                            _count(self.engine.stats.mqi, self.accounting.mqi, failed)
                    raise
            return failures_counted  # type: ignore[return-value]

        @functools.wraps(call)
        def method(self: Any, *args: Any, **kwargs: Any) -> Any:
            field = done(*args, **kwargs) if callable(done) else done
            eng = self.engine
            with eng.lock:
                try:
                    result = call(self, *args, **kwargs)
                except MQMIError as e:
                    _count(eng.stats.mqi, self.accounting.mqi,
                           failed if e.comp == CMQC.MQCC_FAILED else field)
                    raise
                _count(eng.stats.mqi, self.accounting.mqi, field)
                return result
        return method  # type: ignore[return-value]

    return decorate
