"""Whatever MQMD bytes a channel's MQPUT in an SPI RUN carries, the engine's put of them as
they came (``engine.packed.put``, the bindings server's ``_put_packed``) does what the
general put does with the MQMD decoded (``mqiflows``' item by item reading, then
``Connection.put``), or steps aside having done nothing: the same outcome, messages with
the same MQMDs on the queue, the same statistics.

The MQMDs are a sender's of the common form (set-all context) changed as a hostile or
unusual partner changes them (``tests.support.mqi_mutations``: the StrucId, Version,
Encoding, CCSID, Persistence, Priority, Expiry, ids, context ...); the MQPMO asks for the
set-all context or not, in syncpoint or not; the handle is open for it or not.
"""

from __future__ import annotations

import os

import pytest
from hypothesis import assume
from hypothesis import strategies as st

import mqpy
from mqpy import CMQC, bindings
from mqpy.engine import fastpath, packed
from mqpy.engine.qmgr import QueueManagerEngine
from mqpy.fap import mqiflows
from mqpy.fap.tsh import ByteOrder, SegmentType
from tests.performance_paths.test_async_put_stream import _md, _plain
from tests.support.differential import fixed_clock, pair_fixture
from tests.support.mqi_mutations import MUTATIONS, mutated, run_examples
from tests.support.queue_contents import got_back

_BODY_AT = 28 + 16  # the TSH and the API header
_SET_ALL = CMQC.MQPMO_SET_ALL_CONTEXT


def _engine(root: str) -> tuple[QueueManagerEngine, object, dict[str, int]]:
    eng = QueueManagerEngine.create(os.path.join(root, "qmgrs", "QM"), "QM")
    eng.define("QLOCAL", "Q", {"DEFPRTY": 4, "DEFPSIST": "YES"})
    conn = eng.connect("channel")
    out = CMQC.MQOO_OUTPUT
    h = {"SETALL": conn.open(mqpy.OD(ObjectName="Q"), out | CMQC.MQOO_SET_ALL_CONTEXT),
         "PLAIN": conn.open(mqpy.OD(ObjectName="Q"), out)}
    return eng, conn, h


def _put(conn, hobj: int, md: bytes, pmo: mqpy.PMO, data: bytes, from_bytes: bool) -> object:
    """The put as the bindings server makes it (``from_bytes``: ``packed.put`` first): its
    outcome (None, a warning, the failure's reason, or the general reader's refusal)."""
    if from_bytes and packed.put(conn, hobj, md, pmo, data) is not packed.GENERAL:
        return None
    try:
        decoded, _ = mqiflows._MD.unpack(md, 0, ByteOrder.LITTLE)
    except Exception as exc:  # noqa: BLE001 - the refusal is the answer compared
        return ("refused", type(exc).__name__)
    try:
        return conn.put(hobj, decoded, pmo, data) or None
    except mqpy.MQMIError as e:
        return e.reason


def _run(engine: tuple, build) -> list:
    eng, conn, h = engine
    from_bytes = fastpath.ENABLED  # (off in the general run)
    seen = [_put(conn, h[name], md, pmo, data, from_bytes) for name, md, pmo, data in build(h)]
    conn.backout()
    ids: dict[bytes, int] = {}
    seen += got_back(conn, ("Q",), ids)
    seen.append((_plain(eng.stats.mqi), _plain(conn.accounting.mqi)))
    return seen


def _patch(monkeypatch: pytest.MonkeyPatch, general: bool) -> None:
    fixed_clock(monkeypatch)
    if general:
        monkeypatch.setattr(fastpath, "ENABLED", False)


pair = pair_fixture(_engine, _run, _patch)


def _check(pair, data: st.DataObject) -> None:
    puts = []
    for i in range(data.draw(st.integers(1, 3), label="puts")):
        md = _md(i, UserIdentifier=b"alice", PutApplName=b"sender", PutDate=b"20260101",
                 PutTime=b"12000000", Persistence=data.draw(st.sampled_from((0, 1, 2))),
                 Version=data.draw(st.sampled_from((1, 2))))
        request = bindings.Flows().request(SegmentType.MQPUT, [md, mqpy.PMO(), b"m"], 1)
        request = mutated(request, data.draw(MUTATIONS, label=f"changes {i}"), "PMO")
        size = packed.md_size(request[_BODY_AT:])
        assume(size and len(request) >= _BODY_AT + size)
        options = data.draw(st.sampled_from((_SET_ALL, _SET_ALL | CMQC.MQPMO_SYNCPOINT, 0,
                                             _SET_ALL | CMQC.MQPMO_NEW_MSG_ID)))
        name = data.draw(st.sampled_from(("SETALL", "PLAIN")))
        puts.append((name, request[_BODY_AT:_BODY_AT + size], options, b"m%d" % i))

    fast, general = pair.both_ways(
        lambda h: [(name, md, mqpy.PMO(Options=o), d) for name, md, o, d in puts])
    assert fast == general


def _packed_puts(request, pair, monkeypatch, examples: int) -> None:
    """:func:`_check` on ``examples`` examples; the share put as they came asserted."""
    as_they_came = pair.count_served(monkeypatch, (packed, "put", packed.GENERAL))
    run_examples(request, examples, lambda data: _check(pair, data))
    assert as_they_came.served >= as_they_came.examples // 4, as_they_came


def test_mqmds_put_as_they_came_are_put_as_the_general_put_puts_them(request, pair,
                                                                      monkeypatch):
    """Given a channel's puts with their MQMD bytes changed (StrucId, Version, Encoding,
    CCSID, Persistence, Priority, ids, context ...), set-all context asked for or not, on a
    handle open for it or not, when the engine puts them as they came and the general put
    puts them decoded, then the outcomes, the messages and the statistics are the same
    (250 examples, hypothesis' fixed seed); and the engine put one as it came in a quarter
    of the examples at least."""
    _packed_puts(request, pair, monkeypatch, 250)


@pytest.mark.soak
@pytest.mark.timeout(1800)
def test_mqmds_put_as_they_came_are_put_as_the_general_put_puts_them_at_length(
        request, pair, monkeypatch):
    """As above, 10,000 examples (``make soak``)."""
    _packed_puts(request, pair, monkeypatch, 10000)
