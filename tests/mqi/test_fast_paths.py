"""The usual MQPUT and MQGET take fast paths (``_put_fast`` in mqpy/engine/mqput.py,
``_get_fast`` in mqpy/engine/mqget.py) that must give exactly what the general path gives, and
must step aside whenever the queue's attributes, the call's options or the message ask for
anything else."""

from __future__ import annotations

import random

import attrs
import pytest

import mqpy
from mqpy import CMQC, inprocess
from mqpy.engine import fastpath, mqmd
from mqpy.engine.connection import Connection

from ._support import BROWSE, IN, OUT, raises_mq

# MQMD fields that differ between two runs whatever the path: when, and the generated ids
_RUN_DEPENDENT = {"MsgId", "PutDate", "PutTime"}


class _Served:
    """Counts the calls the fast paths served (rather than left to the general path)."""

    def __init__(self, monkeypatch) -> None:
        self.puts = self.gets = 0
        put_fast = Connection._put_fast
        get_fast = Connection._get_fast

        def counting_put(conn, *a, **kw):
            done = put_fast(conn, *a, **kw)
            self.puts += done is not fastpath.GENERAL
            return done

        def counting_get(conn, *a, **kw):
            done = get_fast(conn, *a, **kw)
            self.gets += done is not fastpath.GENERAL
            return done

        monkeypatch.setattr(Connection, "_put_fast", counting_put)
        monkeypatch.setattr(Connection, "_get_fast", counting_get)


def _md_fields(md: mqpy.MD, ids: dict[bytes, int]) -> dict:
    """The MQMD as a run-independent dict: a MsgId the queue manager generated becomes its
    number in the order the application first saw generated ids; an expiry, whether any."""
    out = {k: v for k, v in md.__dict__.items() if k not in _RUN_DEPENDENT}
    if md.MsgId.startswith(b"AMQ ") and md.MsgId not in ids:
        ids[md.MsgId] = len(ids)
    out["MsgId"] = ids.get(md.MsgId, md.MsgId)
    if out["Expiry"] > 0:  # the time left, counted down by the clock
        out["Expiry"] = "some"
    return out


def _counted(stats) -> tuple:
    """Statistics or accounting counters as plain values, less the clock's (interval start,
    time on queue)."""
    def plain(counters) -> dict:
        return {k: v for k, v in attrs.asdict(counters).items() if k != "time_on_q_total"}

    return plain(stats.mqi), {name: plain(q) for name, q in sorted(stats.queues.items())}


