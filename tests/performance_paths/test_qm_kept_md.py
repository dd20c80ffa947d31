"""What a connection keeps of its last packed MQMD put in the default context
(``engine.mqput.KeptMD``: what the fast path found in it, the stored MQMD's parts) stores
every message as reading its MQMD afresh does: puts whose MQMDs are alike but for their
MsgIds, or differ in a field the kept parts come from, one after another, synchronous and
asynchronous, give the replies, messages, MQMDs and counts of the general path."""

from __future__ import annotations

import mqpy
from mqpy import CMQC, bindings, syncput_stream
from mqpy.fap.tsh import SegmentType
from tests.performance_paths.test_async_put_stream import _md
from tests.performance_paths.test_bindings_sync_put import _run
from tests.support.queue_contents import alike_three_ways

_T = SegmentType
_ASYNC = CMQC.MQPMO_ASYNC_RESPONSE
_AS_Q_DEF = {"Persistence": CMQC.MQPER_PERSISTENCE_AS_Q_DEF,
             "Priority": CMQC.MQPRI_PRIORITY_AS_Q_DEF}


def _requests(h: dict[str, int]) -> list[bytes]:
    flows = bindings.Flows()
    q, setall, full = h["Q"], h["SETALL"], h["FULL"]
    pmo = mqpy.PMO
    puts = [
        *[(q, mqpy.MD(), pmo(), b"none %d" % i) for i in range(3)],  # the same MQMD
        *[(q, _md(i), pmo(), b"own id %d" % i) for i in range(3)],  # alike but MsgIds
        *[(q, _md(9), pmo(), b"same id %d" % i) for i in range(2)],
        (q, _md(9), pmo(Options=CMQC.MQPMO_NEW_MSG_ID), b"new id asked"),
        *[(q, mqpy.MD(**_AS_Q_DEF), pmo(), b"queue's defaults %d" % i) for i in range(2)],
        (full, mqpy.MD(**_AS_Q_DEF), pmo(), b"another queue's defaults"),
        (q, mqpy.MD(**_AS_Q_DEF), pmo(), b"the first queue's again"),
        (q, mqpy.MD(Priority=3), pmo(), b"priority 3"),
        (q, mqpy.MD(Priority=3, CodedCharSetId=CMQC.MQCCSI_Q_MGR), pmo(), b"qmgr's ccsid"),
        (q, mqpy.MD(Priority=3, CodedCharSetId=437), pmo(), b"ccsid 437"),
        (q, mqpy.MD(Priority=3, CorrelId=b"C" * 24), pmo(), b"a CorrelId"),
        (q, mqpy.MD(Priority=3, CorrelId=b"D" * 24), pmo(), b"another CorrelId"),
        (q, mqpy.MD(Priority=3, Persistence=CMQC.MQPER_PERSISTENT), pmo(), b"persistent"),
        (q, mqpy.MD(Priority=3, Expiry=5000), pmo(), b"expiry"),
        (q, mqpy.MD(Priority=3, Version=1), pmo(), b"version 1"),
        (q, mqpy.MD(Priority=3, Version=1), pmo(), b"version 1 again"),
        (q, mqpy.MD(Priority=3, Report=CMQC.MQRO_COA, ReplyToQ="Q"), pmo(), b"report"),
        (q, mqpy.MD(Priority=3), pmo(), b"priority 3 again"),
        (setall, _md(20, Priority=3), pmo(Options=CMQC.MQPMO_SET_ALL_CONTEXT), b"set all"),
        (setall, _md(21, Priority=3), pmo(Options=CMQC.MQPMO_SET_ALL_CONTEXT), b"set all 2"),
        (q, _md(22, Priority=3), pmo(), b"default context again"),
        *[(q, _md(30 + i, Priority=3), pmo(Options=_ASYNC), b"async %d" % i)
          for i in range(3)],
        (q, _md(33, Priority=3), pmo(), b"synchronous after them"),
    ]
    return [flows.request(_T.MQPUT, [md, p, data], hobj) for hobj, md, p, data in puts]


def test_puts_of_kept_mqmds_store_what_reading_them_afresh_stores(tmp_path, monkeypatch):
    alike_three_ways(lambda root: _run(root, monkeypatch, _requests), tmp_path, monkeypatch,
                     syncput_stream, "serve", 20)
