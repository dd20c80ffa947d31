"""Whatever bytes a client sends on a SVRCONN, the client host's poller serving MQPUT and
MQGET from the bytes read (``mqpy_chinit.svrconn_packed``, ``syncget_stream.get_from_bytes``,
``engine.packed``) gives exactly what the receiver's way gives (the segment reader's event,
``CallsServedAtOnce._serve_now``, the engine's general calls): the same reply segments, the
same events left for the conversation's task (or the same protocol error), the same channel
counters, messages on the queues and statistics.

The requests are a client's of the common form (a TSHM, one segment each), changed as a
hostile or unusual client changes them (``tests.support.mqi_mutations``), several piled in
one read or cut across reads; two queue managers, one each way, that each example leaves as
it found them (``tests.support.differential``).
"""

from __future__ import annotations

import os

import pytest
from hypothesis import assume
from hypothesis import strategies as st

import mqpy
from mqpy import CMQC
from mqpy.engine import fastpath
from mqpy.engine.qmgr import QueueManagerEngine
from mqpy.fap import mqiflows
from mqpy.fap.tsh import SegmentType
from mqpy_chinit import svrconn_packed
from mqpy_chinit.svrconn_inline import CallsServedAtOnce
from tests.performance_paths.test_async_put_stream import _md, _plain
from tests.performance_paths.test_client_packed_serving import _Instance, _request, _served
from tests.support.differential import EnginePair, fixed_clock, pair_fixture, untraced
from tests.support.mqi_mutations import MUTATIONS, left_out, mutated, reads, run_examples
from tests.support.queue_contents import _NEW_ID, got_back

_T = SegmentType
_WHOLE = mqiflows.WHOLE_MESSAGE
_MAXMSGL = 4000  # the channel's: below the queue's


def _calls() -> list:
    """(verb, values, handle) of a client's puts and gets of the common form."""
    pmo, gmo = mqpy.PMO, mqpy.GMO
    return [(_T.MQPUT, [mqpy.MD(), pmo(), b"plain"], "OUT"),
            (_T.MQPUT, [_md(1, Persistence=CMQC.MQPER_PERSISTENT),
                        pmo(Options=CMQC.MQPMO_SYNCPOINT), b"p" * 300], "OUT"),
            (_T.MQPUT, [_md(2, Version=1), pmo(Version=1, Options=CMQC.MQPMO_NO_SYNCPOINT),
                        b""], "OUT"),
            (_T.MQPUT, [mqpy.MD(), pmo(Version=3, Options=CMQC.MQPMO_NEW_MSG_ID), b"v3"], "OUT"),
            (_T.MQPUT, [mqpy.MD(), pmo(), b"L" * 3000], "OUT"),
            (_T.MQGET, [mqpy.MD(), gmo(), _WHOLE], "IN"),
            (_T.MQGET, [mqpy.MD(), gmo(Options=CMQC.MQGMO_SYNCPOINT, Version=3), _WHOLE], "IN"),
            (_T.MQGET, [mqpy.MD(), gmo(Options=CMQC.MQGMO_NO_SYNCPOINT, Version=1), 100],
             "IN"),
            (_T.MQGET, [mqpy.MD(), gmo(Version=4), 3], "IN"),
            (_T.MQGET, [mqpy.MD(), gmo(Options=CMQC.MQGMO_ACCEPT_TRUNCATED_MSG, Version=2), 4],
             "IN"),
            (_T.MQGET, [mqpy.MD(), gmo(Options=CMQC.MQGMO_BROWSE_NEXT), _WHOLE], "BROWSE"),
            *_gets_by_ids()]


#: the CorrelIds of :func:`_run`'s messages: the first's its own, the others' one shared
_ONE, _SHARED = b"CORREL ONE".ljust(24, b"."), b"SHARED"


