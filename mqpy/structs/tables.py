"""The MQI structures, each declared once as a field table (docs/structures.md says how).

Field order, sizes and defaults are IBM's (cmqc.h / cmqxc.h, as transcribed in
``spec/mq-structures.md``); offsets in the comments are those of ``spec/wire-format.md`` and
are checked by the tests. mqpy departs from IBM's defaults in three places, on purpose:

* ``MD`` defaults to MQMD_VERSION_2, so group and segment fields always travel;
* ``PMO`` defaults to MQPMO_VERSION_3 and ``GMO`` to MQGMO_VERSION_4, the highest versions,
  which mqpy implements in full (message handles are carried, always 0 today).

Pointer fields exist for pymqi compatibility and are always packed as 0. pymqi's trailing
``pad`` fields are not declared: alignment padding is derived from the layout.
"""

from __future__ import annotations

import struct
from typing import Any

from mqpy import CMQC, CMQCFC, CMQXC
from mqpy.structs.fields import (
    StructError,
    binary,
    byte,
    byte_order,
    char,
    int64,
    long,
    longs,
    nested,
    pointer,
    since,
    text,
)
from mqpy.structs.layout import Layout
from mqpy.structs.mqstruct import MQStruct

__all__ = ["CD", "CFH", "DH", "DLH", "GMO", "MD", "OD", "OR", "PMO", "PMR", "PMR_FIELDS", "RR",
           "SCO", "STS", "TM", "TMC2", "XQH", "pack_put_msg_records", "put_msg_record_length",
           "unpack_put_msg_records",
           "BNO", "CIH", "CNO", "CSP", "DMHO", "DMPO", "IIH", "MDE"]


class MD(MQStruct):
    """MQMD, the message descriptor: v1 324 bytes, v2 364."""

    _layout_ = Layout(
        "MQMD",
        [
            text("StrucId", 4, CMQC.MQMD_STRUC_ID),  # 0
            long("Version", CMQC.MQMD_VERSION_2),  # 4   (IBM's default is v1)
            long("Report", CMQC.MQRO_NONE),  # 8
            long("MsgType", CMQC.MQMT_DATAGRAM),  # 12
            long("Expiry", CMQC.MQEI_UNLIMITED),  # 16
            long("Feedback", CMQC.MQFB_NONE),  # 20
            long("Encoding", CMQC.MQENC_NATIVE),  # 24
            long("CodedCharSetId", CMQC.MQCCSI_Q_MGR),  # 28
            text("Format", 8),  # 32
            long("Priority", CMQC.MQPRI_PRIORITY_AS_Q_DEF),  # 40
            long("Persistence", CMQC.MQPER_PERSISTENCE_AS_Q_DEF),  # 44
            binary("MsgId", 24),  # 48
            binary("CorrelId", 24),  # 72
            long("BackoutCount", 0),  # 96
            text("ReplyToQ", 48),  # 100
            text("ReplyToQMgr", 48),  # 148
            text("UserIdentifier", 12),  # 196
            binary("AccountingToken", 32),  # 208
            text("ApplIdentityData", 32),  # 240
            long("PutApplType", CMQC.MQAT_NO_CONTEXT),  # 272
            text("PutApplName", 28),  # 276
            text("PutDate", 8),  # 304
            text("PutTime", 8),  # 312
            text("ApplOriginData", 4),  # 320
            since(2),
            binary("GroupId", 24),  # 324
            long("MsgSeqNumber", 1),  # 348
            long("Offset", 0),  # 352
            long("MsgFlags", CMQC.MQMF_NONE),  # 356
            long("OriginalLength", CMQC.MQOL_UNDEFINED),  # 360
        ],
        reason=CMQC.MQRC_MD_ERROR,
        struc_id=CMQC.MQMD_STRUC_ID,
    )


class OD(MQStruct):
    """MQOD, the object descriptor: v1 168 .. v4 424 bytes."""

    _layout_ = Layout(
        "MQOD",
        [
            text("StrucId", 4, CMQC.MQOD_STRUC_ID),
            long("Version", CMQC.MQOD_VERSION_1),
            long("ObjectType", CMQC.MQOT_Q),
            text("ObjectName", 48),
            text("ObjectQMgrName", 48),
            text("DynamicQName", 48, b"AMQ.*"),
            text("AlternateUserId", 12),
            since(2),
            long("RecsPresent", 0),
            long("KnownDestCount", 0),
            long("UnknownDestCount", 0),
            long("InvalidDestCount", 0),
            long("ObjectRecOffset", 0),
            long("ResponseRecOffset", 0),
            pointer("ObjectRecPtr"),
            pointer("ResponseRecPtr"),
            since(3),
            binary("AlternateSecurityId", 40),
            text("ResolvedQName", 48),
            text("ResolvedQMgrName", 48),
            since(4),
            pointer("ObjectStringVSPtr"),  # MQCHARV ObjectString
            long("ObjectStringVSOffset", 0),
            long("ObjectStringVSBufSize", 0),
            long("ObjectStringVSLength", 0),
            long("ObjectStringVSCCSID", 0),
            pointer("SelectionStringVSPtr"),  # MQCHARV SelectionString
            long("SelectionStringVSOffset", 0),
            long("SelectionStringVSBufSize", 0),
            long("SelectionStringVSLength", 0),
            long("SelectionStringVSCCSID", 0),
            pointer("ResObjectStringVSPtr"),  # MQCHARV ResObjectString
            long("ResObjectStringVSOffset", 0),
            long("ResObjectStringVSBufSize", 0),
            long("ResObjectStringVSLength", 0),
            long("ResObjectStringVSCCSID", 0),
            long("ResolvedType", -3),  # the spec table's (pymqi's) default
        ],
        reason=CMQC.MQRC_OD_ERROR,
        struc_id=CMQC.MQOD_STRUC_ID,
    )


