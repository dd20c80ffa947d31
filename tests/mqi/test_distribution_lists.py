"""MQOPEN, MQPUT and MQPUT1 of a distribution list (MQOD version 2 with MQOR records),
embedded: response records, destination counts, per-destination MQPMRs, IBM's CompCode
rules for MQRC_MULTIPLE_REASONS, and the transmission queue's DISTL attribute."""

from __future__ import annotations

import pytest

import mqpy
from mqpy import CMQC
from mqpy.engine import distlist
from mqpy.structs.tables import XQH

_W, _F = CMQC.MQCC_WARNING, CMQC.MQCC_FAILED


@pytest.fixture
def lists(qmgr):
    for q in ("A", "B", "C"):
        qmgr.define(q)
    qmgr.define("QM2", {"USAGE": "XMITQ"})  # the way to queue manager QM2
    return qmgr


def drain(qm, q):
    queue = mqpy.Queue(qm, q, CMQC.MQOO_INPUT_AS_Q_DEF)
    out = []
    while True:
        md = mqpy.MD()
        try:
            out.append((queue.get(None, md), md))
        except mqpy.MQMIError as e:
            assert e.reason == CMQC.MQRC_NO_MSG_AVAILABLE
            queue.close()
            return out


def rr(records):
    return [(r.CompCode, r.Reason) for r in records]


def test_one_put_reaches_every_destination_each_with_its_own_msgid(lists):
    """Given a list of local queues A, B, C, when one MQPUT is made, then each queue has the
    message, each with a MsgId of its own, and the response records are all MQCC_OK;
    KnownDestCount counts the local queues."""
    qm = lists.qm
    q = mqpy.Queue(qm, ["A", ("B", ""), mqpy.OR(ObjectName="C")], CMQC.MQOO_OUTPUT)
    assert rr(q.response_records) == [(0, 0)] * 3
    assert (q.od.KnownDestCount, q.od.UnknownDestCount, q.od.InvalidDestCount) == (3, 0, 0)
    pmo = mqpy.PMO()
    q.put(b"everyone", mqpy.MD(), pmo)
    assert (pmo.KnownDestCount, pmo.UnknownDestCount, pmo.InvalidDestCount) == (3, 0, 0)
    q.close()
    got = [drain(qm, name) for name in "ABC"]
    assert [[data for data, _ in g] for g in got] == [[b"everyone"]] * 3
    assert len({g[0][1].MsgId for g in got}) == 3


def test_put_message_records_give_each_destination_its_fields(lists):
    """Given MQPMRs with CorrelId and Feedback, when the list is put to, then each
    destination's message carries its record's fields, and each record's MsgId is set to
    the MsgId its message was given."""
    qm = lists.qm
    records = [mqpy.PMR(CorrelId=b"corr-%d" % i, Feedback=100 + i) for i in range(3)]
    pmo = mqpy.PMO(Version=CMQC.MQPMO_VERSION_2, RecsPresent=3, PutMsgRecPtr=records,
                   PutMsgRecFields=CMQC.MQPMRF_MSG_ID | CMQC.MQPMRF_CORREL_ID
                   | CMQC.MQPMRF_FEEDBACK)
    qm.put1(["A", "B", "C"], b"fields", mqpy.MD(CorrelId=b"not used"), pmo)
    for i, name in enumerate("ABC"):
        [(_, md)] = drain(qm, name)
        assert md.CorrelId.rstrip(b"\0") == b"corr-%d" % i
        assert md.Feedback == 100 + i
        assert md.MsgId == records[i].MsgId


def test_fewer_put_message_records_than_destinations_leave_the_rest_to_the_mqmd(lists):
    """IBM: RecsPresent need not be the number of destinations; destinations without an
    MQPMR take the MQMD's fields (and, with MQMI_NONE, a MsgId each of their own)."""
    qm = lists.qm
    records = [mqpy.PMR(CorrelId=b"own")]
    pmo = mqpy.PMO(RecsPresent=1, PutMsgRecFields=CMQC.MQPMRF_CORREL_ID, PutMsgRecPtr=records)
    qm.put1(["A", "B", "C"], b"few", mqpy.MD(CorrelId=b"shared"), pmo)
    got = [drain(qm, n)[0][1] for n in "ABC"]
    assert [md.CorrelId.rstrip(b"\0") for md in got] == [b"own", b"shared", b"shared"]
    assert len({md.MsgId for md in got}) == 3


