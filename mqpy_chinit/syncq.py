"""One MCA's channel synchronisation record, replaced batch after batch on a
SYSTEM.CHANNEL.SYNCQ handle held open for the channel's life, in the same round trip as the
batch's own MQI calls where it can be (``batchcalls``). The record's format and the blocking
calls that read and replace records are the queue manager's (``mqpy.syncrecord``).
"""

from __future__ import annotations

import os
from typing import Any

import trio

import mqpy
from mqpy import CMQC
from mqpy.fap.mqicalls import Step
from mqpy.syncrecord import OPEN_OPTIONS, SYNCQ, SyncRecord, correl_id, replace_in_uow
from mqpy_chinit import batchcalls

__all__ = ["ChannelSyncQ"]


class ChannelSyncQ:
    """One MCA's sync record, replaced batch after batch on a SYSTEM.CHANNEL.SYNCQ handle
    held open for the channel's life (blocking calls, from a worker thread).

    The first replacement is :func:`replace_in_uow`'s (the records are looked for by
    CorrelId, a receiver's by browsing for its partner's). It remembers the MsgId of the
    record it put (later ones it names itself), so every later batch replaces the record in
    one round trip: MQGET of that MsgId, then MQPUT of the new record (:meth:`steps`), calls
    a receiver can even add to the run of its batch's last puts. Whenever that MQGET does not
    find the record as this MCA left it (its unit of work was backed out, RESET CHANNEL
    replaced it), the replacement falls back to the full search, so the records end as
    :func:`replace_in_uow` leaves them.
    """

    def __init__(self, qm: mqpy.QueueManager) -> None:
        self.qm = qm
        self.queue: mqpy.Queue | None = None
        self.msgid: bytes | None = None  # the record this MCA last put
        self._put_msgid: bytes | None = None

    def _queue(self) -> mqpy.Queue:
        if self.queue is None:
            self.queue = mqpy.Queue(self.qm, SYNCQ, OPEN_OPTIONS)
        return self.queue

    def steps(self, record: SyncRecord) -> list[Step]:
        """The MQGET of the record last put and the MQPUT of ``record``, as steps of
        ``verbs.run_in_order`` (hand the results to :meth:`done`); [] when no record of
        this MCA is known yet."""
        if self.msgid is None:
            return []
        hobj = self._queue().get_handle()
        cid = correl_id(record.channel, record.role)
        # the MCA names the new record itself, so that nothing of the put comes back
        self._put_msgid = os.urandom(24)
        match = CMQC.MQMO_MATCH_CORREL_ID | CMQC.MQMO_MATCH_MSG_ID
        return [("get", (hobj, mqpy.MD(CorrelId=cid, MsgId=self.msgid),
                         mqpy.GMO(Options=CMQC.MQGMO_SYNCPOINT, MatchOptions=match), None)),
                ("put", (hobj, mqpy.MD(CorrelId=cid, MsgId=self._put_msgid,
                                       Persistence=CMQC.MQPER_PERSISTENT),
                         mqpy.PMO(Options=CMQC.MQPMO_SYNCPOINT), record.to_bytes()), False)]

    def done(self, results: list[Any]) -> bool:
        """Did the :meth:`steps` replace the record? (False: call :meth:`replace_in_uow`.)"""
        ok = len(results) == 2 and not any(isinstance(r, mqpy.MQMIError) for r in results)
        self.msgid = self._put_msgid if ok else None
        return ok

    def replace_in_uow(self, record: SyncRecord, before: list[Step] | None = None,
                       prepare: bytes | None = None) -> bool:
        """:func:`replace_in_uow` on the open handle: one round trip once the record this
        MCA put is known, the full search otherwise. ``before``: calls of
        ``verbs.run_in_order`` made first, in the same round trip (a pipelined sending
        MCA's commit of the batch before); the first of them that fails is raised, with
        the record not replaced. ``prepare``: an in-doubt key under which that round trip
        also prepares the unit of work once the record is replaced (a sending MCA's batch
        end, batchcalls.run_quiet): whether it did (else the caller prepares)."""
        before = before or []
        ours = self.steps(record)
        if before or ours:
            done, prepared = batchcalls.run_quiet(self.qm.connection(), [*before, *ours],
                                                prepare=prepare if ours else None)
            for result in done[:len(before)]:
                if isinstance(result, mqpy.MQMIError):
                    raise result
            if ours and self.done(done[len(before):]):
                return prepared
        self.msgid = None  # unknown until the full search has put the record
        self.msgid = replace_in_uow(self.qm, record, self._queue())
        return False


    async def replace_in_uow_in_loop(self, record: SyncRecord,
                                     before: list[Step] | None = None,
                                     prepare: bytes | None = None) -> bool | None:
        """:meth:`replace_in_uow` with its one round trip made from the event loop, without
        a worker thread (batchcalls.run_quiet_in_loop): whether it prepared. None, nothing
        done, when it cannot be (the record this MCA put not known yet, a connection
        another thread is using or one strmqtrc traces): the caller then calls
        replace_in_uow in a worker thread. The full search, when the round trip did not
        find the record as this MCA left it, is made in one."""
        if self.msgid is None:
            return None
        before = before or []
        ran = await batchcalls.run_quiet_in_loop(self.qm.connection(),
                                               [*before, *self.steps(record)],
                                               prepare=prepare)
        if ran is None:
            return None
        done, prepared = ran
        for result in done[:len(before)]:
            if isinstance(result, mqpy.MQMIError):
                raise result
        if self.done(done[len(before):]):
            return prepared
        self.msgid = None  # unknown until the full search has put the record
        self.msgid = await trio.to_thread.run_sync(replace_in_uow, self.qm, record,
                                                   self._queue())
        return False
