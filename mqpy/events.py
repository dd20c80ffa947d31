"""Instrumentation events the queue manager puts on its event queues, as PCF event messages in
IBM's format (MQCFH Type MQCFT_EVENT, MQMD Format MQEVENT, the reason in the MQCFH, each
event's parameters in the order of IBM's "Event message reference"):

- start and stop (Queue Manager Active, Queue Manager Not Active) on SYSTEM.ADMIN.QMGR.EVENT
  while the queue manager's STRSTPEV is ENABLED, IBM's default;
- authority (Not Authorized types 1, 2, 3, 5, 6: AUTHOREV), local (Unknown Object Name,
  Unknown Alias Base Queue, Alias Base Queue Type Error: LOCALEV), inhibit (Put Inhibited,
  Get Inhibited: INHIBTEV) and remote (Unknown Remote Queue Manager and the transmission
  queue errors: REMOTEEV), on SYSTEM.ADMIN.QMGR.EVENT;
- performance (Queue Depth High, Queue Depth Low, Queue Full: PERFMEV and the queue's
  QDPHIEV, QDPLOEV, QDPMAXEV; Queue Service Interval High and OK: PERFMEV and the queue's
  QSVCIEV, QSVCINT) on SYSTEM.ADMIN.PERFM.EVENT;
- channel (Channel Started, Stopped, Stopped By User, Activated, Not Activated, Blocked:
  CHLEV ENABLED or EXCEPTION) on SYSTEM.ADMIN.CHANNEL.EVENT, from the channel initiator's
  channel state changes and CHLAUTH refusals (:class:`ChannelEvents`).

Every function here is pure: the facts of one event in, its PCFMessage out (:class:`ChannelEvents`
and :func:`put_event` excepted: they put events through an MQI connection). Whether an event
is wanted, and putting it, is the engine's (``mqpy.engine.instrumentation``).
"""

from __future__ import annotations

import socket
from collections.abc import Callable
from typing import TYPE_CHECKING

import attrs

from mqpy import CMQC, CMQCFC
from mqpy.errors import MQMIError
from mqpy.pcf import CFBS, CFGR, CFIN, CFSL, CFST, PCFMessage, build
from mqpy.structs.tables import CFH, MD, OD, PMO

if TYPE_CHECKING:
    from mqpy.mqi import QueueManager

__all__ = ["CHANNEL_EVENT_QUEUE", "PERFM_EVENT_QUEUE", "QMGR_EVENT_QUEUE", "Caller",
           "ChannelEvents", "QueueStatistics", "channel_activated", "channel_blocked",
           "channel_event_wanted", "chlev_of", "put_channel_events",
           "channel_started", "channel_state_event", "channel_stopped",
           "channel_stopped_by_user",
           "alias_base_q_type_error", "get_inhibited", "not_authorized_close",
           "not_authorized_connect", "not_authorized_open", "not_authorized_open_topic",
           "not_authorized_sub",
           "not_authorized_sub_dest", "put_event", "put_inhibited", "queue_depth_high",
           "queue_depth_low", "queue_full", "queue_manager_active", "queue_manager_not_active",
           "queue_service_interval_high", "queue_service_interval_ok",
           "remote_q_name_error", "start_stop_enabled", "unknown_alias_base_q",
           "unknown_object_name", "unknown_remote_q_mgr", "unknown_xmit_q", "xmit_q_type_error",
           "xmit_q_usage_error"]

QMGR_EVENT_QUEUE = "SYSTEM.ADMIN.QMGR.EVENT"
PERFM_EVENT_QUEUE = "SYSTEM.ADMIN.PERFM.EVENT"


@attrs.frozen
class Caller:
    """Who made the call an event reports: ApplType, ApplName, the user, and for a client
    its address and SVRCONN (IBM's ConnName and ChannelName, returned for clients only)."""

    appl_name: str
    user: str = ""
    appl_type: int = CMQC.MQAT_UNIX
    conn_name: str = ""
    channel: str = ""


@attrs.frozen
class QueueStatistics:
    """A queue's performance event statistics since they were last reset (IBM's
    TimeSinceReset, HighQDepth, MsgEnqCount, MsgDeqCount)."""

    time_since_reset: int
    high_q_depth: int
    msg_enq_count: int
    msg_deq_count: int


def start_stop_enabled(qmgr_attributes: dict) -> bool:
    """Whether the queue manager generates start and stop events (STRSTPEV)."""
    return qmgr_attributes.get("STRSTPEV", "ENABLED") == "ENABLED"


def _event(command: int, reason: int, params: list) -> PCFMessage:
    header = CFH(Type=CMQCFC.MQCFT_EVENT, StrucLength=CMQCFC.MQCFH_STRUC_LENGTH,
                 Version=CMQCFC.MQCFH_VERSION_1, Command=command, MsgSeqNumber=1,
                 Control=CMQCFC.MQCFC_LAST, CompCode=CMQC.MQCC_WARNING, Reason=reason)
    return PCFMessage(header, params)


def _st(parameter: int, value: str, length: int) -> CFST:
    """A string parameter blank-padded to its MQ length, as IBM's event messages carry it."""
    return CFST(parameter, value.encode("latin-1", "replace")[:length].ljust(length))


def _qmgr_name(qmgr: str) -> CFST:
    return _st(CMQC.MQCA_Q_MGR_NAME, qmgr, CMQC.MQ_Q_MGR_NAME_LENGTH)


def _q_name(qname: str, parameter: int = CMQC.MQCA_Q_NAME) -> CFST:
    return _st(parameter, qname, CMQC.MQ_Q_NAME_LENGTH)


