"""Units of work: MQCMIT and MQBACK, and the prepare, resolve and in-doubt calls of channel
batches (:class:`SyncpointCalls`); :func:`commit_uow` and :func:`back_out_uow` end one in
memory.

A unit of work prepared under an LUWID belongs to the queue manager, not to the connection:
a disconnect or a crash leaves it in doubt until it is resolved
(``QueueManagerEngine.resolve``, RESOLVE CHANNEL, channel resynchronisation)."""

from __future__ import annotations

import time
from typing import TYPE_CHECKING

from mqpy import CMQC
from mqpy.engine.datamgr import UnitOfWork
from mqpy.engine.log import LogFull
from mqpy.engine.options import _RO_COA, _RO_COD, _fail
from mqpy.engine.queues import AVAILABLE, GET_PENDING, PUT_PENDING, MessageQueue

if TYPE_CHECKING:
    from mqpy.engine.putstatus import PutStatus
    from mqpy.engine.qmgr import QueueManagerEngine


_NO_IDS: frozenset[int] = frozenset()


def commit_uow(eng: QueueManagerEngine, uow: UnitOfWork) -> int | None:
    """Commit ``uow`` in memory (engine lock held); return the LSN to force. Its puts become
    available (waking getters, confirming on arrival), its gets go (confirming on delivery).

    A message the unit of work put and then got itself is in both lists: it goes, and no
    report is made of its delivery."""
    data = eng.data
    lsn = None
    puts, gets = uow.puts, uow.gets
    eng.stats.mqi.commits += 1
    if uow.first_lsn is not None:  # (uow.logged)
        lsn = data.log_commit(uow)
    arrived = []
    for mq, e in puts:
        if e.state == PUT_PENDING and e.owner is uow:
            mq.set_state(e, AVAILABLE)
            data.committed_put(mq, e)
            arrived.append((mq, e))
    if gets:
        own_puts = {id(e) for _, e in puts} if puts else _NO_IDS
        now = time.time()
        for mq, e in gets:
            if e.state == GET_PENDING and e.owner is uow:
                if e.report & _RO_COD and id(e) not in own_puts:
                    base = eng.catalog.by_qid.get(mq.qid)
                    if base is not None and base.attributes.get("USAGE") != "XMITQ":
                        eng._report_from_entry("COD", mq, e)
                mq.remove(e)
                if id(e) in own_puts:
                    e.record = None
                else:
                    data.committed_get(mq, e)
                mq.last_get = now
    for mq, e in arrived:
        # (_arrived, committed: it wakes getters and confirms on arrival, nothing else)
        if (mq.waiters or e.report & _RO_COA) and e.state == AVAILABLE:
            base = eng.catalog.by_qid.get(mq.qid)
            if base is not None:
                eng._arrived(base, mq, e, committed=True)
    if uow.triggers:
        _fire_triggers(eng, uow)
    _tell_outcome(uow, True)
    puts.clear()
    gets.clear()
    return lsn


def _tell_outcome(uow: UnitOfWork, committed: bool) -> None:
    """Tell what else ``uow`` changed how it ended (``UnitOfWork.outcomes``)."""
    if uow.outcomes:
        told, uow.outcomes = uow.outcomes, []
        for fn in told:
            fn(committed)


