"""Calls run in order as one round trip (mqpy.fap.mqicalls.run_in_order, mqiflows SPI RUN).

A channel's batch puts or gets many messages; over the bindings socket they go as one SPI RUN,
and each call must still mean what it means alone: made in order, the first failure ends the
run, nothing after it is made, and the outcome is the same as in process.
"""

from __future__ import annotations

import pytest

import mqpy
from mqpy import CMQC, bindings, inprocess
from mqpy.fap import mqiflows, mqiparams
from mqpy.fap.mqicalls import run_in_order
from mqpy.fap.tsh import SegmentType
from tests.support.handles import _drain
from tests.support.installation import QM

IN, OUT = CMQC.MQOO_INPUT_AS_Q_DEF, CMQC.MQOO_OUTPUT
SYNC = CMQC.MQPMO_SYNCPOINT


def _put1(queue: str, data: bytes) -> tuple:
    return ("put1", (mqpy.OD(ObjectName=queue), mqpy.MD(), mqpy.PMO(Options=SYNC), data))


def _program(handle) -> tuple:
    """Puts that stop at an unknown queue, then gets bounded by a byte limit."""
    puts = run_in_order(handle, [_put1("Q4", b"a" * 10), _put1("Q4", b"b" * 10),
                                 _put1("NO.SUCH.QUEUE", b"x"), _put1("Q4", b"never")])
    handle.commit()
    put_outcome = [r if isinstance(r, int) else r.reason for r in puts]
    for i in range(5):
        run_in_order(handle, [_put1("Q5", bytes([65 + i]) * 100)])
    handle.commit()
    hobj = handle.open(mqpy.OD(ObjectName="Q5"), IN)
    gmo = CMQC.MQGMO_SYNCPOINT
    got = run_in_order(handle, [("get", (hobj, mqpy.MD(), mqpy.GMO(Options=gmo), None))
                                for _ in range(5)], 250)
    truncated = run_in_order(handle, [("get", (hobj, mqpy.MD(), mqpy.GMO(Options=gmo), 10)),
                                      ("get", (hobj, mqpy.MD(), mqpy.GMO(Options=gmo), None))])
    handle.close(hobj)
    handle.commit()
    return (put_outcome, _drain(handle, "Q4"), got,
            [r.reason for r in truncated], _drain(handle, "Q5"))


EXPECTED = ([0, 0, CMQC.MQRC_UNKNOWN_OBJECT_NAME], [b"a" * 10, b"b" * 10],
            [b"A" * 100, b"B" * 100, b"C" * 100],  # the third reaches the 250-byte limit
            [CMQC.MQRC_TRUNCATED_MSG_FAILED],  # not taken, and nothing after it is tried
            [b"D" * 100, b"E" * 100])


def test_a_run_over_bindings_stops_at_the_first_failure_and_at_its_byte_limit(running):
    """Given a bindings connection, when puts run in order with one to an unknown queue, then
    those before it are made, it fails 2085 and those after it are not made; gets with a
    limit stop after the message that reaches it; a get that would truncate fails 2080,
    leaves its message and ends the run."""
    conn = bindings.connect(QM, running.root)
    try:
        assert _program(conn) == EXPECTED
    finally:
        conn.disconnect()


def test_the_same_run_in_process_gives_the_same_outcome(tmp_path):
    """Given an embedded queue manager (a channel initiator in the queue manager's process),
    when the same calls run in order, then the outcome is the one over bindings."""
    qm = mqpy.embedded("RUNQM", data_path=str(tmp_path))
    eng = inprocess.running("RUNQM", str(tmp_path))
    for q in ("Q4", "Q5"):
        eng.define("QLOCAL", q, {})
    try:
        assert _program(qm.connection()) == EXPECTED
    finally:
        qm.disconnect()
        inprocess.stop("RUNQM", str(tmp_path))