def _user(caller: Caller) -> CFST:
    return _st(CMQCFC.MQCACF_USER_IDENTIFIER, caller.user, CMQC.MQ_USER_ID_LENGTH)


def _appl(caller: Caller) -> list:
    """ApplType, ApplName."""
    return [CFIN(CMQC.MQIA_APPL_TYPE, caller.appl_type),
            _st(CMQCFC.MQCACF_APPL_NAME, caller.appl_name, CMQC.MQ_APPL_NAME_LENGTH)]


def _conn_name(caller: Caller) -> list:
    """ConnName: returned only for a client-attached application."""
    if not caller.channel:
        return []
    return [_st(CMQCFC.MQCACH_CONNECTION_NAME, caller.conn_name, CMQC.MQ_CONN_NAME_LENGTH)]


def _client(caller: Caller) -> list:
    """ConnName, ChannelName: returned only for a client-attached application."""
    if not caller.channel:
        return []
    return _conn_name(caller) + [
        _st(CMQCFC.MQCACH_CHANNEL_NAME, caller.channel, CMQC.MQ_CHANNEL_NAME_LENGTH)]


def _object_qmgr(qmgr: str, object_qmgr: str) -> list:
    """ObjectQMgrName: returned only when the MQOD named a queue manager other than the one
    generating the event."""
    if not object_qmgr or object_qmgr == qmgr:
        return []
    return [_st(CMQCFC.MQCACF_OBJECT_Q_MGR_NAME, object_qmgr, CMQC.MQ_Q_MGR_NAME_LENGTH)]


def _qmgr_event(reason: int, params: list) -> PCFMessage:
    return _event(CMQCFC.MQCMD_Q_MGR_EVENT, reason, params)


def queue_manager_active(qmgr: str) -> PCFMessage:
    """Queue Manager Active (MQRC_Q_MGR_ACTIVE): the queue manager has started normally (a
    single instance: no standby is allowed)."""
    return _event(CMQCFC.MQCMD_Q_MGR_EVENT, CMQC.MQRC_Q_MGR_ACTIVE, [
        _qmgr_name(qmgr),
        CFIN(CMQCFC.MQIACF_REASON_QUALIFIER, CMQCFC.MQRQ_FAILOVER_NOT_PERMITTED),
        CFST(CMQCFC.MQCACF_HOST_NAME, socket.gethostname().encode("latin-1", "replace")),
    ])


def queue_manager_not_active(qmgr: str, *, quiescing: bool) -> PCFMessage:
    """Queue Manager Not Active (MQRC_Q_MGR_NOT_ACTIVE): the queue manager was asked to
    quiesce (a controlled end) or to stop (an immediate one)."""
    qualifier = CMQCFC.MQRQ_Q_MGR_QUIESCING if quiescing else CMQCFC.MQRQ_Q_MGR_STOPPING
    return _event(CMQCFC.MQCMD_Q_MGR_EVENT, CMQC.MQRC_Q_MGR_NOT_ACTIVE, [
        _qmgr_name(qmgr), CFIN(CMQCFC.MQIACF_REASON_QUALIFIER, qualifier)])


# ------------------------------------------------------------------ authority (AUTHOREV)


def not_authorized_connect(qmgr: str, caller: Caller, *, csp_user: str | None = None
                           ) -> PCFMessage:
    """Not Authorized (type 1): an MQCONN(X) refused. ``csp_user``: the MQCSP's user when the
    refusal is of its user and password (MQRQ_CSP_NOT_AUTHORIZED), else the connection itself
    was not authorized (MQRQ_CONN_NOT_AUTHORIZED)."""
    qualifier = CMQCFC.MQRQ_CONN_NOT_AUTHORIZED if csp_user is None \
        else CMQCFC.MQRQ_CSP_NOT_AUTHORIZED
    params = [_qmgr_name(qmgr), CFIN(CMQCFC.MQIACF_REASON_QUALIFIER, qualifier), _user(caller),
              *_appl(caller), *_conn_name(caller)]
    if csp_user is not None:
        # MQCSP user ids are up to 1024 bytes: carried as given, not padded
        params.append(CFST(CMQCFC.MQCACF_CSP_USER_IDENTIFIER,
                           csp_user.encode("latin-1", "replace")))
    return _qmgr_event(CMQC.MQRC_NOT_AUTHORIZED, params)


def not_authorized_open(qmgr: str, caller: Caller, options: int, qname: str,
                        object_qmgr: str = "") -> PCFMessage:
    """Not Authorized (type 2): an MQOPEN or MQPUT1 of a queue refused for its options."""
    return _qmgr_event(CMQC.MQRC_NOT_AUTHORIZED, [
        _qmgr_name(qmgr),
        CFIN(CMQCFC.MQIACF_REASON_QUALIFIER, CMQCFC.MQRQ_OPEN_NOT_AUTHORIZED),
        CFIN(CMQCFC.MQIACF_OPEN_OPTIONS, options), _user(caller), *_appl(caller),
        *_object_qmgr(qmgr, object_qmgr), _q_name(qname)])


def not_authorized_open_topic(qmgr: str, caller: Caller, options: int, topic_string: str,
                              admin_topic_names: list[str]) -> PCFMessage:
    """Not Authorized (type 2) of a topic: an MQOPEN (MQPUT1) for publishing refused. The
    topic string and the topic objects judged replace the queue names."""
    return _qmgr_event(CMQC.MQRC_NOT_AUTHORIZED, [
        _qmgr_name(qmgr),
        CFIN(CMQCFC.MQIACF_REASON_QUALIFIER, CMQCFC.MQRQ_OPEN_NOT_AUTHORIZED),
        CFIN(CMQCFC.MQIACF_OPEN_OPTIONS, options), _user(caller), *_appl(caller),
        CFST(CMQC.MQCA_TOPIC_STRING, topic_string.encode("utf-8")),
        _admin_topic_names(admin_topic_names)])