def test_new_msg_id_is_one_per_destination_new_correl_id_one_for_all(lists):
    """IBM: MQPMO_NEW_MSG_ID gives every destination a MsgId of its own, even over an
    MQPMR's; MQPMO_NEW_CORREL_ID gives them all the same new CorrelId, returned in the
    MQMD."""
    qm = lists.qm
    records = [mqpy.PMR(MsgId=b"mine", CorrelId=b"mine") for _ in range(3)]
    md = mqpy.MD()
    pmo = mqpy.PMO(Options=CMQC.MQPMO_NEW_MSG_ID | CMQC.MQPMO_NEW_CORREL_ID, RecsPresent=3,
                   PutMsgRecFields=CMQC.MQPMRF_MSG_ID | CMQC.MQPMRF_CORREL_ID,
                   PutMsgRecPtr=records)
    qm.put1(["A", "B", "C"], b"ids", md, pmo)
    got = [drain(qm, n)[0][1] for n in "ABC"]
    assert len({g.MsgId for g in got}) == 3 and b"mine" not in {g.MsgId[:4] for g in got}
    assert {g.CorrelId for g in got} == {md.CorrelId}
    assert md.CorrelId.startswith(b"AMQ")


def test_some_destinations_unknown_is_a_warning_with_multiple_reasons(lists):
    """Given a list where one destination does not exist, when it is opened, then the open
    completes with MQCC_WARNING / MQRC_MULTIPLE_REASONS (2136), the response records say
    which one failed (2085), InvalidDestCount is 1, and a put reaches the others."""
    qm = lists.qm
    q = mqpy.Queue(qm)
    with pytest.raises(mqpy.MQMIError) as err:
        q.open(["A", "NO.SUCH.Q", ("X", "QM2")], CMQC.MQOO_OUTPUT)
    assert (err.value.comp, err.value.reason) == (_W, CMQC.MQRC_MULTIPLE_REASONS)
    assert rr(q.response_records) == [(0, 0), (_F, CMQC.MQRC_UNKNOWN_OBJECT_NAME), (0, 0)]
    assert (q.od.KnownDestCount, q.od.UnknownDestCount, q.od.InvalidDestCount) == (1, 1, 1)
    with pytest.raises(mqpy.MQMIError) as err:
        q.put(b"most")
    assert (err.value.comp, err.value.reason) == (_W, CMQC.MQRC_MULTIPLE_REASONS)
    assert rr(q.response_records) == [(0, 0), (_F, CMQC.MQRC_UNKNOWN_OBJECT_NAME), (0, 0)]
    q.close()
    assert [d for d, _ in drain(qm, "A")] == [b"most"]
    assert lists.eng.queue_status("QM2")["CURDEPTH"] == 1


def test_all_destinations_failing_alike_is_that_reason_differently_2136(lists):
    """IBM's rules: every destination failing for the same reason fails with that reason;
    failing for different reasons fails with MQCC_FAILED / MQRC_MULTIPLE_REASONS."""
    qm = lists.qm
    with pytest.raises(mqpy.MQMIError) as err:
        mqpy.Queue(qm, ["NOPE1", "NOPE2"], CMQC.MQOO_OUTPUT)
    assert (err.value.comp, err.value.reason) == (_F, CMQC.MQRC_UNKNOWN_OBJECT_NAME)
    od = mqpy.OD(Version=2, RecsPresent=2, ObjectRecPtr=[
        mqpy.OR(ObjectName="NOPE"), mqpy.OR(ObjectName="Q", ObjectQMgrName="NO.SUCH.QM")])
    with pytest.raises(mqpy.MQMIError) as err:
        mqpy.Queue(qm, od, CMQC.MQOO_OUTPUT)
    assert (err.value.comp, err.value.reason) == (_F, CMQC.MQRC_MULTIPLE_REASONS)
    assert rr(od.ResponseRecPtr) == [(_F, CMQC.MQRC_UNKNOWN_OBJECT_NAME),
                                     (_F, CMQC.MQRC_UNKNOWN_REMOTE_Q_MGR)]
    assert od.InvalidDestCount == 2


