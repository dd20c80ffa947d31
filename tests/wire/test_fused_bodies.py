"""The fused MQPUT / MQGET / MQPUT1 / MQOPEN bodies of mqiflows (one struct call for the
structures, MQLONGs and data of a body) give what the declared layouts give.

The structures are declared once (``mqpy.structs.tables``); ``construct`` is their declarative
form. For any field values, every structure version and both byte orders: the fused bytes are
the construct bytes and the general path's; the fused decode is the construct parse and the
general path's decode; and whatever the fused form does not take (records, bad or truncated
bytes) gets the general path's answer, a ProtocolError included.
"""

from __future__ import annotations

import construct as cs
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from mqpy import CMQC
from mqpy.bindings import Flows
from mqpy.fap import mqiflows, mqiparams
from mqpy.fap.apiheader import MQIReply, MQIRequest
from mqpy.fap.framing import SegmentReader, SegmentWriter
from mqpy.fap.mqicalls import copy_fields
from mqpy.fap.statuscodes import ProtocolError
from mqpy.fap.tsh import ByteOrder, SegmentType, mq_encoding
from mqpy.structs.tables import GMO, MD, OD, OR, PMO, RR

T = SegmentType
_SETTINGS = settings(max_examples=150, deadline=None,
                     suppress_health_check=[HealthCheck.too_slow])
_LONG = st.integers(-(2**31), 2**31 - 1)
_RANGES = {"long": _LONG, "int64": st.integers(-(2**63), 2**63 - 1),
           "byte": st.integers(0, 255)}
#: each fused verb: its request shape and its reply shape, as classes, "long" and "data"
_SHAPES = {
    T.MQPUT: ((MD, PMO, "data"), (MD, PMO)),
    T.MQGET: ((MD, GMO, "long"), (MD, GMO, "long", "data")),
    T.MQPUT1: ((OD, MD, PMO, "data"), (OD, MD, PMO)),
    T.MQOPEN: ((OD, "long"), (OD,)),
}


_FLOW_LAYOUT_OD = 3  # from this MQOD Version on, the flow's layout is not the one here


@st.composite
def _structure(draw: st.DrawFn, cls: type) -> object:
    """Any valid ``cls`` of any Version mqpy knows, without distribution-list records (an
    MQOD of version 1 or 2: the flows carry versions 3 and 4 with 4-byte pointers, as
    Wireshark's MQ dissector reads them, on the general path; mqpy.fap.charvs)."""
    layout = cls._layout_
    highest = _FLOW_LAYOUT_OD - 1 if cls is OD else layout.highest_version
    number = draw(st.integers(layout.versions[0], highest))
    kw = {}
    for f in layout.version_fields(layout.effective_version(number)):
        if f.name in ("StrucId", "RecsPresent") or f.kind == "pointer":
            continue
        if f.name == "Version":
            kw[f.name] = number
        elif f.kind in ("text", "binary"):
            kw[f.name] = draw(st.binary(max_size=f.size))
        else:
            kw[f.name] = draw(_RANGES[f.kind])
    return cls(**kw)


def _item(kind: object) -> st.SearchStrategy:
    if kind == "long":
        return _LONG
    if kind == "data":
        return st.binary(max_size=600)
    return _structure(kind)


@st.composite
def _bodies(draw: st.DrawFn) -> tuple:
    verb = draw(st.sampled_from(list(_SHAPES)))
    reply = draw(st.booleans())
    shape = _SHAPES[verb][reply]
    return verb, reply, shape, [draw(_item(kind)) for kind in shape]


def _construct_bytes(shape: tuple, values: list, order: ByteOrder) -> bytes:
    """The body as the construct definitions of its structures build it."""
    enc = mq_encoding(order)
    mqlong = cs.Int32sl if order == ByteOrder.LITTLE else cs.Int32sb
    out = b""
    for kind, value in zip(shape, values, strict=True):
        if kind == "long":
            out += mqlong.build(value)
        elif kind == "data":
            out += mqlong.build(len(value)) + value
        else:
            layout = kind._layout_
            fields = layout.version_fields(layout.effective_version(value.Version))
            out += kind.construct(value.Version, enc).build(
                {f.name: f.canonical(value.__dict__[f.name]) for f in fields})
    return out


def _tables(reply: bool) -> tuple[dict, dict]:
    if reply:
        return mqiflows.REPLIES, mqiflows._FUSED_REPLIES
    return mqiflows.REQUESTS, mqiflows._FUSED_REQUESTS


