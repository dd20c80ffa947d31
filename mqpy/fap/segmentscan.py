"""A look over the segments of one read before any of them is served from its bytes.

A path that serves requests from the bytes of a read (the bindings busy thread, the SVRCONN's
poller) must not serve the whole requests at the head of a read whose rest the segment
reader would refuse: the reader, given the whole read, refuses it all (``ProtocolError``) and
the general path serves none of it. :func:`plain_segments` says whether a read is made of
one-segment MQI flows alone (and, where a read may end inside a segment, a beginning of one
that does not break the protocol yet); anything else goes to the reader whole.
"""

from __future__ import annotations

from mqpy.fap.apiheader import API_HEADER_LENGTH
from mqpy.fap.tsh import (
    FIRST_LAST,
    STRUCTID_TSH,
    STRUCTID_TSHM,
    TSH_LENGTH,
    TSHM_LENGTH,
    ByteOrder,
    SegmentType,
)

__all__ = ["plain_segments"]

_WHOLE = int(FIRST_LAST)
_ORDERS = frozenset(int(order) for order in ByteOrder)
_MQI_TYPES = frozenset(int(t) for t in SegmentType if t.has_api_header)
_HEADS = {STRUCTID_TSH: TSH_LENGTH, STRUCTID_TSHM: TSHM_LENGTH}


def plain_segments(data: bytes, limit: int, *, tail: bool = False) -> bool:
    """Whether ``data`` is whole one-segment MQI flows alone (a TSH or TSHM, FIRST and LAST,
    of a byte order, within ``limit``), followed, when ``tail``, by at most the beginning of
    one more whose StrucId and (once its 8 bytes are in) length the reader would take."""
    pos, length = 0, len(data)
    while pos < length:
        left = length - pos
        struc = data[pos:pos + 4]
        head = _HEADS.get(struc, 0)
        if left < 8 or not head:
            # a read that ends inside a TSH's first 8 bytes: a StrucId's beginning
            return tail and left < 8 and any(s.startswith(struc) for s in _HEADS)
        total = int.from_bytes(data[pos + 4:pos + 8], "big")
        if not head + API_HEADER_LENGTH <= total <= limit:
            return False
        if total > left:  # the segment's end is in a later read
            if not tail:
                return False
            at = pos + head - TSH_LENGTH + 8  # the byte order, segment type and flags
            return all(data[i] in allowed for i, allowed in
                       ((at, _ORDERS), (at + 1, _MQI_TYPES)) if i < length) \
                and (at + 2 >= length or data[at + 2] & _WHOLE == _WHOLE)
        at = pos + head - TSH_LENGTH + 8
        if (data[at] not in _ORDERS or data[at + 1] not in _MQI_TYPES
                or data[at + 2] & _WHOLE != _WHOLE):
            return False
        pos += total
    return True