def test_a_put_inhibited_destination_fails_alone(lists):
    """Given B is put-inhibited after the list was opened, when the list is put to, then A
    and C get the message and B's response record says MQRC_PUT_INHIBITED (2051)."""
    qm = lists.qm
    q = mqpy.Queue(qm, ["A", "B", "C"], CMQC.MQOO_OUTPUT)
    lists.eng.alter("QLOCAL", "B", {"PUT": "DISABLED"})
    pmo = mqpy.PMO()
    with pytest.raises(mqpy.MQMIError) as err:
        q.put(b"not to B", mqpy.MD(), pmo)
    assert (err.value.comp, err.value.reason) == (_W, CMQC.MQRC_MULTIPLE_REASONS)
    assert rr(pmo.ResponseRecPtr) == [(0, 0), (_F, CMQC.MQRC_PUT_INHIBITED), (0, 0)]
    assert (pmo.KnownDestCount, pmo.InvalidDestCount) == (2, 1)
    assert [len(drain(qm, n)) for n in "ABC"] == [1, 0, 1]


def test_a_list_put_under_syncpoint_is_one_unit_of_work(lists):
    qm = lists.qm
    qm.put1(["A", "B"], b"maybe", mqpy.MD(), mqpy.PMO(Options=CMQC.MQPMO_SYNCPOINT))
    assert lists.eng.queue_status("A")["UNCOM"]
    qm.backout()
    assert [len(drain(qm, n)) for n in "AB"] == [0, 0]


def test_a_transmission_queue_without_distl_gets_a_copy_per_destination(lists):
    """Given the xmitq to QM2 has DISTL(NO) (its partner takes no distribution lists), when a
    message goes to a 3-entry list at QM2, then 3 copies are put on the xmitq, each an MQXQH
    naming one destination.  spec: dqm-intercommunication 9.48"""
    qm = lists.qm
    pmo = mqpy.PMO()
    qm.put1([("R1", "QM2"), ("R2", "QM2"), ("R3", "QM2")], b"three", mqpy.MD(), pmo)
    assert (pmo.KnownDestCount, pmo.UnknownDestCount) == (0, 3)
    copies = drain(qm, "QM2")
    assert len(copies) == 3
    heads = [XQH.from_bytes(body) for body, _ in copies]
    assert [(h.RemoteQName.rstrip(), h.RemoteQMgrName.rstrip()) for h in heads] == \
        [(b"R1", b"QM2"), (b"R2", b"QM2"), (b"R3", b"QM2")]
    assert all(body[XQH.length():] == b"three" for body, _ in copies)


def test_a_transmission_queue_with_distl_gets_one_mqdh_message(lists):
    """Given the xmitq has DISTL(YES), when a message goes to a 3-entry list at QM2 plus a
    local queue, then the local queue gets its copy and the xmitq ONE message: MQXQH, then
    an MQDH (Format MQHDIST) naming the three destinations with their MsgIds.
    spec: dqm-intercommunication 9.48"""
    qm = lists.qm
    q = mqpy.Queue(qm, "QM2", CMQC.MQOO_SET)
    q.set(CMQC.MQIA_DIST_LISTS, CMQC.MQDL_SUPPORTED)
    q.close()
    records = [mqpy.PMR() for _ in range(4)]
    pmo = mqpy.PMO(RecsPresent=4, PutMsgRecFields=CMQC.MQPMRF_MSG_ID, PutMsgRecPtr=records)
    qm.put1([("R1", "QM2"), "A", ("R2", "QM2"), ("R3", "QM2")], b"once",
            mqpy.MD(Format=CMQC.MQFMT_STRING), pmo)
    [(body, _)] = drain(qm, "QM2")
    xqh = XQH.from_bytes(body)
    assert xqh.MsgDesc.Format == CMQC.MQFMT_DIST_HEADER
    inner, dests, recs, fields, data = distlist.split_dh_message(xqh.MsgDesc,
                                                                 body[XQH.length():])
    assert data == b"once" and inner.Format == CMQC.MQFMT_STRING
    assert [(d.ObjectName.rstrip(), d.ObjectQMgrName.rstrip()) for d in dests] == \
        [(b"R1", b"QM2"), (b"R2", b"QM2"), (b"R3", b"QM2")]
    assert [r.MsgId for r in recs] == [records[i].MsgId for i in (0, 2, 3)]
    [(_, amd)] = drain(qm, "A")
    assert amd.MsgId == records[1].MsgId


