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
