"""An embedded connection's MQI calls in the process's trace (strmqtrc -t api).

A bindings or client connection traces its calls where it turns them into requests
(``mqpy.fap.mqicalls``). An embedded connection calls the engine directly, so ``mqpy.QueueManager``
hands its calls to a :class:`TracedConnection` instead, and only while strmqtrc asks for it.
An untraced call pays one attribute read for that (``TRACER.active``, which a thread of the
process keeps current: :meth:`mqpy.trace.Tracer.watch`).
The records are those a bindings connection writes, with the same parameters.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import attrs

from mqpy import CMQC
from mqpy.trace import TRACER

if TYPE_CHECKING:
    from mqpy.engine.connection import Connection


@attrs.frozen
class _Reply:
    """A call's result in the shape the trace's exit record reads (``mqpy.fap.mqiflows.Decoded``):
    the object handle of an MQOPEN, the MQMD and data of an MQGET."""

    hobj: int = 0
    values: tuple[Any, ...] = ()


class TracedConnection:
    """The engine connection ``conn`` (queue manager ``qmgr``), each MQI verb recorded."""

    __slots__ = ("_conn", "_qmgr")

    def __init__(self, conn: Connection, qmgr: str) -> None:
        self._conn = conn
        self._qmgr = qmgr

    def __getattr__(self, name: str) -> Any:  # what is not an MQI verb is the engine's own
        return getattr(self._conn, name)

    def open(self, od: Any, options: int, **kw: Any) -> int:
        reply = TRACER.call(self._qmgr, "MQOPEN", 0, (od, options),
                            lambda: _Reply(self._conn.open(od, options, **kw)))
        return reply.hobj

    def close(self, hobj: int, options: int = CMQC.MQCO_NONE) -> None:
        TRACER.call(self._qmgr, "MQCLOSE", hobj, (options,),
                    lambda: self._conn.close(hobj, options))

    def put(self, hobj: int, md: Any, pmo: Any, data: bytes) -> int:
        return TRACER.call(self._qmgr, "MQPUT", hobj, (md, pmo, data),
                           lambda: self._conn.put(hobj, md, pmo, data))

    def put1(self, od: Any, md: Any, pmo: Any, data: bytes) -> int:
        return TRACER.call(self._qmgr, "MQPUT1", 0, (od, md, pmo, data),
                           lambda: self._conn.put1(od, md, pmo, data))

    def get(self, hobj: int, md: Any, gmo: Any, max_length: int | None, **kw: Any) -> bytes:
        def call() -> _Reply:
            data = self._conn.get(hobj, md, gmo, max_length, **kw)
            return _Reply(hobj, (md, gmo, len(data), data))

        values = (md, gmo, -1 if max_length is None else max_length)
        return TRACER.call(self._qmgr, "MQGET", hobj, values, call).values[3]

    def commit(self) -> None:
        TRACER.call(self._qmgr, "MQCMIT", 0, (), self._conn.commit)

    def backout(self) -> None:
        TRACER.call(self._qmgr, "MQBACK", 0, (), self._conn.backout)

    def inquire(self, hobj: int, selector: int) -> int | bytes:
        return TRACER.call(self._qmgr, "MQINQ", hobj, (selector,),
                           lambda: self._conn.inquire(hobj, selector))

    def inquire_qmgr(self, selector: int) -> int | bytes:
        return TRACER.call(self._qmgr, "MQINQ", 0, (selector,),
                           lambda: self._conn.inquire_qmgr(selector))

    def inquire_all(self, hobj: int, selectors: Sequence[int]) -> list[int | bytes]:
        return TRACER.call(self._qmgr, "MQINQ", hobj, tuple(selectors),
                           lambda: self._conn.inquire_all(hobj, selectors))

    def set(self, hobj: int, selector: int, value: int | bytes | str) -> None:
        TRACER.call(self._qmgr, "MQSET", hobj, (selector, value),
                    lambda: self._conn.set(hobj, selector, value))

    def set_many(self, hobj: int, settings: Sequence[tuple[int, int | bytes | str]]) -> None:
        TRACER.call(self._qmgr, "MQSET", hobj, tuple(settings),
                    lambda: self._conn.set_many(hobj, settings))

    def disconnect(self) -> None:
        TRACER.call(self._qmgr, "MQDISC", 0, (), self._conn.disconnect)
