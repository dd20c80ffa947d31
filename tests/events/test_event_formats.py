"""Each event message's bytes: the MQCFH IBM gives every event (Type MQCFT_EVENT, the event's
Command, CompCode MQCC_WARNING, the reason in Reason, one message: MsgSeqNumber 1, Control
MQCFC_LAST) and the event data's parameters in the order of IBM's event reference page.

Given the facts of one event, when ``mqpy.events`` builds it and the bytes are parsed back,
then the header and the parameter list are IBM's."""

from __future__ import annotations

import struct

import pytest

from mqpy import CMQC, CMQCFC, events, pcf

from ._support import params

QM = "QM1"
LOCAL = events.Caller(appl_name="amqsput", user="alice")
CLIENT = events.Caller(appl_name="client app", user="bob", conn_name="10.0.0.9(51000)",
                       channel="APP.SVRCONN")
STATS = events.QueueStatistics(time_since_reset=7, high_q_depth=8, msg_enq_count=9,
                               msg_deq_count=1)

# identifiers used below, by IBM's parameter names
QMGR_NAME, Q_NAME = CMQC.MQCA_Q_MGR_NAME, CMQC.MQCA_Q_NAME
REASON_QUALIFIER, OPTIONS = CMQCFC.MQIACF_REASON_QUALIFIER, CMQCFC.MQIACF_OPEN_OPTIONS
USER, APPL_TYPE, APPL_NAME = (CMQCFC.MQCACF_USER_IDENTIFIER, CMQC.MQIA_APPL_TYPE,
                              CMQCFC.MQCACF_APPL_NAME)
OBJECT_QMGR, CONN_NAME, CHANNEL = (CMQCFC.MQCACF_OBJECT_Q_MGR_NAME,
                                   CMQCFC.MQCACH_CONNECTION_NAME, CMQCFC.MQCACH_CHANNEL_NAME)
BASE_NAME, BASE_TYPE, Q_TYPE, XMITQ = (CMQC.MQCA_BASE_OBJECT_NAME, CMQC.MQIA_BASE_TYPE,
                                       CMQC.MQIA_Q_TYPE, CMQC.MQCA_XMIT_Q_NAME)


def _header(msg: pcf.PCFMessage) -> tuple[int, ...]:
    """(Type, StrucLength, Version, Command, MsgSeqNumber, Control, CompCode, Reason,
    ParameterCount) from the event's bytes."""
    data = pcf.build(msg, CMQC.MQENC_NATIVE)
    return struct.unpack("=9i", data[:36])


def _ids(msg: pcf.PCFMessage) -> list[int]:
    return [p for p, _ in params(pcf.parse(pcf.build(msg)))]


