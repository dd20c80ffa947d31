"""A bindings reply whose TSH and API header and length are those of the last reply of its
verb that did not fail is read against the last at once (``bindings_calls._one_reply``:
the headers say what they said then), without its headers parsed again; anything else
is parsed as before. tests/robustness/test_replies_read_against_the_last_differential.py
holds the answers alike under hostile changes; here, which way each reply took."""

from __future__ import annotations

import mqpy
from mqpy import CMQC, bindings_calls
from mqpy.bindings_templates import Templates
from mqpy.fap import mqiflows
from mqpy.fap.framing import SegmentWriter
from mqpy.fap.tsh import SegmentType

_T = SegmentType
_OK, _WARNING = CMQC.MQCC_OK, CMQC.MQCC_WARNING


def _segment(verb: SegmentType, i: int, comp: int = _OK, reason: int = 0,
             hobj: int = 7, data: bytes = b"m" * 40) -> bytes:
    md = mqpy.MD(MsgId=b"%024d" % i, PutTime=b"%08d" % i)
    values = [md, mqpy.PMO(ResolvedQName=b"Q")] if verb == _T.MQPUT else \
        [md, mqpy.GMO(MsgToken=b"%016d" % i, ReturnedLength=len(data)), len(data), data]
    event = mqiflows.encode_reply(verb, values, comp=comp, reason=reason, hobj=hobj)
    return SegmentWriter(1 << 20).send(event)


def _parsed(monkeypatch) -> list:
    """The segments whose headers are parsed from now on."""
    seen: list = []
    real = bindings_calls.one_mqi_flow

    def counting(data):
        seen.append(data)
        return real(data)

    monkeypatch.setattr(bindings_calls, "one_mqi_flow", counting)
    return seen


def test_given_replies_with_the_last_ones_headers_then_only_the_first_is_parsed(
        monkeypatch):
    """Given a run of MQPUT and of MQGET replies of one shape, when a connection reads them,
    then only the first of each verb has its headers parsed, and each is what the general
    reading gives, with its own ids."""
    parsed = _parsed(monkeypatch)
    templates = Templates()
    for verb in (_T.MQPUT, _T.MQGET):
        opts = mqpy.PMO() if verb == _T.MQPUT else mqpy.GMO()
        for i in range(5):
            segment = _segment(verb, i)
            got = bindings_calls._one_reply(segment, verb, (mqpy.MD(), opts), templates)
            expected = mqiflows.common_reply(verb, _OK, 0, 7, segment[44:],
                                             (mqpy.MD(), type(opts)()))
            assert got.comp == expected.comp and got.hobj == 7
            assert got.values[0].__dict__ == expected.values[0].__dict__
            assert got.values[0].MsgId == b"%024d" % i
    assert len(parsed) == 2


def test_given_other_headers_or_another_length_then_the_reply_is_parsed_and_says_its_own():
    """Given a kept MQGET reply, when the next one has another Reason, another Hobj or
    another length, then its own codes are given (the headers parsed again)."""
    templates = Templates()
    gmo = mqpy.GMO()
    bindings_calls._one_reply(_segment(_T.MQGET, 0), _T.MQGET, (mqpy.MD(), gmo), templates)
    warned = bindings_calls._one_reply(
        _segment(_T.MQGET, 1, _WARNING, CMQC.MQRC_TRUNCATED_MSG_ACCEPTED), _T.MQGET,
        (mqpy.MD(), gmo), templates)
    assert (warned.comp, warned.reason) == (_WARNING, CMQC.MQRC_TRUNCATED_MSG_ACCEPTED)
    other = bindings_calls._one_reply(_segment(_T.MQGET, 2, hobj=9), _T.MQGET,
                                      (mqpy.MD(), gmo), templates)
    assert (other.comp, other.reason, other.hobj) == (_OK, 0, 9)
    longer = bindings_calls._one_reply(_segment(_T.MQGET, 3, data=b"l" * 90), _T.MQGET,
                                       (mqpy.MD(), gmo), templates)
    assert longer.values[3] == b"l" * 90 and longer.hobj == 7