def test_a_pmo_used_for_a_list_serves_a_single_queue_afterwards(lists):
    """The room mqpy makes for the response records lasts only for the call: the same PMO
    then puts to a single queue (where RecsPresent > 0 would be 2154)."""
    qm = lists.qm
    pmo = mqpy.PMO()
    qm.put1(["A", "B"], b"list", mqpy.MD(), pmo)
    assert pmo.RecsPresent == 0 and rr(pmo.ResponseRecPtr) == [(0, 0), (0, 0)]
    qm.put1("C", b"single", mqpy.MD(), pmo)
    assert [len(drain(qm, n)) for n in "ABC"] == [1, 1, 1]


def test_put_message_records_on_a_single_queue_are_2154(lists):
    """IBM: RecsPresent greater than zero when the put is not to a distribution list fails
    with MQRC_RECS_PRESENT_ERROR."""
    with pytest.raises(mqpy.MQMIError) as err:
        lists.qm.put1("A", b"x", mqpy.MD(), mqpy.PMO(RecsPresent=1))
    assert err.value.reason == CMQC.MQRC_RECS_PRESENT_ERROR
    assert drain(lists.qm, "A") == []


@pytest.mark.parametrize("case,reason", [
    ("input", CMQC.MQRC_OPTION_NOT_VALID_FOR_TYPE),
    ("not a queue", CMQC.MQRC_RECS_PRESENT_ERROR),
    ("too few records", CMQC.MQRC_OBJECT_RECORDS_ERROR),
    ("negative", CMQC.MQRC_RECS_PRESENT_ERROR),
    ("pmo count", CMQC.MQRC_RECS_PRESENT_ERROR),
    ("pmr flags", CMQC.MQRC_PMO_RECORD_FLAGS_ERROR),
    ("object name", CMQC.MQRC_OBJECT_NAME_ERROR),
    ("object qmgr name", CMQC.MQRC_OBJECT_Q_MGR_NAME_ERROR),
])
def test_bad_lists_get_mq_reasons(lists, case, reason):
    qm = lists.qm
    od = mqpy.OD(Version=2, RecsPresent=2, ObjectRecPtr=[mqpy.OR(ObjectName="A"),
                                                         mqpy.OR(ObjectName="B")])
    with pytest.raises(mqpy.MQMIError) as err:
        if case == "input":
            mqpy.Queue(qm, od, CMQC.MQOO_INPUT_AS_Q_DEF)
        elif case == "not a queue":
            od.ObjectType = CMQC.MQOT_NAMELIST
            mqpy.Queue(qm, od, CMQC.MQOO_OUTPUT)
        elif case == "too few records":
            od.RecsPresent = 3
            mqpy.Queue(qm, od, CMQC.MQOO_OUTPUT)
        elif case == "negative":
            od.RecsPresent = -1
            mqpy.Queue(qm, od, CMQC.MQOO_OUTPUT)
        elif case == "pmo count":
            qm.put1(od, b"x", mqpy.MD(), mqpy.PMO(RecsPresent=-1))
        elif case == "object name":  # IBM: the MQOD's own names are blank for a list
            od.ObjectName = b"A"
            mqpy.Queue(qm, od, CMQC.MQOO_OUTPUT)
        elif case == "object qmgr name":
            od.ObjectQMgrName = b"QM2"
            qm.put1(od, b"x", mqpy.MD(), mqpy.PMO())
        else:
            qm.put1(od, b"x", mqpy.MD(), mqpy.PMO(RecsPresent=2, PutMsgRecFields=64))
    assert (err.value.comp, err.value.reason) == (_F, reason)
    assert [len(drain(qm, n)) for n in "AB"] == [0, 0]


