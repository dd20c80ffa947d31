"""An MQGET over a bindings socket that does not wait is served and answered by the queue
manager's busy thread straight from the bytes read (``mqpy.syncget_stream``,
``engine.packed.get``): the same replies (MQMD, MQGMO, message), queues, statistics and units
of work as the general path's, which takes everything else, hostile requests included."""

from __future__ import annotations

import os

import pytest

import mqpy
from mqpy import CMQC, bindings, bindings_thread, syncget_stream
from mqpy.engine import mqput as engine_mqput
from mqpy.engine.qmgr import QueueManagerEngine
from mqpy.fap import mqiflows
from mqpy.fap.tsh import SegmentType
from tests.performance_paths.test_async_put_stream import _Clock, _md, _plain, _Session
from tests.support.queue_contents import alike_three_ways, got_back, served_one_read_each

_T = SegmentType
_WHOLE = mqiflows.WHOLE_MESSAGE
_NO_SYNC = CMQC.MQGMO_NO_SYNCPOINT
_BIG = bindings.MAX_TRANSMISSION_SIZE + 100  # a reply of more than one segment


def _messages() -> list[tuple]:
    """(MQMD, MQPMO, message) of the messages the gets find, in their order."""
    pmo = mqpy.PMO()
    return [(_md(1), pmo, b"one"), (_md(2, Persistence=CMQC.MQPER_PERSISTENT), pmo, b"2" * 1024),
            (_md(3, Version=1), pmo, b"stored with an MQMD v1"), (_md(4, Expiry=50000), pmo,
                                                                  b"expiry"),
            (_md(5, Report=CMQC.MQRO_COD, ReplyToQ="REPLY"), pmo, b"COD"),
            (_md(6, CorrelId=b"C" * 24, Format=CMQC.MQFMT_STRING), pmo, b"x" * 300),
            (_md(7), pmo, b"too long for 10"), (_md(8), pmo, b"accepted truncated")] \
        + [(_md(10 + i), pmo, b"m%d" % i) for i in range(12)] + [(_md(40), pmo, b"b" * _BIG)]


def _gets(h: dict[str, int]) -> list[bytes]:
    """Gets of many forms, each request as the application sends it."""
    flows = bindings.Flows()
    q, out, browse = h["Q"], h["OUT"], h["BROWSE"]
    gmo = mqpy.GMO
    gets = [
        (q, mqpy.MD(), gmo(Options=_NO_SYNC), _WHOLE),
        (q, mqpy.MD(), gmo(Options=_NO_SYNC, Version=1), 5000),
        (q, mqpy.MD(), gmo(Version=2), _WHOLE),
        (q, mqpy.MD(Version=1), gmo(Version=3), _WHOLE),
        (q, mqpy.MD(), gmo(), 100),
        (q, mqpy.MD(), gmo(Options=CMQC.MQGMO_SYNCPOINT), _WHOLE),
        (q, mqpy.MD(), gmo(), _WHOLE),
        (q, mqpy.MD(), gmo(), 10),
        (q, mqpy.MD(), gmo(Options=CMQC.MQGMO_ACCEPT_TRUNCATED_MSG), 10),
        (q, mqpy.MD(MsgId=b"ID11".ljust(24)), gmo(), _WHOLE),
        (q, mqpy.MD(MsgId=b"ID12".ljust(24)), gmo(MatchOptions=0), _WHOLE),
        (q, mqpy.MD(), gmo(Options=CMQC.MQGMO_SYNCPOINT), _WHOLE),
        (q, mqpy.MD(), gmo(Options=CMQC.MQGMO_BROWSE_FIRST), _WHOLE),
        (browse, mqpy.MD(), gmo(Options=CMQC.MQGMO_BROWSE_FIRST), _WHOLE),
        (out, mqpy.MD(), gmo(), _WHOLE),
        (99, mqpy.MD(), gmo(), _WHOLE),
        (q, mqpy.MD(), gmo(), -5),
        (q, mqpy.MD(), gmo(Options=CMQC.MQGMO_CONVERT), _WHOLE),
        (q, mqpy.MD(), gmo(Options=CMQC.MQGMO_SYNCPOINT | CMQC.MQGMO_NO_SYNCPOINT), _WHOLE),
    ]
    requests = [flows.request(_T.MQGET, [md, g, length], hobj) for hobj, md, g, length in gets]
    requests.insert(7, flows.request(_T.MQCMIT, (), 0))
    requests.insert(13, flows.request(_T.MQBACK, (), 0))
    requests += [flows.request(_T.MQGET, [mqpy.MD(), gmo(), _WHOLE], q) for _ in range(12)]
    requests.append(flows.request(_T.MQGET, [mqpy.MD(), gmo(), _WHOLE], h["EMPTY"]))
    requests.append(flows.request(_T.MQGET, [mqpy.MD(), gmo(Options=CMQC.MQGMO_WAIT,
                                                            WaitInterval=10), _WHOLE], q))
    return requests