def _same(a: object, b: object) -> bool:
    """Equal values; structures of the same class with the same fields, exactly."""
    if isinstance(a, (tuple, list)):
        return type(a) is type(b) and len(a) == len(b) and all(
            _same(x, y) for x, y in zip(a, b, strict=True))
    if hasattr(a, "_layout_"):
        return type(a) is type(b) and a.__dict__ == b.__dict__
    return type(a) is type(b) and a == b


@_SETTINGS
@given(_bodies(), st.sampled_from(list(ByteOrder)))
def test_fused_bytes_are_the_construct_bytes_and_the_general_paths(body, order) -> None:
    """Given any MQPUT / MQGET / MQPUT1 / MQOPEN request or reply body of any structure
    versions, when packed by the fused form, then it is the bytes construct builds from the
    structures' declarations, and those of the item-by-item general path."""
    verb, reply, shape, values = body
    shapes, fused = _tables(reply)
    raw = fused[verb].pack(values, order)
    assert raw is not None  # the common form: the fused path takes it
    assert raw == _construct_bytes(shape, values, order)
    assert raw == mqiflows._pack(shapes[verb], values, order)


@_SETTINGS
@given(_bodies(), st.sampled_from(list(ByteOrder)))
def test_fused_decoding_is_the_construct_parse_and_the_general_paths(body, order) -> None:
    """Given any such body's bytes, when decoded by the fused form, then every field is what
    construct parses, and the values are the general path's, class for class and field for
    field (defaults for the fields a lower version does not carry)."""
    verb, reply, shape, values = body
    shapes, fused = _tables(reply)
    raw = _construct_bytes(shape, values, order)
    got = fused[verb].unpack(raw, order)
    assert got is not None
    assert _same(got, mqiflows._unpack(shapes[verb], raw, order, "test"))
    pos = 0
    enc = mq_encoding(order)
    for kind, value in zip(shape, got, strict=True):
        if kind in ("long", "data"):
            continue
        parsed = kind.construct(value.Version, enc).parse(raw[pos:])
        for f in kind._layout_.version_fields(kind._layout_.effective_version(value.Version)):
            if f.kind != "pointer":
                assert value.__dict__[f.name] == parsed[f.name], f.name
        pos += kind.length(value.Version)
    assert _same(list(got), [v for v in mqiflows._unpack(shapes[verb], raw, order, "t")])


@_SETTINGS
@given(_bodies(), st.sampled_from(list(ByteOrder)), st.data())
def test_a_damaged_body_gets_the_general_paths_answer(body, order, data) -> None:
    """Given any such body cut short, lengthened, or with bytes changed (a StrucId, a
    Version, a length, a RecsPresent), when decoded through decode_request / decode_reply,
    then the answer -- values or the ProtocolError and its text -- is the general path's."""
    verb, reply, shape, values = body
    shapes, fused = _tables(reply)
    raw = bytearray(_construct_bytes(shape, values, order))
    how = data.draw(st.sampled_from(["cut", "grow", "poke"]))
    if how == "cut":
        raw = raw[:data.draw(st.integers(0, len(raw) - 1))]
    elif how == "grow":
        raw += data.draw(st.binary(min_size=1, max_size=8))
    else:
        for _ in range(data.draw(st.integers(1, 4))):
            raw[data.draw(st.integers(0, len(raw) - 1))] = data.draw(st.integers(0, 255))
    raw = bytes(raw)

    def decode(general: bool) -> object:
        saved = dict(fused)
        if general:
            fused.clear()
        try:
            if reply:
                event = MQIReply(segment_type=mqiflows.reply_type(verb), body=raw)
                return mqiflows.decode_reply(event, order).values
            return mqiflows.decode_request(MQIRequest(segment_type=verb, body=raw),
                                           order).values
        except ProtocolError as exc:
            return ("ProtocolError", exc.args)
        finally:
            fused.update(saved)

    assert _same(decode(general=False), decode(general=True))


