"""A connection (MQCONN): its handle table, its current unit of work, its log forces, and
MQDISC.

Its MQI calls are one module each: MQOPEN/MQCLOSE (``mqopen``), MQPUT/MQPUT1 (``mqput``),
MQGET (``mqget``), MQCMIT/MQBACK and the in-doubt calls (``uow``), MQINQ/MQSET (``mqinq``);
each counts itself as IBM's accounting and statistics records count it (``stats.counted``).
Distribution lists (``distlist``) use its public interface: ``check_usable``, ``new_hobj``,
``open``, ``close``, ``put_on_handle`` and ``force_log``."""

from __future__ import annotations

import getpass
import os
import sys
import time
from collections import deque
from typing import TYPE_CHECKING

from mqpy import CMQC
from mqpy.collected import ClosedLater
from mqpy.engine import distlist
from mqpy.engine.datamgr import UnitOfWork
from mqpy.engine.handle import Handle, _Facts
from mqpy.engine.mqget import GetCalls
from mqpy.engine.mqinq import InquireCalls
from mqpy.engine.mqopen import OpenCalls
from mqpy.engine.mqput import KeptMD, PutCalls
from mqpy.engine.options import _fail
from mqpy.engine.putstatus import PutStatus, StatCalls
from mqpy.engine.stats import ConnectionAccounting, HandleCounters, Statistics
from mqpy.engine.uow import SyncpointCalls, back_out_uow, commit_uow
from mqpy.errors import MQMIError
from mqpy.pubsub.mqsub import SubscribeCalls
from mqpy.stats.connaccounting import (
    IMPLICIT,
    NONE,
    NORMAL,
    Q_MGR,
    Choice,
    account,
    write_at_disconnect,
)

if TYPE_CHECKING:
    from mqpy.engine.qmgr import QueueManagerEngine


def _appl_name() -> bytes:
    name = os.path.basename(sys.argv[0] or "python") or "python"
    return name[-28:].encode("latin-1", "replace")


#: the channel initiator's own connections (its MQCONNs name it so): the queue manager's own
#: component, with no accounting messages
_CHANNEL_INITIATOR = b"runmqchi"