def test_a_model_queue_is_no_mqput1_or_list_destination(lists):
    """Given the model queue SYSTEM.DEFAULT.MODEL.QUEUE, when it is named by an MQPUT1, then
    2057 MQRC_Q_TYPE_ERROR (IBM: a model queue is not valid on MQPUT1, nor as an MQOR),
    and when a list names it beside A, then A gets the message and the model queue's
    response record says 2057 (2136 overall): no message goes to a dynamic queue that the
    close deletes at once."""
    qm = lists.qm
    model = "SYSTEM.DEFAULT.MODEL.QUEUE"
    with pytest.raises(mqpy.MQMIError) as err:
        qm.put1(model, b"x", mqpy.MD(), mqpy.PMO())
    assert (err.value.comp, err.value.reason) == (_F, CMQC.MQRC_Q_TYPE_ERROR)
    pmo = mqpy.PMO()
    with pytest.raises(mqpy.MQMIError) as err:
        qm.put1(["A", model], b"x", mqpy.MD(), pmo)
    assert (err.value.comp, err.value.reason) == (_W, CMQC.MQRC_MULTIPLE_REASONS)
    assert rr(pmo.ResponseRecPtr) == [(0, 0), (_F, CMQC.MQRC_Q_TYPE_ERROR)]
    assert [data for data, _ in drain(qm, "A")] == [b"x"]


def test_a_pmo_recs_present_beyond_the_list_invents_no_records(lists):
    """Given a 2-entry list, when it is put to with an MQPMO whose RecsPresent is far larger
    and which brings no records of its own, then the put answers with the destinations'
    two response records and no more: the queue manager never builds records nobody gave
    it (a client could otherwise have it build a billion)."""
    qm = lists.qm
    pmo = mqpy.PMO(RecsPresent=50_000)
    qm.put1(["A", "B"], b"x", mqpy.MD(), pmo)
    assert rr(pmo.ResponseRecPtr) == [(0, 0), (0, 0)]
    assert [len(drain(qm, n)) for n in "AB"] == [1, 1]


@pytest.mark.parametrize("call, reason", [
    ("get", CMQC.MQRC_NOT_OPEN_FOR_INPUT),
    ("browse", CMQC.MQRC_NOT_OPEN_FOR_BROWSE),
    ("inquire", CMQC.MQRC_NOT_OPEN_FOR_INQUIRE),
    ("set", CMQC.MQRC_NOT_OPEN_FOR_SET),
])
def test_a_list_handle_is_open_for_output_only(lists, call, reason):
    """Given a distribution list opened for output (the only way a list opens), when the
    application gets, browses, inquires or sets through its handle, then the call fails
    with that call's MQRC_NOT_OPEN_FOR_* reason, not as a bad handle (2019)."""
    q = mqpy.Queue(lists.qm, ["A", "B"], CMQC.MQOO_OUTPUT)
    calls = {
        "get": lambda: q.get(),
        "browse": lambda: q.get(None, mqpy.MD(), mqpy.GMO(Options=CMQC.MQGMO_BROWSE_FIRST)),
        "inquire": lambda: q.inquire(CMQC.MQIA_CURRENT_Q_DEPTH),
        "set": lambda: q.set(CMQC.MQIA_INHIBIT_PUT, CMQC.MQQA_PUT_INHIBITED),
    }
    with pytest.raises(mqpy.MQMIError) as exc:
        calls[call]()
    assert (exc.value.comp, exc.value.reason) == (_F, reason)
    q.put(b"still open")
    assert [m for m, _ in drain(lists.qm, "B")] == [b"still open"]
