"""DEFINE with LIKE and REPLACE, DISPLAY filters, status, channels, the queue manager."""

from __future__ import annotations

import re

import mqpy
from mqpy import CMQC
from mqpy.mqsc.mapping import channel_defaults

from .conftest import run


def test_define_copies_the_system_default_queue(proc):
    """Given SYSTEM.DEFAULT.LOCAL.QUEUE with MAXDEPTH 777, a new queue takes 777."""
    run(proc, "ALTER QLOCAL(SYSTEM.DEFAULT.LOCAL.QUEUE) MAXDEPTH(777)")
    run(proc, "DEFINE QLOCAL(D1)")
    assert proc.engine.lookup("QLOCAL", "D1").attributes["MAXDEPTH"] == 777


def test_like_copies_attributes_and_replace_resets_unspecified(proc):
    """Given Q1 with DESCR and MAXDEPTH, DEFINE ... LIKE(Q1) copies both; DEFINE Q1 REPLACE
    with only MAXDEPTH sets DESCR back to the default, as IBM's REPLACE does."""
    run(proc, "DEFINE QLOCAL(Q1) DESCR('one') MAXDEPTH(42) TRIGGER")
    assert run(proc, "DEFINE QLOCAL(Q2) LIKE(Q1)") == ["AMQ8006I: IBM MQ queue created."]
    a = proc.engine.lookup("QLOCAL", "Q2").attributes
    assert (a["DESCR"], a["MAXDEPTH"], a["TRIGGER"]) == ("one", 42, "YES")
    assert run(proc, "DEFINE QLOCAL(Q1) MAXDEPTH(9) REPLACE") == [
        "AMQ8006I: IBM MQ queue created."]
    a = proc.engine.lookup("QLOCAL", "Q1").attributes
    assert (a["DESCR"], a["MAXDEPTH"], a["TRIGGER"]) == ("", 9, "NO")


def test_replace_is_obeyed_by_handles_already_open(qmgr, proc):
    """Given a queue open for output and input, when DEFINE QLOCAL ... REPLACE disables PUT
    and then GET, then the open handle's next MQPUT fails with 2051 and its next MQGET with
    2016, as after ALTER (IBM: REPLACE acts as an ALTER of every attribute)."""
    qm, _, _ = qmgr
    run(proc, "DEFINE QLOCAL(OPENQ)")
    q = mqpy.Queue(qm, "OPENQ", CMQC.MQOO_OUTPUT | CMQC.MQOO_INPUT_SHARED)
    q.put(b"before")
    run(proc, "DEFINE QLOCAL(OPENQ) PUT(DISABLED) REPLACE")
    try:
        q.put(b"after")
        raise AssertionError("put allowed on a PUT(DISABLED) queue")
    except mqpy.MQMIError as e:
        assert e.reason == CMQC.MQRC_PUT_INHIBITED
    run(proc, "DEFINE QLOCAL(OPENQ) GET(DISABLED) REPLACE")
    try:
        q.get()
        raise AssertionError("get allowed on a GET(DISABLED) queue")
    except mqpy.MQMIError as e:
        assert e.reason == CMQC.MQRC_GET_INHIBITED
    q.close()


def test_replace_keeps_messages(qmgr, proc):
    qm, _, _ = qmgr
    run(proc, "DEFINE QLOCAL(KEEP)")
    qm.put1("KEEP", b"m")
    run(proc, "DEFINE QLOCAL(KEEP) DESCR('x') REPLACE")
    assert proc.engine.queue_status("KEEP")["CURDEPTH"] == 1


def test_flag_forms_map_to_stored_yes_no(proc):
    run(proc, "DEFINE QLOCAL(F1) NOSHARE NOHARDENBO TRIGGER")
    a = proc.engine.lookup("QLOCAL", "F1").attributes
    assert (a["SHARE"], a["HARDENBO"], a["TRIGGER"]) == ("NO", "NO", "YES")
    out = run(proc, "DISPLAY QLOCAL(F1) SHARE HARDENBO TRIGGER")
    assert out[2] == "   NOHARDENBO                              NOSHARE"
    assert out[3] == "   TRIGGER"