@pytest.mark.parametrize("order", list(ByteOrder))
def test_records_and_other_classes_go_the_general_way(order) -> None:
    """Given an MQPUT1 whose MQOD carries distribution-list records, or an MQPMO passed
    already packed (mqiparams.Packed), when encoded, then the fused form declines (None) and
    encode_request gives the general path's bytes, which decode back to the records."""
    od = OD(Version=2, RecsPresent=2, ObjectRecPtr=[OR(ObjectName=b"A"), OR(ObjectName=b"B")],
            ResponseRecPtr=[RR(), RR()])
    values = [od, MD(), PMO(), b"data"]
    assert mqiflows._FUSED_REQUESTS[T.MQPUT1].pack(values, order) is None
    event = mqiflows.encode_request(T.MQPUT1, values, byte_order=order)
    assert event.body == mqiflows._pack(mqiflows.REQUESTS[T.MQPUT1], values, order)
    decoded = mqiflows.decode_request(event, order).values[0]
    assert [r.ObjectName.rstrip() for r in decoded.ObjectRecPtr] == [b"A", b"B"]
    packed = [MD(), mqiparams.Packed(PMO, PMO().pack(mq_encoding(order)), order), b"x"]
    assert mqiflows._FUSED_REQUESTS[T.MQPUT].pack(packed, order) is None
    assert mqiflows.encode_request(T.MQPUT, packed, byte_order=order).body == \
        mqiflows._pack(mqiflows.REQUESTS[T.MQPUT], packed, order)


def test_bad_values_get_the_general_paths_error() -> None:
    """Given a body value the layout cannot hold (an MQLONG out of range, a str for the
    data), when encoded, then the error is the general path's, as before."""
    with pytest.raises(ValueError, match="BufferLength"):
        mqiflows.encode_request(T.MQGET, [MD(), GMO(), 2**31])
    with pytest.raises(TypeError):
        mqiflows._pack(mqiflows.REQUESTS[T.MQPUT], [MD(), PMO(), "text"], ByteOrder.LITTLE)
    with pytest.raises(TypeError):
        mqiflows.encode_request(T.MQPUT, [MD(), PMO(), "text"])
    # a bytearray is message data for both
    assert mqiflows.encode_request(T.MQPUT, [MD(), PMO(), bytearray(b"ab")]).body.endswith(
        b"\x02\x00\x00\x00ab")


@st.composite
def _reply_bodies(draw: st.DrawFn) -> tuple:
    """Any fused verb's reply values (MQGET's with its data length and data too)."""
    verb = draw(st.sampled_from(list(_SHAPES)))
    return verb, [draw(_item(kind)) for kind in _SHAPES[verb][1]]


@_SETTINGS
@given(_reply_bodies(), st.sampled_from(list(ByteOrder)))
def test_a_reply_decoded_into_the_callers_structures_is_the_copy_of_a_fresh_decode(
        body, order) -> None:
    """Given any reply body and the caller's structures (with other values in them), when
    decoded ``into`` them, then each ends as copy_fields of the freshly decoded one would
    leave it, the values are the caller's own objects, and what follows the structures
    (an MQGET's data length and data) is what a fresh decode gives."""
    verb, reply_values = body
    structures = [v for v in reply_values if hasattr(v, "_layout_")]
    assert structures  # every fused reply leads with structures
    event = mqiflows.encode_reply(verb, reply_values, byte_order=order)
    mine = [type(v)(Version=v.Version) for v in structures]
    fresh = [type(v)(Version=v.Version) for v in structures]
    expected = mqiflows.decode_reply(event, order).values
    for dst, src in zip(fresh, expected, strict=False):
        copy_fields(dst, src)
    got = mqiflows.decode_reply(event, order, into=mine).values
    assert len(got) == len(expected) == len(reply_values)
    assert all(a is b for a, b in zip(got, mine, strict=False))
    assert _same(mine, fresh)
    rest = len(structures)
    assert _same(list(got[rest:]), list(expected[rest:]))
    assert _same(list(got[rest:]), list(reply_values[rest:]))


def test_a_get_reply_decoded_into_the_callers_md_and_gmo() -> None:
    """Given an MQGET reply, when decoded into the caller's MQMD and MQGMO, then they hold
    the message's descriptor and the options returned, and the data and length follow."""
    md = MD(MsgId=b"M" * 24, Priority=3, PutApplName=b"app")
    gmo = GMO(ResolvedQName=b"Q1", ReturnedLength=5)
    event = mqiflows.encode_reply(T.MQGET, [md, gmo, 5, b"hello"])
    mine_md, mine_gmo = MD(), GMO(Options=CMQC.MQGMO_WAIT)
    values = mqiflows.decode_reply(event, into=(mine_md, mine_gmo)).values
    assert values[0] is mine_md and values[1] is mine_gmo and values[2:] == (5, b"hello")
    assert mine_md == md and mine_gmo == gmo