def not_authorized_close(qmgr: str, caller: Caller, qname: str) -> PCFMessage:
    """Not Authorized (type 3): an MQCLOSE that would delete a permanent dynamic queue by a
    user not authorized to."""
    return _qmgr_event(CMQC.MQRC_NOT_AUTHORIZED, [
        _qmgr_name(qmgr),
        CFIN(CMQCFC.MQIACF_REASON_QUALIFIER, CMQCFC.MQRQ_CLOSE_NOT_AUTHORIZED),
        _user(caller), *_appl(caller), _q_name(qname)])


def not_authorized_sub(qmgr: str, caller: Caller, options: int, topic_string: str,
                       admin_topic_names: list[str]) -> PCFMessage:
    """Not Authorized (type 5): an MQSUB refused on its topic. ``admin_topic_names``: the
    topic objects whose authorities were judged (IBM's AdminTopicNames)."""
    return _qmgr_event(CMQC.MQRC_NOT_AUTHORIZED, [
        _qmgr_name(qmgr),
        CFIN(CMQCFC.MQIACF_REASON_QUALIFIER, CMQCFC.MQRQ_SUB_NOT_AUTHORIZED),
        CFIN(CMQCFC.MQIACF_SUB_OPTIONS, options), _user(caller), *_appl(caller),
        CFST(CMQC.MQCA_TOPIC_STRING, topic_string.encode("utf-8")),
        _admin_topic_names(admin_topic_names)])


def not_authorized_sub_dest(qmgr: str, caller: Caller, options: int, topic_string: str,
                            dest_qmgr: str, dest_q: str) -> PCFMessage:
    """Not Authorized (type 6): an MQSUB refused the use of its (non-managed) destination
    queue."""
    return _qmgr_event(CMQC.MQRC_NOT_AUTHORIZED, [
        _qmgr_name(qmgr),
        CFIN(CMQCFC.MQIACF_REASON_QUALIFIER, CMQCFC.MQRQ_SUB_DEST_NOT_AUTHORIZED),
        CFIN(CMQCFC.MQIACF_SUB_OPTIONS, options), _user(caller), *_appl(caller),
        CFST(CMQC.MQCA_TOPIC_STRING, topic_string.encode("utf-8")),
        _st(CMQCFC.MQCACF_DESTINATION_Q_MGR, dest_qmgr, CMQC.MQ_Q_MGR_NAME_LENGTH),
        _st(CMQCFC.MQCACF_DESTINATION, dest_q, CMQC.MQ_Q_NAME_LENGTH)])


def _admin_topic_names(names: list[str]) -> CFSL:
    return CFSL(CMQCFC.MQCACF_ADMIN_TOPIC_NAMES,
                [n.encode("latin-1", "replace").ljust(CMQC.MQ_TOPIC_NAME_LENGTH)
                 for n in names])


# ------------------------------------------------------------------ local (LOCALEV)


def unknown_object_name(qmgr: str, caller: Caller, qname: str, object_qmgr: str = ""
                        ) -> PCFMessage:
    """Unknown Object Name (2085): an MQOPEN or MQPUT1 named no queue defined here."""
    return _qmgr_event(CMQC.MQRC_UNKNOWN_OBJECT_NAME, [
        _qmgr_name(qmgr), *_appl(caller), _q_name(qname), *_object_qmgr(qmgr, object_qmgr),
        *_client(caller)])


def unknown_alias_base_q(qmgr: str, caller: Caller, qname: str, base: str,
                         object_qmgr: str = "") -> PCFMessage:
    """Unknown Alias Base Queue (2082): an alias queue's TARGET names no queue."""
    return _qmgr_event(CMQC.MQRC_UNKNOWN_ALIAS_BASE_Q, [
        _qmgr_name(qmgr), _q_name(qname), _q_name(base, CMQC.MQCA_BASE_OBJECT_NAME),
        *_appl(caller), *_object_qmgr(qmgr, object_qmgr),
        CFIN(CMQC.MQIA_BASE_TYPE, CMQC.MQOT_Q), *_client(caller)])


def alias_base_q_type_error(qmgr: str, caller: Caller, qname: str, base: str, qtype: int,
                            object_qmgr: str = "") -> PCFMessage:
    """Alias Base Queue Type Error (2001): an alias queue's TARGET is neither a local queue
    nor a local definition of a remote queue (``qtype``: MQQT_ALIAS or MQQT_MODEL)."""
    return _qmgr_event(CMQC.MQRC_ALIAS_BASE_Q_TYPE_ERROR, [
        _qmgr_name(qmgr), _q_name(qname), _q_name(base, CMQC.MQCA_BASE_OBJECT_NAME),
        CFIN(CMQC.MQIA_Q_TYPE, qtype), *_appl(caller), *_object_qmgr(qmgr, object_qmgr),
        *_client(caller)])


# ------------------------------------------------------------------ inhibit (INHIBTEV)


def put_inhibited(qmgr: str, caller: Caller, qname: str, object_qmgr: str = "") -> PCFMessage:
    """Put Inhibited (2051): an MQPUT or MQPUT1 to a queue whose PUT is DISABLED."""
    return _qmgr_event(CMQC.MQRC_PUT_INHIBITED, [
        _qmgr_name(qmgr), _q_name(qname), *_appl(caller), *_object_qmgr(qmgr, object_qmgr),
        *_client(caller)])


