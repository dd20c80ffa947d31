"""The engine's side of IBM's instrumentation events: whether an event is wanted, the queue
depth rules, and putting the event message (``mqpy.events`` builds it).

Theory of operation. An MQI call that fails for a reason IBM reports as an event (MQOPEN's
2085, MQPUT's 2051, MQCONN's 2035 ...) calls a hook here on its failure path; the hook looks at
the queue manager's switch (LOCALEV, INHIBTEV, REMOTEEV, AUTHOREV) and, when it is ENABLED,
puts the event on SYSTEM.ADMIN.QMGR.EVENT. The application's call fails as it would have: the
hook never raises, and an event that cannot be put is lost, as IBM's are.

The queue depth events are a small state machine per local queue whose state is the queue's
own QDPHIEV, QDPLOEV and QDPMAXEV (IBM changes them as the events fire, and DISPLAY QLOCAL
shows it): :func:`depth_rule` is the whole machine, pure. Queue Depth High enables Low and
Full and disables itself; Low enables High and Full and disables itself; Full enables Low and
disables itself. The queue service interval events are another (:func:`service_rule`, its
rules beside it), whose state is the queue's QSVCIEV and its service timer. A performance
event resets the queue's statistics it reports. The engine
calls :func:`after_put`, :func:`after_get`, :func:`after_clear` (CLEAR QLOCAL, a get
operation for the service interval rules) and :func:`queue_full` only while the queue
manager's PERFMEV is ENABLED (``QueueManagerEngine.perfm_events``, one attribute check on
the put and get paths).

Every put here is the queue manager's own (``QueueManagerEngine._system_put``): under the
engine's lock, outside any unit of work, never to the dead-letter queue. This module never
raises into the call that caused the event.
"""

from __future__ import annotations

import time
import weakref
from typing import TYPE_CHECKING

import attrs

from mqpy import CMQC, events
from mqpy.engine.mqmd import _put_timestamp
from mqpy.errors import MQMIError
from mqpy.events import Caller, QueueStatistics
from mqpy.pcf import PCFMessage, build
from mqpy.structs.tables import MD

if TYPE_CHECKING:
    from mqpy.engine.connection import Connection
    from mqpy.engine.objects import ObjectDef
    from mqpy.engine.qmgr import QueueManagerEngine
    from mqpy.engine.queues import MessageQueue

__all__ = ["DepthSwitches", "after_clear", "after_get", "after_put", "close_refused", "connect_refused",
           "depth_rule", "get_inhibited", "open_refused", "perfm_enabled", "put_inhibited",
           "queue_full", "service_rule", "sub_destination_refused", "topic_refused"]

_ENABLED = "ENABLED"


def _on(attributes: dict, switch: str) -> bool:
    return str(attributes.get(switch) or "").upper() == _ENABLED


def perfm_enabled(qmgr_attributes: dict) -> bool:
    """Whether the queue manager generates performance events (PERFMEV)."""
    return _on(qmgr_attributes, "PERFMEV")


def _strip(value: bytes | str) -> str:
    if isinstance(value, bytes):
        value = value.decode("latin-1")
    return value.rstrip(" \x00")


def caller(conn: Connection) -> Caller:
    """The ApplType, ApplName, user and (for a client) address and channel of ``conn``."""
    return Caller(appl_name=_strip(conn.appl_name), user=_strip(conn.user),
                  conn_name=conn.conname, channel=conn.channel)


def _put(eng: QueueManagerEngine, queue: str, msg: PCFMessage) -> bool:
    """Put one event message as the queue manager (IBM's event MQMD: a datagram in format
    MQEVENT, put by the queue manager, its persistence and priority the event queue's
    DEFPSIST and DEFPRTY); False if it could not be put (lost, as IBM's are)."""
    date, tod = _put_timestamp(time.time())
    with eng.lock:  # _system_put answers False for a put that failed: the event is lost
        found = eng.catalog.queue_def(queue)
        attrs_ = found.attributes if found is not None else {}
        md = MD(Format=CMQC.MQFMT_EVENT, MsgType=CMQC.MQMT_DATAGRAM,
                Persistence=CMQC.MQPER_PERSISTENT if attrs_.get("DEFPSIST") == "YES"
                else CMQC.MQPER_NOT_PERSISTENT,
                Priority=int(attrs_.get("DEFPRTY", 0) or 0), PutApplType=CMQC.MQAT_QMGR,
                PutApplName=eng.name[:28].encode("latin-1", "replace"), PutDate=date,
                PutTime=tod)
        return eng._system_put(queue, "", md, build(msg), dead_letter=False)