class PMO(MQStruct):
    """MQPMO, put-message options: v1 128, v2 160, v3 184 bytes; mqpy defaults to v3."""

    _layout_ = Layout(
        "MQPMO",
        [
            text("StrucId", 4, CMQC.MQPMO_STRUC_ID),
            long("Version", CMQC.MQPMO_VERSION_3),  # IBM's default is v1
            long("Options", CMQC.MQPMO_NONE),
            long("Timeout", -1),
            long("Context", 0),
            long("KnownDestCount", 0),
            long("UnknownDestCount", 0),
            long("InvalidDestCount", 0),
            text("ResolvedQName", 48),
            text("ResolvedQMgrName", 48),
            since(2),
            long("RecsPresent", 0),
            long("PutMsgRecFields", 0),
            long("PutMsgRecOffset", 0),
            long("ResponseRecOffset", 0),
            pointer("PutMsgRecPtr"),
            pointer("ResponseRecPtr"),
            since(3),
            int64("OriginalMsgHandle", 0),
            int64("NewMsgHandle", 0),
            long("Action", 0),
            long("PubLevel", 0),
        ],
        reason=CMQC.MQRC_PMO_ERROR,
        struc_id=CMQC.MQPMO_STRUC_ID,
    )


class GMO(MQStruct):
    """MQGMO, get-message options: v1 72 .. v4 112 bytes; mqpy defaults to v4."""

    _layout_ = Layout(
        "MQGMO",
        [
            text("StrucId", 4, CMQC.MQGMO_STRUC_ID),
            long("Version", CMQC.MQGMO_VERSION_4),  # IBM's default is v1
            long("Options", CMQC.MQGMO_NO_WAIT),
            long("WaitInterval", 0),
            long("Signal1", 0),
            long("Signal2", 0),
            text("ResolvedQName", 48),
            since(2),
            long("MatchOptions", CMQC.MQMO_MATCH_MSG_ID + CMQC.MQMO_MATCH_CORREL_ID),
            byte("GroupStatus", CMQC.MQGS_NOT_IN_GROUP),
            byte("SegmentStatus", CMQC.MQSS_NOT_A_SEGMENT),
            byte("Segmentation", CMQC.MQSEG_INHIBITED),
            char("Reserved1", b" "),
            since(3),
            binary("MsgToken", 16),
            long("ReturnedLength", CMQC.MQRL_UNDEFINED),
            since(4),
            long("Reserved2", 0),
            int64("MsgHandle", 0),
        ],
        reason=CMQC.MQRC_GMO_ERROR,
        struc_id=CMQC.MQGMO_STRUC_ID,
    )


class XQH(MQStruct):
    """MQXQH, the transmission-queue header: 104 bytes, then the message's MQMD v1.

    ``MsgDesc`` is an ``MD``; it is always packed as version 1 (428 bytes in all), because
    that is what the C structure embeds. v2 fields travel in an MQMDE after the header.
    """

    _layout_ = Layout(
        "MQXQH",
        [
            text("StrucId", 4, CMQC.MQXQH_STRUC_ID),  # 0
            long("Version", CMQC.MQXQH_VERSION_1),  # 4
            text("RemoteQName", 48),  # 8
            text("RemoteQMgrName", 48),  # 56
            nested("MsgDesc", MD, CMQC.MQMD_VERSION_1),  # 104
        ],
        reason=CMQC.MQRC_XQH_ERROR,
        struc_id=CMQC.MQXQH_STRUC_ID,
    )

    #: the header before its MQMD: pymqi's XQH is these 104 bytes alone
    HEADER_LENGTH = 104

    def unpack(self, buf: bytes | bytearray | memoryview, encoding: int | None = None, *,
               offset: int = 0, version: int | None = None) -> XQH:
        """The MQXQH at ``buf[offset:]``; a buffer of exactly the 104-byte header (pymqi's
        XQH, which programs slice ``msg[:104]`` for) sets the header's fields and leaves
        ``MsgDesc`` a default MQMD. ``from_bytes`` (a message's check) takes no such one."""
        if len(buf) - offset == self.HEADER_LENGTH:
            head = bytes(buf[offset:offset + self.HEADER_LENGTH])
            buf, offset = head + MD(Version=CMQC.MQMD_VERSION_1).pack(encoding), 0
        return super().unpack(buf, encoding, offset=offset, version=version)

    @classmethod
    def from_bytes(cls, buf: bytes | bytearray | memoryview, encoding: int | None = None, *,
                   offset: int = 0, version: int | None = None) -> Any:
        """A transmission header read from a message: its MQMD included, always (a
        message of the header alone is MQRC_XQH_ERROR)."""
        if len(buf) - offset == cls.HEADER_LENGTH:
            raise StructError(f"MQXQH needs at least {cls.length()} bytes, got "
                              f"{cls.HEADER_LENGTH}", CMQC.MQRC_XQH_ERROR)
        return super().from_bytes(buf, encoding, offset=offset, version=version)

    def get_header(self, buf: bytes) -> XQH:
        """ibmmq's: the MQXQH at the start of a transmission-queue message ``buf``."""
        return self.unpack(buf[:self.length()])

    @staticmethod
    def get_embedded_md(buf: bytes) -> MD:
        """ibmmq's: the MQMD v1 the MQXQH at the start of ``buf`` carries, as an MD."""
        return XQH.from_bytes(buf[:XQH.length()]).MsgDesc


