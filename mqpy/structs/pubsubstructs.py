"""The publish/subscribe structures: MQSD (the subscription descriptor of MQSUB) and MQSRO
(the subscription-request options of MQSUBRQ).

Field tables as cmqc.h declares them (offsets of the 64-bit layout in the comments), with the
names and defaults pymqi and ``ibmmq`` give them (``SD``, ``SRO``: its Options default to
MQSRO_FAIL_IF_QUIESCING, as theirs). Their MQCHARV strings
(ObjectString, SubName, SubUserData, SelectionString, ResObjectString) are set and read
with ``set_vs`` / ``get_vs``. Options are checked by ``mqpy.pubsub.mqsub``, not here.
"""

from __future__ import annotations

from mqpy import CMQC
from mqpy.structs.fields import binary, long, pointer, text
from mqpy.structs.layout import Layout
from mqpy.structs.mqstruct import MQStruct

__all__ = ["CHARV_NAMES", "SD", "SRO"]


def _charv(name: str) -> list:
    """The five fields of an MQCHARV."""
    return [pointer(f"{name}VSPtr"), long(f"{name}VSOffset", 0), long(f"{name}VSBufSize", 0),
            long(f"{name}VSLength", 0), long(f"{name}VSCCSID", 0)]


#: the MQSD's MQCHARVs, in their order in the structure
CHARV_NAMES = ("ObjectString", "SubName", "SubUserData", "SelectionString", "ResObjectString")


class SD(MQStruct):
    """MQSD, the subscription descriptor (344 bytes)."""

    _layout_ = Layout(
        "MQSD",
        [
            text("StrucId", 4, CMQC.MQSD_STRUC_ID),  # 0
            long("Version", CMQC.MQSD_VERSION_1),  # 4
            long("Options", CMQC.MQSO_NON_DURABLE),  # 8
            text("ObjectName", 48),  # 12
            text("AlternateUserId", 12),  # 60
            binary("AlternateSecurityId", 40, CMQC.MQSID_NONE),  # 72
            long("SubExpiry", CMQC.MQEI_UNLIMITED),  # 112
            *_charv("ObjectString"),  # 120
            *_charv("SubName"),  # 144
            *_charv("SubUserData"),  # 168
            binary("SubCorrelId", 24, CMQC.MQCI_NONE),  # 192
            long("PubPriority", CMQC.MQPRI_PRIORITY_AS_PUBLISHED),  # 216
            binary("PubAccountingToken", 32, CMQC.MQACT_NONE),  # 220
            text("PubApplIdentityData", 32),  # 252
            *_charv("SelectionString"),  # 288
            long("SubLevel", 1),  # 312
            *_charv("ResObjectString"),  # 320
        ],
        reason=CMQC.MQRC_SD_ERROR,
        struc_id=CMQC.MQSD_STRUC_ID,
    )


class SRO(MQStruct):
    """MQSRO, the subscription-request options of MQSUBRQ (16 bytes)."""

    _layout_ = Layout(
        "MQSRO",
        [
            text("StrucId", 4, CMQC.MQSRO_STRUC_ID),  # 0
            long("Version", CMQC.MQSRO_VERSION_1),  # 4
            long("Options", CMQC.MQSRO_FAIL_IF_QUIESCING),  # 8  (pymqi's and ibmmq's default)
            long("NumPubs", 0),  # 12
        ],
        reason=CMQC.MQRC_SRO_ERROR,
        struc_id=CMQC.MQSRO_STRUC_ID,
    )