def get_inhibited(qmgr: str, caller: Caller, qname: str) -> PCFMessage:
    """Get Inhibited (2016): an MQGET from a queue whose GET is DISABLED."""
    return _qmgr_event(CMQC.MQRC_GET_INHIBITED, [
        _qmgr_name(qmgr), _q_name(qname), *_appl(caller), *_client(caller)])


# ------------------------------------------------------------------ remote (REMOTEEV)


def unknown_remote_q_mgr(qmgr: str, caller: Caller, qname: str, object_qmgr: str = ""
                         ) -> PCFMessage:
    """Unknown Remote Queue Manager (2087): no route to the queue manager named."""
    return _qmgr_event(CMQC.MQRC_UNKNOWN_REMOTE_Q_MGR, [
        _qmgr_name(qmgr), _q_name(qname), *_appl(caller), *_object_qmgr(qmgr, object_qmgr),
        *_client(caller)])


def remote_q_name_error(qmgr: str, caller: Caller, qname: str, object_qmgr: str = ""
                        ) -> PCFMessage:
    """Remote Queue Name Error (2184): a remote queue definition with a blank RNAME opened
    as a queue."""
    return _qmgr_event(CMQC.MQRC_REMOTE_Q_NAME_ERROR, [
        _qmgr_name(qmgr), _q_name(qname), *_appl(caller), *_object_qmgr(qmgr, object_qmgr),
        *_client(caller)])


def xmit_q_type_error(qmgr: str, caller: Caller, qname: str, xmitq: str, qtype: int,
                      object_qmgr: str = "", *, default: bool = False) -> PCFMessage:
    """Transmission Queue Type Error (2091), or with ``default`` Default Transmission Queue
    Type Error (2198): the transmission queue is not a local queue (``qtype``)."""
    reason = CMQC.MQRC_DEF_XMIT_Q_TYPE_ERROR if default else CMQC.MQRC_XMIT_Q_TYPE_ERROR
    return _qmgr_event(reason, [
        _qmgr_name(qmgr), _q_name(qname), _q_name(xmitq, CMQC.MQCA_XMIT_Q_NAME),
        CFIN(CMQC.MQIA_Q_TYPE, qtype), *_appl(caller), *_object_qmgr(qmgr, object_qmgr),
        *_client(caller)])


def xmit_q_usage_error(qmgr: str, caller: Caller, qname: str, xmitq: str,
                       object_qmgr: str = "", *, default: bool = False) -> PCFMessage:
    """Transmission Queue Usage Error (2092), or with ``default`` Default Transmission Queue
    Usage Error (2199): the transmission queue's USAGE is not XMITQ."""
    reason = CMQC.MQRC_DEF_XMIT_Q_USAGE_ERROR if default else CMQC.MQRC_XMIT_Q_USAGE_ERROR
    return _qmgr_event(reason, [
        _qmgr_name(qmgr), _q_name(qname), _q_name(xmitq, CMQC.MQCA_XMIT_Q_NAME),
        *_appl(caller), *_object_qmgr(qmgr, object_qmgr), *_client(caller)])


def unknown_xmit_q(qmgr: str, caller: Caller, qname: str, xmitq: str, object_qmgr: str = "",
                   *, default: bool = False) -> PCFMessage:
    """Unknown Transmission Queue (2196), or with ``default`` Unknown Default Transmission
    Queue (2197): the XMITQ (DEFXMITQ) names no queue defined here."""
    reason = CMQC.MQRC_UNKNOWN_DEF_XMIT_Q if default else CMQC.MQRC_UNKNOWN_XMIT_Q
    return _qmgr_event(reason, [
        _qmgr_name(qmgr), _q_name(qname), _q_name(xmitq, CMQC.MQCA_XMIT_Q_NAME),
        *_appl(caller), *_object_qmgr(qmgr, object_qmgr), *_client(caller)])


# ------------------------------------------------------------------ performance (PERFMEV)


def _perfm_event(reason: int, qmgr: str, qname: str, stats: QueueStatistics) -> PCFMessage:
    return _event(CMQCFC.MQCMD_PERFM_EVENT, reason, [
        _qmgr_name(qmgr), _q_name(qname, CMQC.MQCA_BASE_Q_NAME),
        CFIN(CMQC.MQIA_TIME_SINCE_RESET, stats.time_since_reset),
        CFIN(CMQC.MQIA_HIGH_Q_DEPTH, stats.high_q_depth),
        CFIN(CMQC.MQIA_MSG_ENQ_COUNT, stats.msg_enq_count),
        CFIN(CMQC.MQIA_MSG_DEQ_COUNT, stats.msg_deq_count)])


def queue_depth_high(qmgr: str, qname: str, stats: QueueStatistics) -> PCFMessage:
    """Queue Depth High (2224): a put brought the depth to QDEPTHHI per cent of MAXDEPTH."""
    return _perfm_event(CMQC.MQRC_Q_DEPTH_HIGH, qmgr, qname, stats)


def queue_depth_low(qmgr: str, qname: str, stats: QueueStatistics) -> PCFMessage:
    """Queue Depth Low (2225): a get brought the depth to QDEPTHLO per cent of MAXDEPTH."""
    return _perfm_event(CMQC.MQRC_Q_DEPTH_LOW, qmgr, qname, stats)


def queue_full(qmgr: str, qname: str, stats: QueueStatistics) -> PCFMessage:
    """Queue Full (2053): a put was refused because the queue holds MAXDEPTH messages."""
    return _perfm_event(CMQC.MQRC_Q_FULL, qmgr, qname, stats)


def queue_service_interval_high(qmgr: str, qname: str, stats: QueueStatistics) -> PCFMessage:
    """Queue Service Interval High (2226): no successful get within QSVCINT of the put to an
    empty queue or the get that left messages (the service timer's start)."""
    return _perfm_event(CMQC.MQRC_Q_SERVICE_INTERVAL_HIGH, qmgr, qname, stats)