def test_display_generic_where_and_types(proc):
    """Given three PAY queues of two types, generic names, TYPE and WHERE select them."""
    run(proc, "DEFINE QLOCAL(PAY.A) MAXDEPTH(10)\nDEFINE QLOCAL(PAY.B) MAXDEPTH(20)\n"
              "DEFINE QALIAS(PAY.C) TARGET(PAY.A)")
    heads = [line for line in run(proc, "DISPLAY QUEUE(PAY.*)") if line.startswith("   QUEUE")]
    assert [h.split()[0] for h in heads] == ["QUEUE(PAY.A)", "QUEUE(PAY.B)", "QUEUE(PAY.C)"]
    assert "TYPE(QALIAS)" in heads[2]
    only_local = run(proc, "DISPLAY QUEUE(PAY.*) TYPE(QLOCAL)")
    assert sum(line.startswith("AMQ8409I") for line in only_local) == 2
    out = run(proc, "DISPLAY QLOCAL(PAY.*) WHERE(MAXDEPTH GT 15)")
    assert out == ["AMQ8409I: Display Queue details.",
                   "   QUEUE(PAY.B)                            TYPE(QLOCAL)",
                   "   MAXDEPTH(20)"]
    assert run(proc, "DISPLAY QALIAS(*) WHERE(TARGET EQ PAY.A)")[1].startswith(
        "   QUEUE(PAY.C)")
    like = run(proc, "DISPLAY QLOCAL(*) WHERE(DESCR LK 'x*')")
    assert like == []
    nl = [x for x in run(proc, "DISPLAY QLOCAL(PAY*) WHERE(DESCR NL 'x*')") if "QUEUE(" in x]
    assert len(nl) == 2


def test_where_on_lists_ct_ex(proc):
    run(proc, "DEFINE NAMELIST(NL1) NAMES(A, B)\nDEFINE NAMELIST(NL2) NAMES(C)")
    ct = run(proc, "DISPLAY NAMELIST(*) WHERE(NAMES CT B)")
    assert ct == ["AMQ8550I: Display namelist details.",
                  "   NAMELIST(NL1)                           NAMES(A,B)"]
    ex = [x for x in run(proc, "DISPLAY NAMELIST(NL*) WHERE(NAMES EX B)") if "NAMELIST(" in x]
    assert [x.split()[0] for x in ex] == ["NAMELIST(NL2)"]
    ctg = run(proc, "DISPLAY NAMELIST(NL*) WHERE(NAMES CTG 'C*')")
    assert "NAMES(C)" in ctg[1]


def test_display_all_is_alphabetical_after_name_and_type(proc):
    run(proc, "DEFINE QLOCAL(ALLQ)")
    out = run(proc, "DISPLAY QLOCAL(ALLQ) ALL")
    items = [m.group(0) for line in out[1:]
             for m in re.finditer(r"[A-Z]+(\([^)]*\))?", line)]
    assert items[:2] == ["QUEUE(ALLQ)", "TYPE(QLOCAL)"]
    keys = [w.split("(")[0] for w in items[2:]]
    assert keys == sorted(keys)
    assert "CURDEPTH(0)" in items and "MAXDEPTH(5000)" in items


def test_qstatus_shows_live_depth_and_handles(qmgr, proc):
    """Given a queue with 2 messages, an output and an input handle, DISPLAY QSTATUS shows
    the depth, the open counts, the last put time and one row per handle."""
    qm, _, _ = qmgr
    run(proc, "DEFINE QLOCAL(ST)")
    out_q = mqpy.Queue(qm, "ST", CMQC.MQOO_OUTPUT)
    out_q.put(b"1")
    out_q.put(b"2")
    in_q = mqpy.Queue(qm, "ST", CMQC.MQOO_INPUT_EXCLUSIVE)
    out = run(proc, "DISPLAY QSTATUS(ST) ALL")
    text = " ".join(out)
    assert out[0] == "AMQ8450I: Display queue status details."
    for item in ("CURDEPTH(2)", "IPPROCS(1)", "OPPROCS(1)", "UNCOM(NO)"):
        assert item in text
    assert "LPUTDATE( )" in text and "MONQ(OFF)" in text  # blank while monitoring is OFF
    assert run(proc, "DISPLAY QSTATUS(ST)")[1:] == [
        "   QUEUE(ST)                               TYPE(QUEUE)", "   CURDEPTH(2)"]
    handles = run(proc, "DISPLAY QSTATUS(ST) TYPE(HANDLE)")
    assert sum(line.startswith("AMQ8450I") for line in handles) == 2
    assert "INPUT(EXCL)" in " ".join(handles)
    in_q.close()
    out_q.close()


