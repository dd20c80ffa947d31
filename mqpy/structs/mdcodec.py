"""The MQMD packed and unpacked by its layout's compiled struct, for an MQMD the queue manager
packed itself (the engine's stored messages, read-ahead messages a connection was sent).

Anything unusual takes ``MD.pack`` / ``MD.unpack``, which raise the proper MQRC.
"""

from __future__ import annotations

import struct

from mqpy import CMQC
from mqpy.structs.tables import MD

# The MQMD of a stored message was packed by the queue manager itself, so the hot path packs
# and unpacks it with the layout's compiled struct directly (mqstruct does the same after its
# checks); anything unusual takes MD.pack / MD.unpack, which raise the proper MQRC.
MD_CODEC = {v: (MD._packers_[v], MD._layout_.struct(v, "<"), MD._names_[v],
                 MD._layout_.length(v)) for v in MD._layout_.versions}
MD_BY_LENGTH = {codec[3]: v for v, codec in MD_CODEC.items()}
MD_LATER = {v: tuple(f for f in MD._layout_.fields if f.since > v) for v in MD_CODEC}
VERSION_AT = struct.Struct("<i")
#: an MQMD's length -> what its bytes start with (StrucId, then that length's Version), its
#: codec and the fields that Version lacks: ``unpack_md``'s checks in one lookup
_BY_LENGTH = {codec[3]: (CMQC.MQMD_STRUC_ID + VERSION_AT.pack(v), codec, MD_LATER[v])
              for v, codec in MD_CODEC.items()}


def pack_md(md: MD) -> bytes:
    """``md.pack()``, without re-deriving the layout on every call."""
    d = md.__dict__
    codec = MD_CODEC.get(d["Version"])
    if codec is None:
        return md.pack()
    try:
        return codec[0](d, codec[1], "<")
    except struct.error:
        return md.pack()  # raises StructError with MQRC_MD_ERROR


def unpack_md(md: MD, md_bytes: bytes) -> None:
    """``md.unpack(md_bytes)`` for an MQMD the queue manager packed itself."""
    known = _BY_LENGTH.get(len(md_bytes))
    if known is None or not md_bytes.startswith(known[0]):
        md.unpack(md_bytes)
        return
    _, codec, later = known
    d = md.__dict__
    if later:  # a version 1 MQMD: the version 2 fields take their defaults
        for f in later:
            d[f.name] = f.fresh_default()
    d.update(zip(codec[2], codec[1].unpack_from(md_bytes), strict=False))  # equal lengths


#: The MQMD fields that change from one message of a stream to the next (its own ids and
#: time), in place order: where each is and how long.
_VOLATILE = tuple((name, MD._layout_.offsets[name], size) for name, size in (
    ("MsgId", 24), ("CorrelId", 24), ("PutDate", 8), ("PutTime", 8)))


def _pieces(length: int) -> struct.Struct:
    """Unpacks an MQMD of ``length`` bytes in pieces: the bytes before each volatile field
    and it, then the rest. MsgId and CorrelId are next to each other, as are PutDate and
    PutTime: 7 pieces, 0, 3 and 6 stable, 1, 2, 4 and 5 the volatile fields in
    _VOLATILE's order."""
    layout, at = ["<"], 0
    for _, offset, size in _VOLATILE:
        layout.append(f"{offset - at}s{size}s" if offset > at else f"{size}s")
        at = offset + size
    layout.append(f"{length - at}s")
    pieces = struct.Struct("".join(layout))
    assert pieces.size == length and len(pieces.unpack(bytes(length))) == 7
    return pieces


#: an MQMD's length -> its pieces' Struct (``_pieces``)
_PIECES = {length: _pieces(length) for length in _BY_LENGTH}
#: the stable pieces' places among an MQMD's pieces
_STABLE_AT = slice(0, 7, 3)
_IMMUTABLE = frozenset({int, bytes})


class KeptMD:
    """``unpack_md`` for a stream of MQMDs the queue manager packed, each read against the
    one before: when its bytes are that one's but for the fields that change from one
    message to the next (_VOLATILE), the MQMD takes the fields that one gave (one
    ``dict.update``: the same keys and values ``unpack_md`` gives it, fields the Version
    lacks at their defaults too) and those few read from their place, instead of every
    field unpacked again. Anything else is read by ``unpack_md`` and kept for the next.
    Not shared between threads (its owner's lock)."""

    __slots__ = ("fields", "size", "stable", "unpack")

    def __init__(self) -> None:
        self.size = -1  # nothing kept
        self.fields: dict[str, object] = {}
        self.stable: tuple[bytes, ...] = ()
        self.unpack = _PIECES[MD_CODEC[2][3]].unpack

    def read(self, md: MD, md_bytes: bytes) -> None:
        """``unpack_md(md, md_bytes)``."""
        if len(md_bytes) == self.size:
            pieces = self.unpack(md_bytes)
            if pieces[_STABLE_AT] == self.stable:
                d = md.__dict__
                d.update(self.fields)
                d["MsgId"], d["CorrelId"], d["PutDate"], d["PutTime"] = \
                    pieces[1], pieces[2], pieces[4], pieces[5]
                return
        unpack_md(md, md_bytes)
        self._keep(md_bytes)

    def _keep(self, md_bytes: bytes) -> None:
        """Keep what ``unpack_md`` gives an MQMD of ``md_bytes`` (read without error),
        when it is one it reads itself and every value is immutable."""
        known = _BY_LENGTH.get(len(md_bytes))
        if known is None or not md_bytes.startswith(known[0]):
            self.size = -1
            return
        _, codec, later = known
        fields = {f.name: f.fresh_default() for f in later}
        fields.update(zip(codec[2], codec[1].unpack_from(md_bytes), strict=False))
        if not _IMMUTABLE.issuperset(map(type, fields.values())):
            self.size = -1
            return
        self.fields = fields
        self.unpack = _PIECES[len(md_bytes)].unpack
        self.stable = self.unpack(md_bytes)[_STABLE_AT]
        self.size = len(md_bytes)