CASES = [
    # (event, command, reason, IBM's parameters in order)
    ("not authorized type 1", events.not_authorized_connect(QM, LOCAL),
     CMQCFC.MQCMD_Q_MGR_EVENT, CMQC.MQRC_NOT_AUTHORIZED,
     [QMGR_NAME, REASON_QUALIFIER, USER, APPL_TYPE, APPL_NAME]),
    ("not authorized type 1, MQCSP of a client",
     events.not_authorized_connect(QM, CLIENT, csp_user="carol"),
     CMQCFC.MQCMD_Q_MGR_EVENT, CMQC.MQRC_NOT_AUTHORIZED,
     [QMGR_NAME, REASON_QUALIFIER, USER, APPL_TYPE, APPL_NAME, CONN_NAME,
      CMQCFC.MQCACF_CSP_USER_IDENTIFIER]),
    ("not authorized type 2", events.not_authorized_open(QM, LOCAL, 16, "Q1", "QM2"),
     CMQCFC.MQCMD_Q_MGR_EVENT, CMQC.MQRC_NOT_AUTHORIZED,
     [QMGR_NAME, REASON_QUALIFIER, OPTIONS, USER, APPL_TYPE, APPL_NAME, OBJECT_QMGR, Q_NAME]),
    ("not authorized type 3", events.not_authorized_close(QM, LOCAL, "DYN.Q"),
     CMQCFC.MQCMD_Q_MGR_EVENT, CMQC.MQRC_NOT_AUTHORIZED,
     [QMGR_NAME, REASON_QUALIFIER, USER, APPL_TYPE, APPL_NAME, Q_NAME]),
    ("not authorized type 5", events.not_authorized_sub(QM, LOCAL, 2, "a/b", ["SYSTEM.BASE.TOPIC"]),
     CMQCFC.MQCMD_Q_MGR_EVENT, CMQC.MQRC_NOT_AUTHORIZED,
     [QMGR_NAME, REASON_QUALIFIER, CMQCFC.MQIACF_SUB_OPTIONS, USER, APPL_TYPE, APPL_NAME,
      CMQC.MQCA_TOPIC_STRING, CMQCFC.MQCACF_ADMIN_TOPIC_NAMES]),
    ("not authorized type 6", events.not_authorized_sub_dest(QM, LOCAL, 2, "a/b", QM, "DEST"),
     CMQCFC.MQCMD_Q_MGR_EVENT, CMQC.MQRC_NOT_AUTHORIZED,
     [QMGR_NAME, REASON_QUALIFIER, CMQCFC.MQIACF_SUB_OPTIONS, USER, APPL_TYPE, APPL_NAME,
      CMQC.MQCA_TOPIC_STRING, CMQCFC.MQCACF_DESTINATION_Q_MGR, CMQCFC.MQCACF_DESTINATION]),
    ("unknown object name", events.unknown_object_name(QM, CLIENT, "NOPE"),
     CMQCFC.MQCMD_Q_MGR_EVENT, CMQC.MQRC_UNKNOWN_OBJECT_NAME,
     [QMGR_NAME, APPL_TYPE, APPL_NAME, Q_NAME, CONN_NAME, CHANNEL]),
    ("unknown alias base queue", events.unknown_alias_base_q(QM, LOCAL, "AL", "GONE"),
     CMQCFC.MQCMD_Q_MGR_EVENT, CMQC.MQRC_UNKNOWN_ALIAS_BASE_Q,
     [QMGR_NAME, Q_NAME, BASE_NAME, APPL_TYPE, APPL_NAME, BASE_TYPE]),
    ("alias base queue type error",
     events.alias_base_q_type_error(QM, LOCAL, "AL", "MODEL", CMQC.MQQT_MODEL),
     CMQCFC.MQCMD_Q_MGR_EVENT, CMQC.MQRC_ALIAS_BASE_Q_TYPE_ERROR,
     [QMGR_NAME, Q_NAME, BASE_NAME, Q_TYPE, APPL_TYPE, APPL_NAME]),
    ("put inhibited", events.put_inhibited(QM, CLIENT, "Q1", "QM2"),
     CMQCFC.MQCMD_Q_MGR_EVENT, CMQC.MQRC_PUT_INHIBITED,
     [QMGR_NAME, Q_NAME, APPL_TYPE, APPL_NAME, OBJECT_QMGR, CONN_NAME, CHANNEL]),
    ("get inhibited", events.get_inhibited(QM, LOCAL, "Q1"),
     CMQCFC.MQCMD_Q_MGR_EVENT, CMQC.MQRC_GET_INHIBITED,
     [QMGR_NAME, Q_NAME, APPL_TYPE, APPL_NAME]),
    ("unknown remote queue manager", events.unknown_remote_q_mgr(QM, LOCAL, "Q1", "FAR"),
     CMQCFC.MQCMD_Q_MGR_EVENT, CMQC.MQRC_UNKNOWN_REMOTE_Q_MGR,
     [QMGR_NAME, Q_NAME, APPL_TYPE, APPL_NAME, OBJECT_QMGR]),
    ("transmission queue type error",
     events.xmit_q_type_error(QM, LOCAL, "RQ", "XQ", CMQC.MQQT_ALIAS),
     CMQCFC.MQCMD_Q_MGR_EVENT, CMQC.MQRC_XMIT_Q_TYPE_ERROR,
     [QMGR_NAME, Q_NAME, XMITQ, Q_TYPE, APPL_TYPE, APPL_NAME]),
    ("default transmission queue type error",
     events.xmit_q_type_error(QM, LOCAL, "RQ", "XQ", CMQC.MQQT_REMOTE, default=True),
     CMQCFC.MQCMD_Q_MGR_EVENT, CMQC.MQRC_DEF_XMIT_Q_TYPE_ERROR,
     [QMGR_NAME, Q_NAME, XMITQ, Q_TYPE, APPL_TYPE, APPL_NAME]),
    ("transmission queue usage error", events.xmit_q_usage_error(QM, LOCAL, "RQ", "XQ"),
     CMQCFC.MQCMD_Q_MGR_EVENT, CMQC.MQRC_XMIT_Q_USAGE_ERROR,
     [QMGR_NAME, Q_NAME, XMITQ, APPL_TYPE, APPL_NAME]),
    ("default transmission queue usage error",
     events.xmit_q_usage_error(QM, LOCAL, "RQ", "XQ", default=True),
     CMQCFC.MQCMD_Q_MGR_EVENT, CMQC.MQRC_DEF_XMIT_Q_USAGE_ERROR,
     [QMGR_NAME, Q_NAME, XMITQ, APPL_TYPE, APPL_NAME]),
    ("queue depth high", events.queue_depth_high(QM, "Q1", STATS),
     CMQCFC.MQCMD_PERFM_EVENT, CMQC.MQRC_Q_DEPTH_HIGH,
     [QMGR_NAME, CMQC.MQCA_BASE_Q_NAME, CMQC.MQIA_TIME_SINCE_RESET, CMQC.MQIA_HIGH_Q_DEPTH,
      CMQC.MQIA_MSG_ENQ_COUNT, CMQC.MQIA_MSG_DEQ_COUNT]),
    ("queue depth low", events.queue_depth_low(QM, "Q1", STATS),
     CMQCFC.MQCMD_PERFM_EVENT, CMQC.MQRC_Q_DEPTH_LOW,
     [QMGR_NAME, CMQC.MQCA_BASE_Q_NAME, CMQC.MQIA_TIME_SINCE_RESET, CMQC.MQIA_HIGH_Q_DEPTH,
      CMQC.MQIA_MSG_ENQ_COUNT, CMQC.MQIA_MSG_DEQ_COUNT]),
    ("queue full", events.queue_full(QM, "Q1", STATS),
     CMQCFC.MQCMD_PERFM_EVENT, CMQC.MQRC_Q_FULL,
     [QMGR_NAME, CMQC.MQCA_BASE_Q_NAME, CMQC.MQIA_TIME_SINCE_RESET, CMQC.MQIA_HIGH_Q_DEPTH,
      CMQC.MQIA_MSG_ENQ_COUNT, CMQC.MQIA_MSG_DEQ_COUNT]),
]


