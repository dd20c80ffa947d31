"""Bad input to MQOPEN/MQPUT/MQPUT1/MQGET: always an MQMIError with IBM's reason code, and no
side effect (nothing queued, no handle left open)."""

from __future__ import annotations

import pytest

import mqpy
from mqpy import CMQC

from ._support import IN, OUT, curdepth, od, put_to, raises_mq


def test_two_input_options_fail_2046(qm1):
    """MQOO_INPUT_SHARED | MQOO_INPUT_EXCLUSIVE is MQRC_OPTIONS_ERROR."""
    with raises_mq(CMQC.MQRC_OPTIONS_ERROR):
        mqpy.Queue(qm1.qm, "Q1", CMQC.MQOO_INPUT_SHARED | CMQC.MQOO_INPUT_EXCLUSIVE)
    assert qm1.eng.queue_status("Q1")["IPPROCS"] == 0


def test_syncpoint_and_no_syncpoint_together_fail_2046(qm1):
    """MQPMO_SYNCPOINT | MQPMO_NO_SYNCPOINT on a put, or the GMO pair on a get, is 2046."""
    pmo = mqpy.PMO(Options=CMQC.MQPMO_SYNCPOINT | CMQC.MQPMO_NO_SYNCPOINT)
    with raises_mq(CMQC.MQRC_OPTIONS_ERROR):
        put_to(qm1.qm, "Q1", pmo=pmo)
    assert curdepth(qm1.eng, "Q1") == 0
    put_to(qm1.qm, "Q1")
    q = mqpy.Queue(qm1.qm, "Q1", IN)
    with raises_mq(CMQC.MQRC_OPTIONS_ERROR):
        q.get(None, mqpy.MD(),
              mqpy.GMO(Options=CMQC.MQGMO_SYNCPOINT | CMQC.MQGMO_NO_SYNCPOINT))
    q.close()
    assert curdepth(qm1.eng, "Q1") == 1


@pytest.mark.parametrize("objtype", [CMQC.MQOT_NAMELIST, CMQC.MQOT_PROCESS, 999])
def test_put1_to_an_object_that_is_not_a_queue_fails_2043(qm1, objtype):
    """MQPUT1 with ObjectType other than MQOT_Q is MQRC_OBJECT_TYPE_ERROR."""
    d = mqpy.OD(ObjectName=b"SYSTEM.DEFAULT.PROCESS", ObjectType=objtype)
    with raises_mq(CMQC.MQRC_OBJECT_TYPE_ERROR):
        qm1.qm.put1(d, b"x")


def test_unknown_queue_fails_2085(qm1):
    """Opening a queue name nobody defined is MQRC_UNKNOWN_OBJECT_NAME."""
    with raises_mq(CMQC.MQRC_UNKNOWN_OBJECT_NAME):
        mqpy.Queue(qm1.qm, "NO.SUCH.QUEUE", OUT)


def test_alias_with_an_unknown_target_fails_2082(qm1):
    """QALIAS(AQ) TARGET(NO.SUCH.Q): opening AQ is MQRC_UNKNOWN_ALIAS_BASE_Q."""
    qm1.define("QALIAS", "AQ", TARGET="NO.SUCH.Q")
    with raises_mq(CMQC.MQRC_UNKNOWN_ALIAS_BASE_Q):
        mqpy.Queue(qm1.qm, "AQ", OUT)


def test_alias_of_an_alias_fails_2001(qm1):
    """QALIAS(A2) TARGET(A1) where A1 is itself an alias: aliases never chain, so opening A2 is
    MQRC_ALIAS_BASE_Q_TYPE_ERROR; an alias naming itself fails the same way (no loop)."""
    qm1.define("QALIAS", "A1", TARGET="Q1")
    qm1.define("QALIAS", "A2", TARGET="A1")
    qm1.define("QALIAS", "SELF", TARGET="SELF")
    for name in ("A2", "SELF"):
        with raises_mq(CMQC.MQRC_ALIAS_BASE_Q_TYPE_ERROR):
            mqpy.Queue(qm1.qm, name, OUT)


def test_name_longer_than_48_characters_fails_2152(qm1):
    """A 49-character queue name, through MQOPEN, MQPUT1 or DEFINE, is MQRC_OBJECT_NAME_ERROR."""
    long_name = "Q" * 49
    with raises_mq(CMQC.MQRC_OBJECT_NAME_ERROR):
        mqpy.Queue(qm1.qm, long_name, OUT)
    with raises_mq(CMQC.MQRC_OBJECT_NAME_ERROR):
        qm1.qm.put1(long_name, b"x")
    with raises_mq(CMQC.MQRC_OBJECT_NAME_ERROR):
        qm1.eng.define("QLOCAL", long_name, {})


def test_exactly_48_characters_is_a_valid_name(qm1):
    """A 48-character queue name is accepted end to end."""
    name = "Q" * 48
    qm1.define("QLOCAL", name)
    put_to(qm1.qm, name)
    assert curdepth(qm1.eng, name) == 1


def test_inquire_or_set_on_a_remote_queue_manager_fails_2045(qm1):
    """Given xmitq QMB, opening Q@QMB for MQOO_INQUIRE is MQRC_OPTION_NOT_VALID_FOR_TYPE."""
    qm1.xmitq("QMB")
    with raises_mq(CMQC.MQRC_OPTION_NOT_VALID_FOR_TYPE):
        mqpy.Queue(qm1.qm, od("Q", "QMB"), CMQC.MQOO_INQUIRE)


def test_errors_are_always_mqmierror_with_failed_completion(qm1):
    """Every rejection above is an MQMIError carrying MQCC_FAILED and a reason (no bare
    Python exception): a sample of resolution errors."""
    qm1.define("QLOCAL", "PLAIN")
    qm1.define("QREMOTE", "BADX", RNAME="Q", RQMNAME="QMB", XMITQ="PLAIN")
    for target in (od("Q", "QMZ"), od("BADX"), od("NO.SUCH")):
        with pytest.raises(mqpy.MQMIError) as info:
            qm1.qm.put1(target, b"x")
        assert info.value.comp == CMQC.MQCC_FAILED and info.value.reason > 2000


@pytest.mark.parametrize("md_fields", [{"Report": CMQC.MQRO_COA},
                                       {"MsgType": CMQC.MQMT_REQUEST}])
def test_reports_or_request_without_reply_to_queue_fail_2027(qm1, md_fields):
    """Given an MD asking for a COA report (or a request message) with ReplyToQ blank, when it
    is put, then MQRC_MISSING_REPLY_TO_Q and nothing is queued."""
    with raises_mq(CMQC.MQRC_MISSING_REPLY_TO_Q):
        put_to(qm1.qm, "Q1", md=mqpy.MD(**md_fields))