def queue_service_interval_ok(qmgr: str, qname: str, stats: QueueStatistics) -> PCFMessage:
    """Queue Service Interval OK (2227): after a High event, a get within QSVCINT of the
    service timer's start."""
    return _perfm_event(CMQC.MQRC_Q_SERVICE_INTERVAL_OK, qmgr, qname, stats)


# ------------------------------------------------------------------ channel (CHLEV)

CHANNEL_EVENT_QUEUE = "SYSTEM.ADMIN.CHANNEL.EVENT"

#: channel types whose events carry XmitQName (IBM: sender, server, cluster-sender and
#: cluster-receiver channels)
_XMITQ_TYPES = frozenset({"SDR", "SVR", "CLUSSDR", "CLUSRCVR"})
_RUNNING_STATES = frozenset({"RUNNING", "PAUSED", "STOPPING"})


def _channel_where(chltype: str, xmitq: str, conname: str) -> list:
    """XmitQName (sending channel types), ConnectionName."""
    out = []
    if chltype in _XMITQ_TYPES:
        out.append(_st(CMQCFC.MQCACH_XMIT_Q_NAME, xmitq, CMQC.MQ_Q_NAME_LENGTH))
    out.append(_st(CMQCFC.MQCACH_CONNECTION_NAME, conname, CMQC.MQ_CONN_NAME_LENGTH))
    return out


def _channel_name(channel: str) -> CFST:
    return _st(CMQCFC.MQCACH_CHANNEL_NAME, channel, CMQC.MQ_CHANNEL_NAME_LENGTH)


def channel_started(qmgr: str, channel: str, chltype: str, xmitq: str = "", conname: str = ""
                    ) -> PCFMessage:
    """Channel Started (2282): an instance of a channel finished its initial data (and
    resynchronisation) and can move messages."""
    return _event(CMQCFC.MQCMD_CHANNEL_EVENT, CMQC.MQRC_CHANNEL_STARTED, [
        _qmgr_name(qmgr), _channel_name(channel), *_channel_where(chltype, xmitq, conname)])


def channel_activated(qmgr: str, channel: str, chltype: str, xmitq: str = "",
                      conname: str = "", *, activated: bool = True) -> PCFMessage:
    """Channel Activated (2295), or with ``activated`` False Channel Not Activated (2296): a
    channel waiting for an active slot (MAXACTIVECHANNELS) got one, or must wait for one."""
    reason = CMQC.MQRC_CHANNEL_ACTIVATED if activated else CMQC.MQRC_CHANNEL_NOT_ACTIVATED
    return _event(CMQCFC.MQCMD_CHANNEL_EVENT, reason, [
        _qmgr_name(qmgr), _channel_name(channel), *_channel_where(chltype, xmitq, conname)])


def channel_stopped(qmgr: str, channel: str, chltype: str, qualifier: int, xmitq: str = "",
                    conname: str = "", *, error_id: int = 0, aux_int: tuple[int, int] = (0, 0),
                    aux_str: tuple[str, str, str] = ("", "", "")) -> PCFMessage:
    """Channel Stopped (2283): an instance that had started ended. ``qualifier``:
    MQRQ_CHANNEL_STOPPED_OK, _ERROR, _RETRY or _DISABLED; ``error_id`` the AMQ message number
    of its error (0: none) with that message's inserts (``aux_int``, ``aux_str``)."""
    return _event(CMQCFC.MQCMD_CHANNEL_EVENT, CMQC.MQRC_CHANNEL_STOPPED, [
        _qmgr_name(qmgr), CFIN(CMQCFC.MQIACF_REASON_QUALIFIER, qualifier),
        _channel_name(channel), CFIN(CMQCFC.MQIACF_ERROR_IDENTIFIER, error_id),
        CFIN(CMQCFC.MQIACF_AUX_ERROR_DATA_INT_1, aux_int[0]),
        CFIN(CMQCFC.MQIACF_AUX_ERROR_DATA_INT_2, aux_int[1]),
        _st(CMQCFC.MQCACF_AUX_ERROR_DATA_STR_1, aux_str[0], 48),
        _st(CMQCFC.MQCACF_AUX_ERROR_DATA_STR_2, aux_str[1], 48),
        _st(CMQCFC.MQCACF_AUX_ERROR_DATA_STR_3, aux_str[2], 48),
        *_channel_where(chltype, xmitq, conname)])


def channel_stopped_by_user(qmgr: str, channel: str) -> PCFMessage:
    """Channel Stopped By User (2279): STOP CHANNEL stopped it (MQRQ_CHANNEL_STOPPED_DISABLED)."""
    return _event(CMQCFC.MQCMD_CHANNEL_EVENT, CMQC.MQRC_CHANNEL_STOPPED_BY_USER, [
        _qmgr_name(qmgr),
        CFIN(CMQCFC.MQIACF_REASON_QUALIFIER, CMQCFC.MQRQ_CHANNEL_STOPPED_DISABLED),
        _channel_name(channel)])