# ------------------------------------------------------------------ queue manager events


def connect_refused(eng: QueueManagerEngine, conn: Connection, *, user: str,
                    csp_user: str | None) -> None:
    """MQCONN refused with 2035: Not Authorized (type 1) while AUTHOREV is ENABLED.
    ``user``: the identity whose check failed; ``csp_user``: the MQCSP's user when the
    refusal was of its user and password."""
    if not _on(eng.catalog.qmgr, "AUTHOREV"):
        return
    who = attrs.evolve(caller(conn), user=user[:12])
    _put(eng, events.QMGR_EVENT_QUEUE,
         events.not_authorized_connect(eng.name, who, csp_user=csp_user))


def _open_event(qmgr: str, who: Caller, name: str, qmname: str, options: int,
                err: MQMIError) -> tuple[str, PCFMessage] | None:
    """The queue manager's switch and the event for an MQOPEN (MQPUT1) that failed with
    ``err``, or None if IBM has no event for its reason."""
    reason = err.reason
    xmitq = getattr(err, "xmitq_name", "")
    found = getattr(err, "found_type", 0)
    if reason == CMQC.MQRC_NOT_AUTHORIZED:
        return "AUTHOREV", events.not_authorized_open(qmgr, who, options, name, qmname)
    if reason == CMQC.MQRC_UNKNOWN_OBJECT_NAME:
        return "LOCALEV", events.unknown_object_name(qmgr, who, name, qmname)
    if reason == CMQC.MQRC_UNKNOWN_ALIAS_BASE_Q:
        return "LOCALEV", events.unknown_alias_base_q(
            qmgr, who, name, getattr(err, "base_name", ""), qmname)
    if reason == CMQC.MQRC_ALIAS_BASE_Q_TYPE_ERROR:
        return "LOCALEV", events.alias_base_q_type_error(
            qmgr, who, name, getattr(err, "base_name", ""), found, qmname)
    if reason == CMQC.MQRC_UNKNOWN_REMOTE_Q_MGR:
        return "REMOTEEV", events.unknown_remote_q_mgr(qmgr, who, name, qmname)
    if reason == CMQC.MQRC_REMOTE_Q_NAME_ERROR:
        return "REMOTEEV", events.remote_q_name_error(qmgr, who, name, qmname)
    default = reason in (CMQC.MQRC_DEF_XMIT_Q_TYPE_ERROR, CMQC.MQRC_DEF_XMIT_Q_USAGE_ERROR,
                         CMQC.MQRC_UNKNOWN_DEF_XMIT_Q)
    if reason in (CMQC.MQRC_XMIT_Q_TYPE_ERROR, CMQC.MQRC_DEF_XMIT_Q_TYPE_ERROR):
        return "REMOTEEV", events.xmit_q_type_error(qmgr, who, name, xmitq, found, qmname,
                                                    default=default)
    if reason in (CMQC.MQRC_XMIT_Q_USAGE_ERROR, CMQC.MQRC_DEF_XMIT_Q_USAGE_ERROR):
        return "REMOTEEV", events.xmit_q_usage_error(qmgr, who, name, xmitq, qmname,
                                                     default=default)
    if reason in (CMQC.MQRC_UNKNOWN_XMIT_Q, CMQC.MQRC_UNKNOWN_DEF_XMIT_Q):
        return "REMOTEEV", events.unknown_xmit_q(qmgr, who, name, xmitq, qmname,
                                                 default=default)
    return None


#: a reason an MQOPEN (MQPUT1) fails with -> the switch of the event IBM reports it as
_OPEN_SWITCH = {
    CMQC.MQRC_NOT_AUTHORIZED: "AUTHOREV",
    CMQC.MQRC_UNKNOWN_OBJECT_NAME: "LOCALEV", CMQC.MQRC_UNKNOWN_ALIAS_BASE_Q: "LOCALEV",
    CMQC.MQRC_ALIAS_BASE_Q_TYPE_ERROR: "LOCALEV",
    **{reason: "REMOTEEV" for reason in (
        CMQC.MQRC_UNKNOWN_REMOTE_Q_MGR, CMQC.MQRC_REMOTE_Q_NAME_ERROR,
        CMQC.MQRC_XMIT_Q_TYPE_ERROR, CMQC.MQRC_DEF_XMIT_Q_TYPE_ERROR,
        CMQC.MQRC_XMIT_Q_USAGE_ERROR, CMQC.MQRC_DEF_XMIT_Q_USAGE_ERROR,
        CMQC.MQRC_UNKNOWN_XMIT_Q, CMQC.MQRC_UNKNOWN_DEF_XMIT_Q)},
}


