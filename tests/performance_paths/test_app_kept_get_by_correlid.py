"""A requester getting each reply by the CorrelId of its own request: its MQGET's request
is made from the one kept for the handle (``mqpy.bindings_templates``: MsgId and CorrelId
left out of the comparison, the MQMD's own written in), and is the request the general
packer makes of those structures."""

from __future__ import annotations

import mqpy
from mqpy import CMQC, bindings_calls
from mqpy.bindings_templates import Templates
from mqpy.fap.apiheader import build_mqi_request
from mqpy.fap.tsh import SegmentType

_GET = SegmentType.MQGET


def _packed(md: mqpy.MD, gmo: mqpy.GMO) -> bytes:
    """The request the general packer makes of ``md`` and ``gmo`` (BufferLength 100)."""
    return build_mqi_request(_GET, 7, (bindings_calls._request_body(_GET, [md, gmo, 100]),))


def test_gets_by_each_reply_s_correlid_are_made_from_the_kept_request():
    """Given a kept MQGET request by CorrelId, when a requester gets by other CorrelIds
    (and MsgIds) in fresh MQMDs, then each request is made from the kept one and is the
    general packer's; one whose other fields differ, or whose id is not packed as it is
    (shorter than its field), is not made from it."""
    templates = Templates()
    gmo = mqpy.GMO(Options=CMQC.MQGMO_WAIT | CMQC.MQGMO_NO_SYNCPOINT, WaitInterval=5000,
                   MatchOptions=CMQC.MQMO_MATCH_CORREL_ID, Version=2)
    first = mqpy.MD(CorrelId=b"A" * 24)
    templates.keep_request(_GET, 7, first, gmo, 100, _packed(first, gmo))
    for i in range(5):
        md = mqpy.MD(CorrelId=b"%024d" % i, MsgId=b"m%023d" % i if i % 2 else b"\0" * 24)
        assert templates.request(_GET, 7, md, gmo, 100) == _packed(md, gmo), i
    assert templates.request(_GET, 7, mqpy.MD(CorrelId=b"B" * 24, Priority=3), gmo,
                             100) is None
    short = mqpy.MD()
    short.__dict__["CorrelId"] = b"short"
    assert templates.request(_GET, 7, short, gmo, 100) is None
    assert templates.request(_GET, 7, first, gmo, 100) == _packed(first, gmo)