def _workload(root: str, seed: int) -> list:
    """A random mix of puts and gets on two queues (one in FIFO order), in and out of
    syncpoint, persistent or not, of every priority, with and without an MQMD/MQPMO/MQGMO,
    gets of the head and by MsgId (some of them unknown), browses between them, commits and
    backouts; returns everything the application saw, and what the statistics and the
    connection's accounting counted."""
    rnd = random.Random(seed)
    qm = mqpy.embedded("QM1", data_path=root)
    eng = inprocess.running("QM1", root)
    eng.define("QLOCAL", "Q1", {})
    eng.define("QLOCAL", "Q2", {"MSGDLVSQ": "FIFO", "DEFPRTY": 4, "DEFPSIST": "YES"})
    seen: list = []
    ids: dict[bytes, int] = {}  # generated MsgId -> the put that got it
    given: list[bytes] = []  # MsgIds that were put
    handles = {name: (mqpy.Queue(qm, name, OUT), mqpy.Queue(qm, name, IN | BROWSE))
               for name in ("Q1", "Q2")}
    try:
        for step in range(400):
            name = rnd.choice(("Q1", "Q2"))
            out, inq = handles[name]
            op = rnd.random()
            try:
                if op < 0.45:
                    data = b"m%d" % step * rnd.choice((1, 10, 200))
                    if rnd.random() < 0.3:
                        out.put(data)  # no MQMD, no MQPMO
                        seen.append(("put", name))
                        continue
                    md = mqpy.MD()
                    if rnd.random() < 0.7:
                        md.Priority = rnd.choice((CMQC.MQPRI_PRIORITY_AS_Q_DEF, 0, 3, 9))
                    if rnd.random() < 0.7:
                        md.Persistence = rnd.choice((CMQC.MQPER_PERSISTENT,
                                                     CMQC.MQPER_NOT_PERSISTENT,
                                                     CMQC.MQPER_PERSISTENCE_AS_Q_DEF))
                    if rnd.random() < 0.2:
                        md.MsgId = b"GIVEN%d" % step
                    if rnd.random() < 0.2:
                        md.CorrelId = b"CORR%d" % (step % 3)
                    if rnd.random() < 0.1:
                        md.Expiry = 100000
                    opts = rnd.choice((0, CMQC.MQPMO_SYNCPOINT, CMQC.MQPMO_NO_SYNCPOINT,
                                       CMQC.MQPMO_NEW_MSG_ID))
                    pmo = mqpy.PMO(Options=opts)
                    out.put(data, md, pmo)
                    given.append(md.MsgId)
                    seen.append(("put", name, _md_fields(md, ids), pmo.ResolvedQName))
                elif op < 0.85:
                    md = mqpy.MD() if rnd.random() < 0.7 else None
                    if md is not None and given and rnd.random() < 0.4:
                        md.MsgId = rnd.choice(given[-6:] + [b"UNKNOWN"])
                    gmo = None
                    if md is None or rnd.random() < 0.8:
                        gmo = mqpy.GMO(Options=rnd.choice(
                            (0, CMQC.MQGMO_SYNCPOINT, CMQC.MQGMO_NO_SYNCPOINT,
                             CMQC.MQGMO_SYNCPOINT_IF_PERSISTENT)))
                    if rnd.random() < 0.1:
                        data = inq.get(5, md, gmo)  # too small a buffer
                    else:
                        data = inq.get(None, md, gmo)
                    seen.append(("get", name, data, md and _md_fields(md, ids),
                                 gmo and (gmo.ReturnedLength, gmo.ResolvedQName)))
                elif op < 0.92:
                    opt = rnd.choice((CMQC.MQGMO_BROWSE_FIRST, CMQC.MQGMO_BROWSE_NEXT))
                    md = mqpy.MD()
                    data = inq.get(None, md, mqpy.GMO(Options=opt))
                    seen.append(("browse", name, data, _md_fields(md, ids)))
                elif op < 0.97:
                    qm.commit()
                    seen.append(("commit",))
                else:
                    qm.backout()
                    seen.append(("backout",))
            except mqpy.MQMIError as e:
                # (a truncation: the part that fitted and the length, too)
                seen.append(("error", e.comp, e.reason, getattr(e, "message", None),
                             getattr(e, "original_length", None)))
        for name in ("Q1", "Q2"):
            seen.append(("depth", name, eng.queue_status(name)["CURDEPTH"]))
        seen.append(("counted", _counted(eng.stats),
                     [_counted(conn.accounting) for conn in eng.connections.values()]))
    finally:
        inprocess.stop("QM1", root)
    return seen


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_fast_and_general_paths_give_the_same_messages_in_the_same_order(
        tmp_path, monkeypatch, seed):
    """Given the same random mix of puts and gets (priorities, persistence, syncpoint, MsgId
    matches, browses, commits and backouts), when it runs once with the fast paths and once
    with every call on the general path, then the application sees the same messages, MQMDs,
    output fields and errors in the same order, the statistics and the connection's accounting
    count the same, and the fast paths did serve most calls."""
    served = _Served(monkeypatch)
    fast = _workload(str(tmp_path / "fast"), seed)
    assert served.puts > sum(1 for s in fast if s[0] == "put") / 2
    assert served.gets > sum(1 for s in fast if s[0] == "get") / 2
    monkeypatch.setattr(fastpath, "ENABLED", False)
    served.puts = served.gets = 0
    general = _workload(str(tmp_path / "general"), seed)
    assert (served.puts, served.gets) == (0, 0)
    assert fast == general


def test_a_put_without_an_mqmd_stores_the_mqmd_a_default_one_would(qmgr, monkeypatch):
    """Given a queue with DEFPRTY 6 and DEFPSIST YES, when one message is put with no MQMD
    (the fast path's template) and one with a fresh MQMD on the general path, then their
    stored MQMDs differ only in MsgId and put time."""
    qmgr.define("Q1", {"DEFPRTY": 6, "DEFPSIST": "YES"})
    q = mqpy.Queue(qmgr.qm, "Q1", OUT | IN)
    q.put(b"a")
    monkeypatch.setattr(fastpath, "ENABLED", False)
    q.put(b"b", mqpy.MD())
    got = []
    for _ in range(2):
        md = mqpy.MD()
        got.append((q.get(None, md), {k: v for k, v in md.__dict__.items()
                                      if k not in _RUN_DEPENDENT}))
    assert [g[0] for g in got] == [b"a", b"b"]
    assert got[0][1] == got[1][1]
    assert got[0][1]["Priority"] == 6 and got[0][1]["Persistence"] == CMQC.MQPER_PERSISTENT


