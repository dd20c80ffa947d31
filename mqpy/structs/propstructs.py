"""The message-property structures: MQCMHO, MQDMHO, MQSMPO, MQIMPO, MQDMPO, MQPD, MQMHBO, MQBMHO.

Field tables as cmqc.h declares them (offsets of the 64-bit layout in the comments), with the
names and defaults pymqi and ``ibmmq`` give them (``CMHO``, ``DMHO``, ``SMPO``, ``IMPO``,
``DMPO``, ``PD``, ``MHBO``, ``BMHO``). Each carries the reason code IBM gives when the
structure itself is not valid (MQRC_CMHO_ERROR ...). Options are checked by
``mqpy.properties.handles`` and ``mqpy.properties.propset``, not here.
"""

from __future__ import annotations

from mqpy import CMQC
from mqpy.structs.fields import long, pointer, text
from mqpy.structs.layout import Layout
from mqpy.structs.mqstruct import MQStruct

__all__ = ["BMHO", "CMHO", "DMHO", "DMPO", "IMPO", "MHBO", "PD", "SMPO"]


def _options_only(mq_name: str, struc_id: bytes, default: int, reason: int) -> Layout:
    """The 12-byte StrucId / Version / Options layout several of them share."""
    return Layout(
        mq_name,
        [
            text("StrucId", 4, struc_id),  # 0
            long("Version", 1),  # 4
            long("Options", default),  # 8
        ],
        reason=reason,
        struc_id=struc_id,
    )


class CMHO(MQStruct):
    """MQCMHO, create-message-handle options (12 bytes)."""

    _layout_ = _options_only("MQCMHO", CMQC.MQCMHO_STRUC_ID, CMQC.MQCMHO_DEFAULT_VALIDATION,
                             CMQC.MQRC_CMHO_ERROR)


class DMHO(MQStruct):
    """MQDMHO, delete-message-handle options (12 bytes)."""

    _layout_ = _options_only("MQDMHO", CMQC.MQDMHO_STRUC_ID, CMQC.MQDMHO_NONE,
                             CMQC.MQRC_DMHO_ERROR)


class DMPO(MQStruct):
    """MQDMPO, delete-message-property options (12 bytes)."""

    _layout_ = _options_only("MQDMPO", CMQC.MQDMPO_STRUC_ID, CMQC.MQDMPO_DEL_FIRST,
                             CMQC.MQRC_DMPO_ERROR)


class MHBO(MQStruct):
    """MQMHBO, message-handle-to-buffer options (12 bytes)."""

    _layout_ = _options_only("MQMHBO", CMQC.MQMHBO_STRUC_ID, CMQC.MQMHBO_PROPERTIES_IN_MQRFH2,
                             CMQC.MQRC_MHBO_ERROR)


class BMHO(MQStruct):
    """MQBMHO, buffer-to-message-handle options (12 bytes)."""

    _layout_ = _options_only("MQBMHO", CMQC.MQBMHO_STRUC_ID, CMQC.MQBMHO_DELETE_PROPERTIES,
                             CMQC.MQRC_BMHO_ERROR)


class SMPO(MQStruct):
    """MQSMPO, set-message-property options (20 bytes)."""

    _layout_ = Layout(
        "MQSMPO",
        [
            text("StrucId", 4, CMQC.MQSMPO_STRUC_ID),  # 0
            long("Version", CMQC.MQSMPO_VERSION_1),  # 4
            long("Options", CMQC.MQSMPO_SET_FIRST),  # 8
            long("ValueEncoding", CMQC.MQENC_NATIVE),  # 12
            long("ValueCCSID", CMQC.MQCCSI_APPL),  # 16
        ],
        reason=CMQC.MQRC_SMPO_ERROR,
        struc_id=CMQC.MQSMPO_STRUC_ID,
    )


class IMPO(MQStruct):
    """MQIMPO, inquire-message-property options (64 bytes; ReturnedName is an MQCHARV)."""

    _layout_ = Layout(
        "MQIMPO",
        [
            text("StrucId", 4, CMQC.MQIMPO_STRUC_ID),  # 0
            long("Version", CMQC.MQIMPO_VERSION_1),  # 4
            long("Options", CMQC.MQIMPO_INQ_FIRST),  # 8
            long("RequestedEncoding", CMQC.MQENC_NATIVE),  # 12
            long("RequestedCCSID", CMQC.MQCCSI_APPL),  # 16
            long("ReturnedEncoding", CMQC.MQENC_NATIVE),  # 20
            long("ReturnedCCSID", 0),  # 24
            long("Reserved1", 0),  # 28
            pointer("ReturnedNameVSPtr"),  # 32  MQCHARV ReturnedName
            long("ReturnedNameVSOffset", 0),  # 40
            long("ReturnedNameVSBufSize", 0),  # 44
            long("ReturnedNameVSLength", 0),  # 48
            long("ReturnedNameVSCCSID", 0),  # 52
            text("TypeString", 8),  # 56
        ],
        reason=CMQC.MQRC_IMPO_ERROR,
        struc_id=CMQC.MQIMPO_STRUC_ID,
    )


class PD(MQStruct):
    """MQPD, the property descriptor (24 bytes)."""

    _layout_ = Layout(
        "MQPD",
        [
            text("StrucId", 4, CMQC.MQPD_STRUC_ID),  # 0
            long("Version", CMQC.MQPD_VERSION_1),  # 4
            long("Options", CMQC.MQPD_NONE),  # 8
            long("Support", CMQC.MQPD_SUPPORT_OPTIONAL),  # 12
            long("Context", CMQC.MQPD_NO_CONTEXT),  # 16
            long("CopyOptions", CMQC.MQCOPY_DEFAULT),  # 20
        ],
        reason=CMQC.MQRC_PD_ERROR,
        struc_id=CMQC.MQPD_STRUC_ID,
    )
