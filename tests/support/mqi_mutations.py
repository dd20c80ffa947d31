"""Hostile variants of MQI segments for differential tests: a request or reply of the common
form, its fields found from its own bytes (TSH or TSHM, API header, MQMD, MQPMO / MQGMO, the
MQLONGs and message after them), changed the ways a broken or unusual peer changes them
(another value, a bit flipped, a byte, cut short, extended, its lengths made to add up
again or not), and the bytes of several cut into reads anywhere.

The changes are plain data (``Mutation``: small integers read modulo what they pick from),
drawn by hypothesis (:data:`MUTATIONS`, :func:`reads`), so that a failure shrinks to the
smallest change and its example can be written down as a test of its own.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Callable
from typing import Any

import attrs
from hypothesis import HealthCheck, given, seed, settings
from hypothesis import strategies as st

from mqpy.fap import mqiflows
from mqpy.fap.tsh import TSH_LENGTH, TSHM_LENGTH
from mqpy.structs.tables import GMO, MD, PMO

__all__ = ["MUTATIONS", "Field", "Mutation", "byte_orders", "fields", "left_out", "mutated",
           "pmo_pointers_set", "reads", "run_examples", "settings_for"]

_API_HEADER = 16


def settings_for(examples: int) -> settings:
    """Hypothesis settings of a differential run: ``examples`` examples drawn from a fixed
    seed (the same ones each run: ``derandomize``), no example database, no deadline."""
    return settings(max_examples=examples, derandomize=True, database=None, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow,
                                           HealthCheck.function_scoped_fixture,
                                           HealthCheck.data_too_large])


def run_examples(request: Any, examples: int, check: Callable[[st.DataObject], None]) -> None:
    """``check`` on ``examples`` examples hypothesis draws (:func:`settings_for`) from a seed
    of the test's name (``request``'s): the same examples each run, and a test's own (the
    seed ``derandomize`` would take is this function's, alike for every test); a failing
    one shrunk and raised. A ``soak`` test's count is scaled by MQPY_SOAK_EXAMPLES_PERCENT
    (default 100: as written)."""
    name = request.node.name.encode()
    if request.node.get_closest_marker("soak") is not None:
        percent = int(os.environ.get("MQPY_SOAK_EXAMPLES_PERCENT", "100"))
        examples = max(1, examples * percent // 100)

    @seed(int.from_bytes(hashlib.sha256(name).digest()[:8], "big"))
    @settings_for(examples)
    @given(data=st.data())
    def example(data: st.DataObject) -> None:
        check(data)

    example()


@attrs.frozen
class Field:
    """One field of a segment: its name, where it is, its size, and how it is read."""

    name: str
    at: int
    size: int
    kind: str  # "le" (an MQLONG), "be" (a TSH length), "byte", "id" (a StrucId), "chars"


def _structure(out: list[Field], data: bytes, at: int, cls: Any, sizes: Any,
               names: tuple[str, ...], prefix: str) -> int:
    """The fields ``names`` of the ``cls`` structure at ``at`` (when there is one whole
    there) added to ``out``; where it ends (``at`` when there is none)."""
    size = mqiflows.size_at(data, at, sizes)
    if not size or at + size > len(data):
        return at
    offsets = cls._layout_.offsets
    out.append(Field(prefix + ".StrucId", at, 4, "id"))
    for name in names:
        offset = offsets[name]
        if offset + 4 <= size:
            width = {"MsgId": 24, "CorrelId": 24, "ResolvedQName": 48, "MsgToken": 16,
                     "Format": 8, "PutDate": 8, "PutTime": 8}.get(name, 4)
            out.append(Field(f"{prefix}.{name}", at + offset, width,
                             "chars" if width > 4 else "le"))
    return at + size


_MD_FIELDS = ("Version", "Report", "MsgType", "Expiry", "Encoding", "CodedCharSetId",
              "Format", "Priority", "Persistence", "MsgId", "CorrelId", "BackoutCount",
              "PutDate", "PutTime", "MsgFlags", "OriginalLength")
_PMO_FIELDS = ("Version", "Options", "Context", "ResolvedQName", "RecsPresent",
               "PutMsgRecFields", "PutMsgRecOffset", "ResponseRecOffset", "Action")
_GMO_FIELDS = ("Version", "Options", "WaitInterval", "ResolvedQName", "MatchOptions",
               "MsgToken", "ReturnedLength")


def fields(data: bytes, second: str = "") -> list[Field]:
    """The fields of the MQI segment ``data`` (a TSH's or a TSHM's, a little-endian body):
    its header's, the API header's, then an MQMD and the MQPMO (``second`` "PMO") or
    MQGMO ("GMO") after it and the MQLONGs and message after those, as far as they are
    whole."""
    tshm = data[:4] == b"TSHM"
    head = TSHM_LENGTH if tshm else TSH_LENGTH
    ids = 8 if tshm else 0
    out = [Field("TSH.StrucId", 0, 4, "id"), Field("TSH.Length", 4, 4, "be")]
    if tshm:
        out += [Field("TSHM.ConvId", 8, 4, "be"), Field("TSHM.RequestId", 12, 4, "be")]
    out += [Field("TSH.ByteOrder", ids + 8, 1, "byte"), Field("TSH.SegmType", ids + 9, 1, "byte"),
            Field("TSH.Flags1", ids + 10, 1, "byte"), Field("TSH.Flags2", ids + 11, 1, "byte"),
            Field("TSH.Encoding", ids + 20, 4, "le"), Field("TSH.CCSID", ids + 24, 2, "byte"),
            Field("API.ReplyLength", head, 4, "be"), Field("API.CompCode", head + 4, 4, "le"),
            Field("API.Reason", head + 8, 4, "le"), Field("API.Hobj", head + 12, 4, "le")]
    at = head + _API_HEADER
    end = _structure(out, data, at, MD, mqiflows.MD_SIZES, _MD_FIELDS, "MD")
    if end != at:
        cls, sizes, names = (PMO, mqiflows.PMO_SIZES, _PMO_FIELDS) if second == "PMO" \
            else (GMO, mqiflows.GMO_SIZES, _GMO_FIELDS)
        at, end = end, _structure(out, data, end, cls, sizes, names, second or "GMO")
    if end != at:
        n = 0
        while end + 4 <= len(data) and n < 2:  # BufferLength, or DataLength and the length
            out.append(Field(f"LONG{n}", end, 4, "le"))
            end += 4
            n += 1
    return [field for field in out if field.at + field.size <= len(data)]


_IDS = (b"XXXX", b"MD  ", b"PMO ", b"GMO ", b"TSH ", b"TSHM", b"TSHC", b"\0\0\0\0")
_LONGS = (0, 1, 2, 3, 4, 5, -1, -2, 9, 0x10, 0x7FFFFFFF, -0x80000000, 0x01000000, 324, 364,
          128, 160, 184, 72, 80, 100, 112, 546, 273, 1208, 819, 8196, 2, 4, 0x2000)
_BYTES = (0, 1, 2, 3, 0x10, 0x20, 0x30, 0x31, 0x38, 0x80, 0x83, 0x84, 0x86, 0x93, 0x94, 0xFF)


def _values(field: Field, data: bytes, extra: tuple[int, ...]) -> list[bytes]:
    """The values ``field`` may be given: the usual suspects for its kind, its own value
    one off and byte-swapped, and ``extra`` (object handles)."""
    own = data[field.at:field.at + field.size]
    if field.kind == "id":
        return list(_IDS)
    if field.kind == "chars":
        return [bytes(field.size), b" " * field.size, b"\xff" * field.size,
                b"Q\x01M".ljust(field.size, b"\x01"), own[::-1]]
    if field.kind == "byte":
        return [bytes([b]) * field.size for b in _BYTES] + [own[::-1]]
    order = "big" if field.kind == "be" else "little"
    value = int.from_bytes(own, order, signed=True)
    numbers = [*_LONGS, *extra, value + 1, value - 1, len(data), len(data) + 1,
               len(data) - 1, int.from_bytes(own, "big" if order == "little" else "little",
                                             signed=True)]
    return [(n & 0xFFFFFFFF).to_bytes(4, order) for n in numbers]


@attrs.frozen
class Mutation:
    """One change: ``kind`` "value" (field ``a``'s value ``b``), "bit" (field ``a``'s bit
    ``b``), "byte" (the byte at ``a`` made ``b``), "cut" (the segment cut at ``a``),
    "extend" (``b`` bytes added: zeros, or the segment's own start), "refit" (the TSH's
    and the API header's lengths made the segment's own again). ``a`` and ``b`` are read
    modulo what they pick from."""

    kind: str
    a: int
    b: int


#: a segment's changes: none (one in three), or one to three
MUTATIONS = st.one_of(st.just([]), st.just([]), st.lists(
    st.builds(Mutation, st.sampled_from(("value", "value", "value", "bit", "byte", "cut",
                                         "extend", "refit")),
              st.integers(0, 1 << 16), st.integers(0, 1 << 16)), min_size=1, max_size=3))


def _refit(data: bytearray) -> None:
    """The TSH's length and the API header's ReplyLength made ``data``'s own length."""
    if len(data) >= 8:
        data[4:8] = len(data).to_bytes(4, "big")
    head = TSHM_LENGTH if data[:4] == b"TSHM" else TSH_LENGTH
    if len(data) >= head + 4:
        data[head:head + 4] = len(data).to_bytes(4, "big")