class DLH(MQStruct):
    """MQDLH, the dead-letter header: 172 bytes, before the undeliverable message's data."""

    _layout_ = Layout(
        "MQDLH",
        [
            text("StrucId", 4, CMQC.MQDLH_STRUC_ID),  # 0
            long("Version", CMQC.MQDLH_VERSION_1),  # 4
            long("Reason", CMQC.MQRC_NONE),  # 8
            text("DestQName", 48),  # 12
            text("DestQMgrName", 48),  # 60
            long("Encoding", 0),  # 108
            long("CodedCharSetId", CMQC.MQCCSI_UNDEFINED),  # 112
            text("Format", 8, CMQC.MQFMT_NONE),  # 116
            long("PutApplType", 0),  # 124
            text("PutApplName", 28),  # 128
            text("PutDate", 8),  # 156
            text("PutTime", 8),  # 164
        ],
        reason=CMQC.MQRC_DLH_ERROR,
        struc_id=CMQC.MQDLH_STRUC_ID,
    )

    def get_header(self, buf: bytes) -> DLH:
        """ibmmq's: the MQDLH at the start of a dead-letter message ``buf``."""
        return self.unpack(buf[:CMQC.MQDLH_LENGTH_1])


class OR(MQStruct):
    """MQOR, one destination of a distribution list (MQOD ObjectRecPtr): 96 bytes."""

    _layout_ = Layout(
        "MQOR",
        [
            text("ObjectName", 48),  # 0
            text("ObjectQMgrName", 48),  # 48
        ],
    )


class RR(MQStruct):
    """MQRR, one destination's outcome (MQOD / MQPMO ResponseRecPtr): 8 bytes."""

    _layout_ = Layout(
        "MQRR",
        [
            long("CompCode", CMQC.MQCC_OK),  # 0
            long("Reason", CMQC.MQRC_NONE),  # 4
        ],
    )


class PMR(MQStruct):
    """MQPMR, one destination's message fields (MQPMO PutMsgRecPtr): at most 108 bytes.

    IBM's record has no fixed layout: only the fields PutMsgRecFields names (MQPMRF_*) are
    present, in this order. ``pack()`` gives all five; :func:`pack_put_msg_records` and
    :func:`unpack_put_msg_records` give the records as MQPMO and MQDH carry them.
    """

    _layout_ = Layout(
        "MQPMR",
        [
            binary("MsgId", 24),  # MQPMRF_MSG_ID
            binary("CorrelId", 24),  # MQPMRF_CORREL_ID
            binary("GroupId", 24),  # MQPMRF_GROUP_ID
            long("Feedback", CMQC.MQFB_NONE),  # MQPMRF_FEEDBACK
            binary("AccountingToken", 32),  # MQPMRF_ACCOUNTING_TOKEN
        ],
    )


#: MQPMR's fields with their MQPMRF_* flag, name, struct code and size, in record order.
PMR_FIELDS = (
    (CMQC.MQPMRF_MSG_ID, "MsgId", "24s", 24),
    (CMQC.MQPMRF_CORREL_ID, "CorrelId", "24s", 24),
    (CMQC.MQPMRF_GROUP_ID, "GroupId", "24s", 24),
    (CMQC.MQPMRF_FEEDBACK, "Feedback", "i", 4),
    (CMQC.MQPMRF_ACCOUNTING_TOKEN, "AccountingToken", "32s", 32),
)
_PMRF_ALL = sum(flag for flag, *_ in PMR_FIELDS)


def _pmr_struct(fields: int, encoding: int | None) -> struct.Struct:
    if fields & ~_PMRF_ALL:
        raise StructError(f"PutMsgRecFields {fields} names unknown MQPMRF_* flags",
                          CMQC.MQRC_PMO_RECORD_FLAGS_ERROR)
    return struct.Struct(byte_order(encoding)
                         + "".join(code for flag, _, code, _ in PMR_FIELDS if fields & flag))