def _gets_by_ids() -> list:
    """(verb, values, handle) of a client's gets by CorrelId and MsgId (a requester's of its
    reply), waiting or not: one carried by one message, one that two carry, none carries;
    both ids; MatchOptions mixed; a buffer too small; a message beyond the channel's
    MAXMSGL."""
    gmo = mqpy.GMO
    by_correl = {"Version": 2, "MatchOptions": CMQC.MQMO_MATCH_CORREL_ID}
    wait = CMQC.MQGMO_WAIT
    return [(_T.MQGET, [mqpy.MD(CorrelId=_ONE), gmo(**by_correl), _WHOLE], "IN"),
            (_T.MQGET, [mqpy.MD(CorrelId=_ONE), gmo(Options=wait, WaitInterval=0, **by_correl),
                        _WHOLE], "IN"),
            (_T.MQGET, [mqpy.MD(CorrelId=_SHARED), gmo(Options=wait | CMQC.MQGMO_SYNCPOINT,
                                                       WaitInterval=1, **by_correl), _WHOLE],
             "IN"),
            (_T.MQGET, [mqpy.MD(CorrelId=b"NONE CARRIES IT"), gmo(**by_correl), _WHOLE], "IN"),
            (_T.MQGET, [mqpy.MD(CorrelId=_ONE), gmo(Options=wait, WaitInterval=-5,
                                                    **by_correl), _WHOLE], "IN"),
            (_T.MQGET, [_md(100, CorrelId=_ONE), gmo(), _WHOLE], "IN"),  # (both ids)
            (_T.MQGET, [_md(102), gmo(Options=wait, WaitInterval=0, Version=2,
                                      MatchOptions=CMQC.MQMO_MATCH_MSG_ID), _WHOLE], "IN"),
            (_T.MQGET, [mqpy.MD(CorrelId=_ONE), gmo(Version=2, MatchOptions=CMQC.MQMO_NONE),
                        _WHOLE], "IN"),
            (_T.MQGET, [mqpy.MD(CorrelId=_ONE), gmo(**by_correl), 2], "IN")]


def _engine(root: str) -> tuple[QueueManagerEngine, object, dict[str, int]]:
    """Queue manager QM with a queue Q (MAXMSGL above the channel's); a client's connection
    and its handles."""
    eng = QueueManagerEngine.create(os.path.join(root, "qmgrs", "QM"), "QM")
    eng.define("QLOCAL", "Q", {"MAXMSGL": 2 * _MAXMSGL, "DEFPSIST": "YES"})
    conn = eng.connect("client")
    opens = {"OUT": CMQC.MQOO_OUTPUT, "IN": CMQC.MQOO_INPUT_SHARED,
             "BROWSE": CMQC.MQOO_BROWSE}
    h = {name: conn.open(mqpy.OD(ObjectName="Q"), options) for name, options in opens.items()}
    return eng, conn, h


def _run(engine: tuple, build) -> list:
    """Three messages put (one longer than the channel's MAXMSGL; the first with a CorrelId
    of its own, the others sharing one), then the reads
    ``build(handles)`` gives served as the poller serves them, on a new channel instance;
    what each gave, the channel's counters, the queue (emptied) and the statistics."""
    eng, conn, h = engine
    for i, data in enumerate((b"first", b"second message", b"long" * 1500)):
        conn.put(h["OUT"], _md(100 + i, CorrelId=_SHARED if i else _ONE), mqpy.PMO(), data)
    inst = _Instance(conn, _MAXMSGL)
    ids: dict[bytes, int] = {}

    def known(found) -> bytes:
        return b"<%d>" % ids.setdefault(found.group(), len(ids))

    seen: list = []
    for data in build(h):
        replies, *rest = _served(inst, data)
        seen.append([[_NEW_ID.sub(known, r) for r in replies], *rest])
        if rest[0][:1] == ["protocol error"]:
            break  # (the instance ends)
    status = inst.status
    seen.append((status.msgs, status.bytes_sent, status.bytes_received,
                 status.net_bytes_received, status.buffers_received, inst.conv.reader.segments,
                 inst.conv.reader.partner_encoding, inst.conv.reader.partner_ccsid,
                 inst.logged))
    conn.backout()
    seen += got_back(conn, ("Q",), ids)
    seen.append((_plain(eng.stats.mqi), _plain(conn.accounting.mqi)))
    return seen


