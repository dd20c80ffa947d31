"""Fixed-size binary layouts: declared once in construct, packed on the hot path by ``struct``.

construct is the declaration (readable, offsets visible, used by the tests and by anything that
is not hot); :func:`fast` derives an equivalent :class:`struct.Struct` from that same declaration
so that the log and the pagesets can pack a few hundred thousand headers a second. Nothing here
may hold a second copy of a layout.
"""

from __future__ import annotations

import struct

import construct as c


def _fmt(subcon: c.Construct) -> str:
    """The ``struct`` code of one fixed-size construct field (without byte-order prefix)."""
    while isinstance(subcon, c.Renamed):
        subcon = subcon.subcon
    if isinstance(subcon, c.Const):
        return _fmt(subcon.subcon)
    if isinstance(subcon, c.FormatField):
        return subcon.fmtstr[1:]
    if isinstance(subcon, c.BytesInteger):  # pragma: no cover - not used by our layouts
        raise TypeError("BytesInteger has no struct equivalent")
    if isinstance(subcon, c.Bytes) and isinstance(subcon.length, int):
        return f"{subcon.length}s"
    raise TypeError(f"no struct code for {subcon!r}")


def fast(layout: c.Struct, byteorder: str = "<") -> struct.Struct:
    """Return the ``struct.Struct`` that packs ``layout``'s fields in declaration order."""
    fmt = byteorder + "".join(_fmt(sc) for sc in layout.subcons)
    packer = struct.Struct(fmt)
    if packer.size != layout.sizeof():
        raise AssertionError(f"struct {fmt} is {packer.size} bytes, construct says {layout.sizeof()}")
    return packer
