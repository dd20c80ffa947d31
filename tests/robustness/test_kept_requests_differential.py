"""Whatever an application puts in its MQMD and MQPMO / MQGMO from one call to the next, a
bindings connection's request made from the one kept for the handle (``mqpy.bindings_
templates``, as ``bindings_calls.TemplatedCalls`` makes it: the kept bytes again, or their
lengths patched for another message) is the request the general packer makes of those
structures (``mqiflows.encode_request`` item by item, the fused packing off, framed by a
``SegmentWriter``), or none is made from it where the general packer refuses them.

The calls come in runs on a few handles: each call's structures those of the call before
(the reply's MsgId written in, as a queue manager's is) with a few fields given other
values as an application sets them, of other types too (``True`` for ``1``, a
``bytearray``, ``memoryview`` or ``str`` for bytes; numbers beyond an MQLONG, longer strings
than the field and floats, which the structure refuses).
"""

from __future__ import annotations

import pytest
from hypothesis import strategies as st

import mqpy
from mqpy import bindings, bindings_calls
from mqpy.bindings_templates import Templates
from mqpy.fap import mqiflows
from mqpy.fap.apiheader import build_mqi_request
from mqpy.fap.framing import SegmentWriter
from mqpy.fap.tsh import SegmentType
from tests.support.mqi_mutations import run_examples
from tests.support.queue_contents import ServedExamples

_T = SegmentType
_LIMIT = bindings_calls.PACKED_LIMIT + bindings_calls._HEADERS
_NUMBERS = ("Version", "Report", "Expiry", "Encoding", "CodedCharSetId", "Priority",
            "Persistence", "BackoutCount", "MsgSeqNumber", "Options", "MatchOptions",
            "WaitInterval", "Context", "RecsPresent")
_STRINGS = ("MsgId", "CorrelId", "Format", "ReplyToQ", "UserIdentifier", "PutApplName",
            "ResolvedQName", "MsgToken")
_VALUES = st.one_of(
    st.sampled_from((0, 1, 2, 3, 4, -1, 9, 1 << 31, -(1 << 31) - 1, True, False, 1.0, None)),
    st.integers(-(1 << 33), 1 << 33),
    st.binary(max_size=60),
    st.sampled_from(("text", b"\0" * 24, b" " * 48)),
    st.builds(bytearray, st.binary(min_size=1, max_size=30)),  # (new ones: changed in place)
    st.builds(memoryview, st.binary(max_size=30)),
)


def _general(verb: SegmentType, hobj: int, values: list) -> object:
    """The request the general packer makes of ``values``, or what it refuses them with."""
    try:
        with pytest.MonkeyPatch.context() as patch:
            patch.setattr(mqiflows, "_FUSED_REQUESTS", {})
            event = mqiflows.encode_request(verb, values, hobj=hobj)
        return SegmentWriter(bindings.MAX_TRANSMISSION_SIZE).send(event)
    except Exception as exc:  # noqa: BLE001 - the refusal is the answer compared
        return ("refused", type(exc).__name__)


def _kept(templates: Templates, verb: SegmentType, hobj: int, md, opts, extra) -> object:
    """The request ``TemplatedCalls._packed_put`` / ``_packed_get`` makes (kept for the
    next), or None when it leaves the call to the general path."""
    if verb == _T.MQPUT:
        request = templates.put_request(hobj, md, opts, extra, _LIMIT)
        length = len(extra)
    else:
        request = templates.request(verb, hobj, md, opts, extra)
        length = extra
    if request is not None:
        return request if verb == _T.MQGET or request.endswith(extra) else ("bad", request)
    body = bindings_calls._request_body(verb, [md, opts, extra])
    if body is None:
        return None
    request = build_mqi_request(verb, hobj, (body,))
    templates.keep_request(verb, hobj, md, opts, length,
                           request[:len(request) - len(extra)] if verb == _T.MQPUT else request)
    return request


def _check(data: st.DataObject) -> None:
    templates = Templates()
    state = {(verb, hobj): (mqpy.MD(), mqpy.PMO() if verb == _T.MQPUT else mqpy.GMO())
             for verb in (_T.MQPUT, _T.MQGET) for hobj in (1, 2)}
    for i in range(data.draw(st.integers(1, 8), label="calls")):
        verb = data.draw(st.sampled_from((_T.MQPUT, _T.MQGET)), label="verb")
        hobj = data.draw(st.sampled_from((1, 2)), label="handle")
        md, opts = state[verb, hobj]
        for _ in range(data.draw(st.integers(0, 2), label="changes")):
            target = data.draw(st.sampled_from((md, opts)), label="structure")
            name = data.draw(st.sampled_from(
                [n for n in (*_NUMBERS, *_STRINGS) if n in target.__dict__]), label="field")
            try:  # as an application sets it (the structure checks and converts it)
                setattr(target, name, data.draw(_VALUES, label="value"))
            except (TypeError, ValueError, mqpy.MQMIError):
                pass
        extra = data.draw(st.binary(max_size=40), label="message") if verb == _T.MQPUT \
            else data.draw(st.sampled_from((mqiflows.WHOLE_MESSAGE, 0, 10, 1 << 20)),
                           label="buffer length")
        values = [md, opts, extra]
        general = _general(verb, hobj, values)
        made = _kept(templates, verb, hobj, md, opts, extra)
        if made is not None:
            assert made == general, (i, verb, hobj)
        if isinstance(md.__dict__.get("MsgId"), bytes) and data.draw(st.booleans(),
                                                                     label="reply"):
            md.MsgId = b"AMQ QM %017d" % i  # (the reply's, into the caller's MQMD)


def _kept_requests(request, monkeypatch, examples: int) -> None:
    """:func:`_check` on ``examples`` examples; the share of those in which a request was
    made from the one kept asserted."""
    kept = ServedExamples(monkeypatch, (Templates, "put_request"), (Templates, "request"))

    def check(data: st.DataObject) -> None:
        with kept.fast_way():
            _check(data)

    run_examples(request, examples, check)
    assert kept.served >= kept.examples // 6, kept


def test_requests_made_from_the_kept_one_are_what_the_general_packer_makes(request,
                                                                            monkeypatch):
    """Given runs of MQPUTs and MQGETs on two handles whose structures' fields change from
    call to call (other values, of other types), when each
    request is made from the one kept for its handle, then it is the general packer's
    request of those structures, and none is made where the general packer refuses them
    (400 examples, hypothesis' fixed seed); and a request was made from the one kept in
    a sixth of the examples at least."""
    _kept_requests(request, monkeypatch, 400)


@pytest.mark.soak
@pytest.mark.timeout(1800)
def test_requests_made_from_the_kept_one_are_what_the_general_packer_makes_at_length(
        request, monkeypatch):
    """As above, 50,000 examples (``make soak``)."""
    _kept_requests(request, monkeypatch, 50000)