def put_msg_record_length(fields: int) -> int:
    """Bytes of one MQPMR holding the fields ``fields`` (MQPMRF_*) names."""
    return sum(size for flag, _, _, size in PMR_FIELDS if fields & flag)


def pack_put_msg_records(records: list[PMR], fields: int, encoding: int | None = None) -> bytes:
    """The MQPMR array as MQPMO and MQDH carry it: only the fields ``fields`` names."""
    s = _pmr_struct(fields, encoding)
    names = [name for flag, name, _, _ in PMR_FIELDS if fields & flag]
    # struct's "24s" pads identifiers with NULs, as MQ pads them
    return b"".join(s.pack(*(r.__dict__[n] for n in names)) for r in records)


def unpack_put_msg_records(buf: bytes, offset: int, count: int, fields: int,
                           encoding: int | None = None) -> list[PMR]:
    """``count`` MQPMRs of the fields ``fields`` names, from ``buf[offset:]``."""
    s = _pmr_struct(fields, encoding)
    names = [name for flag, name, _, _ in PMR_FIELDS if fields & flag]
    if count < 0 or offset < 0 or offset + count * s.size > len(buf):
        raise StructError(f"{count} MQPMR records of {s.size} bytes do not fit at {offset}",
                          CMQC.MQRC_PUT_MSG_RECORDS_ERROR)
    out = []
    for i in range(count):
        values = s.unpack_from(buf, offset + i * s.size)
        out.append(PMR(**dict(zip(names, values, strict=True))))
    return out


class DH(MQStruct):
    """MQDH, the distribution header: 48 bytes, then its MQOR and MQPMR records.

    A message for several destinations behind one transmission queue travels once, with
    Format MQHDIST: MQDH, RecsPresent MQORs at ObjectRecOffset, MQPMRs (PutMsgRecFields)
    at PutMsgRecOffset, both from the start of the MQDH, then the data (StrucLength on).
    """

    _layout_ = Layout(
        "MQDH",
        [
            text("StrucId", 4, CMQC.MQDH_STRUC_ID),  # 0
            long("Version", CMQC.MQDH_VERSION_1),  # 4
            long("StrucLength", CMQC.MQDH_LENGTH_1),  # 8
            long("Encoding", CMQC.MQENC_NATIVE),  # 12
            long("CodedCharSetId", CMQC.MQCCSI_UNDEFINED),  # 16
            text("Format", 8, CMQC.MQFMT_NONE),  # 20
            long("Flags", CMQC.MQDHF_NONE),  # 28
            long("PutMsgRecFields", CMQC.MQPMRF_NONE),  # 32
            long("RecsPresent", 0),  # 36
            long("ObjectRecOffset", 0),  # 40
            long("PutMsgRecOffset", 0),  # 44
        ],
        reason=CMQC.MQRC_FORMAT_ERROR,
        struc_id=CMQC.MQDH_STRUC_ID,
    )


class TM(MQStruct):
    """MQTM, the trigger message a queue manager puts on an initiation queue: 684 bytes."""

    _layout_ = Layout(
        "MQTM",
        [
            text("StrucId", 4, CMQC.MQTM_STRUC_ID),
            long("Version", CMQC.MQTM_VERSION_1),
            text("QName", 48),
            text("ProcessName", 48),
            text("TriggerData", 64),
            long("ApplType", 0),
            text("ApplId", 256),
            text("EnvData", 128),
            text("UserData", 128),
        ],
        reason=CMQC.MQRC_TM_ERROR,
        struc_id=CMQC.MQTM_STRUC_ID,
    )


class TMC2(MQStruct):
    """MQTMC2, the character form of MQTM passed to a triggered program: v1 684, v2 732.

    Every field is characters, Version and ApplType included (b'   2', b'   1').
    """

    _layout_ = Layout(
        "MQTMC2",
        [
            text("StrucId", 4, CMQC.MQTMC_STRUC_ID),
            text("Version", 4, CMQC.MQTMC_VERSION_2),
            text("QName", 48),
            text("ProcessName", 48),
            text("TriggerData", 64),
            text("ApplType", 4),
            text("ApplId", 256),
            text("EnvData", 128),
            text("UserData", 128),
            since(2),
            text("QMgrName", 48),
        ],
        reason=CMQC.MQRC_TMC_ERROR,
        struc_id=CMQC.MQTMC_STRUC_ID,
    )