def channel_blocked(qmgr: str, qualifier: int, conname: str, *, warning: bool = False,
                    channel: str = "", user: str = "", remote_qmgr: str = "",
                    ssl_peer: str = "", client_user: str = "", appl_name: str = "",
                    appl_type: int = CMQC.MQAT_UNIX) -> PCFMessage:
    """Channel Blocked (2577), or with ``warning`` its WARN(YES) form (2578): CHLAUTH refused
    an inbound channel (or would have). ``qualifier``: MQRQ_CHANNEL_BLOCKED_ADDRESS (BLOCKADDR,
    before the channel is named: no ChannelName), _USERID (BLOCKUSER: UserIdentifier is the
    user blocked) or _NOACCESS (a mapping record of USERSRC(NOACCESS)). RemoteQMgrName for a
    channel from a queue manager, SSLPeerName over TLS, and for a client its ClientUserId,
    ApplType and ApplName, each where known."""
    reason = CMQC.MQRC_CHANNEL_BLOCKED_WARNING if warning else CMQC.MQRC_CHANNEL_BLOCKED
    params: list = [_qmgr_name(qmgr), CFIN(CMQCFC.MQIACF_REASON_QUALIFIER, qualifier)]
    by_address = qualifier == CMQCFC.MQRQ_CHANNEL_BLOCKED_ADDRESS
    if not by_address:
        params.append(_channel_name(channel))
    if qualifier == CMQCFC.MQRQ_CHANNEL_BLOCKED_USERID:
        params.append(_st(CMQCFC.MQCACF_USER_IDENTIFIER, user, CMQC.MQ_USER_ID_LENGTH))
    params.append(_st(CMQCFC.MQCACH_CONNECTION_NAME, conname, CMQC.MQ_CONN_NAME_LENGTH))
    if remote_qmgr:
        params.append(_st(CMQC.MQCA_REMOTE_Q_MGR_NAME, remote_qmgr, CMQC.MQ_Q_MGR_NAME_LENGTH))
    if ssl_peer:  # a distinguished name: carried as given, as the MQCSP user is
        params.append(CFST(CMQCFC.MQCACH_SSL_PEER_NAME, ssl_peer.encode("utf-8", "replace")))
    if not by_address and (client_user or appl_name):
        params += [_st(CMQCFC.MQCACH_CLIENT_USER_ID, client_user, CMQC.MQ_USER_ID_LENGTH),
                   CFIN(CMQC.MQIA_APPL_TYPE, appl_type),
                   _st(CMQCFC.MQCACF_APPL_NAME, appl_name, CMQC.MQ_APPL_NAME_LENGTH)]
    return _event(CMQCFC.MQCMD_CHANNEL_EVENT, reason, params)


def channel_state_event(qmgr: str, channel: str, chltype: str, previous: str, new: str, *,
                        xmitq: str = "", conname: str = "", stop_requested: str = "",
                        error_id: int = 0) -> PCFMessage | None:
    """The channel event a move from state ``previous`` to ``new`` (mqpy_chinit.states'
    names) is, or None: RUNNING after the initial data is Channel Started; an instance that
    had started ending INACTIVE, RETRYING or STOPPED is Channel Stopped (OK, or ERROR with an
    ``error_id``; RETRY; DISABLED), or Channel Stopped By User when an operator's STOP CHANNEL
    (``stop_requested``) stopped it. A server-connection channel has none (IBM: client
    connections do not produce these events)."""
    if chltype == "SVRCONN":
        return None
    if new == "RUNNING" and previous in ("BINDING", "REQUESTING"):
        return channel_started(qmgr, channel, chltype, xmitq, conname)
    if previous not in _RUNNING_STATES or new not in ("INACTIVE", "RETRYING", "STOPPED"):
        return None
    if new == "STOPPED" and stop_requested:
        return channel_stopped_by_user(qmgr, channel)
    qualifier = {"INACTIVE": CMQCFC.MQRQ_CHANNEL_STOPPED_ERROR if error_id
                 else CMQCFC.MQRQ_CHANNEL_STOPPED_OK,
                 "RETRYING": CMQCFC.MQRQ_CHANNEL_STOPPED_RETRY,
                 "STOPPED": CMQCFC.MQRQ_CHANNEL_STOPPED_DISABLED}[new]
    return channel_stopped(qmgr, channel, chltype, qualifier, xmitq, conname,
                           error_id=error_id)


def channel_event_wanted(chlev: str, msg: PCFMessage) -> bool:
    """Whether the queue manager's CHLEV generates ``msg``: ENABLED all channel events;
    EXCEPTION only Activated, Not Activated, Stopped By User, Stopped other than OK and
    Channel Blocked (not its WARN(YES) form); DISABLED (IBM's default) none."""
    chlev = chlev.strip().upper()
    if chlev == "ENABLED":
        return True
    if chlev != "EXCEPTION":
        return False
    reason = msg.header.Reason
    if reason in (CMQC.MQRC_CHANNEL_STARTED, CMQC.MQRC_CHANNEL_BLOCKED_WARNING):
        return False
    if reason == CMQC.MQRC_CHANNEL_STOPPED:
        qualifier = next(p.Value for p in msg.params
                         if p.Parameter == CMQCFC.MQIACF_REASON_QUALIFIER)
        return qualifier != CMQCFC.MQRQ_CHANNEL_STOPPED_OK
    return True


_CHLEV = {CMQCFC.MQEVR_ENABLED: "ENABLED", CMQCFC.MQEVR_EXCEPTION: "EXCEPTION"}


