"""What a clean stop and start keeps: persistent committed messages, in order, intact."""

from __future__ import annotations

import pytest

import mqpy
from mqpy import CMQC

from ._support import drain, get, put

BIG = 10 * 1024 * 1024


def test_persistent_committed_messages_survive_restart_in_order_with_their_msgids(qmgr):
    """Given persistent messages of two priorities, committed both outside and inside a unit
    of work, when the queue manager is stopped and started, then they come back in priority
    and arrival order with the same MsgIds, data and priorities.
    spec: aliases-channels-storage 4.35"""
    qmgr.define("Q1")
    sent = []
    for n in range(6):
        md = put(qmgr.qm, "Q1", b"p%d" % n, persistent=True, priority=n % 2 * 5,
                 syncpoint=n >= 3)
        sent.append((b"p%d" % n, md.MsgId, n % 2 * 5))
    qmgr.qm.commit()
    qm = qmgr.restart()
    got = []
    for _ in sent:
        data, md = get(qm, "Q1")
        got.append((data, md.MsgId, md.Priority))
    assert got == sorted(sent, key=lambda t: -t[2])
    assert drain(qm, "Q1") == []


def test_nonpersistent_messages_are_gone_after_restart(qmgr):
    """Given non-persistent and persistent messages interleaved, when restarted, then only the
    persistent ones remain. spec: aliases-channels-storage 4.37"""
    qmgr.define("Q1")
    for n in range(6):
        put(qmgr.qm, "Q1", b"m%d" % n, persistent=bool(n % 2))
    qm = qmgr.restart()
    assert drain(qm, "Q1") == [b"m1", b"m3", b"m5"]


def test_uncommitted_work_at_a_clean_stop_is_backed_out(qmgr):
    """Given an uncommitted persistent put and an uncommitted get of a committed persistent
    message, when the queue manager is stopped and started, then the put is absent and the got
    message is back with BackoutCount 1. spec: aliases-channels-storage 4.36"""
    qmgr.define("Q1")
    put(qmgr.qm, "Q1", b"committed", persistent=True)
    put(qmgr.qm, "Q1", b"in flight", persistent=True, syncpoint=True)
    assert get(qmgr.qm, "Q1", syncpoint=True)[0] == b"committed"
    qm = qmgr.restart()
    data, md = get(qm, "Q1")
    assert (data, md.BackoutCount) == (b"committed", 1)
    assert drain(qm, "Q1") == []


def test_descriptor_fields_survive_restart(qmgr):
    """Given a persistent message with CorrelId, ReplyToQ, Format and Expiry unlimited, when
    restarted, then the getter sees the same descriptor fields."""
    qmgr.define("Q1")
    md = mqpy.MD(Persistence=CMQC.MQPER_PERSISTENT, CorrelId=b"CORR", ReplyToQ=b"REPLY.Q",
                 Format=CMQC.MQFMT_STRING, Priority=3)
    mqpy.Queue(qmgr.qm, "Q1", CMQC.MQOO_OUTPUT).put(b"desc", md)
    qm = qmgr.restart()
    _d, got = get(qm, "Q1")
    md = mqpy.MD().unpack(md.pack())  # the putter's MD as stored: fields padded
    for field in ("MsgId", "CorrelId", "ReplyToQ", "ReplyToQMgr", "Format", "Priority",
                  "PutDate", "PutTime", "Expiry"):
        assert getattr(got, field) == getattr(md, field), field