class CD(MQStruct):
    """MQCD, the channel definition (64-bit layout): v1 984 .. v12 1992 bytes."""

    _layout_ = Layout(
        "MQCD",
        [
            text("ChannelName", 20),
            long("Version", CMQXC.MQCD_VERSION_6),
            long("ChannelType", CMQXC.MQCHT_CLNTCONN),
            long("TransportType", CMQXC.MQXPT_TCP),
            text("Desc", 64),
            text("QMgrName", 48),
            text("XmitQName", 48),
            text("ShortConnectionName", 20),
            text("MCAName", 20),
            text("ModeName", 8),
            text("TpName", 64),
            long("BatchSize", 50),
            long("DiscInterval", 6000),
            long("ShortRetryCount", 10),
            long("ShortRetryInterval", 60),
            long("LongRetryCount", 999999999),
            long("LongRetryInterval", 1200),
            text("SecurityExit", 128),
            text("MsgExit", 128),
            text("SendExit", 128),
            text("ReceiveExit", 128),
            long("SeqNumberWrap", 999999999),
            long("MaxMsgLength", 4194304),
            long("PutAuthority", CMQXC.MQPA_DEFAULT),
            long("DataConversion", CMQXC.MQCDC_NO_SENDER_CONVERSION),
            text("SecurityUserData", 32),
            text("MsgUserData", 32),
            text("SendUserData", 32),
            text("ReceiveUserData", 32),
            since(2),
            text("UserIdentifier", 12),
            text("Password", 12),
            text("MCAUserIdentifier", 12),
            long("MCAType", CMQXC.MQMCAT_PROCESS),
            text("ConnectionName", 264),
            text("RemoteUserIdentifier", 12),
            text("RemotePassword", 12),
            since(3),
            text("MsgRetryExit", 128),
            text("MsgRetryUserData", 32),
            long("MsgRetryCount", 10),
            long("MsgRetryInterval", 1000),
            since(4),
            long("HeartbeatInterval", 300),
            long("BatchInterval", 0),
            long("NonPersistentMsgSpeed", CMQXC.MQNPMS_FAST),
            long("StrucLength", CMQXC.MQCD_LENGTH_6),  # matches the default Version
            long("ExitNameLength", CMQC.MQ_EXIT_NAME_LENGTH),
            long("ExitDataLength", CMQC.MQ_EXIT_DATA_LENGTH),
            long("MsgExitsDefined", 0),
            long("SendExitsDefined", 0),
            long("ReceiveExitsDefined", 0),
            pointer("MsgExitPtr"),  # 4 bytes of alignment padding before it
            pointer("MsgUserDataPtr"),
            pointer("SendExitPtr"),
            pointer("SendUserDataPtr"),
            pointer("ReceiveExitPtr"),
            pointer("ReceiveUserDataPtr"),
            since(5),
            pointer("ClusterPtr"),
            long("ClustersDefined", 0),
            long("NetworkPriority", 0),
            since(6),
            long("LongMCAUserIdLength", 0),
            long("LongRemoteUserIdLength", 0),
            pointer("LongMCAUserIdPtr"),
            pointer("LongRemoteUserIdPtr"),
            binary("MCASecurityId", 40),
            binary("RemoteSecurityId", 40),
            since(7),
            text("SSLCipherSpec", 32),
            pointer("SSLPeerNamePtr"),
            long("SSLPeerNameLength", 0),
            long("SSLClientAuth", 0),
            long("KeepAliveInterval", -1),
            text("LocalAddress", 48),
            long("BatchHeartbeat", 0),
            since(8),
            longs("HdrCompList", 2, [0, -1]),
            longs("MsgCompList", 16, [0] + 15 * [-1]),
            long("CLWLChannelRank", 0),
            long("CLWLChannelPriority", 0),
            long("CLWLChannelWeight", 50),
            long("ChannelMonitoring", 0),
            long("ChannelStatistics", 0),
            since(9),
            long("SharingConversations", 10),
            long("PropertyControl", 0),
            long("MaxInstances", 999999999),
            long("MaxInstancesPerClient", 999999999),
            long("ClientChannelWeight", 0),
            long("ConnectionAffinity", 1),
            since(10),
            long("BatchDataLimit", 5000),
            long("UseDLQ", 2),
            long("DefReconnect", 0),
            since(11),
            text("CertificateLabel", 64),
            since(12),
            long("SPLProtection", 0),
        ],
        reason=CMQC.MQRC_CD_ERROR,
    )


    #: The TLS peer name. C reaches it through SSLPeerNamePtr / SSLPeerNameLength; pymqi
    #: programs set ``SSLPeerName``, so it is kept here (not packed) and its length set.
    SSLPeerName: bytes = b""

    def set(self, **kw: Any) -> None:
        peer = kw.pop("SSLPeerName", None)
        super().set(**kw)
        if peer is not None:
            self.SSLPeerName = peer

    def __setattr__(self, name: str, value: Any) -> None:
        if name == "SSLPeerNamePtr" and isinstance(value, (str, bytes)):
            # ibmmq's programs set the peer name through its pointer's name
            self.__dict__[name] = value
            name = "SSLPeerName"
        if name == "SSLPeerName":
            raw = value.encode("utf-8") if isinstance(value, str) else bytes(value)
            self.__dict__["SSLPeerName"] = raw
            super().__setattr__("SSLPeerNameLength", len(raw))
            return
        super().__setattr__(name, value)