def _run(root: str, monkeypatch: pytest.MonkeyPatch, requests=_gets) -> list:
    """The messages put, then the requests served by the busy thread, each read alone; then
    the replies, what was left for the loop, what is left on the queues and the counts."""
    monkeypatch.setattr(engine_mqput, "time", _Clock)
    eng = QueueManagerEngine.create(os.path.join(root, "qmgrs", "QM"), "QM")
    try:
        for name in ("Q", "EMPTY", "REPLY"):
            eng.define("QLOCAL", name, {"MAXMSGL": 2 * _BIG})
        conn = eng.connect("stream")
        h = {"Q": conn.open(mqpy.OD(ObjectName="Q"), CMQC.MQOO_INPUT_SHARED),
             "OUT": conn.open(mqpy.OD(ObjectName="Q"), CMQC.MQOO_OUTPUT),
             "BROWSE": conn.open(mqpy.OD(ObjectName="Q"), CMQC.MQOO_BROWSE),
             "EMPTY": conn.open(mqpy.OD(ObjectName="EMPTY"), CMQC.MQOO_INPUT_SHARED)}
        for md, pmo, data in _messages():
            conn.put(h["OUT"], md, pmo, data)
        session = _Session(conn, eng, b"")
        ids: dict[bytes, int] = {}
        seen = served_one_read_each(bindings_thread._serve_spell, session, requests(h), ids)
        seen += got_back(conn, ("Q", "REPLY"), ids)
        seen.append((_plain(eng.stats.mqi), _plain(conn.accounting.mqi)))
        return seen
    finally:
        eng.close()


def test_gets_are_answered_from_their_bytes_as_the_general_path_answers(tmp_path,
                                                                         monkeypatch):
    """Given gets of many forms (MQGMO versions, an MQMD version 1, syncpoint with commit
    and backout, truncation, selection, browse, a handle not open for input, no such
    handle, a bad BufferLength, an empty queue, a COD report, a message longer than a
    segment, a waiting get), when the busy thread serves them from their bytes and then the
    general way, then the replies, the queues and the statistics are the same, and the
    bytes path served many of them."""
    alike_three_ways(lambda root: _run(root, monkeypatch), tmp_path, monkeypatch, syncget_stream,
                     "serve", 15)


def _hostile(h: dict[str, int]) -> list[bytes]:
    """Gets whose bytes are wrong in each way a segment can be."""
    good = bindings.Flows().request(_T.MQGET, [mqpy.MD(), mqpy.GMO(), _WHOLE], h["Q"])
    gmo_at = 28 + 16 + 364  # after the TSH, the API header and the MQMD
    return [good[:gmo_at] + b"XXXX" + good[gmo_at + 4:],
            good[:gmo_at + 4] + (9).to_bytes(4, "little") + good[gmo_at + 8:],
            good[:8] + b"\x01" + good[9:], good[:-1], good + b"\0"]


@pytest.mark.parametrize("case", range(5))
def test_hostile_gets_get_what_the_general_path_gives_them(tmp_path, monkeypatch, case):
    """Given a get whose MQGMO, byte order or length is wrong, when the busy thread reads
    it, then the outcome (reply, request left for the loop, queues, counts) is the general
    path's."""
    def requests(h):
        return [_hostile(h)[case]]

    fast = _run(str(tmp_path / "fast"), monkeypatch, requests)
    monkeypatch.setattr(syncget_stream, "serve", lambda *args: None)
    assert _run(str(tmp_path / "general"), monkeypatch, requests) == fast