@pytest.mark.parametrize("size", [1, 4097, BIG], ids=["1B", "4KB+1", "10MB"])
def test_message_sizes_round_trip_and_survive_restart(qmgr, size):
    """Given persistent messages of 1 byte, 4 KB + 1 and 10 MB (MAXMSGL raised), when put,
    got, put again and the queue manager restarted, then each comes back byte for byte.
    spec: aliases-channels-storage 4.48"""
    qmgr.eng.alter_qmgr({"MAXMSGL": 100 * 1024 * 1024})
    qmgr.define("Q1", {"MAXMSGL": 100 * 1024 * 1024})
    body = bytes(range(256)) * (size // 256) + b"\xa5" * (size % 256)
    put(qmgr.qm, "Q1", body, persistent=True)
    assert get(qmgr.qm, "Q1")[0] == body
    put(qmgr.qm, "Q1", body, persistent=True)
    qm = qmgr.restart()
    data, md = get(qm, "Q1")
    assert len(data) == size and data == body


def test_messages_evicted_from_a_tiny_buffer_pool_come_back_intact(qmgr):
    """Given a buffer pool of 8 KB, when 40 persistent 1 KB messages are put and a checkpoint
    writes them to the pageset, then bodies are evicted from memory and every message is still
    got intact, in order."""
    qmgr.define("Q1")
    qmgr.eng.data.tuning.BufferPoolBytes = 8 * 1024
    bodies = [bytes([n]) * 1024 for n in range(40)]
    for b in bodies:
        put(qmgr.qm, "Q1", b, persistent=True)
    qmgr.eng.data.checkpoint()
    assert qmgr.eng.data.stats.evictions > 0
    reads = qmgr.eng.data.stats.pageset_reads
    assert drain(qmgr.qm, "Q1") == bodies
    assert qmgr.eng.data.stats.pageset_reads > reads


def test_buffer_pool_size_from_qm_ini_applies_after_restart(qmgr):
    """Given qm.ini TuningParameters BufferPoolBytes=8192, when the queue manager restarts
    with 40 persistent 1 KB messages on its pageset, then the bodies are read back from the
    pageset intact."""
    from mqpy import config

    qmgr.define("Q1")
    bodies = [bytes([n]) * 1024 for n in range(40)]
    for b in bodies:
        put(qmgr.qm, "Q1", b, persistent=True)
    qmgr.stop()
    cfg = config.QMgrConfig.load("QM1", qmgr.root)
    cfg.tuning.BufferPoolBytes = 8192
    cfg.save()
    qm = qmgr.start()
    assert qmgr.eng.data.tuning.BufferPoolBytes == 8192
    assert drain(qm, "Q1") == bodies
    assert qmgr.eng.data.stats.pageset_reads >= 40


def test_objects_defined_survive_restart(qmgr):
    """Given a queue defined with MAXDEPTH(12) and then altered to PUT(DISABLED), when
    restarted, then the queue exists with both attributes."""
    qmgr.define("Q1", {"MAXDEPTH": 12})
    qmgr.eng.alter("QLOCAL", "Q1", {"PUT": "DISABLED"})
    qmgr.restart()
    attrs_ = qmgr.eng.lookup("QLOCAL", "Q1").attributes
    assert (attrs_["MAXDEPTH"], attrs_["PUT"]) == (12, "DISABLED")


def test_deleted_queue_stays_deleted_after_restart(qmgr):
    """Given a queue with persistent messages deleted with PURGE, when restarted, then the
    queue does not exist, and a new queue of the same name is empty."""
    qmgr.define("Q1")
    put(qmgr.qm, "Q1", b"x", persistent=True)
    qmgr.eng.data.checkpoint()
    qmgr.eng.delete("QLOCAL", "Q1", purge=True)
    qm = qmgr.restart()
    assert qmgr.eng.lookup("QLOCAL", "Q1") is None
    qmgr.define("Q1")
    assert drain(qm, "Q1") == []


def test_messages_gone_cold_are_browsed_selected_locked_and_backed_out_as_any_other(qmgr):
    """Given persistent messages whose bodies were evicted (so the queue keeps them without a
    Python object), when one is browsed and got under the cursor, one is got by MsgId under
    syncpoint and backed out, then each call sees the right message, the backout count is
    raised and survives a restart, and nothing else moves."""
    qmgr.define("Q1")
    qmgr.eng.data.tuning.BufferPoolBytes = 8 * 1024
    sent = [put(qmgr.qm, "Q1", bytes([n]) * 1024, persistent=True) for n in range(30)]
    qmgr.eng.data.checkpoint()
    mq = qmgr.eng.catalog.queues[qmgr.eng.catalog.queue_def("Q1").qid]
    assert len(mq.live) < 30  # some went cold
    q = mqpy.Queue(qmgr.qm, "Q1", CMQC.MQOO_BROWSE | CMQC.MQOO_INPUT_SHARED)
    md = mqpy.MD()
    assert q.get(None, md, mqpy.GMO(Options=CMQC.MQGMO_BROWSE_FIRST)) == bytes([0]) * 1024
    assert q.get(None, mqpy.MD(), mqpy.GMO(Options=CMQC.MQGMO_BROWSE_NEXT)) == bytes([1]) * 1024
    under = mqpy.GMO(Options=CMQC.MQGMO_MSG_UNDER_CURSOR | CMQC.MQGMO_NO_SYNCPOINT)
    assert q.get(None, mqpy.MD(), under) == bytes([1]) * 1024
    md = mqpy.MD(MsgId=sent[7].MsgId)
    assert q.get(None, md, mqpy.GMO(Options=CMQC.MQGMO_SYNCPOINT)) == bytes([7]) * 1024
    qmgr.qm.backout()
    q.close()
    qm = qmgr.restart()
    md = mqpy.MD(MsgId=sent[7].MsgId)
    data, md = get(qm, "Q1", md=md)
    assert data == bytes([7]) * 1024 and md.BackoutCount == 1
    assert drain(qm, "Q1") == [bytes([n]) * 1024 for n in range(30) if n not in (1, 7)]