def mutated(data: bytes, changes: list[Mutation], second: str = "",
            extra: tuple[int, ...] = ()) -> bytes:
    """``data`` (an MQI segment) with ``changes`` made in turn (``fields(data, second)``
    read before each; ``extra``: values any MQLONG field may be given too)."""
    out = bytearray(data)
    for change in changes:
        found = fields(bytes(out), second)
        if change.kind == "value" and found:
            field = found[change.a % len(found)]
            values = _values(field, bytes(out), extra)
            out[field.at:field.at + field.size] = values[change.b % len(values)]
        elif change.kind == "bit" and found:
            field = found[change.a % len(found)]
            bit = change.b % (8 * field.size)
            out[field.at + bit // 8] ^= 1 << (bit % 8)
        elif change.kind == "byte" and out:
            out[change.a % len(out)] = change.b & 0xFF
        elif change.kind == "cut" and out:
            del out[change.a % len(out):]
        elif change.kind == "extend":
            n = change.b % 64 + 1
            out += bytes(n) if change.a % 2 else (bytes(out[:n]) or bytes(n))
        elif change.kind == "refit":
            _refit(out)
    return bytes(out)


_PTR_AT = PMO._layout_.offsets["PutMsgRecPtr"]
_PTR_END = PMO._layout_.offsets["ResponseRecPtr"] + 8


def pmo_pointers_set(data: bytes) -> bool:
    """Whether the MQPUT segment ``data`` carries an MQPMO (version 2 on) whose pointer
    fields (PutMsgRecPtr, ResponseRecPtr) are not zero."""
    head = TSHM_LENGTH if data[:4] == b"TSHM" else TSH_LENGTH
    at = head + _API_HEADER
    md = mqiflows.size_at(data, at, mqiflows.MD_SIZES)
    pmo = md and mqiflows.size_at(data, at + md, mqiflows.PMO_SIZES)
    return pmo >= _PTR_END and any(data[at + md + _PTR_AT:at + md + _PTR_END])


def byte_orders(segments: list[bytes]) -> set[int]:
    """The byte orders (TSH byte 8, a TSHM's 16) that ``segments`` say they are in, of
    those that say one of the two."""
    found = set()
    for segment in segments:
        at = 16 if segment[:4] == b"TSHM" else 8
        if len(segment) > at and segment[at] in (1, 2):
            found.add(segment[at])
    return found


def left_out(segments: list[bytes]) -> bool:
    """Whether ``segments`` show a known difference between the paths from bytes and the
    general ones, which the differential runs leave out: none now. (Both byte orders in one
    read were one until every flow was decoded in its own TSH's byte order:
    tests/robustness/test_bindings_served_from_bytes_differential.py::
    test_requests_in_two_byte_orders_are_each_read_in_their_own.)"""
    return False


def reads(draw: Any, data: bytes) -> list[bytes]:
    """``data`` cut into reads where hypothesis' ``draw`` says (mostly one read: several
    segments piled in it)."""
    cuts = sorted(set(draw(st.lists(st.integers(1, max(1, len(data) - 1)), max_size=3))))
    if len(data) < 2:
        return [data] if data else []
    pieces, at = [], 0
    for cut in cuts:
        pieces.append(data[at:cut])
        at = cut
    pieces.append(data[at:])
    return [p for p in pieces if p]

