"""A synchronous MQPUT over a bindings socket is put and answered by the queue manager's busy
thread straight from the bytes read (``mqpy.syncput_stream``, ``engine.packed.put_sync``):
the same replies (MQMD with its MsgId and context, MQPMO with its resolved names), messages,
statistics and units of work as the general path's, which takes everything else, hostile
requests included."""

from __future__ import annotations

import os

import pytest

import mqpy
from mqpy import CMQC, bindings, bindings_thread, syncput_stream
from mqpy.engine import mqput as engine_mqput
from mqpy.engine.qmgr import QueueManagerEngine
from mqpy.fap.tsh import SegmentType
from tests.performance_paths.test_async_put_stream import _Clock, _md, _plain, _Session
from tests.support.queue_contents import alike_three_ways, got_back, served_one_read_each

_T = SegmentType
_SYNCPOINT = CMQC.MQPMO_SYNCPOINT
_OUT = CMQC.MQOO_OUTPUT


def _puts(h: dict[str, int]) -> list[tuple]:
    """(Hobj, MQMD, MQPMO, message) of synchronous puts of many forms."""
    q, setall, full, inq, asyncq = h["Q"], h["SETALL"], h["FULL"], h["IN"], h["ASYNCQ"]
    pmo = mqpy.PMO
    return [
        (q, _md(1), pmo(), b"plain"),
        (q, _md(2, Persistence=CMQC.MQPER_PERSISTENT, Priority=7),
         pmo(Options=CMQC.MQPMO_NO_SYNCPOINT), b"x" * 1024),
        (q, _md(3, Persistence=CMQC.MQPER_PERSISTENCE_AS_Q_DEF,
                Priority=CMQC.MQPRI_PRIORITY_AS_Q_DEF, CodedCharSetId=CMQC.MQCCSI_Q_MGR,
                BackoutCount=5), pmo(), b""),
        (q, _md(4, Version=1, CorrelId=b"C" * 24, Format=CMQC.MQFMT_STRING, Expiry=99999),
         pmo(Version=1), b"v1"),
        (q, mqpy.MD(MsgId=bytes(24)), pmo(Version=2), b"new id"),
        (q, _md(6), pmo(Options=CMQC.MQPMO_NEW_MSG_ID), b"new id asked"),
        (q, _md(7), pmo(Options=CMQC.MQPMO_SYNC_RESPONSE), b"sync response"),
        (q, _md(8, Report=CMQC.MQRO_COA, ReplyToQ="Q"), pmo(), b"report: general"),
        (q, _md(9, Persistence=5), pmo(), b"bad persistence"),
        (q, _md(10, Priority=12), pmo(), b"bad priority"),
        (q, _md(11), pmo(Options=CMQC.MQPMO_ASYNC_RESPONSE | CMQC.MQPMO_SYNC_RESPONSE),
         b"both responses"),
        (q, _md(12), pmo(Options=CMQC.MQPMO_NEW_CORREL_ID), b"new correl"),
        (setall, _md(13, UserIdentifier=b"alice", PutApplName=b"sender",
                     PutDate=b"20260101", PutTime=b"12000000", BackoutCount=3),
         pmo(Options=CMQC.MQPMO_SET_ALL_CONTEXT), b"set all"),
        (q, _md(14), pmo(Options=CMQC.MQPMO_SET_ALL_CONTEXT), b"set all: not opened for"),
        (full, _md(15), pmo(), b"fills FULL"),
        (full, _md(16), pmo(), b"FULL is full"),
        (inq, _md(17), pmo(), b"a handle open for input"),
        (99, _md(18), pmo(), b"no such handle"),
        (asyncq, _md(19), pmo(), b"DEFPRESP(ASYNC)"),
        (q, _md(20, Persistence=CMQC.MQPER_PERSISTENT), pmo(Options=_SYNCPOINT), b"unit 1"),
        (full, _md(21), pmo(Options=_SYNCPOINT), b"unit: FULL"),
    ]


def _requests(h: dict[str, int]) -> list[bytes]:
    flows = bindings.Flows()
    out = [flows.request(_T.MQPUT, [md, pmo, data], hobj) for hobj, md, pmo, data in _puts(h)]
    out.append(flows.request(_T.MQCMIT, (), 0))
    out.append(flows.request(_T.MQPUT, [_md(22), mqpy.PMO(Options=_SYNCPOINT), b"unit 2"],
                             h["Q"]))
    out.append(flows.request(_T.MQBACK, (), 0))
    return out