def test_a_malformed_reply_leaves_the_callers_structures_as_they_were() -> None:
    """Given an MQPUT reply whose MQPMO is cut short, when decoded into the caller's MQMD
    and MQPMO, then the ProtocolError comes and neither structure has changed."""
    event = mqiflows.encode_reply(T.MQPUT, [MD(MsgId=b"X" * 24), PMO(ResolvedQName=b"Q")])
    cut = MQIReply(segment_type=event.segment_type, body=event.body[:-10])
    md, pmo = MD(Priority=1), PMO(Options=4)
    before = (dict(md.__dict__), dict(pmo.__dict__))
    with pytest.raises(ProtocolError):
        mqiflows.decode_reply(cut, into=(md, pmo))
    assert (md.__dict__, pmo.__dict__) == before


def test_the_same_bytes_again_decode_to_independent_structures() -> None:
    """Given a request whose structures recur (a fresh MQMD, the same MQGMO), when decoded
    twice and the first result changed, then the second is as the bytes say."""
    event = mqiflows.encode_request(T.MQGET, [MD(), GMO(WaitInterval=5), -1])
    first = mqiflows.decode_request(event).values
    first[0].Priority = 9
    first[1].WaitInterval = 7
    second = mqiflows.decode_request(event).values
    assert second[0].Priority == CMQC.MQPRI_PRIORITY_AS_Q_DEF
    assert second[1].WaitInterval == 5
    assert second[0] is not first[0]


@pytest.mark.parametrize("verb", list(mqiflows.REQUESTS))
def test_encoded_events_are_the_ones_their_constructors_make(verb) -> None:
    """Given any verb, when its request and its reply are encoded (events made without the
    constructors' converters), then they equal, field for field and type for type, the
    events MQIRequest(...) and MQIReply(...) make from the same body."""
    request = mqiflows.encode_request(verb, [], hobj=7) if not mqiflows.REQUESTS[verb] \
        else None
    if request is not None:
        made = MQIRequest(segment_type=verb, hobj=7, body=b"")
        assert request == made
        assert [type(getattr(request, a.name)) for a in MQIRequest.__attrs_attrs__] == \
            [type(getattr(made, a.name)) for a in MQIRequest.__attrs_attrs__]
    reply = mqiflows.encode_reply(verb, comp=2, reason=2009, hobj=3)
    made = MQIReply(segment_type=mqiflows.reply_type(verb), comp=2, reason=2009, hobj=3,
                    body=b"")
    assert reply == made
    assert [type(getattr(reply, a.name)) for a in MQIReply.__attrs_attrs__] == \
        [type(getattr(made, a.name)) for a in MQIReply.__attrs_attrs__]
    event = mqiflows.encode_request(int(T.MQGET), [MD(), GMO(), -1])
    assert event == MQIRequest(segment_type=T.MQGET, body=event.body)
    assert type(event.segment_type) is SegmentType


def _answered(flows, verb, values, reply_values, comp=CMQC.MQCC_OK, reason=0,
              targets=()):
    """One call through the bindings flows (sans-IO): the request's bytes read as the queue
    manager reads them, answered with ``reply_values``, the reply read into ``targets``."""

    (request,) = SegmentReader().feed(flows.request(verb, values, 0))
    assert mqiflows.decode_request(request).verb == verb
    flows.feed(SegmentWriter(32766).send(
        mqiflows.encode_reply(verb, reply_values, comp=comp, reason=reason)))
    return flows.reply(targets)


def test_the_bindings_flows_decode_a_get_reply_into_the_callers_structures() -> None:
    """Given an MQGET through the bindings flows with the caller's MQMD and MQGMO as
    targets, when the reply comes, then they hold what the queue manager returned and the
    reply's values are them; when a reply that failed carries structures, then the caller's
    are left alone (the exchange copies a failed reply's only into its ``into``)."""

    flows = Flows()
    md, gmo = MD(), GMO(Options=CMQC.MQGMO_WAIT)
    sent = MD(MsgId=b"m" * 24, Persistence=1)
    back = GMO(ReturnedLength=3, ResolvedQName=b"Q")
    reply = _answered(flows, T.MQGET, [md, gmo, -1], [sent, back, 3, b"abc"],
                      targets=(md, gmo))
    assert reply.values[0] is md and reply.values[1] is gmo
    assert md == sent and gmo == back and reply.values[2:] == (3, b"abc")
    md2, gmo2 = MD(), GMO()
    reply = _answered(flows, T.MQGET, [md2, gmo2, -1], [sent, back, 3, b"abc"],
                      comp=CMQC.MQCC_FAILED, reason=2033, targets=(md2, gmo2))
    assert reply.values[0] is not md2 and md2 == MD() and gmo2 == GMO()