def back_out_uow(eng: QueueManagerEngine, uow: UnitOfWork) -> int | None:
    """Back ``uow`` out in memory (engine lock held); return the LSN to force, if the new
    backout counts need hardening. Its gets are available again, backout count raised; its
    puts never happened (a message it put and got itself too: its count is not raised)."""
    data = eng.data
    puts, gets = uow.puts, uow.gets
    own_puts = {id(e) for _, e in puts} if gets and puts else _NO_IDS
    eng.stats.mqi.backouts += 1
    woken: dict[int, MessageQueue] = {}
    counts = []
    for mq, e in gets:
        if e.state == GET_PENDING and e.owner is uow and id(e) not in own_puts:
            mq.set_state(e, AVAILABLE)
            e.backout_count += 1
            if e.persistent:
                counts.append((mq.qid, e.seq, e.backout_count))
                data.backout_count_changed(mq, e)
            woken[id(mq)] = mq
    for mq, e in puts:
        if e.state in (PUT_PENDING, GET_PENDING) and e.owner is uow:
            mq.remove(e)
            e.record = None
    lsn = None
    if uow.first_lsn is not None:  # (uow.logged)
        lsn = data.log_backout(uow, counts)
        if not counts:
            lsn = None  # nothing to harden: losing this record changes nothing at restart
    for mq in woken.values():
        mq.wake()
    if uow.triggers:
        _fire_triggers(eng, uow)
    _tell_outcome(uow, False)
    puts.clear()
    gets.clear()
    return lsn


def _fire_triggers(eng: QueueManagerEngine, uow: UnitOfWork) -> None:
    """The trigger messages the unit of work's puts made due, now that it has ended (a
    queue deleted or replaced meanwhile has none)."""
    pending, uow.triggers = uow.triggers, []
    for base, mq, initq, proc, switch_off in pending:
        if eng.catalog.by_qid.get(mq.qid) is base:
            eng._fire_trigger(base, mq, initq, proc, switch_off)


class SyncpointCalls:
    """MQCMIT, MQBACK and the in-doubt calls of a :class:`~mqpy.engine.connection.Connection`."""

    put_status: PutStatus  # (putstatus.StatCalls)

    def commit(self) -> None:
        eng = self.engine
        with eng.lock:
            if self.broken or eng.stopped or not self.connected:
                self.check_usable()
            self.accounting.mqi.commits += 1
            uow, self.uow = self.uow, None
            if self.backed_out or self.put_status.spoiled:  # or a failed asynchronous put
                self.backed_out = self.put_status.spoiled = False
                if uow is not None:
                    back_out_uow(eng, uow)
                raise _fail(CMQC.MQRC_BACKED_OUT)
            if uow is None:
                return
            try:
                lsn = commit_uow(eng, uow)
            except LogFull:
                back_out_uow(eng, uow)
                raise _fail(CMQC.MQRC_BACKED_OUT) from None
        if lsn is not None:
            self.force_log(lsn)

    def backout(self) -> None:
        eng = self.engine
        with eng.lock:
            self.check_usable()
            self.accounting.mqi.backouts += 1
            self.backed_out = self.put_status.spoiled = False
            uow, self.uow = self.uow, None
            lsn = back_out_uow(eng, uow) if uow is not None else None
        if lsn is not None:
            self.force_log(lsn)  # backout counts survive restarts (HARDENBO)

    def prepare(self, luwid: bytes) -> None:
        """Harden the current unit of work in doubt under ``luwid`` (the sending MCA's batch).

        It then belongs to the queue manager, not to this connection: a disconnect or crash
        leaves it in doubt until :meth:`QueueManagerEngine.resolve`.
        """
        eng = self.engine
        with eng.lock:
            self.check_usable()
            uow, self.uow = self.uow, None
            if uow is None:
                uow = eng.data.new_uow()
            if luwid in eng.data.indoubt:
                raise _fail(CMQC.MQRC_UOW_IN_PROGRESS)
            lsn = eng.data.log_prepare(uow, luwid)
        self.force_log(lsn)

    def resolve(self, luwid: bytes, commit: bool, wait: bool = True) -> None:
        """Commit or back out a prepared unit of work (channel resynchronisation); ``wait``
        False: a commit that need not wait for its log force (QueueManagerEngine.resolve)."""
        self.check_usable()
        self.engine.resolve(luwid, commit, wait=wait)

    def indoubt(self) -> list[bytes]:
        """The LUWIDs of every prepared unit of work of this queue manager."""
        self.check_usable()
        return self.engine.indoubt()
