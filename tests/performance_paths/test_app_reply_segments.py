"""A bindings reply segment kept whole (``Templates.keep_segment``: headers and structures
read in one unpack) takes the next reply only when every byte but the volatile fields'
and the message's is the kept one's."""

from __future__ import annotations

import mqpy
from mqpy import CMQC, bindings_templates
from mqpy.bindings_templates import Templates
from mqpy.fap import mqiflows
from mqpy.fap.framing import SegmentWriter
from mqpy.fap.tsh import SegmentType

_T = SegmentType


def _segment(verb: SegmentType, i: int) -> bytes:
    md = mqpy.MD(MsgId=b"%024d" % i, CorrelId=b"%024d" % -i, PutDate=b"%08d" % i,
                 PutTime=b"%08d" % i)
    values = [md, mqpy.PMO(ResolvedQName=b"Q")] if verb == _T.MQPUT else \
        [md, mqpy.GMO(Version=3, MsgToken=b"%016d" % i, ReturnedLength=i), 3, b"abc"]
    event = mqiflows.encode_reply(verb, values, comp=CMQC.MQCC_OK, reason=0, hobj=7)
    return SegmentWriter(1 << 20).send(event)


def _targets(verb: SegmentType) -> tuple:
    return (mqpy.MD(), mqpy.PMO() if verb == _T.MQPUT else mqpy.GMO(Version=3))


def test_a_kept_segment_reads_the_next_and_refuses_any_other_changed_byte():
    """Given a kept MQPUT or MQGET reply segment, when the next differs only in its
    volatile fields, then it is read with those fields as a full read gives them; when
    any other byte differs (headers included), then it is not read."""
    for verb in (_T.MQPUT, _T.MQGET):
        templates = Templates()
        first = _segment(verb, 1)
        full = mqiflows.common_reply(verb, CMQC.MQCC_OK, 0, 7, first[44:], _targets(verb))
        templates.keep_segment(verb, first, CMQC.MQCC_OK, 0, 7, full.values)
        kept = templates.segments[verb][0]
        nxt = _segment(verb, 2)
        got = bindings_templates.read_against(kept, nxt, _targets(verb))
        expected = mqiflows.common_reply(verb, CMQC.MQCC_OK, 0, 7, nxt[44:], _targets(verb))
        assert [getattr(v, "__dict__", v) for v in got] \
            == [getattr(v, "__dict__", v) for v in expected.values]
        volatile = set()
        for _, _, offset, size, _ in kept.volatile:
            volatile.update(range(offset, offset + size))
        end = len(nxt) if kept.data_at is None else kept.data_at
        for at in range(end):
            if at in volatile:
                continue
            changed = bytearray(nxt)
            changed[at] ^= 0x01
            assert bindings_templates.read_against(kept, bytes(changed),
                                                    _targets(verb)) is None, at