class ChannelEvents:
    """The channel initiator's channel events: :meth:`observe` is a channel state observer
    (``mqpy_chinit.states.add_state_observer``: it neither blocks nor raises, it only keeps
    the event); :meth:`put_pending`, called where an MQI connection may block, puts those the
    queue manager's CHLEV wants on SYSTEM.ADMIN.CHANNEL.EVENT."""

    def __init__(self, qmgr: str, on_pending: Callable[[], None] | None = None) -> None:
        self.qmgr = qmgr
        self.pending: list[PCFMessage] = []
        #: told (in the thread that moved the channel) when an event is kept: what wakes
        #: the task that calls :meth:`put_pending`
        self.on_pending = on_pending

    def observe(self, status: object) -> None:
        history = getattr(status, "history", [])
        if not history:
            return
        new = _state_name(history[-1])
        previous = _state_name(history[-2]) if len(history) > 1 else "INACTIVE"
        msg = channel_state_event(
            self.qmgr, str(getattr(status, "channel", "")), str(getattr(status, "chltype", "")),
            previous, new, xmitq=str(getattr(status, "xmitq", "") or ""),
            conname=str(getattr(status, "conname", "") or ""),
            stop_requested=str(getattr(status, "stop_requested", "") or ""))
        if msg is not None:
            self.keep(msg)

    def keep(self, msg: PCFMessage) -> None:
        """Keep one channel event (a state change's, a CHLAUTH refusal's) to be put."""
        self.pending.append(msg)
        if self.on_pending is not None:
            self.on_pending()

    def take_wanted(self, chlev: str) -> list[PCFMessage]:
        """The events kept so far that the queue manager's ``chlev`` wants (the others are
        dropped, as IBM never generates them)."""
        pending, self.pending = self.pending, []
        return [msg for msg in pending if channel_event_wanted(chlev, msg)]

    def put_pending(self, qm: QueueManager) -> int:
        """Put the events kept so far that CHLEV (asked through ``qm``) wants; how many were
        put."""
        if not self.pending:
            return 0
        try:
            chlev = chlev_of(qm.inquire(CMQC.MQIA_CHANNEL_EVENT))
        except MQMIError:
            self.pending = []
            return 0  # the queue manager is going: the events are lost, as IBM's would be
        return put_channel_events(qm, self.take_wanted(chlev))


def chlev_of(value: object) -> str:
    """CHLEV as MQSC says it (ENABLED, EXCEPTION, DISABLED), from MQINQ's MQEVR_* or a
    DISPLAY QMGR's word."""
    if isinstance(value, int):
        return _CHLEV.get(value, "DISABLED")
    return str(value or "DISABLED").strip().upper()


def put_channel_events(qm: QueueManager, msgs: list[PCFMessage]) -> int:
    """Put ``msgs`` on SYSTEM.ADMIN.CHANNEL.EVENT; how many were put."""
    return sum(1 for msg in msgs if put_event(qm, msg, CHANNEL_EVENT_QUEUE) == 0)


def _state_name(state: object) -> str:
    return str(getattr(state, "value", state))


def put_event(qm: QueueManager, msg: PCFMessage, queue: str = QMGR_EVENT_QUEUE) -> int:
    """MQPUT1 one event message to ``queue``, outside syncpoint, persistent as the queue
    defines: 0, or the reason the put failed (IBM: an event that cannot be put is lost, the
    queue manager goes on)."""
    md = MD(Format=CMQC.MQFMT_EVENT, MsgType=CMQC.MQMT_DATAGRAM,
            Persistence=CMQC.MQPER_PERSISTENCE_AS_Q_DEF)
    try:
        qm.put1(OD(ObjectName=queue.encode()), build(msg), md,
                PMO(Options=CMQC.MQPMO_NO_SYNCPOINT))
    except MQMIError as e:
        return e.reason
    return 0


# ------------------------------------------------------------------ command and configuration
# events (CMDEV, CONFIGEV) and Not Authorized type 4
#
# Command events on SYSTEM.ADMIN.COMMAND.EVENT, configuration events (Create, Change, Delete
# and Refresh Object) on SYSTEM.ADMIN.CONFIG.EVENT, Not Authorized type 4 (a command the
# command server refused) on SYSTEM.ADMIN.QMGR.EVENT; whether they are wanted, and putting
# them, is mqpy.mqsc.adminevents'.


COMMAND_EVENT_QUEUE = "SYSTEM.ADMIN.COMMAND.EVENT"
CONFIG_EVENT_QUEUE = "SYSTEM.ADMIN.CONFIG.EVENT"


@attrs.frozen
class EventOrigin:
    """Where a command or call a command or configuration event reports came from:
    EventUserId, EventOrigin (MQEVO_CONSOLE, MQEVO_MSG, MQEVO_INIT ...), EventQMgr, and for a
    command message (MQEVO_MSG) the context of its MQMD (EventAccountingToken,
    EventApplIdentity, EventApplType, EventApplName, EventApplOrigin)."""

    user: str
    origin: int
    qmgr: str
    accounting_token: bytes = b""
    appl_identity: str = ""
    appl_type: int = 0
    appl_name: str = ""
    appl_origin: str = ""


def _origin(o: EventOrigin) -> list:
    """The origin parameters, in IBM's order; the message context only for MQEVO_MSG."""
    params = [_st(CMQCFC.MQCACF_EVENT_USER_ID, o.user, CMQC.MQ_USER_ID_LENGTH),
              CFIN(CMQCFC.MQIACF_EVENT_ORIGIN, o.origin),
              _st(CMQCFC.MQCACF_EVENT_Q_MGR, o.qmgr, CMQC.MQ_Q_MGR_NAME_LENGTH)]
    if o.origin != CMQCFC.MQEVO_MSG:
        return params
    return params + [
        CFBS(CMQCFC.MQBACF_EVENT_ACCOUNTING_TOKEN,
             o.accounting_token[:CMQC.MQ_ACCOUNTING_TOKEN_LENGTH].ljust(
                 CMQC.MQ_ACCOUNTING_TOKEN_LENGTH, b"\0")),
        _st(CMQCFC.MQCACF_EVENT_APPL_IDENTITY, o.appl_identity,
            CMQC.MQ_APPL_IDENTITY_DATA_LENGTH),
        CFIN(CMQCFC.MQIACF_EVENT_APPL_TYPE, o.appl_type),
        _st(CMQCFC.MQCACF_EVENT_APPL_NAME, o.appl_name, CMQC.MQ_APPL_NAME_LENGTH),
        _st(CMQCFC.MQCACF_EVENT_APPL_ORIGIN, o.appl_origin, CMQC.MQ_APPL_ORIGIN_DATA_LENGTH)]