@pytest.mark.parametrize("verb", [SegmentType.MQCMIT, SegmentType.MQOPEN])
def test_a_run_carrying_anything_but_puts_and_gets_is_refused_whole(running, verb):
    """Given an SPI RUN that carries an open call, or an MQCMIT anywhere but at its end,
    when it reaches the queue manager, then it fails MQRC_FUNCTION_NOT_SUPPORTED (2298) and
    none of its calls is made."""
    conn = bindings.connect(QM, running.root)
    try:
        values = [] if verb == SegmentType.MQCMIT else [mqpy.OD(ObjectName="Q3"), OUT]
        flows = mqiflows.pack_flows([
            mqiflows.encode_request(verb, values),
            mqiflows.encode_request(SegmentType.MQPUT1, [mqpy.OD(ObjectName="Q3"), mqpy.MD(),
                                                         mqpy.PMO(), b"no"])])
        with pytest.raises(mqpy.MQMIError) as e:
            conn._call(SegmentType.SPI, [mqiflows.SpiVerb.RUN, flows, 0])
        assert e.value.reason == CMQC.MQRC_FUNCTION_NOT_SUPPORTED
        assert _drain(conn, "Q3") == []
    finally:
        conn.disconnect()


def test_a_run_may_end_with_a_commit_made_only_if_every_call_before_it_completed(running):
    """Given an SPI RUN_QUIET of puts under syncpoint ending with an MQCMIT (a receiving
    MCA's batch and its commit in one round trip), when every put completes, then the
    commit is made and answered, and the messages are committed; when a put fails, then
    the run ends there, the commit is not made (no reply for it) and the puts before the
    failure stay in the unit of work, for the caller to back out."""
    conn = bindings.connect(QM, running.root)
    try:
        def run(*queues: str) -> list:
            flows = mqiflows.pack_flows([
                mqiflows.encode_request(SegmentType.MQPUT1, [
                    mqpy.OD(ObjectName=q), mqpy.MD(), mqpy.PMO(Options=SYNC), q.encode()])
                for q in queues] + [mqiflows.encode_request(SegmentType.MQCMIT)])
            reply = conn._call(SegmentType.SPI, [mqiflows.SpiVerb.RUN_QUIET, flows, 0])
            return [(e.segment_type, e.comp, e.reason)
                    for e in mqiflows.unpack_flows(b"".join(reply.values[0]))]

        ok = (SegmentType.MQPUT1_REPLY, CMQC.MQCC_OK, 0)
        assert run("Q3", "Q3") == [ok, ok, (SegmentType.MQCMIT_REPLY, CMQC.MQCC_OK, 0)]
        other = bindings.connect(QM, running.root)
        try:
            assert _drain(other, "Q3") == [b"Q3", b"Q3"]  # committed: another sees them
            assert run("Q4", "NO.SUCH.QUEUE", "Q4") == [
                ok, (SegmentType.MQPUT1_REPLY, CMQC.MQCC_FAILED,
                     CMQC.MQRC_UNKNOWN_OBJECT_NAME)]
            assert _drain(other, "Q4") == []  # not committed
            conn.backout()
            assert _drain(conn, "Q4") == []
        finally:
            other.disconnect()
    finally:
        conn.disconnect()


def test_a_run_may_end_with_a_prepare_made_only_if_every_call_before_it_completed(running):
    """Given an SPI RUN of puts under syncpoint ending with an SPI PREPARE (a sending MCA's
    sync record and batch end in one round trip), when every put completes, then the unit
    of work is in doubt under that LUWID, and a commit of it delivers the messages; when a
    put fails, then the prepare is not made and nothing is in doubt."""
    conn = bindings.connect(QM, running.root)
    try:
        def run(luwid: bytes, *queues: str) -> list:
            flows = mqiflows.pack_flows([
                mqiflows.encode_request(SegmentType.MQPUT1, [
                    mqpy.OD(ObjectName=q), mqpy.MD(), mqpy.PMO(Options=SYNC), q.encode()])
                for q in queues] + [mqiflows.encode_request(
                    SegmentType.SPI, [mqiflows.SpiVerb.PREPARE, luwid, 0])])
            reply = conn._call(SegmentType.SPI, [mqiflows.SpiVerb.RUN, flows, 0])
            return [(e.segment_type, e.comp)
                    for e in mqiflows.unpack_flows(b"".join(reply.values[0]))]

        ok = (SegmentType.MQPUT1_REPLY, CMQC.MQCC_OK)
        assert run(b"LUWPREP1", "Q4", "Q4") == [ok, ok, (SegmentType.SPI_REPLY, CMQC.MQCC_OK)]
        assert conn.indoubt() == [b"LUWPREP1"]
        conn.resolve(b"LUWPREP1", True)
        assert _drain(conn, "Q4") == [b"Q4", b"Q4"]
        assert run(b"LUWPREP2", "Q4", "NO.SUCH.QUEUE") == [
            ok, (SegmentType.MQPUT1_REPLY, CMQC.MQCC_FAILED)]
        assert conn.indoubt() == []
        conn.backout()
        assert _drain(conn, "Q4") == []
    finally:
        conn.disconnect()