def _patch(monkeypatch: pytest.MonkeyPatch, general: bool) -> None:
    """One clock for both runs, waiting gets served at once by the receiver's way
    (:func:`_waiting_served_at_once`); ``general``: the receiver's way and the engine's
    general calls."""
    fixed_clock(monkeypatch)
    _waiting_served_at_once(monkeypatch)
    if general:
        monkeypatch.setattr(svrconn_packed, "serve", lambda *args: None)
        monkeypatch.setattr(fastpath, "ENABLED", False)


def _waiting_served_at_once(monkeypatch: pytest.MonkeyPatch) -> None:
    """The receiver's way serves an MQGET with MQGMO_WAIT (a valid WaitInterval) at once,
    as the conversation's task answers it when its message is there (the engine's get
    without a waiter: 2033 when none is, where the task would wait), so that a waiting get
    the poller serves from its bytes has the general path's answer beside it."""
    common, call_now = mqiflows.common_request, CallsServedAtOnce._call_now
    waiting: dict[int, object] = {}  # (each kept: its id not another's)

    def read(verb, body, order):
        values = common(verb, body, order)
        if values is not None and verb == _T.MQGET and values[1].Options & _WAIT \
                and (values[1].WaitInterval >= 0
                     or values[1].WaitInterval == CMQC.MQWI_UNLIMITED):
            values[1].Options &= ~_WAIT  # (past _serve_now's check; put back to be called)
            waiting[id(values[1])] = values[1]
        return values

    def called(self, verb, request, values, conn):
        if id(values[1]) in waiting:
            del waiting[id(values[1])]
            values[1].Options |= _WAIT
        return call_now(self, verb, request, values, conn)

    monkeypatch.setattr(mqiflows, "common_request", read)
    monkeypatch.setattr(CallsServedAtOnce, "_call_now", called)


_WAIT = CMQC.MQGMO_WAIT
pair = pair_fixture(_engine, _run, _patch)


def _check(pair: EnginePair, data: st.DataObject) -> None:
    kinds = data.draw(st.lists(st.integers(0, 100), min_size=1, max_size=4), label="requests")
    changes = [data.draw(MUTATIONS, label=f"changes {i}") for i in range(len(kinds))]
    h = pair.handles()
    extra = (*h.values(), 0, 99)
    segments = []
    calls = _calls()
    for n, (kind, change) in enumerate(zip(kinds, changes, strict=True)):
        verb, values, name = calls[kind % len(calls)]
        request = _request(verb, values, h[name], n + 1)
        segments.append(mutated(request, change, "PMO" if verb == _T.MQPUT else "GMO", extra))
    assume(not left_out(segments))
    joined = b"".join(segments)
    chunks = reads(data.draw, joined) if data.draw(st.booleans(), label="cut") else [joined]
    fast, general = pair.both_ways(lambda h: chunks)
    assert fast == general


def _client_requests(request, pair: EnginePair, monkeypatch, examples: int) -> None:
    """:func:`_check` on ``examples`` examples; the share served from bytes asserted."""
    untraced(monkeypatch, pair.root, svrconn_packed)
    from_bytes = pair.count_served(monkeypatch, (svrconn_packed, "serve"))
    run_examples(request, examples, lambda data: _check(pair, data))
    assert from_bytes.served >= from_bytes.examples // 6, from_bytes


def test_changed_client_requests_get_what_the_receivers_way_gives_them(request, pair,
                                                                        monkeypatch):
    """Given one to four client MQPUTs and MQGETs of the common form, changed in their TSHM,
    API header, structures or lengths, piled in one read or cut across reads, when the
    poller serves them from their bytes on one queue manager and the receiver's way on
    another, then the replies, what is left for the conversation's task, a protocol error,
    the channel's counters, the queue and the statistics are the same (250 examples,
    hypothesis' fixed seed); and it served a request from its bytes in a sixth of the
    examples at least."""
    _client_requests(request, pair, monkeypatch, 250)


@pytest.mark.soak
@pytest.mark.timeout(1800)
def test_changed_client_requests_get_what_the_receivers_way_gives_them_at_length(
        request, pair, monkeypatch):
    """As above, 10,000 examples (``make soak``)."""
    _client_requests(request, pair, monkeypatch, 10000)
