"""The checks IBM makes of an MQPUT's MQMD and MQPMO and an MQGET's MQGMO and buffer length:
each bad value fails that call with IBM's reason, the same embedded, over the bindings socket
and over a client channel, and the connection and its unit of work go on."""

from __future__ import annotations

import pytest

import mqpy
from mqpy import CMQC

from ._modes import QUEUE, fails_alone

pytestmark = pytest.mark.timeout(180)


def _put(**md):
    return lambda qm, q: q.put(b"bad", mqpy.MD(**md))


def _put_options(options: int):
    return lambda qm, q: q.put(b"bad", mqpy.MD(), mqpy.PMO(Options=options))


def _get_options(options: int):
    return lambda qm, q: q.get(None, mqpy.MD(), mqpy.GMO(Options=options))


_UNDEFINED = 0x40000000  # no MQPMO_*, MQGMO_*, MQMO_* nor MQOO_* option has this bit
_UNSUPPORTED_REPORT = 0x00040000  # in MQRO_REJECT_UNSUP_MASK, no MQRO_* option

#: (what is wrong, the call made on an open queue ``q`` of connection ``qm``, the reason)
CASES = [
    ("msgtype-0", _put(MsgType=0), CMQC.MQRC_MSG_TYPE_ERROR),
    ("msgtype-negative", _put(MsgType=-8), CMQC.MQRC_MSG_TYPE_ERROR),
    ("msgtype-beyond-appl", _put(MsgType=CMQC.MQMT_APPL_LAST + 1), CMQC.MQRC_MSG_TYPE_ERROR),
    ("put1-msgtype-0",
     lambda qm, q: qm.put1(QUEUE, b"bad", mqpy.MD(MsgType=0)), CMQC.MQRC_MSG_TYPE_ERROR),
    ("report-all-bits", _put(Report=-1), CMQC.MQRC_REPORT_OPTIONS_ERROR),
    ("report-unsupported", _put(Report=_UNSUPPORTED_REPORT), CMQC.MQRC_REPORT_OPTIONS_ERROR),
    ("feedback-negative", _put(Feedback=-3), CMQC.MQRC_FEEDBACK_ERROR),
    ("feedback-beyond-appl", _put(Feedback=CMQC.MQFB_APPL_LAST + 1),
     CMQC.MQRC_FEEDBACK_ERROR),
    ("persistence-5", _put(Persistence=5), CMQC.MQRC_PERSISTENCE_ERROR),
    ("priority-minus-2", _put(Priority=-2), CMQC.MQRC_PRIORITY_ERROR),
    ("expiry-0", _put(Expiry=0), CMQC.MQRC_EXPIRY_ERROR),
    ("pmo-undefined-option", _put_options(_UNDEFINED), CMQC.MQRC_OPTIONS_ERROR),
    ("pmo-both-syncpoints", _put_options(CMQC.MQPMO_SYNCPOINT | CMQC.MQPMO_NO_SYNCPOINT),
     CMQC.MQRC_OPTIONS_ERROR),
    ("gmo-undefined-option", _get_options(_UNDEFINED), CMQC.MQRC_OPTIONS_ERROR),
    ("gmo-both-syncpoints", _get_options(CMQC.MQGMO_SYNCPOINT | CMQC.MQGMO_NO_SYNCPOINT),
     CMQC.MQRC_OPTIONS_ERROR),
    ("gmo-if-persistent-and-no-syncpoint",
     _get_options(CMQC.MQGMO_SYNCPOINT_IF_PERSISTENT | CMQC.MQGMO_NO_SYNCPOINT),
     CMQC.MQRC_OPTIONS_ERROR),
    ("gmo-wait-and-set-signal", _get_options(CMQC.MQGMO_WAIT | CMQC.MQGMO_SET_SIGNAL),
     CMQC.MQRC_OPTIONS_ERROR),
    ("gmo-set-signal", _get_options(CMQC.MQGMO_SET_SIGNAL), CMQC.MQRC_OPTIONS_ERROR),
    ("gmo-match-options-undefined",
     lambda qm, q: q.get(None, mqpy.MD(), mqpy.GMO(Version=2, MatchOptions=_UNDEFINED)),
     CMQC.MQRC_MATCH_OPTIONS_ERROR),
    ("open-undefined-option",
     lambda qm, q: mqpy.Queue(qm, QUEUE, CMQC.MQOO_OUTPUT | _UNDEFINED), CMQC.MQRC_OPTIONS_ERROR),
    ("get-max-length-minus-5", lambda qm, q: q.get(-5), CMQC.MQRC_BUFFER_LENGTH_ERROR),
    ("get-max-length-minus-1", lambda qm, q: q.get(-1), CMQC.MQRC_BUFFER_LENGTH_ERROR),
]


@pytest.mark.parametrize(("case", "call", "reason"), CASES, ids=[c[0] for c in CASES])
def test_a_bad_value_fails_only_its_call(connect, case, call, reason):
    """Given a connection with a message put in syncpoint, when a call carries a value IBM
    refuses, then that call fails with IBM's reason, and the connection's unit of work
    still commits the message (none of the bad calls put or got anything)."""
    fails_alone(connect, call, reason)


def test_valid_values_at_the_edges_are_taken(connect):
    """Given the edges of the ranges IBM accepts (the first and last system and application
    message types and feedback codes, an application report message), then the puts
    complete."""
    qm = connect()
    try:
        q = mqpy.Queue(qm, QUEUE, CMQC.MQOO_OUTPUT)
        for md in (mqpy.MD(MsgType=CMQC.MQMT_SYSTEM_FIRST, ReplyToQ=QUEUE.encode()),
                   mqpy.MD(MsgType=CMQC.MQMT_SYSTEM_LAST),
                   mqpy.MD(MsgType=CMQC.MQMT_APPL_FIRST),
                   mqpy.MD(MsgType=CMQC.MQMT_APPL_LAST),
                   mqpy.MD(MsgType=CMQC.MQMT_REPORT, Feedback=CMQC.MQFB_SYSTEM_LAST),
                   mqpy.MD(Feedback=CMQC.MQFB_APPL_FIRST),
                   mqpy.MD(Feedback=CMQC.MQFB_APPL_LAST)):
            q.put(b"fine", md, mqpy.PMO(Options=CMQC.MQPMO_NO_SYNCPOINT))
        q.close()
    finally:
        qm.disconnect()