@pytest.mark.parametrize(("event", "msg", "command", "reason", "ids"), CASES,
                         ids=[c[0] for c in CASES])
def test_an_event_has_ibms_header_and_parameters_in_ibms_order(event, msg, command, reason,
                                                                ids):
    """Given one event's facts, when it is built, then its MQCFH says MQCFT_EVENT, its
    Command and its reason with MQCC_WARNING, one message, and its parameters are IBM's list
    in IBM's order."""
    assert _header(msg) == (CMQCFC.MQCFT_EVENT, CMQCFC.MQCFH_STRUC_LENGTH,
                            CMQCFC.MQCFH_VERSION_1, command, 1, CMQCFC.MQCFC_LAST,
                            CMQC.MQCC_WARNING, reason, len(ids))
    assert _ids(msg) == ids


def test_names_are_blank_padded_to_their_mq_lengths():
    """Given an Unknown Object Name event of a client, when built, then the queue manager and
    queue names are 48 bytes, ApplName 28, ConnName 264 and ChannelName 20, blank-padded, as
    IBM's event messages carry them."""
    msg = pcf.parse(pcf.build(events.unknown_object_name(QM, CLIENT, "NOPE")))
    lengths = {p.Parameter: len(p.String) for p in msg.params if hasattr(p, "String")}
    assert lengths == {QMGR_NAME: 48, APPL_NAME: 28, Q_NAME: 48, CONN_NAME: 264, CHANNEL: 20}


def test_performance_event_statistics_are_in_the_event():
    """Given statistics since the last reset, when a Queue Depth High event is built, then it
    carries TimeSinceReset, HighQDepth, MsgEnqCount and MsgDeqCount as given."""
    got = dict(params(pcf.parse(pcf.build(events.queue_depth_high(QM, "Q1", STATS)))))
    assert (got[CMQC.MQIA_TIME_SINCE_RESET], got[CMQC.MQIA_HIGH_Q_DEPTH],
            got[CMQC.MQIA_MSG_ENQ_COUNT], got[CMQC.MQIA_MSG_DEQ_COUNT]) == (7, 8, 9, 1)
    assert got[CMQC.MQCA_BASE_Q_NAME] == "Q1"
