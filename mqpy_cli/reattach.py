"""The listener's view of its queue manager across the queue manager's restarts.

runmqlsr runs on while its queue manager is not running (IBM's does: endmqlsr stops the
listeners of an inactive queue manager). It reads channel definitions and asks CHLAUTH
through one MQI connection (``MQSCAdmin``); once that connection is broken -- the daemon
ended or was killed -- each question reattaches: a new connection when the queue manager
is back (strmqm), MQRC_Q_MGR_NOT_AVAILABLE (2059) while it is not, so that the listener's
clients are refused meanwhile and served again afterwards. The channel initiator (runmqchi)
does not need this: it ends with its queue manager, which starts a new one.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any, TypeVar

import mqpy
from mqpy import CMQC
from mqpy_chinit.admin import MQSCAdmin
from mqpy_chinit.supervision import qmgr_gone

__all__ = ["ReattachingAdmin"]

_R = TypeVar("_R")


class ReattachingAdmin(MQSCAdmin):
    """An ``MQSCAdmin`` whose calls reconnect once when its connection is gone."""

    def __init__(self, qm: mqpy.QueueManager, connect: Callable[[], mqpy.QueueManager],
                 wait: float = 30.0) -> None:
        """``qm``: the first connection (its owner disconnects it); ``connect()``: a new one,
        or MQMIError."""
        self._connect = connect
        self._wait = wait
        self._attach_lock = threading.Lock()
        self._broken = False
        self._own = False  # whether the current connection is one this object made
        super().__init__(qm, wait)

    def run(self, text: str) -> tuple[bool, list[str]]:
        return self._reattaching(super().run, text)

    def channel_decision(self, query: dict[str, object]) -> dict[str, object]:
        return self._reattaching(super().channel_decision, query)

    def release(self) -> None:
        """Let go of the connection (the queue manager quiesces or ends: a listener holds no
        controlled end); the next question reattaches, refused until the queue manager runs
        again."""
        with self._attach_lock:
            if not self._broken:
                self._broken = True
                self._own = True  # (dropped at the reattach, or now)
            if self._own:
                self._own = False
                self._drop()

    def close(self) -> None:
        if not self._broken:
            super().close()
        if self._own:
            self._own = False
            self._drop()

    def _reattaching(self, call: Callable[[Any], _R], arg: Any) -> _R:
        """``call(arg)`` on the current connection; if the queue manager went under it,
        once more on a new one (the queue manager's reason if there is none yet)."""
        self._reattach()
        try:
            return call(arg)
        except mqpy.MQMIError as e:
            if not qmgr_gone(e) and e.reason != CMQC.MQRC_HCONN_ERROR:
                raise
            self._broken = True
        self._reattach()
        return call(arg)

    def _reattach(self) -> None:
        if not self._broken:
            return
        with self._attach_lock:
            if not self._broken:  # another thread reattached meanwhile
                return
            if self._own:  # once: a reattach that fails leaves it dropped
                self._own = False
                self._drop()
            qm = self._connect()  # MQMIError 2059 while the queue manager is not back
            MQSCAdmin.__init__(self, qm, self._wait)
            self._broken, self._own = False, True

    def _drop(self) -> None:
        """Forget the broken connection (its socket closed; the queue manager it was
        connected to has gone, and its successor never knew it)."""
        try:
            self._qm.disconnect()
        except (mqpy.MQMIError, mqpy.PYIFError):
            pass