def test_attributes_altered_while_a_handle_is_open_reach_its_next_call(qmgr):
    """Given open handles that have put and got through the fast paths, when the queue and the
    queue manager are altered (PUT, GET, MAXDEPTH, MAXMSGL, DEFPRTY, TRIGGER), then the next
    call on the same handles obeys the new attributes."""
    eng = qmgr.eng
    qmgr.define("Q1")
    qmgr.define("INITQ")
    out = mqpy.Queue(qmgr.qm, "Q1", OUT)
    inq = mqpy.Queue(qmgr.qm, "Q1", IN)
    out.put(b"x")
    assert inq.get() == b"x"
    eng.alter("QLOCAL", "Q1", {"PUT": "DISABLED"})
    with raises_mq(CMQC.MQRC_PUT_INHIBITED):
        out.put(b"x")
    eng.alter("QLOCAL", "Q1", {"PUT": "ENABLED", "DEFPRTY": 7})
    out.put(b"x")
    md = mqpy.MD()
    inq.get(None, md)
    assert md.Priority == 7
    out.put(b"y")
    eng.alter("QLOCAL", "Q1", {"GET": "DISABLED"})
    with raises_mq(CMQC.MQRC_GET_INHIBITED):
        inq.get()
    eng.alter("QLOCAL", "Q1", {"GET": "ENABLED", "MAXDEPTH": 1})
    with raises_mq(CMQC.MQRC_Q_FULL):
        out.put(b"z")
    assert inq.get() == b"y"
    eng.alter("QLOCAL", "Q1", {"MAXMSGL": 10, "MAXDEPTH": 5000})
    with raises_mq(CMQC.MQRC_MSG_TOO_BIG_FOR_Q):
        out.put(b"x" * 11)
    eng.alter("QLOCAL", "Q1", {"MAXMSGL": 100})
    eng.alter_qmgr({"MAXMSGL": 20})
    with raises_mq(CMQC.MQRC_MSG_TOO_BIG_FOR_Q_MGR):
        out.put(b"x" * 21)
    eng.alter_qmgr({"MAXMSGL": 4194304})
    qmgr.define("P1", {"APPLICID": "/bin/true"}, objtype="PROCESS")
    monitor = mqpy.Queue(qmgr.qm, "INITQ", IN)  # a trigger monitor listens
    out.put(b"t")
    assert eng.queue_status("INITQ")["CURDEPTH"] == 0
    eng.alter("QLOCAL", "Q1", {"TRIGGER": "YES", "TRIGTYPE": "EVERY", "INITQ": "INITQ",
                               "PROCESS": "P1"})
    out.put(b"t")
    assert eng.queue_status("INITQ")["CURDEPTH"] == 1  # the trigger message
    assert b"Q1" in monitor.get()


def test_a_fast_get_moves_a_browse_cursor_off_the_message_it_takes(qm):
    """Given a browse cursor on the first message, when a plain get (the fast path) takes that
    message, then the cursor no longer names it (MSG_UNDER_CURSOR finds nothing) and
    BROWSE_NEXT goes on after it."""
    out = mqpy.Queue(qm, "Q1", OUT)
    for data in (b"1", b"2", b"3"):
        out.put(data)
    q = mqpy.Queue(qm, "Q1", IN | BROWSE)
    assert q.get(None, None, mqpy.GMO(Options=CMQC.MQGMO_BROWSE_FIRST)) == b"1"
    assert q.get() == b"1"
    with raises_mq(CMQC.MQRC_NO_MSG_UNDER_CURSOR):
        q.get(None, None, mqpy.GMO(Options=CMQC.MQGMO_MSG_UNDER_CURSOR))
    assert q.get(None, None, mqpy.GMO(Options=CMQC.MQGMO_BROWSE_NEXT)) == b"2"


def test_a_getter_waiting_is_woken_by_a_fast_put(qmgr):
    """Given a getter waiting on an empty queue on another thread, when a put without an MQMD
    (the fast path) arrives, then the getter has it at once."""
    import threading

    qmgr.define("Q1")
    got: list = []
    other = qmgr.connect()
    waiting = threading.Event()

    def getter() -> None:
        q = mqpy.Queue(other, "Q1", IN)
        waiting.set()
        got.append(q.get(None, None, mqpy.GMO(Options=CMQC.MQGMO_WAIT, WaitInterval=30000)))

    th = threading.Thread(target=getter)
    th.start()
    waiting.wait()
    mqpy.Queue(qmgr.qm, "Q1", OUT).put(b"wake")
    th.join(timeout=30)
    assert got == [b"wake"]