def test_qstatus_of_many_queues_counts_each_queue_s_own_handles(qmgr, proc):
    """Given two queues, one open twice for input and the other once for output, when
    DISPLAY QSTATUS names both with a generic name, then each row counts only the handles
    open on its own queue (the display reads every handle once, for all the queues)."""
    qm, _, _ = qmgr
    run(proc, "DEFINE QLOCAL(MANY.A)")
    run(proc, "DEFINE QLOCAL(MANY.B)")
    opened = [mqpy.Queue(qm, "MANY.A", CMQC.MQOO_INPUT_SHARED) for _ in range(2)]
    opened.append(mqpy.Queue(qm, "MANY.B", CMQC.MQOO_OUTPUT))
    rows = " ".join(run(proc, "DISPLAY QSTATUS(MANY.*) IPPROCS OPPROCS")).split("QUEUE(")[1:]
    assert [(r.split(")")[0], "IPPROCS(2)" in r, "OPPROCS(0)" in r) for r in rows] == [
        ("MANY.A", True, True), ("MANY.B", False, False)]
    assert "IPPROCS(0)" in rows[1] and "OPPROCS(1)" in rows[1]
    for q in opened:
        q.close()
    rows = " ".join(run(proc, "DISPLAY QSTATUS(MANY.*) IPPROCS OPPROCS")).split("QUEUE(")[1:]
    assert [(r.split(")")[0], "IPPROCS(0)" in r, "OPPROCS(0)" in r) for r in rows] == [
        ("MANY.A", True, True), ("MANY.B", True, True)]


def test_clear_empties_the_queue(qmgr, proc):
    qm, _, _ = qmgr
    run(proc, "DEFINE QLOCAL(CL)")
    qm.put1("CL", b"1")
    assert run(proc, "CLEAR QLOCAL(CL)") == ["AMQ8022I: IBM MQ queue cleared."]
    assert proc.engine.queue_status("CL")["CURDEPTH"] == 0


def test_channel_definitions_get_ibm_defaults_per_type(proc):
    """Given DEFINE CHANNEL of SDR and SVRCONN, the stored definition carries IBM's defaults
    for that type only."""
    run(proc, "DEFINE CHANNEL(TO.QM2) CHLTYPE(SDR) CONNAME('host(1414)') XMITQ(QM2)\n"
              "DEFINE CHANNEL(APP.SVRCONN) CHLTYPE(SVRCONN)")
    sdr = proc.engine.lookup("CHANNEL", "TO.QM2").attributes
    for key, value in {"BATCHSZ": 50, "DISCINT": 6000, "HBINT": 300, "SHORTRTY": 10,
                       "SHORTTMR": 60, "LONGRTY": 999999999, "LONGTMR": 1200,
                       "MAXMSGL": 4194304, "SEQWRAP": 999999999, "NPMSPEED": "FAST",
                       "BATCHINT": 0, "BATCHHB": 0, "KAINT": "AUTO", "CONVERT": "NO",
                       "MONCHL": "QMGR"}.items():
        assert sdr[key] == value, key
    assert "MRRTY" not in sdr and "SHARECNV" not in sdr
    svr = proc.engine.lookup("CHANNEL", "APP.SVRCONN").attributes
    assert (svr["SHARECNV"], svr["MAXINST"], svr["MAXINSTC"]) == (10, 999999999, 999999999)
    assert "RCVR" in channel_defaults("RCVR")["CHLTYPE"]
    assert channel_defaults("RCVR")["MRRTY"] == 10 and channel_defaults("RCVR")["MRTMR"] == 1000
    assert channel_defaults("RCVR")["PUTAUT"] == "DEF"
    out = run(proc, "DISPLAY CHANNEL(APP.*) CHLTYPE(SVRCONN)")
    assert out == ["AMQ8414I: Display Channel details.",
                   "   CHANNEL(APP.SVRCONN)                    CHLTYPE(SVRCONN)"]
    assert run(proc, "ALTER CHANNEL(TO.QM2) CHLTYPE(SDR) BATCHSZ(10)") == [
        "AMQ8016I: IBM MQ channel changed."]
    assert run(proc, "ALTER CHANNEL(TO.QM2) CHLTYPE(RCVR)") == [
        "AMQ8151E: IBM MQ object has different type."]
    assert run(proc, "DELETE CHANNEL(TO.QM2)") == ["AMQ8015I: IBM MQ channel deleted."]


