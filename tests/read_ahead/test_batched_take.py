"""A window of messages read ahead is taken in one pass (``Connection._take_ahead`` under one
lock and one clock, the counts added once; ``streamer.async_messages`` framing them with
their fixed parts made once): the same messages, MQMDs, stops, statistics and segments as
taking each with the usual get's fast path and framing each alone."""

from __future__ import annotations

import os
import random

import attrs
import pytest

import mqpy
from mqpy import CMQC, streamer
from mqpy.engine import mqget, mqput, readahead
from mqpy.engine.connection import Connection
from mqpy.engine.qmgr import QueueManagerEngine
from mqpy.fap import asyncflows
from mqpy.rfh2 import RFH2

_WHEN = [1_790_000_000.0]


class _Clock:
    """``time`` for the engine's modules: a clock the test moves."""

    @staticmethod
    def time() -> float:
        return _WHEN[0]


def _plain(counters: object) -> dict:
    return {k: v for k, v in attrs.asdict(counters).items() if k != "time_on_q_total"}


def _counted(eng: QueueManagerEngine, conn: Connection) -> tuple:
    """The statistics and accounting counters (the time on queue rounded: summed once for
    a batch, the float's last bits may differ)."""
    queues = {name: (_plain(q), [round(t, 6) for t in q.time_on_q_total])
              for name, q in sorted(eng.stats.queues.items())}
    return _plain(eng.stats.mqi), _plain(conn.accounting.mqi), queues, \
        eng.data.stats.body_hits


def _fill(conn: Connection, hout: int, rnd: random.Random, count: int) -> None:
    """Messages of many kinds: mostly non-persistent, some persistent, of each priority,
    some expiring, some longer than the take's limit, some asking for COD or COA reports,
    some with properties (an MQRFH2)."""
    for i in range(count):
        md = mqpy.MD(Persistence=CMQC.MQPER_PERSISTENT if rnd.random() < 0.08
                     else CMQC.MQPER_NOT_PERSISTENT, Priority=rnd.choice((0, 4, 9)),
                     MsgId=b"M%-23d" % i)
        if rnd.random() < 0.1:
            md.Expiry = rnd.choice((5, 1000))  # tenths of a second
        if rnd.random() < 0.05:
            md.Report, md.ReplyToQ = rnd.choice((CMQC.MQRO_COD, CMQC.MQRO_COA)), "REPLIES"
        data = b"d%d" % i * rnd.choice((1, 10, 300))
        if rnd.random() < 0.05:
            rfh2 = RFH2(Format=CMQC.MQFMT_STRING)
            rfh2.add_folder(b"<usr><colour>blue</colour></usr>")
            data, md.Format = rfh2.pack(CMQC.MQENC_NATIVE) + data, CMQC.MQFMT_RF_HEADER_2
        conn.put(hout, md, mqpy.PMO(Options=CMQC.MQPMO_NO_SYNCPOINT), data)


def _run(root: str, seed: int, monkeypatch: pytest.MonkeyPatch) -> list:
    """Batches taken of a queue filled at random, with messages got under syncpoint at its
    head, backed out (a BackoutCount) and expired among them: what each batch held and why
    it stopped, then the counts."""
    for module in (mqget, mqput, readahead):
        monkeypatch.setattr(module, "time", _Clock)
    _WHEN[0] = 1_790_000_000.0
    rnd = random.Random(seed)
    eng = QueueManagerEngine.create(os.path.join(root, "qmgrs", "QM"), "QM")
    try:
        eng.define("QLOCAL", "Q", {"MAXDEPTH": 100000})
        eng.define("QLOCAL", "REPLIES", {})
        conn = eng.connect("take")
        other = eng.connect("syncpoint")
        od = mqpy.OD(ObjectName="Q")
        hout = conn.open(od, CMQC.MQOO_OUTPUT)
        hin = conn.open(od, CMQC.MQOO_INPUT_SHARED | CMQC.MQOO_READ_AHEAD)
        hsync = other.open(od, CMQC.MQOO_INPUT_SHARED)
        seen: list = []
        for _ in range(12):
            _fill(conn, hout, rnd, rnd.randint(0, 60))
            if rnd.random() < 0.5:  # got under syncpoint by another connection
                for _ in range(rnd.randint(1, 3)):
                    try:
                        other.get(hsync, None, mqpy.GMO(Options=CMQC.MQGMO_SYNCPOINT), None)
                    except mqpy.MQMIError as e:
                        seen.append(e.reason)
                if rnd.random() < 0.5:
                    other.backout()  # back, with a BackoutCount
            _WHEN[0] += rnd.choice((0.0, 0.3, 2.0))  # some expire
            for _ in range(rnd.randint(1, 8)):
                batch = readahead.take(conn, hin, CMQC.MQGMO_NO_SYNCPOINT,
                                       rnd.choice((2000, 20000, 200000)),
                                       rnd.choice((100, 5000)))
                seen.append((batch.messages, batch.reason, batch.stopped_at_other,
                             batch.resolved_q_name))
                if batch.stopped_at_other:  # the usual get takes what read ahead left
                    try:
                        seen.append(conn.get(hin, mqpy.MD(), mqpy.GMO(), None))
                    except mqpy.MQMIError as e:
                        seen.append(e.reason)
        other.commit()
        seen.append(_counted(eng, conn))
        return seen
    finally:
        eng.close()


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_a_window_taken_in_one_pass_is_what_the_fast_get_takes_one_by_one(
        tmp_path, monkeypatch, seed):
    """Given a queue of messages of many kinds (persistent among them, expiring, too long,
    asking for reports, with properties, behind or backed out of another's syncpoint), when
    windows are read ahead in one pass and then each message by the usual get's fast path,
    then the batches, why each stopped, what the usual get then gets and the statistics
    are the same, and the one pass took most of the messages."""
    take_ahead = Connection._take_ahead
    taken: list[object] = []

    def counting(self, *args):
        message = take_ahead(self, *args)
        taken.append(message)
        return message

    monkeypatch.setattr(Connection, "_take_ahead", counting)
    fast = _run(str(tmp_path / "fast"), seed, monkeypatch)
    assert sum(1 for m in taken if m) > 100
    monkeypatch.setattr(Connection, "_take_ahead", lambda self, *args: None)
    assert _run(str(tmp_path / "each"), seed, monkeypatch) == fast


@pytest.mark.parametrize("conv_id", [None, 7])
def test_segments_framed_together_are_those_framed_one_by_one(conv_id):
    """Given messages of several lengths and resolved queue names of every padding (blanks,
    NULs, a name of 48 characters and a longer one), when their ASYNC_MESSAGE segments are
    made together, then they are byte for byte those made one by one."""
    messages = [(b"M" * md_length, b"d" * length)
                for md_length, length in ((364, 0), (324, 1), (364, 1024), (364, 70000))]
    for name in (b"Q", b"QU", b"QUE", b"QUEU", b"Q  \x00\x00", b"N" * 48, b"L" * 60, b""):
        together = streamer.async_messages(5, 17, name, messages, conv_id)
        assert together == [asyncflows.async_message(5, 17 + i, name, md, data, conv_id)
                            for i, (md, data) in enumerate(messages)]
    assert streamer.async_messages(5, 0, b"Q", [], conv_id) == []