class SCO(MQStruct):
    """MQSCO, TLS configuration options for a client connection: v1 536 .. v5 632 bytes."""

    _layout_ = Layout(
        "MQSCO",
        [
            text("StrucId", 4, CMQC.MQSCO_STRUC_ID),
            long("Version", CMQC.MQSCO_CURRENT_VERSION),
            text("KeyRepository", 256),
            text("CryptoHardware", 256),
            long("AuthInfoRecCount", 0),
            long("AuthInfoRecOffset", 0),
            pointer("AuthInfoRecPtr"),
            since(2),
            long("KeyResetCount", 0),
            long("FipsRequired", 0),
            since(3),
            longs("EncryptionPolicySuiteB", 4, [1, 0, 0, 0]),
            since(4),
            long("CertificateValPolicy", 0),
            since(5),
            text("CertificateLabel", 64),
            since(6),
            pointer("KeyRepoPassword"),  # ibmmq's name of KeyRepoPasswordPtr
            long("KeyRepoPasswordOffset", 0),
            long("KeyRepoPasswordLength", 0),
            since(7),
            long("HTTPSCertValidation", 0),
            long("HTTPSCertRevocation", 0),
            pointer("HTTPSKeyStore"),  # ibmmq's name of HTTPSKeyStorePtr
            long("HTTPSKeyStoreOffset", 0),
            long("HTTPSKeyStoreLength", 0),
        ],
        reason=CMQC.MQRC_SCO_ERROR,
        struc_id=CMQC.MQSCO_STRUC_ID,
    )

    #: pointer fields that may hold the string they point to (ibmmq's programs set them)
    _pointed_ = {"KeyRepoPassword": "KeyRepoPasswordLength",
                 "HTTPSKeyStore": "HTTPSKeyStoreLength"}

    def __setattr__(self, name: str, value: Any) -> None:
        if not _set_pointed(self, name, value):
            super().__setattr__(name, value)


class STS(MQStruct):
    """MQSTS, the status MQSTAT returns: v1 224, v2 280 bytes; mqpy defaults to v2, as IBM's
    ``ibmmq`` package does (IBM's C default is v1)."""

    _layout_ = Layout(
        "MQSTS",
        [
            text("StrucId", 4, CMQC.MQSTS_STRUC_ID),
            long("Version", CMQC.MQSTS_VERSION_2),
            long("CompCode", CMQC.MQCC_OK),
            long("Reason", CMQC.MQRC_NONE),
            long("PutSuccessCount", 0),
            long("PutWarningCount", 0),
            long("PutFailureCount", 0),
            long("ObjectType", CMQC.MQOT_Q),
            text("ObjectName", 48),
            text("ObjectQMgrName", 48),
            text("ResolvedObjectName", 48),
            text("ResolvedQMgrName", 48),
            since(2),
            pointer("ObjectStringVSPtr"),  # MQCHARV ObjectString
            long("ObjectStringVSOffset", 0),
            long("ObjectStringVSBufSize", 0),
            long("ObjectStringVSLength", 0),
            long("ObjectStringVSCCSID", 0),
            pointer("SubNameVSPtr"),  # MQCHARV SubName
            long("SubNameVSOffset", 0),
            long("SubNameVSBufSize", 0),
            long("SubNameVSLength", 0),
            long("SubNameVSCCSID", 0),
            long("OpenOptions", 0),
            long("SubOptions", 0),
        ],
        reason=CMQC.MQRC_STS_ERROR,
        struc_id=CMQC.MQSTS_STRUC_ID,
    )


class CFH(MQStruct):
    """MQCFH, the PCF header: 36 bytes in every version (1 to 3). Parameters follow it
    (see ``mqpy.pcf``)."""

    _layout_ = Layout(
        "MQCFH",
        [
            long("Type", CMQCFC.MQCFT_COMMAND),
            long("StrucLength", CMQCFC.MQCFH_STRUC_LENGTH),
            long("Version", CMQCFC.MQCFH_VERSION_1),
            long("Command", CMQCFC.MQCMD_NONE),
            long("MsgSeqNumber", 1),
            long("Control", CMQCFC.MQCFC_LAST),
            long("CompCode", CMQC.MQCC_OK),
            long("Reason", CMQC.MQRC_NONE),
            long("ParameterCount", 0),
        ],
        reason=CMQC.MQRC_CFH_ERROR,
        highest_version=CMQCFC.MQCFH_CURRENT_VERSION,
    )


# --------------------------------------------------------------------------- ibmmq 2.x's
# connection, header and message-handle structures (IBM's field names; a pointer C reaches
# a string through may hold that string here, as ibmmq lets programs set it)


def _set_pointed(struc: Any, name: str, value: Any) -> bool:
    """Set a pointer field of ``struc._pointed_`` to the string it points to (str or
    bytes, kept as given, packed as 0) and its length field; False for any other field or
    value (the caller sets it as usual)."""
    length = struc._pointed_.get(name)
    if length is None or not isinstance(value, (str, bytes)):
        return False
    struc.__dict__[name] = value
    MQStruct.__setattr__(struc, length,
                         len(value.encode("utf-8") if isinstance(value, str) else value))
    return True


