"""Read ahead's MQMDs read against the one before (``mdcodec.KeptMD``): each MQMD the
caller is given is what ``mdcodec.unpack_md`` makes of the same bytes, whatever the MQMD
held before, and anything unusual is ``unpack_md``'s to read or refuse."""

from __future__ import annotations

import random

import pytest

import mqpy
from mqpy import CMQC
from mqpy.structs import mdcodec
from mqpy.structs.fields import StructError


def _message(i: int, **fields) -> bytes:
    """Message ``i``'s MQMD as a queue manager packs it: its own ids and time."""
    return mqpy.MD(MsgId=b"%024d" % i, PutDate=b"2026112%d" % (i % 10),
                   PutTime=b"%08d" % (i * 7), PutApplName=b"app", **fields).pack()


def _streams() -> list[bytes]:
    """MQMDs in runs of the same shape (only the ids and time change) broken by others."""
    out = [_message(i) for i in range(6)]
    out += [_message(i, CorrelId=b"c%023d" % i) for i in range(6, 9)]  # CorrelIds too
    out += [_message(9, Priority=3), _message(10, Priority=3), _message(11)]
    out += [_message(i, Version=1) for i in range(12, 15)]  # another length
    out += [_message(15, Persistence=1), _message(16, BackoutCount=1),
            _message(17, Format=CMQC.MQFMT_STRING), _message(18, Expiry=100),
            _message(19, Expiry=99), _message(20, GroupId=b"g" * 24)]
    v2 = _message(21)
    out += [v2[:4] + (1).to_bytes(4, "little") + v2[8:],  # a Version its length lacks
            b"XXXX" + v2[4:], v2[:-1], v2 + b"\x00" * 4]  # other StrucId, other lengths
    out += [_message(i) for i in range(22, 26)]
    return out


def _targets() -> list:
    """MQMDs as a caller may give them: fresh, holding another message's fields, values
    of another type, a key of its own, a field missing."""
    odd_type, own_key, missing = mqpy.MD(), mqpy.MD(), mqpy.MD()
    odd_type.__dict__["Priority"] = 1.0
    own_key.__dict__["extra"] = b"mine"
    del missing.__dict__["Priority"]
    return [mqpy.MD(), mqpy.MD(Version=1, Priority=9, GroupId=b"x"), odd_type, own_key,
            missing]


def _read(reader, md: mqpy.MD, md_bytes: bytes) -> object:
    """What reading ``md_bytes`` into ``md`` leaves: its fields in order, or the error."""
    try:
        reader(md, md_bytes)
    except StructError as e:
        return ("error", e.args, e.reason)
    return list(md.__dict__.items())


def _served(monkeypatch) -> list:
    """The calls of ``mdcodec.unpack_md`` from now on (those KeptMD.read left to it)."""
    calls: list = []
    original = mdcodec.unpack_md
    monkeypatch.setattr(mdcodec, "unpack_md", lambda *a: calls.append(1) or original(*a))
    return calls


def test_mqmds_read_against_the_one_before_are_what_unpack_md_gives(monkeypatch):
    """Given a stream of MQMDs in runs of one shape broken by others and by bytes
    unpack_md refuses or reads the long way, when each is read by one KeptMD into a
    fresh MQMD, then each MQMD holds what unpack_md gives (keys in the same order), or the
    same error is raised, and most were read against the one before."""
    reader = mdcodec.KeptMD()
    stream = _streams()
    expected = [_read(mdcodec.unpack_md, mqpy.MD(), b) for b in stream]
    calls = _served(monkeypatch)
    assert [_read(reader.read, mqpy.MD(), b) for b in stream] == expected
    assert len(stream) - len(calls) >= 12


@pytest.mark.parametrize("seed", range(4))
def test_mqmds_read_into_any_mqmd_in_any_order_are_what_unpack_md_gives(monkeypatch, seed):
    """Given the same MQMDs in a random order, each read into an MQMD as a caller may give
    it (fresh, reused, another message's, a value of another type, a key of its own, a
    field missing), when read by one KeptMD and by unpack_md, then each is left the same."""
    rng = random.Random(seed)
    stream = _streams()
    order = [rng.randrange(len(stream)) for _ in range(400)]
    kinds = [rng.randrange(len(_targets()) + 1) for _ in order]

    def run(reader) -> list:
        ours = [mqpy.MD(), mqpy.MD()]  # this run's reused MQMDs
        seen = []
        for i, kind in zip(order, kinds, strict=True):
            md = ours[i % 2] if kind == len(_targets()) else _targets()[kind]
            seen.append(_read(reader, md, stream[i]))
        return seen

    expected = run(mdcodec.unpack_md)
    calls = _served(monkeypatch)
    assert run(mdcodec.KeptMD().read) == expected
    assert len(order) - len(calls) >= 20


def test_a_stream_read_ahead_gives_each_message_its_own_mqmd():
    """Given messages of one shape read ahead, when an application gets them, each into a
    fresh MQMD, then each MQMD has its own message's ids and time and the shape's fields."""
    from mqpy import readahead

    buffer = readahead.ReadAheadBuffer(5)
    got = []
    for i in range(4):
        md = mqpy.MD()
        buffer.md_reader.read(md, _message(i, Priority=4))
        got.append((md.MsgId, md.PutDate, md.PutTime, md.Priority, md.PutApplName))
    assert got == [(b"%024d" % i, b"2026112%d" % i, b"%08d" % (i * 7), 4,
                    b"app".ljust(28)) for i in range(4)]