def open_refused(conn: Connection, name: str, qmname: str, options: int,
                 err: MQMIError) -> None:
    """An MQOPEN or MQPUT1 of queue ``name`` (at ``qmname``) failed with ``err``: its event,
    if IBM has one for the reason and the queue manager's switch for it is ENABLED."""
    eng = conn.engine
    switch = _OPEN_SWITCH.get(err.reason)
    if switch is None or not _on(eng.catalog.qmgr, switch):
        return
    found = _open_event(eng.name, caller(conn), name, qmname, options, err)
    if found is not None:
        _put(eng, events.QMGR_EVENT_QUEUE, found[1])


def topic_refused(conn: Connection, topic: str, names: list[str], needed: str, options: int,
                  err: MQMIError) -> None:
    """A topic's authority check refused ``needed`` ("pub": an MQOPEN of the topic, "sub": an
    MQSUB) with ``err``: Not Authorized type 2 or 5 while AUTHOREV is ENABLED. ``names``: the
    topic objects judged (AdminTopicNames)."""
    eng = conn.engine
    if err.reason != CMQC.MQRC_NOT_AUTHORIZED or not _on(eng.catalog.qmgr, "AUTHOREV"):
        return
    build = events.not_authorized_sub if needed == "sub" else events.not_authorized_open_topic
    _put(eng, events.QMGR_EVENT_QUEUE,
         build(eng.name, caller(conn), options, topic, [str(n) for n in names]))


def close_refused(conn: Connection, qname: str) -> None:
    """An MQCLOSE that would have deleted permanent dynamic queue ``qname`` refused 2035 (its
    user may not delete it, and its handle is not the one that created it): Not Authorized
    type 3 while AUTHOREV is ENABLED."""
    eng = conn.engine
    if _on(eng.catalog.qmgr, "AUTHOREV"):
        _put(eng, events.QMGR_EVENT_QUEUE,
             events.not_authorized_close(eng.name, caller(conn), qname))


def sub_destination_refused(conn: Connection, options: int, topic: str, dest_qmgr: str,
                            dest_q: str) -> None:
    """An MQSUB refused 2035 the use of its (non-managed) destination queue ``dest_q``: Not
    Authorized type 6 while AUTHOREV is ENABLED."""
    eng = conn.engine
    if _on(eng.catalog.qmgr, "AUTHOREV"):
        _put(eng, events.QMGR_EVENT_QUEUE, events.not_authorized_sub_dest(
            eng.name, caller(conn), options, topic, dest_qmgr or eng.name, dest_q))


def put_inhibited(conn: Connection, qname: str, qmname: str = "") -> None:
    """MQPUT or MQPUT1 refused with 2051: Put Inhibited while INHIBTEV is ENABLED."""
    eng = conn.engine
    if _on(eng.catalog.qmgr, "INHIBTEV"):
        _put(eng, events.QMGR_EVENT_QUEUE,
             events.put_inhibited(eng.name, caller(conn), qname, qmname))


def get_inhibited(conn: Connection, qname: str) -> None:
    """MQGET refused with 2016: Get Inhibited while INHIBTEV is ENABLED."""
    eng = conn.engine
    if _on(eng.catalog.qmgr, "INHIBTEV"):
        _put(eng, events.QMGR_EVENT_QUEUE, events.get_inhibited(eng.name, caller(conn), qname))


# ------------------------------------------------------------------ queue depth events


@attrs.frozen
class DepthSwitches:
    """A queue's QDPHIEV, QDPLOEV and QDPMAXEV: which depth events it may generate next."""

    high: bool
    low: bool
    full: bool

    @classmethod
    def of(cls, attributes: dict) -> DepthSwitches:
        return cls(_on(attributes, "QDPHIEV"), _on(attributes, "QDPLOEV"),
                   _on(attributes, "QDPMAXEV"))

    def attributes(self) -> dict[str, object]:
        def flag(on: bool) -> str:
            return "ENABLED" if on else "DISABLED"
        return {"QDPHIEV": flag(self.high), "QDPLOEV": flag(self.low),
                "QDPMAXEV": flag(self.full)}


