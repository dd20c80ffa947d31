"""What a receiving MCA reads of an arrival in place (its destination, MQMD, Format and user
in the MQXQH as it came), the MQPMO its puts share, and the user its puts name (PUTAUT's
alternate user)."""

from __future__ import annotations

from typing import Any

import mqpy
from mqpy import CMQC
from mqpy.fap import mqiparams
from mqpy.fap.messagedata import XQH_LENGTH, MessageData
from mqpy.fap.tsh import ByteOrder
from mqpy.structs.fields import StructError


def as_user(od: mqpy.OD, user: str | None) -> tuple[mqpy.OD, int]:
    """``od`` naming ``user`` as its AlternateUserId, and the MQPUT1 option that makes the
    queue manager judge that user (None: the MCA's own authority, no option)."""
    if user is None:
        return od, 0
    od.AlternateUserId = user.encode("latin-1", "replace")[:12]
    return od, CMQC.MQPMO_ALTERNATE_USER_AUTHORITY


def _field(cls: Any, name: str, base: int = 0) -> slice:
    """Where field ``name`` of MQ structure ``cls`` lies, ``base`` bytes into a buffer."""
    at = base + cls.offset_of(name)
    return slice(at, at + cls._layout_.by_name[name].size)


# what a receiving MCA reads of each arrival, in place in its MQXQH
_REMOTE_Q = _field(mqpy.XQH, "RemoteQName")
_REMOTE_QMGR = _field(mqpy.XQH, "RemoteQMgrName")
_MD_STRUC_ID = _field(mqpy.MD, "StrucId", XQH_LENGTH)
_MD_VERSION = _field(mqpy.MD, "Version", XQH_LENGTH)
_MD_FORMAT = _field(mqpy.MD, "Format", XQH_LENGTH)
_MD_USER = _field(mqpy.MD, "UserIdentifier", XQH_LENGTH)
_MD_V1 = {ByteOrder.LITTLE: (1).to_bytes(4, "little"), ByteOrder.BIG: (1).to_bytes(4, "big")}


def arrival(ev: MessageData) -> tuple[bytes, bytes, Any, bytes, bytes]:
    """An arrival's destination queue and queue manager, its MQMD, Format and
    UserIdentifier, read in place in the transmission header. The MQMD is passed on as it
    arrived (mqiparams.Packed: a bindings put carries those bytes as they are, rather than
    decoding and encoding them again) when it is an MQMD version 1, as an MQXQH's is;
    anything else is decoded as before."""
    raw = ev.xqh
    if raw[_MD_STRUC_ID] == CMQC.MQMD_STRUC_ID and raw[_MD_VERSION] == _MD_V1[ev.byte_order]:
        md: Any = mqiparams.Packed(mqpy.MD, raw[XQH_LENGTH:], ev.byte_order)
        return (raw[_REMOTE_Q].rstrip(b" \x00"), raw[_REMOTE_QMGR].rstrip(b" \x00"), md,
                raw[_MD_FORMAT], raw[_MD_USER])
    xqh = transmission_header(ev)
    md = xqh.MsgDesc
    return (xqh.RemoteQName.rstrip(b" \x00"), xqh.RemoteQMgrName.rstrip(b" \x00"), md,
            md.Format, md.UserIdentifier)


def transmission_header(ev: MessageData) -> Any:
    """An arrival's MQXQH decoded, its MQMD one the queue manager can take (a StrucId and
    Version an MQMD has); StructError (a ValueError) if not: the partner's protocol error."""
    xqh = ev.transmission_header
    if xqh.MsgDesc.header_error():
        raise StructError(f"its MQMD's StrucId {xqh.MsgDesc.StrucId!r} and Version "
                          f"{xqh.MsgDesc.Version} are not an MQMD's")
    return xqh


_PMOS: dict[int, mqiparams.Packed] = {}


def arrival_pmo(options: int) -> mqiparams.Packed:
    """The MQPMO of an arrival's put with ``options``, packed once (the bindings flow's byte
    order): nothing of a receiving MCA's puts' output is kept, so one serves every put."""
    pmo = _PMOS.get(options)
    if pmo is None:
        pmo = _PMOS[options] = mqiparams.Packed.of(mqpy.PMO(Options=options))
    return pmo
