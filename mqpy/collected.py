"""Object handles whose ``mqpy.Queue`` was collected while open, closed later.

pymqi's Queue closes its handle when it is collected (``mqpy.mqi.Queue.__del__``). The
collector runs a finalizer on whichever thread allocates at the time: an application thread
inside another call on the same connection (holding that connection's locks), or, in a
process that also serves the channel, the thread of the event loop that would answer the
MQCLOSE. A finalizer that made the call there waited for ever (or until the heartbeat's
receive timeout broke the channel). A connection with this mixin only notes the handle there
(no lock, no I/O) and closes it before its next call; MQDISC closes what is left, as the
queue manager closes a disconnecting application's handles. A Queue freed by its last
reference going (``del queue``, a function returning) is not the collector's: it is closed
at once, as pymqi's, by the thread that let it go.
"""

from __future__ import annotations

import gc
import threading
from collections import deque

from mqpy import CMQC
from mqpy.errors import MQMIError

__all__ = ["ClosedLater", "closed_by_finalizer", "collecting"]

_phase = threading.local()  #: ``active`` while this thread runs a collection


def _on_collection(phase: str, _info: dict[str, int]) -> None:
    _phase.active = phase == "start"


gc.callbacks.append(_on_collection)


def collecting() -> bool:
    """Whether this thread is running the cycle collector (its finalizers run inside)."""
    return getattr(_phase, "active", False)


class ClosedLater:
    """The handles to close before the connection's next call (``close``: the MQI's)."""

    _collected: deque[tuple[int, int]]

    def close_collected(self, hobj: int, options: int = CMQC.MQCO_NONE) -> None:
        """A finalizer's MQCLOSE of ``hobj``: inside a collection noted, made before the
        next call (a deque's append takes no lock another thread of this connection might
        hold); otherwise made now (the last reference went in the application's code)."""
        if not collecting():
            self.close(hobj, options)  # type: ignore[attr-defined] - the MQI's
            return
        self._collected.append((hobj, options))

    def _close_collected(self) -> None:
        """The noted MQCLOSEs, made now by the calling thread (a failure is not its call's:
        a broken connection fails that call itself)."""
        collected = self._collected
        while collected:
            try:
                hobj, options = collected.popleft()
            except IndexError:  # another thread took the last
                return
            try:
                self.close(hobj, options)  # type: ignore[attr-defined] - the MQI's
            except MQMIError:
                pass

    def _forget_collected(self) -> None:
        """MQDISC closes the handles still open: none of the noted ones is sent."""
        self._collected.clear()


def closed_by_finalizer(conn: object, hobj: int, options: int = CMQC.MQCO_NONE) -> bool:
    """A finalizer's MQCLOSE of ``hobj`` handed to ``conn`` when it closes collected handles
    itself (``ClosedLater``): True then; False for a connection that has no such thing (the
    engine's, in this process: its MQCLOSE waits for no answer), which the caller closes."""
    later = getattr(conn, "close_collected", None)
    if later is None:
        return False
    later(hobj, options)
    return True