def _run(root: str, monkeypatch: pytest.MonkeyPatch, requests=_requests) -> list:
    """The requests served by the busy thread, each read alone; then the replies, what
    was left for the loop, the messages got back (MQMDs, the ids the queue manager made by
    their order) and the counts."""
    monkeypatch.setattr(engine_mqput, "time", _Clock)
    eng = QueueManagerEngine.create(os.path.join(root, "qmgrs", "QM"), "QM")
    try:
        for name, attributes in (("Q", {"DEFPRTY": 4, "DEFPSIST": "YES"}),
                                 ("FULL", {"MAXDEPTH": 1}), ("ASYNCQ", {"DEFPRESP": "ASYNC"})):
            eng.define("QLOCAL", name, attributes)
        conn = eng.connect("stream")
        handles = {"Q": conn.open(mqpy.OD(ObjectName="Q"), _OUT),
                   "SETALL": conn.open(mqpy.OD(ObjectName="Q"),
                                       _OUT | CMQC.MQOO_SET_ALL_CONTEXT),
                   "FULL": conn.open(mqpy.OD(ObjectName="FULL"), _OUT),
                   "IN": conn.open(mqpy.OD(ObjectName="Q"), CMQC.MQOO_INPUT_SHARED),
                   "ASYNCQ": conn.open(mqpy.OD(ObjectName="ASYNCQ"), _OUT)}
        session = _Session(conn, eng, b"")
        ids: dict[bytes, int] = {}
        seen = served_one_read_each(bindings_thread._serve_spell, session, requests(handles), ids)
        sts = conn.stat(CMQC.MQSTAT_TYPE_ASYNC_ERROR)
        seen.append((sts.CompCode, sts.Reason, sts.PutSuccessCount, sts.PutFailureCount))
        seen += got_back(conn, ("Q", "FULL", "ASYNCQ"), ids)
        seen.append((_plain(eng.stats.mqi), _plain(conn.accounting.mqi)))
        return seen
    finally:
        eng.close()


def test_synchronous_puts_are_answered_from_their_bytes_as_the_general_path_answers(
        tmp_path, monkeypatch):
    """Given synchronous puts of many forms (persistent or not, the queue's defaults, MQMD
    and MQPMO versions, new MsgIds, set-all context, refusals, a full queue, a handle not
    open for output, a queue whose DEFPRESP is ASYNC, units of work committed and backed
    out), when the busy thread serves them from their bytes and then the general way, then
    the replies, the messages with their MQMDs and the statistics are the same, and the
    bytes path served most of them."""
    alike_three_ways(lambda root: _run(root, monkeypatch), tmp_path, monkeypatch, syncput_stream,
                     "serve", 10)


def _hostile(h: dict[str, int]) -> list[bytes]:
    """Puts whose bytes are wrong in each way a segment can be."""
    flows = bindings.Flows()
    good = flows.request(_T.MQPUT, [_md(1), mqpy.PMO(), b"message"], h["Q"])
    md_at = 28 + 16  # after the TSH and the API header
    pmo_at = md_at + 364
    bad_md = good[:md_at] + b"XXXX" + good[md_at + 4:]
    bad_pmo_version = good[:pmo_at + 4] + (9).to_bytes(4, "little") + good[pmo_at + 8:]
    long_length = good[:-11] + (8).to_bytes(4, "little") + good[-7:]
    records = flows.request(_T.MQPUT, [_md(2), mqpy.PMO(Version=2), b"m"], h["Q"])
    records = records[:pmo_at + 128] + (1).to_bytes(4, "little") + records[pmo_at + 132:]
    big_endian = good[:8] + b"\x01" + good[9:]
    return [bad_md, bad_pmo_version, long_length, records, big_endian, good[:-1]]


@pytest.mark.parametrize("case", range(6))
def test_hostile_puts_get_what_the_general_path_gives_them(tmp_path, monkeypatch, case):
    """Given a put whose MQMD, MQPMO, message length, records or byte order is wrong, or a
    segment cut short, when the busy thread reads it, then the outcome (reply, request left
    for the loop, messages, counts) is the general path's."""
    def requests(h):
        return [_hostile(h)[case]]

    fast = _run(str(tmp_path / "fast"), monkeypatch, requests)
    monkeypatch.setattr(syncput_stream, "serve", lambda *args: None)
    assert _run(str(tmp_path / "general"), monkeypatch, requests) == fast