#: an event that fired -> the switches it sets (None: left as they were)
_AFTER: dict[int, tuple[bool | None, bool | None, bool | None]] = {
    CMQC.MQRC_Q_DEPTH_HIGH: (False, True, True),
    CMQC.MQRC_Q_DEPTH_LOW: (True, False, True),
    CMQC.MQRC_Q_FULL: (None, True, False),
}


def depth_rule(happened: str, depth: int, maxdepth: int, high_pct: int, low_pct: int,
               switches: DepthSwitches) -> tuple[int | None, DepthSwitches]:
    """The queue depth state machine: after ``happened`` ("put": a message was put, leaving
    ``depth``; "get": one was got, leaving ``depth``; "full": a put was refused with 2053),
    the event it generates (its reason) or None, and the queue's switches afterwards.

    High: a put leaves depth >= QDEPTHHI per cent of MAXDEPTH. Low: a get leaves depth <=
    QDEPTHLO per cent of MAXDEPTH. Full: a put found the queue full. Each only while enabled.
    """
    if happened == "put":
        fired = CMQC.MQRC_Q_DEPTH_HIGH if switches.high \
            and depth * 100 >= high_pct * maxdepth else None
    elif happened == "get":
        fired = CMQC.MQRC_Q_DEPTH_LOW if switches.low \
            and depth * 100 <= low_pct * maxdepth else None
    elif happened == "full":
        fired = CMQC.MQRC_Q_FULL if switches.full else None
    else:
        raise ValueError(f"unknown depth change {happened!r}")
    if fired is None:
        return None, switches
    high, low, full = _AFTER[fired]
    return fired, DepthSwitches(switches.high if high is None else high,
                                switches.low if low is None else low,
                                switches.full if full is None else full)


_BUILD = {CMQC.MQRC_Q_DEPTH_HIGH: events.queue_depth_high,
          CMQC.MQRC_Q_DEPTH_LOW: events.queue_depth_low,
          CMQC.MQRC_Q_FULL: events.queue_full}


def _int(attributes: dict, key: str, default: int) -> int:
    try:
        return int(attributes.get(key, default))  # type: ignore[arg-type]
    except (TypeError, ValueError):
        return default


def _depth_changed(eng: QueueManagerEngine, base: ObjectDef, mq: MessageQueue,
                   happened: str) -> None:
    a = base.attributes
    switches = DepthSwitches.of(a)
    if not (switches.high or switches.low or switches.full):
        return
    depth = mq.count - mq.getting
    fired, after = depth_rule(happened, depth, _int(a, "MAXDEPTH", 5000),
                              _int(a, "QDEPTHHI", 80), _int(a, "QDEPTHLO", 20), switches)
    if fired is None:
        return
    try:
        with eng.lock:
            eng.alter(base.objtype, base.name, after.attributes())
            high, enq, deq, since = eng.stats.reset_queue(base.name, time.time(), depth)
    except MQMIError:  # the queue went (or its change could not be logged): no event
        return
    _put(eng, events.PERFM_EVENT_QUEUE,
         _BUILD[fired](eng.name, base.name, QueueStatistics(since, high, enq, deq)))


def after_put(eng: QueueManagerEngine, base: ObjectDef, mq: MessageQueue) -> None:
    """A message was put on local queue ``base`` (PERFMEV ENABLED): Queue Depth High? Queue
    Service Interval High?"""
    if base.name != events.PERFM_EVENT_QUEUE:
        _depth_changed(eng, base, mq, "put")
        if base.attributes.get("QSVCIEV", _NONE) != _NONE:
            _service_checked(eng, base, mq, "put")


def after_get(eng: QueueManagerEngine, base: ObjectDef, mq: MessageQueue) -> None:
    """A message was got from local queue ``base`` (PERFMEV ENABLED): Queue Depth Low? Queue
    Service Interval High or OK?"""
    _depth_changed(eng, base, mq, "get")
    if base.attributes.get("QSVCIEV", _NONE) != _NONE:
        _service_checked(eng, base, mq, "get")


def after_clear(eng: QueueManagerEngine, base: ObjectDef, mq: MessageQueue,
                removed: int) -> None:
    """CLEAR QLOCAL removed ``removed`` messages from local queue ``base`` (PERFMEV
    ENABLED): a get operation for the service interval rules (IBM: "an MQGET call or an
    activity that removes messages from a queue, such as using the CLEAR QLOCAL command"),
    so Queue Service Interval High or OK, the timer then OFF."""
    if base.attributes.get("QSVCIEV", _NONE) != _NONE:
        _service_checked(eng, base, mq, "get", removed)