def test_a_get_by_msgid_under_syncpoint_hides_nothing_before_it(qm):
    """Given three messages and the first got under syncpoint, when the last is got by MsgId
    under syncpoint (the fast path), then a plain get in the same unit of work (the general
    path, walking past the first) still finds the second."""
    out = mqpy.Queue(qm, "Q1", OUT)
    mds = []
    for data in (b"1", b"2", b"3"):
        md = mqpy.MD()
        out.put(data, md)
        mds.append(md)
    q = mqpy.Queue(qm, "Q1", IN)
    sync = CMQC.MQGMO_SYNCPOINT
    assert q.get(None, None, mqpy.GMO(Options=sync)) == b"1"
    assert q.get(None, mqpy.MD(MsgId=mds[2].MsgId), mqpy.GMO(Options=sync)) == b"3"
    assert q.get(None, None, mqpy.GMO(Options=sync)) == b"2"
    qm.commit()


def test_put_date_and_time_are_right_whatever_order_the_clock_is_read_in():
    """Given times in and across hundredths, seconds and days, in any order (other engines'
    calls interleave), then PutDate/PutTime (worked out once per hundredth and per second)
    are always those of the time asked for, in GMT."""
    import time

    rnd = random.Random(7)
    base = 1_700_000_000.0
    times = [base + d * 86400 + s + h / 100 + 0.001
             for d in (0, 1) for s in (0, 1, 59) for h in (0, 1, 99)]
    times += times
    rnd.shuffle(times)
    for t in times:
        gm = time.gmtime(t)
        want = (time.strftime("%Y%m%d", gm).encode(),
                time.strftime("%H%M%S", gm).encode() + b"%02d" % (int(t * 100) % 100))
        assert mqmd._put_timestamp(t) == want, t


def test_a_put_setting_all_context_keeps_it_as_the_general_path_does(qmgr, monkeypatch):
    """Given a handle opened with MQOO_SET_ALL_CONTEXT, when a message is put with
    MQPMO_SET_ALL_CONTEXT and its sender's context (the fast path serving it) and another the
    same on the general path, then both are got with the same MQMD, the context as given;
    and a handle not opened for it is refused 2098 on either path."""
    qmgr.define("Q1", {"DEFPRTY": 3})
    q = mqpy.Queue(qmgr.qm, "Q1", OUT | IN | CMQC.MQOO_SET_ALL_CONTEXT)
    served = _Served(monkeypatch)
    set_all = mqpy.PMO(Options=CMQC.MQPMO_SET_ALL_CONTEXT | CMQC.MQPMO_SYNCPOINT)

    def arrival() -> mqpy.MD:
        return mqpy.MD(MsgId=b"M" * 24, UserIdentifier=b"alice", AccountingToken=b"\x01" * 32,
                       ApplIdentityData=b"ident", PutApplType=CMQC.MQAT_JAVA,
                       PutApplName=b"sender", PutDate=b"20260101", PutTime=b"12000000",
                       ApplOriginData=b"orig", BackoutCount=4,
                       Priority=CMQC.MQPRI_PRIORITY_AS_Q_DEF)

    q.put(b"fast", arrival(), set_all)
    assert served.puts == 1
    monkeypatch.setattr(fastpath, "ENABLED", False)
    q.put(b"general", arrival(), set_all)
    qmgr.qm.commit()
    got = []
    for _ in range(2):
        md = mqpy.MD()
        got.append((q.get(None, md), md.__dict__))
    assert [g[0] for g in got] == [b"fast", b"general"]
    assert got[0][1] == got[1][1]
    assert (got[0][1]["UserIdentifier"].rstrip(), got[0][1]["PutDate"],
            got[0][1]["PutApplType"], got[0][1]["Priority"], got[0][1]["BackoutCount"]) \
        == (b"alice", b"20260101", CMQC.MQAT_JAVA, 3, 0)
    plain = mqpy.Queue(qmgr.qm, "Q1", OUT)
    for fast in (True, False):
        monkeypatch.setattr(fastpath, "ENABLED", fast)
        with raises_mq(CMQC.MQRC_NOT_OPEN_FOR_SET_ALL):
            plain.put(b"x", arrival(), mqpy.PMO(Options=CMQC.MQPMO_SET_ALL_CONTEXT))


@pytest.mark.parametrize("fast", [True, False])
def test_a_get_by_a_short_msgid_of_zeros_selects_no_message(qm, monkeypatch, fast):
    """Given two messages, when a get asks for a MsgId of zeros shorter than 24 bytes
    (MQMI_NONE as an application may spell it), with the fast paths or without, then it
    takes the first message, as a get asking for no MsgId does, and the second is left."""
    monkeypatch.setattr(fastpath, "ENABLED", fast)
    out = mqpy.Queue(qm, "Q1", OUT)
    for data in (b"first", b"second"):
        out.put(data, mqpy.MD())
    q = mqpy.Queue(qm, "Q1", IN)
    md = mqpy.MD(MsgId=b"\x00" * 8)
    assert q.get(None, md, mqpy.GMO()) == b"first"
    assert md.MsgId.startswith(b"AMQ ")
    assert q.get() == b"second"