def test_a_run_whose_flows_are_garbled_ends_that_connection_as_any_malformed_request(running):
    """Given an SPI RUN whose field is not whole MQI flows, when it reaches the queue manager,
    then that connection ends as for any malformed request (2009 at the application, its
    unit of work backed out) with no FDC written, and the queue manager serves others."""
    import glob
    import os

    fdcs = set(glob.glob(os.path.join(running.qmdir(), "errors", "*.FDC")))
    conn = bindings.connect(QM, running.root)
    with pytest.raises(mqpy.MQMIError) as e:
        conn._call(SegmentType.SPI, [mqiflows.SpiVerb.RUN, b"TSH garbage", 0])
    assert e.value.reason == CMQC.MQRC_CONNECTION_BROKEN
    assert set(glob.glob(os.path.join(running.qmdir(), "errors", "*.FDC"))) == fdcs
    other = bindings.connect(QM, running.root)
    other.disconnect()


def test_puts_whose_outputs_are_not_wanted_still_report_their_outcome(running):
    """Given a run of MQPUT1s marked as keeping nothing of their output structures (a
    receiving MCA's arrivals), when it runs over bindings with one to an unknown queue,
    then the puts before it succeed (0), it fails 2085, none after it is made, and the
    caller's MQMD is left as it was given; an unmarked put in the same run still gets its
    MsgId back."""
    conn = bindings.connect(QM, running.root)
    try:
        quiet_md, loud_md = mqpy.MD(), mqpy.MD()
        quiet = ("put1", (mqpy.OD(ObjectName="Q4"), quiet_md, mqpy.PMO(Options=SYNC), b"q"),
                 False)
        results = run_in_order(conn, [quiet, _put1("Q4", b"r"), ("put1", (
            mqpy.OD(ObjectName="Q4"), loud_md, mqpy.PMO(Options=SYNC), b"s")),
            (*_put1("NO.SUCH.QUEUE", b"x"), False), _put1("Q4", b"never")])
        conn.commit()
        assert [r if isinstance(r, int) else r.reason for r in results] == [
            0, 0, 0, CMQC.MQRC_UNKNOWN_OBJECT_NAME]
        assert quiet_md.MsgId == mqpy.MD().MsgId
        assert loud_md.MsgId.strip(b"\0")
        assert _drain(conn, "Q4") == [b"q", b"r", b"s"]
    finally:
        conn.disconnect()


def test_a_quiet_run_answers_its_puts_without_their_structures(running):
    """Given an SPI RUN_QUIET of two MQPUT1s and an MQGET, when it reaches the queue
    manager, then the puts are made and answered with their codes and an empty body, and
    the get is answered in full (its MQMD, MQGMO and message)."""
    conn = bindings.connect(QM, running.root)
    try:
        hobj = conn.open(mqpy.OD(ObjectName="Q5"), IN | OUT)
        conn.put(hobj, mqpy.MD(), mqpy.PMO(), b"waiting")
        flows = mqiflows.pack_flows([
            mqiflows.encode_request(SegmentType.MQPUT1, [mqpy.OD(ObjectName="Q3"), mqpy.MD(),
                                                         mqpy.PMO(Options=SYNC), data])
            for data in (b"one", b"two")] + [
            mqiflows.encode_request(SegmentType.MQGET, [mqpy.MD(), mqpy.GMO(), -1],
                                    hobj=hobj)])
        reply = conn._call(SegmentType.SPI, [mqiflows.SpiVerb.RUN_QUIET, flows, 0])
        replies = [mqiflows.decode_reply(e)
                   for e in mqiflows.unpack_flows(b"".join(reply.values[0]))]
        assert [(r.verb, r.comp, r.values) for r in replies[:2]] == [
            (SegmentType.MQPUT1, CMQC.MQCC_OK, None)] * 2
        assert replies[2].values[3] == b"waiting"
        conn.close(hobj)
        conn.commit()
        assert _drain(conn, "Q3") == [b"one", b"two"]
    finally:
        conn.disconnect()


