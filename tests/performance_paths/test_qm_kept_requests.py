"""What the queue manager keeps of a connection's last asynchronous MQPUT
(``asyncput_stream.KeptRequest``) reads every request as reading it afresh does: the same
answer for each of a run of requests of many forms, read back to back, whole or cut short,
with another segment limit; and an asynchronous put answered without closures counts for
MQSTAT as the general path counts it."""

from __future__ import annotations

import os

import pytest

import mqpy
from mqpy import CMQC, asyncput_stream, bindings
from mqpy.engine import packed
from mqpy.engine.mqmd import _pack_md
from mqpy.engine.qmgr import QueueManagerEngine
from mqpy.fap.tsh import SegmentType

_ASYNC = CMQC.MQPMO_ASYNC_RESPONSE


def _requests() -> list[bytes]:
    flows = bindings.Flows()

    def put(hobj: int, md: mqpy.MD, pmo: mqpy.PMO, data: bytes) -> bytes:
        return flows.request(SegmentType.MQPUT, [md, pmo, data], hobj)

    def md(i: int, **fields: object) -> mqpy.MD:
        return mqpy.MD(MsgId=b"ID%-22d" % i, **fields)

    same = [put(5, md(i), mqpy.PMO(Options=_ASYNC), b"x" * 100) for i in range(3)]
    return [
        *same,
        put(6, md(3), mqpy.PMO(Options=_ASYNC), b"x" * 100),  # another handle
        put(6, md(4), mqpy.PMO(Options=_ASYNC), b"y" * 101),  # another length
        put(6, md(5, Version=1), mqpy.PMO(Options=_ASYNC), b"y" * 101),  # MQMD version 1
        put(6, md(6, Version=1), mqpy.PMO(Options=_ASYNC, Version=1), b"y" * 101),
        put(6, md(7), mqpy.PMO(Options=0), b"y" * 101),  # synchronous
        put(6, md(8), mqpy.PMO(Options=_ASYNC | CMQC.MQPMO_SYNCPOINT), b"y" * 101),
        put(6, md(9), mqpy.PMO(Options=_ASYNC | CMQC.MQPMO_SYNCPOINT), b"y" * 101),
        flows.request(SegmentType.MQCMIT, (), 0),
        *same,
    ]


def test_a_kept_request_is_read_as_reading_it_afresh_reads_it() -> None:
    kept = asyncput_stream.KeptRequest()
    requests = _requests()
    for limit in (1 << 16, 1 << 16, 200):
        for i, request in enumerate(requests):
            data = b"".join(requests[max(0, i - 1):i + 1])  # behind another in one read
            start = len(data) - len(request)
            for cut in (0, 1, len(request) - 1):
                piece = data[:len(data) - cut]
                assert asyncput_stream.request(piece, start, limit, kept) == \
                    asyncput_stream.request(piece, start, limit), (limit, i, cut)


def test_a_corrupted_request_like_the_kept_one_is_read_afresh() -> None:
    kept = asyncput_stream.KeptRequest()
    request = _requests()[0]
    assert asyncput_stream.request(request, 0, 1 << 16, kept) is not None
    length_at = len(request) - 100 - 4  # the message's length
    for at in (9, 30, length_at):  # the segment type, the API header, the message's length
        changed = request[:at] + bytes([request[at] ^ 1]) + request[at + 1:]
        assert asyncput_stream.request(changed, 0, 1 << 16, kept) == \
            asyncput_stream.request(changed, 0, 1 << 16)


@pytest.mark.parametrize("persistence", [CMQC.MQPER_NOT_PERSISTENT, CMQC.MQPER_PERSISTENT])
def test_an_asynchronous_put_from_bytes_counts_for_mqstat_as_the_general_one(
        tmp_path: object, persistence: int) -> None:
    eng = QueueManagerEngine.create(os.path.join(str(tmp_path), "qmgrs", "QM"), "QM")
    try:
        eng.define("QLOCAL", "Q", {})
        counts = []
        for from_bytes in (True, False):
            conn = eng.connect("kept")
            hobj = conn.open(mqpy.OD(ObjectName="Q"), CMQC.MQOO_OUTPUT)
            md = mqpy.MD(MsgId=b"M" * 24, Persistence=persistence)
            pmo = mqpy.PMO(Options=_ASYNC | CMQC.MQPMO_NO_SYNCPOINT)
            for _ in range(3):
                if from_bytes:
                    assert packed.put_async(conn, hobj, _pack_md(md), pmo.Options,
                                            b"m") is None
                else:
                    conn.put(hobj, md, pmo, b"m")
            sts = conn.stat(CMQC.MQSTAT_TYPE_ASYNC_ERROR)
            counts.append((sts.CompCode, sts.Reason, sts.PutSuccessCount,
                           sts.PutWarningCount, sts.PutFailureCount))
            conn.disconnect()
        assert counts[0] == counts[1] == (CMQC.MQCC_OK, 0, 3, 0, 0)
    finally:
        eng.close()