def test_the_channels_crtmqm_makes_show_ibm_defaults(proc):
    """Given the SYSTEM.DEF.* channels crtmqm made (stored with their type only), when they
    are displayed, then they show IBM's defaults for their type, a blank CONNAME as
    CONNAME( ), as any channel defined with nothing more does."""
    out = run(proc, "DISPLAY CHANNEL(SYSTEM.DEF.SENDER) CONNAME BATCHSZ XMITQ")
    assert out[1:] == ["   CHANNEL(SYSTEM.DEF.SENDER)              CHLTYPE(SDR)",
                       "   BATCHSZ(50)                             CONNAME( )",
                       "   XMITQ( )"]
    out = run(proc, "DISPLAY CHANNEL(SYSTEM.DEF.SVRCONN) SHARECNV MAXINST")
    assert "SHARECNV(10)" in out[2] and "MAXINST(999999999)" in out[2]


def test_other_objects_define_display_delete(proc):
    out = run(proc, "DEFINE PROCESS(P1) APPLICID('/bin/true')\nDEFINE LISTENER(L1) "
                    "TRPTYPE(TCP) PORT(1415)\nDEFINE STGCLASS(S1) PSID(2)\n"
                    "DEFINE NAMELIST(N1) NAMES(A)\nDEFINE QMODEL(M1)\nDEFINE QREMOTE(R1) "
                    "RNAME(X) RQMNAME(QM2)")
    assert out == ["AMQ8010I: IBM MQ process created.", "AMQ8626I: IBM MQ listener created.",
                   "AMQ8930I: IBM MQ storage class created.",
                   "AMQ8552I: IBM MQ namelist created.", "AMQ8006I: IBM MQ queue created.",
                   "AMQ8006I: IBM MQ queue created."]
    assert run(proc, "DISPLAY LISTENER(L1) PORT")[1] == (
        "   LISTENER(L1)                            PORT(1415)")
    # IBM's answer to ALTER LISTENER is AMQ8623 (real runmqsc output, MQ 8.0)
    assert run(proc, "ALTER LISTENER(L1) TRPTYPE(TCP) PORT(1416)") == [
        "AMQ8623I: IBM MQ listener changed."]
    assert run(proc, "DISPLAY PROCESS(P1) APPLICID")[1].endswith("APPLICID(/bin/true)")
    assert run(proc, "DISPLAY QMODEL(M1) DEFTYPE")[2] == "   DEFTYPE(TEMPDYN)"
    assert run(proc, "DELETE PROCESS(P1)\nDELETE LISTENER(L1)\nDELETE NAMELIST(N1)") == [
        "AMQ8011I: IBM MQ process deleted.", "AMQ8627I: IBM MQ listener deleted.",
        "AMQ8553I: IBM MQ namelist deleted."]


def test_qmgr_display_alter_ping_and_connections(qmgr, proc):
    assert run(proc, "ALTER QMGR DEADQ(DLQ) DESCR('main')") == [
        "AMQ8005I: IBM MQ queue manager changed."]
    out = run(proc, "DISPLAY QMGR DEADQ")
    assert out == ["AMQ8408I: Display Queue Manager details.",
                   "   QMNAME(QM1)                             DEADQ(DLQ)"]
    assert "DESCR(main)" in " ".join(run(proc, "DISPLAY QMGR"))
    assert run(proc, "PING QMGR") == ["AMQ8415I: Ping IBM MQ queue manager command complete."]
    conns = run(proc, "DISPLAY CONN(*) ALL")
    assert conns[0] == "AMQ8276I: Display Connection details."
    assert "TYPE(CONN)" in " ".join(conns) and "UOWSTATE(NONE)" in " ".join(conns)


def test_a_message_channel_takes_usedlq_and_shows_it(proc):
    """Given a receiver defined with USEDLQ(NO) and a sender without it, when the operator
    displays them, then the receiver shows USEDLQ(NO) and the sender IBM's default
    USEDLQ(YES); a SVRCONN has no USEDLQ and refuses it."""
    run(proc, "DEFINE CHANNEL(QM1.TO.QM2) CHLTYPE(RCVR) USEDLQ(NO)\n"
              "DEFINE CHANNEL(TO.QM2) CHLTYPE(SDR) CONNAME('host(1414)') XMITQ(QM2)")
    assert proc.engine.lookup("CHANNEL", "QM1.TO.QM2").attributes["USEDLQ"] == "NO"
    assert proc.engine.lookup("CHANNEL", "TO.QM2").attributes["USEDLQ"] == "YES"
    shown = proc.execute_text("DISPLAY CHANNEL(QM1.TO.QM2) USEDLQ")
    assert "USEDLQ(NO)" in "\n".join(shown.lines), shown.lines
    refused = proc.execute_text("DEFINE CHANNEL(APP.SVRCONN) CHLTYPE(SVRCONN) USEDLQ(NO)")
    assert not refused.ok, refused.lines