def test_a_run_with_a_malformed_call_in_the_middle_makes_none_of_its_calls(running):
    """Given an SPI RUN of three MQPUT1s outside syncpoint whose second is malformed (its
    body cut short), when it reaches the queue manager, then the connection ends as for any
    malformed request (2009) and the first put was not made either: every call of a run is
    decoded before any is made, so no put is done without its answer (a channel's sender
    would send it again)."""
    from mqpy.fap.apiheader import MQIRequest

    def put1(data: bytes) -> MQIRequest:
        return mqiflows.encode_request(SegmentType.MQPUT1, [
            mqpy.OD(ObjectName="Q4"), mqpy.MD(),
            mqpy.PMO(Options=CMQC.MQPMO_NO_SYNCPOINT), data])

    good = put1(b"first")
    broken = put1(b"second")
    broken = MQIRequest(segment_type=broken.segment_type, hobj=broken.hobj,
                        body=broken.body[:100])  # cut inside the MQOD
    conn = bindings.connect(QM, running.root)
    with pytest.raises(mqpy.MQMIError) as e:
        conn._call(SegmentType.SPI, [mqiflows.SpiVerb.RUN,
                                     mqiflows.pack_flows([good, broken, put1(b"third")]), 0])
    assert e.value.reason == CMQC.MQRC_CONNECTION_BROKEN
    other = bindings.connect(QM, running.root)
    try:
        assert _drain(other, "Q4") == []
    finally:
        other.disconnect()


def _commit_then_gets(handle) -> tuple:
    """A sending MCA's confirmed batch: a prepared unit of work committed without waiting for
    its log force, and the next messages got, in one run; then a run whose resolve names an
    unknown LUWID."""
    hobj = handle.open(mqpy.OD(ObjectName="Q4"), IN | OUT)
    for data in (b"next-1", b"next-2"):
        handle.put(hobj, mqpy.MD(), mqpy.PMO(), data)
    handle.put(hobj, mqpy.MD(), mqpy.PMO(Options=SYNC), b"in-doubt")
    handle.prepare(b"LUWRUN01")
    gmo = CMQC.MQGMO_SYNCPOINT
    done = run_in_order(handle, [("resolve", (b"LUWRUN01", True, False))] + [
        ("get", (hobj, mqpy.MD(), mqpy.GMO(Options=gmo), None)) for _ in range(4)])
    outcome = [r.reason if isinstance(r, mqpy.MQMIError) else r for r in done]
    indoubt = handle.indoubt()
    unknown = run_in_order(handle, [("resolve", (b"NOSUCHID", True, False)),
                                    ("get", (hobj, mqpy.MD(), mqpy.GMO(Options=gmo), None))])
    handle.close(hobj)
    handle.commit()
    return outcome, indoubt, [r.reason for r in unknown]


COMMIT_THEN_GETS = ([None, b"next-1", b"next-2", b"in-doubt", CMQC.MQRC_NO_MSG_AVAILABLE],
                    [], [CMQC.MQRC_UNKNOWN_OBJECT_NAME])


def test_a_run_commits_an_in_doubt_unit_of_work_then_gets(running):
    """Given a put prepared in doubt under a LUWID, when a run resolves it with commit (not
    waiting for the log force) and then gets, then the commit is made first (the gets find
    its message after those already there), the LUWID is no longer in doubt, and a run
    whose resolve names an unknown LUWID fails 2085 with none of its gets made."""
    conn = bindings.connect(QM, running.root)
    try:
        assert _commit_then_gets(conn) == COMMIT_THEN_GETS
    finally:
        conn.disconnect()


def test_the_same_commit_and_gets_in_process_give_the_same_outcome(tmp_path):
    """Given an embedded queue manager, when the same resolve-then-gets runs, then the
    outcome is the one over bindings."""
    qm = mqpy.embedded("RUNQM", data_path=str(tmp_path))
    eng = inprocess.running("RUNQM", str(tmp_path))
    eng.define("QLOCAL", "Q4", {})
    try:
        assert _commit_then_gets(qm.connection()) == COMMIT_THEN_GETS
    finally:
        qm.disconnect()
        inprocess.stop("RUNQM", str(tmp_path))


@pytest.mark.parametrize("spi", [mqiflows.SpiVerb.PREPARE, mqiflows.SpiVerb.RUN,
                                 mqiflows.SpiVerb.INDOUBT])
