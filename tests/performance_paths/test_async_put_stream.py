"""Asynchronous puts that come in a row over a bindings socket are put by the queue manager's
busy thread straight from the bytes read (``mqpy.asyncput_stream``, ``engine.packed.put_async``):
the same messages, MQMDs, order, MQSTAT counts, statistics, unit-of-work outcome and replies
as the general path's, which takes everything else."""

from __future__ import annotations

import collections
import os

import attrs
import pytest

import mqpy
from mqpy import CMQC, asyncput_stream, bindings, bindings_listener, bindings_thread
from mqpy.engine import fastpath
from mqpy.engine import mqput as engine_mqput
from mqpy.engine.qmgr import QueueManagerEngine
from mqpy.fap.framing import SegmentReader, SegmentWriter
from mqpy.fap.tsh import SegmentType
from tests.support.queue_contents import counting_calls, got_back

_T = SegmentType
_ASYNC = CMQC.MQPMO_ASYNC_RESPONSE
_SYNCPOINT = CMQC.MQPMO_SYNCPOINT
_WHEN = 1_790_000_000.25  # the clock of both runs: PutDate and PutTime alike


class _Clock:
    """``time`` for mqpy.engine.mqput: one instant."""

    @staticmethod
    def time() -> float:
        return _WHEN


class _ReadSocket:
    """A socket whose first read gives ``data`` whole; later reads find nothing (the spell
    ends, as SO_RCVTIMEO ends it); what is sent is kept."""

    def __init__(self, data: bytes) -> None:
        self.chunks = [data]
        self.sent: list[bytes] = []

    def setblocking(self, flag: bool) -> None:
        pass

    def setsockopt(self, *args: object) -> None:
        pass

    def recv(self, n: int, *flags: int) -> bytes:
        if self.chunks:
            return self.chunks.pop()
        raise BlockingIOError

    def send(self, data: bytes, *flags: int) -> int:
        self.sent.append(bytes(data))
        return len(data)


class _Session:
    """What ``bindings_thread`` reads of a ``bindings_listener._Session``."""

    def __init__(self, conn: object, engine: object, data: bytes) -> None:
        self.conn, self.engine, self.server = conn, engine, self
        self.sock = _ReadSocket(data)
        self.received: collections.deque = collections.deque()
        self.reader = SegmentReader(bindings.MAX_TRANSMISSION_SIZE,
                                    max_msg_size=bindings.MAX_MSG_SIZE)
        self.writer = SegmentWriter(bindings.MAX_TRANSMISSION_SIZE)
        self.replied_at = 0.0

    _decode = bindings_listener._Session._decode

    def on_unexpected(self, exc: BaseException) -> None:
        raise exc


def _md(i: int, **fields: object) -> mqpy.MD:
    return mqpy.MD(MsgId=b"ID%-22d" % i, **fields)


def _requests(handles: dict[str, int]) -> list[bytes]:
    """Asynchronous puts of many forms, a few synchronous ones and units of work among
    them, each request as the application sends it."""
    flows = bindings.Flows()
    q, setall, full = handles["Q"], handles["SETALL"], handles["FULL"]
    none = bytes(24)
    puts = [
        (q, _md(1), mqpy.PMO(Options=_ASYNC), b"plain"),
        (q, _md(2, Persistence=CMQC.MQPER_PERSISTENT, Priority=7),
         mqpy.PMO(Options=_ASYNC | CMQC.MQPMO_NO_SYNCPOINT), b"x" * 1024),
        (q, _md(3, Persistence=CMQC.MQPER_PERSISTENCE_AS_Q_DEF,
                Priority=CMQC.MQPRI_PRIORITY_AS_Q_DEF, CodedCharSetId=CMQC.MQCCSI_Q_MGR),
         mqpy.PMO(Options=_ASYNC), b""),
        (q, _md(4, Version=1, CorrelId=b"C" * 24, Format=CMQC.MQFMT_STRING, Expiry=99999),
         mqpy.PMO(Options=_ASYNC, Version=1), b"v1"),
        (q, mqpy.MD(MsgId=none), mqpy.PMO(Options=_ASYNC), b"new id"),
        (q, _md(6), mqpy.PMO(Options=_ASYNC | CMQC.MQPMO_NEW_MSG_ID), b"new id asked"),
        (q, _md(7), mqpy.PMO(Options=_ASYNC, Version=3), b"pmo v3"),
        (q, _md(8, Report=CMQC.MQRO_COA, ReplyToQ="Q"), mqpy.PMO(Options=_ASYNC),
         b"report: the general path's"),
        (q, _md(9, Persistence=5), mqpy.PMO(Options=_ASYNC), b"bad persistence"),
        (q, _md(10), mqpy.PMO(Options=_ASYNC | CMQC.MQPMO_SYNC_RESPONSE), b"both"),
        (q, _md(11), mqpy.PMO(Options=_ASYNC | CMQC.MQPMO_NEW_CORREL_ID), b"new correl"),
        (setall, _md(12, UserIdentifier=b"alice", PutApplName=b"sender",
                     PutDate=b"20260101", PutTime=b"12000000", BackoutCount=3),
         mqpy.PMO(Options=_ASYNC | CMQC.MQPMO_SET_ALL_CONTEXT), b"set all"),
        (q, _md(13), mqpy.PMO(Options=_ASYNC | CMQC.MQPMO_SET_ALL_CONTEXT), b"not opened"),
        (q, _md(14), mqpy.PMO(), b"synchronous"),
        (full, _md(15), mqpy.PMO(Options=_ASYNC), b"fills FULL"),
        (full, _md(16), mqpy.PMO(Options=_ASYNC), b"FULL is full"),
        (q, _md(17, Persistence=CMQC.MQPER_PERSISTENT), mqpy.PMO(Options=_ASYNC | _SYNCPOINT),
         b"in syncpoint"),
        (99, _md(18), mqpy.PMO(Options=_ASYNC), b"no such handle"),
    ]
    out = [flows.request(_T.MQPUT, [md, pmo, data], hobj) for hobj, md, pmo, data in puts]
    out.append(flows.request(_T.MQCMIT, (), 0))
    out += [flows.request(_T.MQPUT, [_md(20 + i), mqpy.PMO(Options=_ASYNC | _SYNCPOINT),
                                     b"unit %d" % i], hobj)
            for i, hobj in enumerate((q, full, q))]  # the put to FULL fails: BACKED_OUT
    out.append(flows.request(_T.MQCMIT, (), 0))
    out += [flows.request(_T.MQPUT, [_md(30 + i), mqpy.PMO(Options=_ASYNC), b"after %d" % i],
                          q) for i in range(40)]
    return out