def queue_full(eng: QueueManagerEngine, base: ObjectDef, mq: MessageQueue) -> None:
    """A put to local queue ``base`` was refused with 2053 (PERFMEV ENABLED): Queue Full?"""
    if base.name != events.PERFM_EVENT_QUEUE:
        _depth_changed(eng, base, mq, "full")


# ------------------------------------------------------------------ queue service interval events
#
# IBM's rules ("Rules for queue service interval events"; "Understanding the service timer"):
#
# 1. The service timer restarts (from zero) after a put to an empty queue and after a get
#    that leaves the queue not empty; a get that empties the queue turns it OFF; a put to a
#    queue already holding messages leaves it running. At start the timer of a queue that
#    holds messages runs from the queue manager's start.
# 2. Queue Service Interval High (QSVCIEV HIGH): at a put or a get, the timer has run longer
#    than QSVCINT milliseconds. The queue's QSVCIEV becomes OK.
# 3. Queue Service Interval OK (QSVCIEV OK): at a get, the timer has run QSVCINT or less.
#    QSVCIEV becomes HIGH.
# 4. The event resets the queue's statistics it reports, as the depth events do.
#
# IBM generates the event "on, or before, the next MQPUT or get operation": the check is made
# at the queue's next put or get, so no thread watches the clock.

_NONE = "NONE"
_HIGH = "HIGH"
_OK = "OK"

#: where the service timer reads the time (a test replaces it)
_clock = time.time

#: each queue's service timer: when it (re)started; absent while OFF
_service_timers: weakref.WeakKeyDictionary[MessageQueue, float] = weakref.WeakKeyDictionary()


def service_rule(happened: str, depth: int, started: float | None, now: float,
                 interval_ms: int, qsvciev: str) -> tuple[int | None, str, float | None]:
    """The queue service interval state machine (rules 1 to 3 above): after ``happened``
    ("put": a message was put, leaving ``depth``; "get": one was got, leaving ``depth``),
    the service timer having started at ``started`` (None: OFF), the event it generates (its
    reason) or None, the queue's QSVCIEV afterwards and the timer's start afterwards."""
    if happened not in ("put", "get"):
        raise ValueError(f"unknown queue operation {happened!r}")
    fired = None
    if started is not None:
        late = (now - started) * 1000.0 > interval_ms
        if qsvciev == _HIGH and late:
            fired, qsvciev = CMQC.MQRC_Q_SERVICE_INTERVAL_HIGH, _OK
        elif qsvciev == _OK and happened == "get" and not late:
            fired, qsvciev = CMQC.MQRC_Q_SERVICE_INTERVAL_OK, _HIGH
    if happened == "put":
        timer = now if depth <= 1 or started is None else started
    else:
        timer = now if depth > 0 else None
    return fired, qsvciev, timer


_SERVICE_BUILD = {CMQC.MQRC_Q_SERVICE_INTERVAL_HIGH: events.queue_service_interval_high,
                  CMQC.MQRC_Q_SERVICE_INTERVAL_OK: events.queue_service_interval_ok}


def _service_checked(eng: QueueManagerEngine, base: ObjectDef, mq: MessageQueue,
                     happened: str, moved: int = 1) -> None:
    """``moved``: how many messages the put or get (a CLEAR QLOCAL: all) moved."""
    a = base.attributes
    depth = mq.count - mq.getting
    before = depth - moved if happened == "put" else depth + moved
    started = _service_timers.get(mq)
    if started is None and before > 0:  # (rule 1: running since the queue manager started)
        started = eng.stats.started
    now = _clock()
    fired, qsvciev, timer = service_rule(happened, depth, started, now,
                                         _int(a, "QSVCINT", 999999999),
                                         str(a.get("QSVCIEV") or _NONE).upper())
    if timer is None:
        _service_timers.pop(mq, None)
    else:
        _service_timers[mq] = timer
    if fired is None:
        return
    try:
        with eng.lock:
            eng.alter(base.objtype, base.name, {"QSVCIEV": qsvciev})
            high, enq, deq, since = eng.stats.reset_queue(base.name, time.time(), depth)
    except MQMIError:  # the queue went (or its change could not be logged): no event
        return
    _put(eng, events.PERFM_EVENT_QUEUE,
         _SERVICE_BUILD[fired](eng.name, base.name, QueueStatistics(since, high, enq, deq)))
