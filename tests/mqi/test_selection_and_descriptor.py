"""MQGET selection by MsgId / CorrelId, MsgId generation, context fields, BackoutCount."""

from __future__ import annotations

import time

import mqpy
from mqpy import CMQC

from ._support import IN, blank, drain, get, put, raises_mq


def _three(qm):
    put(qm, "Q1", b"one", msgid=b"ID-1", correlid=b"C-A")
    put(qm, "Q1", b"two", msgid=b"ID-2", correlid=b"C-B")
    put(qm, "Q1", b"three", msgid=b"ID-3", correlid=b"C-A")


def test_get_by_msgid_takes_that_message_only(qm):
    """Given three messages, when got with MsgId of the second (default MatchOptions), then the
    second is returned and the others stay in order."""
    _three(qm)
    data, md = get(qm, "Q1", md=mqpy.MD(MsgId=b"ID-2"))
    assert data == b"two"
    assert md.MsgId == b"ID-2".ljust(24, b"\x00")
    assert drain(qm, "Q1") == [b"one", b"three"]


def test_get_by_correlid_takes_the_first_match_in_delivery_order(qm):
    """Given two messages with CorrelId C-A around one with C-B, when got by CorrelId C-A twice,
    then the first and third come back in that order and C-B remains."""
    _three(qm)
    assert get(qm, "Q1", md=mqpy.MD(CorrelId=b"C-A"))[0] == b"one"
    assert get(qm, "Q1", md=mqpy.MD(CorrelId=b"C-A"))[0] == b"three"
    with raises_mq(CMQC.MQRC_NO_MSG_AVAILABLE):
        get(qm, "Q1", md=mqpy.MD(CorrelId=b"C-A"))
    assert drain(qm, "Q1") == [b"two"]


def test_get_by_msgid_and_correlid_needs_both_to_match(qm):
    """Given three messages, when got by MsgId ID-1 with CorrelId C-B, then 2033; with ID-3 and
    C-A, then the third message."""
    _three(qm)
    with raises_mq(CMQC.MQRC_NO_MSG_AVAILABLE):
        get(qm, "Q1", md=mqpy.MD(MsgId=b"ID-1", CorrelId=b"C-B"))
    assert get(qm, "Q1", md=mqpy.MD(MsgId=b"ID-3", CorrelId=b"C-A"))[0] == b"three"


def test_gmo_version_1_always_matches_on_nonnull_ids(qm):
    """Given a version-1 MQGMO (no MatchOptions field) whose MatchOptions is set to MQMO_NONE,
    when got with MsgId ID-3, then the selection still applies: version 1 matches MsgId and
    CorrelId whenever they are not null."""
    _three(qm)
    gmo = mqpy.GMO(Version=CMQC.MQGMO_VERSION_1, MatchOptions=CMQC.MQMO_NONE)
    assert get(qm, "Q1", md=mqpy.MD(MsgId=b"ID-3"), gmo=gmo)[0] == b"three"


def test_gmo_version_2_match_none_gets_the_first_message_whatever_the_md_says(qm):
    """Given a version-2 MQGMO with MatchOptions MQMO_NONE, when got with MsgId ID-3 and
    CorrelId C-B in the MD, then the first message on the queue is returned."""
    _three(qm)
    gmo = mqpy.GMO(Version=CMQC.MQGMO_VERSION_2, MatchOptions=CMQC.MQMO_NONE)
    assert get(qm, "Q1", md=mqpy.MD(MsgId=b"ID-3", CorrelId=b"C-B"), gmo=gmo)[0] == b"one"


def test_match_correl_id_only_ignores_the_msgid(qm):
    """Given MatchOptions MQMO_MATCH_CORREL_ID, when got with a MsgId that matches nothing and
    CorrelId C-B, then the C-B message is returned."""
    _three(qm)
    gmo = mqpy.GMO(MatchOptions=CMQC.MQMO_MATCH_CORREL_ID)
    assert get(qm, "Q1", md=mqpy.MD(MsgId=b"NOPE", CorrelId=b"C-B"), gmo=gmo)[0] == b"two"


def test_msgid_is_generated_unique_when_none_is_given(qm):
    """Given 200 puts with MsgId MQMI_NONE, then each MD comes back with a distinct non-null
    24-byte MsgId, and the getter sees the same ids in the same order."""
    ids = [put(qm, "Q1", b"x").MsgId for _ in range(200)]
    assert all(len(i) == 24 and i != CMQC.MQMI_NONE for i in ids)
    assert len(set(ids)) == 200
    q = mqpy.Queue(qm, "Q1", IN)
    got = []
    for _ in ids:
        md = mqpy.MD()
        q.get(None, md)
        got.append(md.MsgId)
    assert got == ids


