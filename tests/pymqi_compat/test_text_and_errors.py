"""What pymqi does around the MQI calls themselves: a str message is text (its MQMD says so),
get_no_jms asks for no properties, and MQMIError carries the extras pymqi gives it.

what pymqi users rely on: "pymqi compatibility": the names in pymqi's documentation and examples
exist with the same signatures and behaviour.
"""

from __future__ import annotations

import mqpy as pymqi
from mqpy import CMQC
from tests.pymqi_compat.conftest import QUEUE


def test_a_str_message_is_put_as_text(qmgr):
    """Given a program that puts a str (Queue.put and QueueManager.put1), when the messages
    are got, then each MQMD says MQFMT_STRING in the connection's default CCSID (1208) and
    the body is the text in bytes_encoding; a bytes message keeps the MQMD it was given."""
    q = pymqi.Queue(qmgr, QUEUE, CMQC.MQOO_OUTPUT | CMQC.MQOO_INPUT_AS_Q_DEF)
    md = pymqi.MD()
    q.put("grüß dich", md)
    assert (md.Format, md.CodedCharSetId) == (CMQC.MQFMT_STRING, 1208)
    qmgr.put1(QUEUE, "second")
    q.put(b"raw bytes")
    for body in ("grüß dich".encode(), b"second"):
        got = pymqi.MD()
        assert q.get(None, got) == body
        assert (got.Format, got.CodedCharSetId) == (CMQC.MQFMT_STRING, 1208)
    got = pymqi.MD()
    assert q.get(None, got) == b"raw bytes"
    assert got.Format == CMQC.MQFMT_NONE
    q.close()


def test_get_no_jms_asks_for_no_properties(qmgr):
    """Given a message on the queue, when a program gets it with get_no_jms and its own
    MQGMO, then the message comes back and the MQGMO now holds MQGMO_NO_PROPERTIES and
    MQGMO_FAIL_IF_QUIESCING besides the options it had."""
    q = pymqi.Queue(qmgr, QUEUE, CMQC.MQOO_OUTPUT | CMQC.MQOO_INPUT_AS_Q_DEF)
    q.put(b"no properties")
    gmo = pymqi.GMO(Options=CMQC.MQGMO_NO_SYNCPOINT)
    assert q.get_no_jms(None, pymqi.MD(), gmo) == b"no properties"
    wanted = CMQC.MQGMO_NO_SYNCPOINT | CMQC.MQGMO_NO_PROPERTIES | CMQC.MQGMO_FAIL_IF_QUIESCING
    assert gmo.Options & wanted == wanted
    q.close()


def test_mqmierror_keeps_pymqis_extras():
    """Given pymqi's way of raising a truncation warning, when MQMIError is made with
    message= and original_length=, then they are attributes and the codes are as given."""
    err = pymqi.MQMIError(CMQC.MQCC_WARNING, CMQC.MQRC_TRUNCATED_MSG_ACCEPTED,
                          message=b"part", original_length=10)
    assert (err.comp, err.reason, err.message, err.original_length) == (
        CMQC.MQCC_WARNING, CMQC.MQRC_TRUNCATED_MSG_ACCEPTED, b"part", 10)