def _header(command: int, reason: int, version: int, seq: int = 1, last: bool = True) -> CFH:
    return CFH(Type=CMQCFC.MQCFT_EVENT, StrucLength=CMQCFC.MQCFH_STRUC_LENGTH, Version=version,
               Command=command, MsgSeqNumber=seq,
               Control=CMQCFC.MQCFC_LAST if last else CMQCFC.MQCFC_NOT_LAST,
               CompCode=CMQC.MQCC_WARNING, Reason=reason)


def command_events_wanted(cmdev: str, *, display: bool) -> bool:
    """Whether the queue manager's CMDEV generates an event for a command that worked:
    ENABLED every one, NODISPLAY all but DISPLAY (MQSC) and Inquire (PCF), DISABLED (IBM's
    default) none."""
    cmdev = cmdev.strip().upper()
    return cmdev == "ENABLED" or (cmdev == "NODISPLAY" and not display)


def command_event(origin: EventOrigin, command: int, *, mqsc: bytes | None = None,
                  params: list | None = None) -> PCFMessage:
    """Command (MQRC_COMMAND_MQSC 2412 for ``mqsc``, the command's text as entered; else
    MQRC_COMMAND_PCF 2413 with the PCF command's ``params`` as sent): the CommandContext
    group (the origin and ``command``, the MQCMD_* code) and the CommandData group. An MQCFH
    of version 3, as IBM's command events carry."""
    if mqsc is not None:
        reason = CMQC.MQRC_COMMAND_MQSC
        data = [CFST(CMQCFC.MQCACF_COMMAND_MQSC, mqsc[:CMQCFC.MQ_COMMAND_MQSC_LENGTH])]
    else:
        reason = CMQC.MQRC_COMMAND_PCF
        data = list(params or [])
    return PCFMessage(_header(CMQCFC.MQCMD_COMMAND_EVENT, reason, CMQCFC.MQCFH_VERSION_3), [
        CFGR(CMQCFC.MQGACF_COMMAND_CONTEXT,
             [*_origin(origin), CFIN(CMQCFC.MQIACF_COMMAND, command)]),
        CFGR(CMQCFC.MQGACF_COMMAND_DATA, data)])


def _config_event(reason: int, origin: EventOrigin, object_type: int, attributes: list, *,
                  seq: int = 1, last: bool = True) -> PCFMessage:
    """A configuration event: the origin, ObjectType, ObjectName (the first of
    ``attributes``, the object's Inquire answer), Disposition (MQQSGD_Q_MGR: no queue
    sharing groups here), then the rest of the object's attributes. An MQCFH of version 2."""
    name, rest = attributes[0], attributes[1:]
    return PCFMessage(
        _header(CMQCFC.MQCMD_CONFIG_EVENT, reason, CMQCFC.MQCFH_VERSION_2, seq, last),
        [*_origin(origin), CFIN(CMQCFC.MQIACF_OBJECT_TYPE, object_type), name,
         CFIN(CMQC.MQIA_QSG_DISP, CMQC.MQQSGD_Q_MGR), *rest])


def create_object(origin: EventOrigin, object_type: int, attributes: list) -> PCFMessage:
    """Create Object (2367): a DEFINE (or DEFINE REPLACE) made a new object."""
    return _config_event(CMQC.MQRC_CONFIG_CREATE_OBJECT, origin, object_type, attributes)


def change_object(origin: EventOrigin, object_type: int, before: list, after: list
                  ) -> tuple[PCFMessage, PCFMessage]:
    """Change Object (2368): an ALTER, DEFINE REPLACE or MQSET of an existing object, as
    two messages: the attributes before (MsgSeqNumber 1, MQCFC_NOT_LAST), then after
    (MsgSeqNumber 2, MQCFC_LAST). They are put with one CorrelId."""
    return (_config_event(CMQC.MQRC_CONFIG_CHANGE_OBJECT, origin, object_type, before,
                          seq=1, last=False),
            _config_event(CMQC.MQRC_CONFIG_CHANGE_OBJECT, origin, object_type, after,
                          seq=2, last=True))


def delete_object(origin: EventOrigin, object_type: int, attributes: list) -> PCFMessage:
    """Delete Object (2369): a DELETE (or an MQCLOSE) deleted the object; its attributes as
    they were."""
    return _config_event(CMQC.MQRC_CONFIG_DELETE_OBJECT, origin, object_type, attributes)


def refresh_object(origin: EventOrigin, object_type: int, attributes: list) -> PCFMessage:
    """Refresh Object (2370): REFRESH QMGR TYPE(CONFIGEV) selected the object."""
    return _config_event(CMQC.MQRC_CONFIG_REFRESH_OBJECT, origin, object_type, attributes)


def not_authorized_command(qmgr: str, command: int, user: str) -> PCFMessage:
    """Not Authorized (type 4): the command server refused a command (``command``, its
    MQCMD_* code) for the authority of ``user``."""
    return _qmgr_event(CMQC.MQRC_NOT_AUTHORIZED, [
        _qmgr_name(qmgr),
        CFIN(CMQCFC.MQIACF_REASON_QUALIFIER, CMQCFC.MQRQ_CMD_NOT_AUTHORIZED),
        CFIN(CMQCFC.MQIACF_COMMAND, command),
        _st(CMQCFC.MQCACF_USER_IDENTIFIER, user, CMQC.MQ_USER_ID_LENGTH)])