def test_a_run_carrying_an_spi_call_other_than_resolve_is_refused_whole(running, spi):
    """Given an SPI RUN that carries an SPI call that is not RESOLVE (a prepare anywhere but
    at its end, a run in the run), when it reaches the queue manager, then it fails
    MQRC_FUNCTION_NOT_SUPPORTED (2298) and none of its calls is made."""
    conn = bindings.connect(QM, running.root)
    try:
        flows = mqiflows.pack_flows([
            mqiflows.encode_request(SegmentType.SPI, [spi, b"LUWRUN02", 0]),
            mqiflows.encode_request(SegmentType.MQPUT1, [mqpy.OD(ObjectName="Q3"), mqpy.MD(),
                                                         mqpy.PMO(), b"no"])])
        with pytest.raises(mqpy.MQMIError) as e:
            conn._call(SegmentType.SPI, [mqiflows.SpiVerb.RUN, flows, 0])
        assert e.value.reason == CMQC.MQRC_FUNCTION_NOT_SUPPORTED
        assert _drain(conn, "Q3") == []
    finally:
        conn.disconnect()


def _passed_on(handle, byte_order) -> list:
    """Quiet puts whose MQMD and MQPMO go already packed (mqiparams.Packed: a receiving MCA
    passes an arrival's MQMD on as it came in the transmission header), then the messages
    got back with their MQMDs."""
    from mqpy.fap.tsh import mq_encoding

    enc = mq_encoding(byte_order)
    pmo = mqiparams.Packed(mqpy.PMO, mqpy.PMO(
        Options=SYNC | CMQC.MQPMO_SET_ALL_CONTEXT).pack(enc), byte_order)
    hobj = handle.open(mqpy.OD(ObjectName="Q4"), OUT | CMQC.MQOO_SET_ALL_CONTEXT)
    steps = []
    for i in range(2):
        md = mqpy.MD(Persistence=CMQC.MQPER_PERSISTENT, Priority=7, MsgId=b"ID%02d" % i,
                     UserIdentifier=b"alice", PutApplName=b"sender app",
                     Format=CMQC.MQFMT_STRING, Report=CMQC.MQRO_EXCEPTION, ReplyToQ=b"RQ")
        steps.append(("put", (hobj, mqiparams.Packed(mqpy.MD, md.pack(enc), byte_order), pmo,
                              b"passed on %d" % i), False))
    done = run_in_order(handle, steps)
    handle.close(hobj)
    handle.commit()
    got = []
    hobj = handle.open(mqpy.OD(ObjectName="Q4"), IN)
    for _ in range(2):
        md = mqpy.MD()
        data = handle.get(hobj, md, mqpy.GMO(), None)
        got.append((data, md.Persistence, md.Priority, md.MsgId.rstrip(b"\0"),
                    md.UserIdentifier.strip(), md.PutApplName.strip(), md.Format,
                    md.Report, md.ReplyToQ.strip()))
    handle.close(hobj)
    handle.commit()
    return [done, got]


PASSED_ON = [[0, 0], [(b"passed on %d" % i, CMQC.MQPER_PERSISTENT, 7, b"ID%02d" % i, b"alice",
                       b"sender app", CMQC.MQFMT_STRING, CMQC.MQRO_EXCEPTION, b"RQ")
                      for i in range(2)]]


@pytest.mark.parametrize("order", ["LITTLE", "BIG"])
def test_structures_passed_on_packed_arrive_as_they_were(running, order):
    """Given an MQMD and an MQPMO already packed (in the bindings flow's byte order, or in
    the other one, as from a partner of the other byte order), when quiet puts carry them
    over bindings, then the messages are put with every field of that MQMD (context set as
    SET_ALL_CONTEXT asks), as when the structures go as objects."""
    from mqpy.fap.tsh import ByteOrder

    conn = bindings.connect(QM, running.root)
    try:
        assert _passed_on(conn, ByteOrder[order]) == PASSED_ON
    finally:
        conn.disconnect()


def test_structures_passed_on_packed_are_decoded_in_process(tmp_path):
    """Given an embedded queue manager (no flow to carry the bytes), when the same quiet puts
    run with packed structures, then the outcome is the one over bindings."""
    from mqpy.fap.tsh import ByteOrder

    qm = mqpy.embedded("RUNQM", data_path=str(tmp_path))
    eng = inprocess.running("RUNQM", str(tmp_path))
    eng.define("QLOCAL", "Q4", {})
    try:
        assert _passed_on(qm.connection(), ByteOrder.LITTLE) == PASSED_ON
    finally:
        qm.disconnect()
        inprocess.stop("RUNQM", str(tmp_path))
