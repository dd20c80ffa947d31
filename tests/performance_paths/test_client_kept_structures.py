"""A request body's structures equal to those of the body packed before (a fresh MQMD, the
same MQPMO or MQGMO call after call) are not packed again: the bytes they gave are kept
(``FusedBody(memo=True)``, mqiflows' requests). Whatever the structures, their versions,
their changes in place between calls and the byte order, the bytes are those of the fused
form that keeps nothing, and those of the general path."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import mqpy
from mqpy import CMQC
from mqpy.fap import mqiflows
from mqpy.fap.fusedbodies import FusedBody
from mqpy.fap.tsh import ByteOrder, SegmentType
from tests.wire.test_fused_bodies import _structure

T = SegmentType
_SETTINGS = settings(max_examples=60, deadline=None,
                     suppress_health_check=[HealthCheck.too_slow])


def _alike(verb: SegmentType, calls: list[list], order: ByteOrder) -> int:
    """Each call's body packed by a keeping FusedBody, one that keeps nothing and the general
    path: asserted alike; how many the keeping one packed."""
    keeping = FusedBody(mqiflows.REQUESTS[verb], memo=True)
    plain = FusedBody(mqiflows.REQUESTS[verb])
    packed = 0
    for values in calls:
        body = keeping.pack(values, order)
        assert body == plain.pack(values, order)
        if body is not None:
            packed += 1
            assert body == mqiflows._pack(mqiflows.REQUESTS[verb], values, order)
    return packed


def test_a_fresh_mqmd_and_the_same_options_each_call_give_the_general_paths_bytes():
    """Given puts and gets as an application makes them (a fresh MQMD each call, the same
    MQPMO / MQGMO, its output fields filled in by each reply, then a field changed), when
    their bodies are packed, then each is the general path's."""
    pmo, gmo = mqpy.PMO(Options=CMQC.MQPMO_NO_SYNCPOINT), mqpy.GMO()
    puts, gets = [], []
    for i in range(6):
        # (each as it is at its call: the lists hold copies)
        puts.append([mqpy.MD(), mqpy.PMO(**pmo.__dict__), b"m%d" % i])
        gets.append([mqpy.MD(), mqpy.GMO(**gmo.__dict__), 1024 + i])
        pmo.ResolvedQName = b"Q%d" % (i // 2)  # (as a reply leaves it)
        gmo.ReturnedLength = i
    puts.append([mqpy.MD(Priority=3), pmo, b"changed"])
    puts.append([mqpy.MD(Version=1), pmo, b"version 1"])
    puts.append([mqpy.MD(), mqpy.PMO(Version=1), b""])
    gets.append([mqpy.MD(MsgId=b"x" * 24), gmo, -1])
    for order in ByteOrder:
        assert _alike(T.MQPUT, puts, order) == len(puts)
        assert _alike(T.MQGET, gets, order) == len(gets)


def test_structures_changed_in_place_between_calls_are_packed_as_they_are_now():
    """Given the same MQMD and MQPMO objects packed, then changed in place (a MsgId, the
    Version, Options), when packed again, then the bytes follow the change."""
    md, pmo = mqpy.MD(), mqpy.PMO()
    keeping = FusedBody(mqiflows.REQUESTS[T.MQPUT], memo=True)
    seen = []
    for change in ({}, {"MsgId": b"A" * 24}, {"Priority": 2}, {"Version": 1},
                   {"Persistence": 1}, {"Version": 2}):
        for name, value in change.items():
            setattr(md, name, value)
        pmo.Options ^= CMQC.MQPMO_SYNCPOINT
        values = [md, pmo, b"data"]
        body = keeping.pack(values, ByteOrder.LITTLE)  # packed before the next change
        assert body == mqiflows._pack(mqiflows.REQUESTS[T.MQPUT], values, ByteOrder.LITTLE)
        seen.append(body)
    assert len(set(seen)) == len(seen)


@st.composite
def _runs(draw: st.DrawFn, classes: tuple[type, ...]) -> list[list]:
    """Calls whose structures are drawn anew or repeat those of a call before."""
    calls: list[list] = []
    for _ in range(draw(st.integers(1, 8))):
        if calls and draw(st.booleans()):
            before = draw(st.sampled_from(calls))
            calls.append([type(s)(**dict(s.__dict__)) for s in before[:len(classes)]])
        else:
            calls.append([draw(_structure(cls)) for cls in classes])
    return calls


@_SETTINGS
@given(_runs((mqpy.MD, mqpy.PMO)), st.sampled_from(list(ByteOrder)),
       st.binary(max_size=40))
def test_any_puts_bodies_are_the_general_paths(calls, order, data):
    """Given any run of MQMDs and MQPMOs, some repeating, when the puts' bodies are packed,
    then each is the general path's."""
    _alike(T.MQPUT, [[*c, data] for c in calls], order)


@_SETTINGS
@given(_runs((mqpy.MD, mqpy.GMO)), st.sampled_from(list(ByteOrder)),
       st.integers(-1, 2**31 - 1))
def test_any_gets_bodies_are_the_general_paths(calls, order, length):
    """Given any run of MQMDs and MQGMOs, some repeating, when the gets' bodies are packed,
    then each is the general path's."""
    _alike(T.MQGET, [[*c, length] for c in calls], order)