class Connection(ClosedLater, OpenCalls, PutCalls, GetCalls, SyncpointCalls,
                 InquireCalls, StatCalls, SubscribeCalls):
    """One MQCONN: its handle table (``handles``, ``dist_lists``) and its current unit of
    work; each MQI call comes from the class of its module (see the module's docstring).
    An embedded application's handles freed by the cycle collector are closed before its
    next call (``ClosedLater``, called by ``mqpy.mqi``): the collector may run on a thread
    holding a lock of this queue manager's, such as the checkpoint thread."""

    def __init__(self, engine: QueueManagerEngine, hconn: int, appl_name: str | None,
                 user: str | None) -> None:
        self.engine = engine
        self.hconn = hconn
        self.appl_name = (appl_name.encode("latin-1", "replace")[:28] if appl_name
                          else _appl_name())
        try:
            default_user = getpass.getuser()
        except Exception:  # noqa: BLE001 - no user name in this environment
            default_user = "mqpy"
        self.user = (user or default_user)[:12].encode("latin-1", "replace")
        self.handles: dict[int, Handle] = {}
        self.dist_lists: dict[int, distlist.DistList] = {}  # open distribution lists
        self._next_hobj = 1
        self.uow: UnitOfWork | None = None
        self.backed_out = False  # the queue manager backed our unit of work out (log full)
        self.broken = False  # the queue manager ended under us (MQRC_CONNECTION_BROKEN)
        self.connected = True
        self.connected_at = time.time()
        #: the process the connection was made in (DISPLAY CONN's PID): this one, unless the
        #: bindings listener names its peer's
        self.process_id = os.getpid()
        self.accounting_seq = 0  # its accounting records written so far (their SeqNumber)
        self.accounting_lsn = 0  # its last records' log position, forced after the lock
        #: its accounting messages are written (at its first call after each ACCTINT and
        #: when it ends): decided at its MQCONN, as IBM decides (``mqpy.stats.connaccounting``)
        self.accounted = False
        self.accounting_choice: Choice = NONE
        #: this connection's counters (accounting messages)
        self.accounting: Statistics | ConnectionAccounting
        self.account_as_asked(0 if self.appl_name != _CHANNEL_INITIATOR else None)
        self.channel = ""  # a client's: its SVRCONN (DISPLAY CONN CHANNEL)
        self.conname = ""  # and its address (CONNAME)
        #: Not None while a caller defers this connection's log forces (:meth:`force_log`).
        self.deferred_lsn: int | None = None
        #: packed default MQMDs by (persistence, priority, user, application) (_default_md)
        self._md_templates: dict[tuple, tuple[bytes, bytes, bytes]] = {}
        self._kept_md = KeptMD()  # its last packed MQMD put in the default context (_asked)
        self.put_status = PutStatus()  # its asynchronous puts, for MQSTAT (putstatus)
        self._collected = deque()  # handles of collected objects, closed later (ClosedLater)

    def account_as_asked(self, options: int | None) -> None:
        """Which accounting records it writes, decided at MQCONN before its first call: as
        the queue manager's attributes say now, with an MQCONNX's MQCNO ``options`` (None:
        none at all, the queue manager's own component): ``connaccounting.account``."""
        account(self, options)

    def force_log(self, lsn: int) -> None:
        """Make the log durable up to ``lsn`` before the call returns; or, while
        ``deferred_lsn`` is set, leave that to the caller, which forces before it answers.

        An event loop serving many connections runs quick calls in its own thread and
        must not wait there for an fdatasync: it defers, then forces on a worker thread
        (``mqpy.loopcalls``). Either way the call's answer follows the force."""
        deferred = self.deferred_lsn
        if deferred is None:
            self.engine.data.force(lsn)
        elif lsn > deferred:
            self.deferred_lsn = lsn

    def check_usable(self) -> None:
        """The call fails when this connection can make none: the queue manager ended under
        it (MQRC_CONNECTION_BROKEN) or it was disconnected (MQRC_HCONN_ERROR)."""
        if self.broken or self.engine.stopped:
            raise _fail(CMQC.MQRC_CONNECTION_BROKEN)
        if not self.connected:
            raise _fail(CMQC.MQRC_HCONN_ERROR)

    def _handle(self, hobj: int, not_open: int = CMQC.MQRC_HOBJ_ERROR) -> Handle:
        """The open handle ``hobj``. A distribution list's handle is open for output only, so
        any other call on it fails with ``not_open`` (the call's MQRC_NOT_OPEN_FOR_*)."""
        h = self.handles.get(hobj)
        if h is None:
            raise _fail(not_open if hobj in self.dist_lists else CMQC.MQRC_HOBJ_ERROR)
        if h.deleted:
            raise _fail(CMQC.MQRC_Q_DELETED)
        return h

    def new_hobj(self) -> int:
        """A new object handle number of this connection (a queue's, a distribution list's)."""
        hobj = self._next_hobj
        self._next_hobj += 1
        return hobj

    def _uow(self) -> UnitOfWork:
        if self.uow is None:
            self.uow = self.engine.data.new_uow()
        return self.uow

    def _facts(self, h: Handle) -> _Facts:
        """The handle's :class:`_Facts`, made again when an attribute dictionary changed."""
        f = h.facts
        qmgr_attrs = self.engine.catalog.qmgr
        if f is None or f.obj_attrs is not h.obj.attributes \
                or f.base_attrs is not h.base.attributes or f.qmgr_attrs is not qmgr_attrs:
            f = h.facts = _Facts(h, qmgr_attrs)
        return f

    def _counters(self, h: Handle) -> HandleCounters:
        """The counters a put or get on ``h`` adds to (:class:`HandleCounters`), made again
        when an interval ended or the handle's local queue changed."""
        c = h.counters
        stats, acc = self.engine.stats, self.accounting
        if c is None or c.qmgr_mqi is not stats.mqi or c.conn_mqi is not acc.mqi \
                or c.base is not h.base:
            name = h.base.name
            c = h.counters = HandleCounters(stats.mqi, stats.queue(name), acc.mqi,
                                            acc.queue(name), h.base)
        return c

    def disconnect(self) -> None:
        """Normal end: the unit of work is committed (seed 004)."""
        self._forget_collected()  # closed below with every handle left open
        with self.engine.lock:
            if not self.connected:
                return
            uow, self.uow = self.uow, None
            if uow is not None and self.put_status.spoiled:  # a failed asynchronous put
                back_out_uow(self.engine, uow)
                uow = None
            lsn = commit_uow(self.engine, uow) if uow is not None else None
            self._disconnect_locked(abnormal=False, disc_type=NORMAL)
        if self.accounted:
            lsn = max(lsn or 0, self.accounting_lsn) or None
        if lsn is not None:
            self.force_log(lsn)

    def _disconnect_locked(self, abnormal: bool, disc_type: int = Q_MGR) -> None:
        """Abnormal end backs the unit of work out; handles close (temporary queues go).
        ``disc_type``: how it ended, for its last accounting messages (the queue manager
        ended it, unless said otherwise)."""
        if not self.connected:
            return
        if self.uow is not None:
            back_out_uow(self.engine, self.uow)
            self.uow = None
        for hobj in list(self.handles):
            try:
                self.close(hobj)
            except MQMIError:
                self.handles.pop(hobj, None)
        self.connected = False
        self.engine.connections.pop(self.hconn, None)
        self.engine.stats.mqi.disconnects += 1
        if self.accounted:
            self.accounting_lsn = max(self.accounting_lsn,
                                      write_at_disconnect(self, disc_type))

    def stop(self) -> None:
        """STOP CONN: the connection ends as an abnormal end does (its unit of work backed
        out, its handles closed); its next call, and an MQGET waiting now, answer
        MQRC_CONNECTION_BROKEN."""
        with self.engine.lock:
            self.broken = True
            queues = {id(h.mq): h.mq for h in self.handles.values() if h.mq is not None}
            self._disconnect_locked(abnormal=True)
            for mq in queues.values():
                mq.wake()  # a get waiting on the connection ends: MQRC_CONNECTION_BROKEN
        if self.accounted and self.accounting_lsn:
            self.force_log(self.accounting_lsn)

    def abend(self, disc_type: int = IMPLICIT) -> None:
        """The application ended abnormally (connection lost, process killed); a server
        that drops it because the queue manager ends says so (``disc_type`` Q_MGR)."""
        with self.engine.lock:
            self._disconnect_locked(abnormal=True, disc_type=disc_type)
        if self.accounted and self.accounting_lsn:
            self.force_log(self.accounting_lsn)