class _PointedStrings(MQStruct):
    """A structure whose pointer fields named in ``_pointed_`` may hold the string they
    point to (:func:`_set_pointed`)."""

    #: pointer field -> the field holding the string's length
    _pointed_: dict[str, str] = {}

    def __setattr__(self, name: str, value: Any) -> None:
        if not _set_pointed(self, name, value):
            super().__setattr__(name, value)


class CNO(_PointedStrings):
    """MQCNO, the connect options of MQCONNX: v1 12 .. v8 272 bytes. ``CCDTUrl`` may hold
    the CCDT's URL (ibmmq's name of CCDTUrlPtr)."""

    _pointed_ = {"CCDTUrl": "CCDTUrlLength"}
    _layout_ = Layout(
        "MQCNO",
        [
            text("StrucId", 4, CMQC.MQCNO_STRUC_ID),
            long("Version", CMQC.MQCNO_VERSION_5),  # ibmmq's default
            long("Options", CMQC.MQCNO_NONE),
            since(2),
            long("ClientConnOffset", 0),
            pointer("ClientConnPtr"),
            since(3),
            binary("ConnTag", 128),
            since(4),
            pointer("SSLConfigPtr"),
            long("SSLConfigOffset", 0),
            since(5),
            binary("ConnectionId", 24),
            long("SecurityParmsOffset", 0),
            pointer("SecurityParmsPtr"),
            since(6),
            pointer("CCDTUrl"),
            long("CCDTUrlOffset", 0),
            long("CCDTUrlLength", 0),
            binary("Reserved", 8),
            since(7),
            text("ApplName", 28),
            binary("Reserved2", 4),
            since(8),
            pointer("BalanceParmsPtr"),
            long("BalanceParmsOffset", 0),
            binary("Reserved3", 4),
        ],
        reason=CMQC.MQRC_CNO_ERROR,
        struc_id=CMQC.MQCNO_STRUC_ID,
    )


class CSP(_PointedStrings):
    """MQCSP, the security parameters of MQCONNX: v1 56, v2 80, v3 104 bytes.
    ``CSPUserId``, ``CSPPassword``, ``InitialKey`` and ``Token`` hold the strings (ibmmq's
    names of the pointers)."""

    _pointed_ = {"CSPUserId": "CSPUserIdLength", "CSPPassword": "CSPPasswordLength",
                 "InitialKey": "InitialKeyLength", "Token": "TokenLength"}
    _layout_ = Layout(
        "MQCSP",
        [
            text("StrucId", 4, CMQC.MQCSP_STRUC_ID),
            long("Version", CMQC.MQCSP_VERSION_1),
            long("AuthenticationType", CMQC.MQCSP_AUTH_NONE),
            binary("Reserved1", 4),
            pointer("CSPUserId"),
            long("CSPUserIdOffset", 0),
            long("CSPUserIdLength", 0),
            binary("Reserved2", 8),
            pointer("CSPPassword"),
            long("CSPPasswordOffset", 0),
            long("CSPPasswordLength", 0),
            since(2),
            binary("Reserved3", 8),
            pointer("InitialKey"),
            long("InitialKeyOffset", 0),
            long("InitialKeyLength", 0),
            since(3),
            binary("Reserved4", 8),
            pointer("Token"),
            long("TokenOffset", 0),
            long("TokenLength", 0),
        ],
        reason=CMQC.MQRC_CSP_ERROR,
        struc_id=CMQC.MQCSP_STRUC_ID,
    )


class BNO(MQStruct):
    """MQBNO, the balancing options of a uniform cluster's application: 20 bytes."""

    _layout_ = Layout(
        "MQBNO",
        [
            text("StrucId", 4, CMQC.MQBNO_STRUC_ID),
            long("Version", CMQC.MQBNO_VERSION_1),
            long("ApplType", CMQC.MQBNO_BALTYPE_SIMPLE),
            long("Timeout", CMQC.MQBNO_TIMEOUT_AS_DEFAULT),
            long("Options", CMQC.MQBNO_OPTIONS_NONE),
        ],
        reason=CMQC.MQRC_BNO_ERROR,
        struc_id=CMQC.MQBNO_STRUC_ID,
    )


class MDE(MQStruct):
    """MQMDE, the message descriptor extension (an MQMD v1's v2 fields): 72 bytes."""

    _layout_ = Layout(
        "MQMDE",
        [
            text("StrucId", 4, CMQC.MQMDE_STRUC_ID),
            long("Version", CMQC.MQMDE_VERSION_2),
            long("StrucLength", CMQC.MQMDE_LENGTH_2),
            long("Encoding", CMQC.MQENC_NATIVE),
            long("CodedCharSetId", CMQC.MQCCSI_UNDEFINED),
            text("Format", 8, CMQC.MQFMT_NONE),
            long("Flags", CMQC.MQMDEF_NONE),
            binary("GroupId", 24),
            long("MsgSeqNumber", 1),
            long("Offset", 0),
            long("MsgFlags", CMQC.MQMF_NONE),
            long("OriginalLength", CMQC.MQOL_UNDEFINED),
        ],
        reason=CMQC.MQRC_MDE_ERROR,
        struc_id=CMQC.MQMDE_STRUC_ID,
        highest_version=CMQC.MQMDE_VERSION_2,
    )