def _plain(counters: object) -> dict:
    return {k: v for k, v in attrs.asdict(counters).items() if k != "time_on_q_total"}


def _run(root: str, monkeypatch: pytest.MonkeyPatch) -> list:
    """The requests served in one read by the busy thread; then what was replied, MQSTAT,
    the messages got back (MQMDs, the ids the queue manager made by their order) and the
    counts."""
    monkeypatch.setattr(engine_mqput, "time", _Clock)
    eng = QueueManagerEngine.create(os.path.join(root, "qmgrs", "QM"), "QM")
    try:
        for name, attributes in (("Q", {"DEFPRTY": 4, "DEFPSIST": "YES"}),
                                 ("FULL", {"MAXDEPTH": 1})):
            eng.define("QLOCAL", name, attributes)
        conn = eng.connect("stream")
        out = CMQC.MQOO_OUTPUT
        handles = {"Q": conn.open(mqpy.OD(ObjectName="Q"), out),
                   "SETALL": conn.open(mqpy.OD(ObjectName="Q"), out | CMQC.MQOO_SET_ALL_CONTEXT),
                   "FULL": conn.open(mqpy.OD(ObjectName="FULL"), out)}
        session = _Session(conn, eng, b"".join(_requests(handles)))
        assert bindings_thread._serve_spell(session) is None
        seen: list = [b"".join(session.sock.sent)]
        sts = conn.stat(CMQC.MQSTAT_TYPE_ASYNC_ERROR)
        seen.append((sts.CompCode, sts.Reason, sts.PutSuccessCount, sts.PutWarningCount,
                     sts.PutFailureCount, sts.ObjectName.rstrip()))
        ids: dict[bytes, int] = {}
        seen += got_back(conn, ("Q", "FULL"), ids)
        seen.append((_plain(eng.stats.mqi), _plain(conn.accounting.mqi)))
        return seen
    finally:
        eng.close()


def test_asynchronous_puts_read_together_are_put_as_the_general_path_puts_them(
        tmp_path, monkeypatch):
    """Given asynchronous puts of many forms read together (persistent or not, in and out
    of syncpoint, new MsgIds, the queue's defaults, an MQMD version 1, set-all context,
    failures, a unit of work that one spoils) with synchronous calls among them, when the
    busy thread serves them from their bytes and then with that path off, then the replies,
    MQSTAT, the messages with their MQMDs in their order and the statistics are the same,
    and the bytes path served most of the puts."""
    served = counting_calls(monkeypatch, asyncput_stream, "request")
    fast = _run(str(tmp_path / "fast"), monkeypatch)
    assert sum(served) > 50
    monkeypatch.setattr(asyncput_stream, "request", lambda *args: None)
    general = _run(str(tmp_path / "general"), monkeypatch)
    assert fast == general
    # MQSTAT: the first failure (an MQMD's Persistence), then the counts
    assert fast[1] == (CMQC.MQCC_FAILED, CMQC.MQRC_PERSISTENCE_ERROR, 54, 0, 5, b"Q")


def test_the_engine_fast_path_off_puts_every_asynchronous_put_the_general_way(
        tmp_path, monkeypatch):
    """Given the engine's fast paths switched off, when asynchronous puts are read together,
    then they are answered as with them on (the bytes path steps aside)."""
    fast = _run(str(tmp_path / "fast"), monkeypatch)
    monkeypatch.setattr(fastpath, "ENABLED", False)
    assert _run(str(tmp_path / "general"), monkeypatch) == fast
