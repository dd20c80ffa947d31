"""Read ahead at the queue manager: whether a handle's messages may be sent ahead of the
application's MQGETs, and taking the messages that may go.

IBM's rules, as this module keeps them:

1. MQOO_READ_AHEAD with MQOO_NO_READ_AHEAD is MQRC_OPTIONS_ERROR (2046) on MQOPEN
   (MQOO_READ_AHEAD_AS_Q_DEF is 0: it goes with either).
2. A queue's DEFREADA(DISABLED) (the object opened: an alias's own) turns read ahead off
   whatever the application asked; MQOO_NO_READ_AHEAD turns it off; MQOO_READ_AHEAD turns it
   on; MQOO_READ_AHEAD_AS_Q_DEF takes DEFREADA (YES: on, NO: off).
3. Only a handle open for input, and not also for browse, reads ahead.
4. Only non-persistent messages, got outside syncpoint, go ahead: :func:`take` stops at a
   persistent message (or any the usual get path has to judge: expired, a COD report, too
   long), which the application then gets with a plain MQGET.

A message taken is removed from the queue as a non-persistent get outside syncpoint is:
if the application never consumes it (it closes the queue, disconnects, is killed), it is
lost, as IBM documents for read ahead; it is never delivered twice.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from mqpy import CMQC
from mqpy.engine import fastpath, propdelivery
from mqpy.engine.fastpath import GENERAL, NO_MESSAGE
from mqpy.engine.options import _INPUT_OPTS, _fail
from mqpy.engine.queues import AVAILABLE
from mqpy.structs.tables import GMO

__all__ = ["BOTH", "check_open", "in_effect", "take"]

BOTH = CMQC.MQOO_READ_AHEAD | CMQC.MQOO_NO_READ_AHEAD
#: The get options a batch is taken with: outside syncpoint, never waiting (the caller waits).
_TAKE_KEEPS = (CMQC.MQGMO_FAIL_IF_QUIESCING | CMQC.MQGMO_ACCEPT_TRUNCATED_MSG
               | CMQC.MQGMO_CONVERT)


#: The MatchOptions of the batch's gets (none selects: the head of the queue)
_MATCH = CMQC.MQMO_MATCH_MSG_ID | CMQC.MQMO_MATCH_CORREL_ID


def check_open(options: int) -> None:
    """Rule 1: MQOPEN's read-ahead options."""
    if options & BOTH == BOTH:
        raise _fail(CMQC.MQRC_OPTIONS_ERROR)


def in_effect(options: int, opened: Any) -> bool:
    """Rules 2 and 3: does a handle opened with ``options`` on ``opened`` (its ObjectDef)
    read ahead?"""
    if not options & _INPUT_OPTS or options & CMQC.MQOO_BROWSE:
        return False
    default = str(opened.attributes.get("DEFREADA") or "NO").strip().upper()
    if default == "DISABLED" or options & CMQC.MQOO_NO_READ_AHEAD:
        return False
    return bool(options & CMQC.MQOO_READ_AHEAD) or default == "YES"


class Batch:
    """What :func:`take` took: ``messages`` as (MQMD bytes, data), and why it stopped."""

    __slots__ = ("messages", "reason", "stopped_at_other", "resolved_q_name")

    def __init__(self) -> None:
        self.messages: list[tuple[bytes, bytes]] = []
        self.reason = CMQC.MQRC_NONE  # MQRC_NO_MSG_AVAILABLE: none left to send now
        self.stopped_at_other = False  # rule 4: the next message is the usual get's
        self.resolved_q_name = b""


def take(conn: Any, hobj: int, options: int, window: int, max_message: int,
         waiter: Callable[[], None] | None = None) -> Batch | None:
    """Up to ``window`` bytes of messages of ``hobj`` (at least one when there is one), each
    at most ``max_message`` bytes, for the connection's read-ahead buffer (rule 4).
    None when read ahead is not in effect for the handle (rules 2, 3); MQMIError when the
    handle or connection cannot be used, or the queue manager is quiescing and the options
    say MQGMO_FAIL_IF_QUIESCING. When none is there, ``waiter`` is registered on the queue
    (as a waiting MQGET's) before the lock goes."""
    eng = conn.engine
    batch = Batch()
    gmo = GMO(Options=(options & _TAKE_KEEPS) | CMQC.MQGMO_NO_SYNCPOINT)
    with eng.lock:
        conn.check_usable()
        h = conn._handle(hobj)
        if not in_effect(h.options, h.obj):
            return None
        if options & CMQC.MQGMO_FAIL_IF_QUIESCING and eng.quiescing:
            raise _fail(CMQC.MQRC_Q_MGR_QUIESCING)
        by_priority = conn._facts(h).by_priority
        batch.resolved_q_name = h.base_name
        mq = h.mq
        size = 0
        lsns = []
        # each message taken at once while the usual get's fast path would take it
        fast = fastpath.ENABLED and conn._fast_facts(h, gmo.Options, _MATCH) is not None
        now = time.time()
        tally = [0, 0, 0.0]  # gets, bytes, time on queue of those (Connection._count_gets)
        while size < window:
            entry = mq.head(by_priority)
            if entry is not None and entry.state != AVAILABLE:
                entry = mq.first_past_got(entry, by_priority)
            if entry is None:
                if mq.count == mq.getting:  # none, or only messages got under syncpoint
                    batch.reason = CMQC.MQRC_NO_MSG_AVAILABLE
                    if waiter is not None and not batch.messages:
                        mq.add_waiter(waiter)
                elif not batch.messages:
                    batch.stopped_at_other = True  # the usual get finds it, or says why not
                break
            if entry.persistent:
                batch.stopped_at_other = True
                break
            message = fast and conn._take_ahead(h, entry, max_message, now, tally)
            if message:
                batch.messages.append(message)
                size += len(message[1]) + len(message[0])
                continue
            done = conn._get_fast(h, None, gmo, max_message, True)
            if done is GENERAL:  # one with properties goes as it is stored (propdelivery)
                done = propdelivery.take_ahead(conn, hobj, entry, options, max_message) \
                    or GENERAL
            if done is NO_MESSAGE:  # (the head's check above finds these first)
                batch.reason = CMQC.MQRC_NO_MSG_AVAILABLE
                break
            if done is GENERAL:
                batch.stopped_at_other = True
                break
            lsn, message = done
            if lsn is not None:  # (never for a non-persistent message outside syncpoint)
                lsns.append(lsn)
            batch.messages.append(message)
            size += len(message[1]) + len(message[0])
        if tally[0]:
            eng.data.stats.body_hits += tally[0]  # (DataManager.read_record, from memory)
            conn._count_gets(h, 0, *tally)
    for lsn in lsns:
        conn.force_log(lsn)
    return batch