class IIH(MQStruct):
    """MQIIH, the IMS information header: 84 bytes."""

    _layout_ = Layout(
        "MQIIH",
        [
            text("StrucId", 4, CMQC.MQIIH_STRUC_ID),
            long("Version", CMQC.MQIIH_VERSION_1),
            long("StrucLength", CMQC.MQIIH_LENGTH_1),
            long("Encoding", 0),
            long("CodedCharSetId", 0),
            text("Format", 8, CMQC.MQFMT_NONE),
            long("Flags", CMQC.MQIIH_NONE),
            text("LTermOverride", 8),
            text("MFSMapName", 8),
            text("ReplyToFormat", 8, CMQC.MQFMT_NONE),
            text("Authenticator", 8, CMQC.MQIAUT_NONE),
            binary("TranInstanceId", 16, CMQC.MQITII_NONE),
            char("TranState", CMQC.MQITS_NOT_IN_CONVERSATION),
            char("CommitMode", CMQC.MQICM_COMMIT_THEN_SEND),
            char("SecurityScope", CMQC.MQISS_CHECK),
            char("Reserved"),
        ],
        reason=CMQC.MQRC_IIH_ERROR,
        struc_id=CMQC.MQIIH_STRUC_ID,
    )


class CIH(MQStruct):
    """MQCIH, the CICS information header: v1 164, v2 180 bytes."""

    _layout_ = Layout(
        "MQCIH",
        [
            text("StrucId", 4, CMQC.MQCIH_STRUC_ID),
            long("Version", CMQC.MQCIH_VERSION_2),
            long("StrucLength", CMQC.MQCIH_LENGTH_2),
            long("Encoding", 0),
            long("CodedCharSetId", 0),
            text("Format", 8, CMQC.MQFMT_NONE),
            long("Flags", CMQC.MQCIH_NONE),
            long("ReturnCode", CMQC.MQCRC_OK),
            long("CompCode", CMQC.MQCC_OK),
            long("Reason", CMQC.MQRC_NONE),
            long("UOWControl", CMQC.MQCUOWC_ONLY),
            long("GetWaitInterval", CMQC.MQCGWI_DEFAULT),
            long("LinkType", CMQC.MQCLT_PROGRAM),
            long("OutputDataLength", CMQC.MQCODL_AS_INPUT),
            long("FacilityKeepTime", 0),
            long("ADSDescriptor", CMQC.MQCADSD_NONE),
            long("ConversationalTask", CMQC.MQCCT_NO),
            long("TaskEndStatus", CMQC.MQCTES_NOSYNC),
            binary("Facility", 8, CMQC.MQCFAC_NONE),
            text("Function", 4, CMQC.MQCFUNC_NONE),
            text("AbendCode", 4),
            text("Authenticator", 8),
            text("Reserved1", 8),
            text("ReplyToFormat", 8, CMQC.MQFMT_NONE),
            text("RemoteSysId", 4),
            text("RemoteTransId", 4),
            text("TransactionId", 4),
            text("FacilityLike", 4),
            text("AttentionId", 4),
            text("StartCode", 4, CMQC.MQCSC_NONE),
            text("CancelCode", 4),
            text("NextTransactionId", 4),
            text("Reserved2", 8),
            text("Reserved3", 8),
            since(2),
            long("CursorPosition", 0),
            long("ErrorOffset", 0),
            long("InputItem", 0),
            long("Reserved4", 0),
        ],
        reason=CMQC.MQRC_CIH_ERROR,
        struc_id=CMQC.MQCIH_STRUC_ID,
    )


class DMHO(MQStruct):
    """MQDMHO, the options of MQDLTMH (delete a message handle): 12 bytes."""

    _layout_ = Layout(
        "MQDMHO",
        [
            text("StrucId", 4, CMQC.MQDMHO_STRUC_ID),
            long("Version", CMQC.MQDMHO_VERSION_1),
            long("Options", CMQC.MQDMHO_NONE),
        ],
        reason=CMQC.MQRC_DMHO_ERROR,
        struc_id=CMQC.MQDMHO_STRUC_ID,
    )


class DMPO(MQStruct):
    """MQDMPO, the options of MQDLTMP (delete a message property): 12 bytes."""

    _layout_ = Layout(
        "MQDMPO",
        [
            text("StrucId", 4, CMQC.MQDMPO_STRUC_ID),
            long("Version", CMQC.MQDMPO_VERSION_1),
            long("Options", CMQC.MQDMPO_DEL_FIRST),
        ],
        reason=CMQC.MQRC_DMPO_ERROR,
        struc_id=CMQC.MQDMPO_STRUC_ID,
    )