def test_an_application_msgid_is_kept(qm):
    """Given an MD with MsgId APP-ID and no MQPMO_NEW_MSG_ID, when put and got, then the getter
    sees APP-ID."""
    md = put(qm, "Q1", b"x", msgid=b"APP-ID")
    assert md.MsgId.rstrip(b"\x00") == b"APP-ID"
    assert get(qm, "Q1")[1].MsgId.rstrip(b"\x00") == b"APP-ID"


def test_pmo_new_msg_id_replaces_the_application_msgid(qm):
    """Given an MD with MsgId APP-ID, when put with MQPMO_NEW_MSG_ID, then a new unique MsgId
    is returned in the MD and carried by the message."""
    md1 = put(qm, "Q1", b"a", msgid=b"APP-ID", pmo_options=CMQC.MQPMO_NEW_MSG_ID)
    md2 = put(qm, "Q1", b"b", msgid=b"APP-ID", pmo_options=CMQC.MQPMO_NEW_MSG_ID)
    assert md1.MsgId.rstrip(b"\x00") != b"APP-ID"
    assert md1.MsgId != md2.MsgId
    assert get(qm, "Q1")[1].MsgId == md1.MsgId


def test_put_fills_putdate_puttime_and_putapplname(qm):
    """Given a put with default context, when the message is got, then PutDate is today's
    YYYYMMDD (GMT), PutTime HHMMSSTH within a few seconds of now (GMT), PutApplName is not
    blank, and the putter's MD carries the same values."""
    before = time.time()
    md_put = put(qm, "Q1", b"ctx")
    _data, md = get(qm, "Q1")
    assert (md.PutDate, md.PutTime) == (md_put.PutDate, md_put.PutTime)
    assert md.PutApplName.rstrip(b" \x00") == md_put.PutApplName.rstrip(b" \x00")
    assert len(md.PutDate) == 8 and md.PutDate.isdigit()
    assert len(md.PutTime) == 8 and md.PutTime.isdigit()
    stamp = time.strptime((md.PutDate + md.PutTime[:6]).decode(), "%Y%m%d%H%M%S")
    put_epoch = time.mktime(stamp) - time.mktime(time.gmtime(0))
    assert abs(put_epoch - before) < 5
    assert not blank(md.PutApplName)
    assert md.PutApplType != CMQC.MQAT_NO_CONTEXT


def test_backout_count_counts_each_backout(qm):
    """Given a message, when it is got under syncpoint and backed out twice, then the next get
    shows BackoutCount 2 and a fresh message shows 0."""
    put(qm, "Q1", b"poison", persistent=True)
    for expected in (0, 1):
        _d, md = get(qm, "Q1", syncpoint=True)
        assert md.BackoutCount == expected
        qm.backout()
    data, md = get(qm, "Q1")
    assert (data, md.BackoutCount) == (b"poison", 2)


def test_backout_count_survives_a_clean_restart(qmgr):
    """Given a persistent message backed out once before any checkpoint saw it, when the queue
    manager is stopped and started, then it is got with BackoutCount 1."""
    qmgr.define("Q1")
    put(qmgr.qm, "Q1", b"m", persistent=True)
    get(qmgr.qm, "Q1", syncpoint=True)
    qmgr.qm.backout()
    qm = qmgr.restart()
    data, md = get(qm, "Q1")
    assert (data, md.BackoutCount) == (b"m", 1)


def test_backout_count_of_a_message_already_on_the_pageset_survives_restart(qmgr):
    """Given a persistent message written to the pageset by a checkpoint, then got under
    syncpoint and backed out twice, when the queue manager is stopped and started, then it is
    got with BackoutCount 2 (the pageset's copy is updated, not only the log)."""
    qmgr.define("Q1")
    put(qmgr.qm, "Q1", b"m", persistent=True)
    qmgr.eng.data.checkpoint()
    for _ in range(2):
        get(qmgr.qm, "Q1", syncpoint=True)
        qmgr.qm.backout()
    qmgr.eng.data.checkpoint()
    qm = qmgr.restart()
    data, md = get(qm, "Q1")
    assert (data, md.BackoutCount) == (b"m", 2)


def test_queue_without_open_options_opens_on_demand(qm):
    """Given a pymqi-style Queue created without open options, when put then got, then the
    queue is opened on demand for output and input (pymqi's lazy open)."""
    mqpy.Queue(qm, "Q1").put(b"lazy")
    assert mqpy.Queue(qm, "Q1").get() == b"lazy"
