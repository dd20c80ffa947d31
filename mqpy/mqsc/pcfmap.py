"""PCF parameter ids (MQIA_*, MQCA_*, MQIACH_*, MQCACH_*) <-> MQSC keywords and values.

The command server answers PCF with the same processor that runs MQSC, so a PCF request is
translated into MQSC keywords and stored values on the way in, and the answer back into PCF
parameters. This table is the one place that knows both vocabularies; it extends
:mod:`mqpy.engine.selectors` (the MQINQ table), whose entries it imports unchanged.

Each :class:`PcfAttr` names the parameter id, the MQSC keyword, and how values convert:
integers pass through, words map to MQ's numbers (:data:`WORDS`), strings are blank-padded
to their MQ length in answers and stripped in requests.
"""

from __future__ import annotations

from collections.abc import Mapping

import attrs

from mqpy import CMQC, CMQCFC, CMQXC, pcf
from mqpy.engine import mqinq, selectors

__all__ = ["AUTHINFO", "CHANNEL", "CHLAUTH", "CONNECTION", "NAMELIST", "PcfAttr", "QMGR", "QUEUE", "SERVICE", "SERVICE_STATUS", "WORDS",
           "by_keyword", "by_parameter", "parm_id_error"]

#: keyword -> {MQSC word: MQ number}; the engine's MQINQ enums first.
WORDS: dict[str, dict[str, int]] = {
    **selectors.ENUMS,
    "TYPE": {"QLOCAL": CMQC.MQQT_LOCAL, "QMODEL": CMQC.MQQT_MODEL, "QALIAS": CMQC.MQQT_ALIAS,
             "QREMOTE": CMQC.MQQT_REMOTE},
    "HARDENBO": {"YES": CMQC.MQQA_BACKOUT_HARDENED, "NO": CMQC.MQQA_BACKOUT_NOT_HARDENED},
    "DEFBIND": {"OPEN": CMQC.MQBND_BIND_ON_OPEN, "NOTFIXED": CMQC.MQBND_BIND_NOT_FIXED,
                "GROUP": CMQC.MQBND_BIND_ON_GROUP},
    "NPMCLASS": {"NORMAL": CMQC.MQNPM_CLASS_NORMAL, "HIGH": CMQC.MQNPM_CLASS_HIGH},
    "STATQ": {"QMGR": CMQC.MQMON_Q_MGR, "OFF": CMQC.MQMON_OFF, "ON": CMQC.MQMON_ON,
              "NONE": CMQC.MQMON_NONE},
    "ACCTQ": {"QMGR": CMQC.MQMON_Q_MGR, "OFF": CMQC.MQMON_OFF, "ON": CMQC.MQMON_ON,
              "NONE": CMQC.MQMON_NONE},
    "MONQ": {"QMGR": CMQC.MQMON_Q_MGR, "OFF": CMQC.MQMON_OFF, "LOW": CMQC.MQMON_LOW,
             "MEDIUM": CMQC.MQMON_MEDIUM, "HIGH": CMQC.MQMON_HIGH, "NONE": CMQC.MQMON_NONE},
    "CLWLUSEQ": {"QMGR": CMQC.MQCLWL_USEQ_AS_Q_MGR, "LOCAL": CMQC.MQCLWL_USEQ_LOCAL,
                 "ANY": CMQC.MQCLWL_USEQ_ANY},
    "TARGTYPE": {"QUEUE": CMQC.MQOT_Q, "TOPIC": CMQC.MQOT_TOPIC},
    "DEFPRESP": {"SYNC": CMQC.MQPRT_SYNC_RESPONSE, "ASYNC": CMQC.MQPRT_ASYNC_RESPONSE},
    "DEFREADA": {"NO": CMQC.MQREADA_NO, "YES": CMQC.MQREADA_YES,
                 "DISABLED": CMQC.MQREADA_DISABLED},
    "QDPHIEV": {"ENABLED": CMQCFC.MQEVR_ENABLED, "DISABLED": CMQCFC.MQEVR_DISABLED},
    "QDPLOEV": {"ENABLED": CMQCFC.MQEVR_ENABLED, "DISABLED": CMQCFC.MQEVR_DISABLED},
    "QDPMAXEV": {"ENABLED": CMQCFC.MQEVR_ENABLED, "DISABLED": CMQCFC.MQEVR_DISABLED},
    "QSVCIEV": {"HIGH": CMQCFC.MQQSIE_HIGH, "OK": CMQCFC.MQQSIE_OK, "NONE": CMQCFC.MQQSIE_NONE},
    "SCOPE": {"QMGR": CMQCFC.MQSCO_Q_MGR, "CELL": CMQCFC.MQSCO_CELL},
    "DISTL": {"YES": CMQC.MQDL_SUPPORTED, "NO": CMQC.MQDL_NOT_SUPPORTED},
    "PROPCTL": {"ALL": CMQC.MQPROP_ALL, "FORCE": CMQC.MQPROP_FORCE_MQRFH2,
                "COMPAT": CMQC.MQPROP_COMPATIBILITY, "NONE": CMQC.MQPROP_NONE,
                "V6COMPAT": CMQC.MQPROP_V6COMPAT},
    "CHLTYPE": {"SDR": CMQXC.MQCHT_SENDER, "SVR": CMQXC.MQCHT_SERVER,
                "RCVR": CMQXC.MQCHT_RECEIVER, "RQSTR": CMQXC.MQCHT_REQUESTER,
                "CLNTCONN": CMQXC.MQCHT_CLNTCONN, "SVRCONN": CMQXC.MQCHT_SVRCONN,
                "CLUSSDR": CMQXC.MQCHT_CLUSSDR, "CLUSRCVR": CMQXC.MQCHT_CLUSRCVR},
    "TRPTYPE": {"TCP": CMQXC.MQXPT_TCP, "LU62": CMQXC.MQXPT_LU62,
                "NETBIOS": CMQXC.MQXPT_NETBIOS, "SPX": CMQXC.MQXPT_SPX},
    "NPMSPEED": {"FAST": CMQXC.MQNPMS_FAST, "NORMAL": CMQXC.MQNPMS_NORMAL},
    "PUTAUT": {"DEF": CMQXC.MQPA_DEFAULT, "CTX": CMQXC.MQPA_CONTEXT,
               "ONLYMCA": CMQXC.MQPA_ONLY_MCA, "ALTMCA": CMQXC.MQPA_ALTERNATE_OR_MCA},
    "USEDLQ": {"ASPARENT": CMQC.MQUSEDLQ_AS_PARENT, "NO": CMQC.MQUSEDLQ_NO,
               "YES": CMQC.MQUSEDLQ_YES},
    "CONVERT": {"NO": CMQXC.MQCDC_NO_SENDER_CONVERSION, "YES": CMQXC.MQCDC_SENDER_CONVERSION},
    "MCATYPE": {"PROCESS": CMQXC.MQMCAT_PROCESS, "THREAD": CMQXC.MQMCAT_THREAD},
    "MONCHL": {"QMGR": CMQC.MQMON_Q_MGR, "OFF": CMQC.MQMON_OFF, "LOW": CMQC.MQMON_LOW,
               "MEDIUM": CMQC.MQMON_MEDIUM, "HIGH": CMQC.MQMON_HIGH,
               "NONE": CMQC.MQMON_NONE},
    "STATCHL": {"QMGR": CMQC.MQMON_Q_MGR, "OFF": CMQC.MQMON_OFF, "LOW": CMQC.MQMON_LOW,
                "MEDIUM": CMQC.MQMON_MEDIUM, "HIGH": CMQC.MQMON_HIGH,
                "NONE": CMQC.MQMON_NONE},
    "KAINT": {"AUTO": CMQXC.MQKAI_AUTO},
    "SERVTYPE": {"COMMAND": CMQC.MQSVC_TYPE_COMMAND, "SERVER": CMQC.MQSVC_TYPE_SERVER},
    "CONTROL": {"QMGR": CMQC.MQSVC_CONTROL_Q_MGR, "STARTONLY": CMQC.MQSVC_CONTROL_Q_MGR_START,
                "MANUAL": CMQC.MQSVC_CONTROL_MANUAL},
    "PLATFORM": {"UNIX": CMQC.MQPL_UNIX},
    "SYNCPT": {"AVAILABLE": CMQC.MQSP_AVAILABLE},
}  # fmt: skip


@attrs.frozen(slots=True)
class PcfAttr:
    """One attribute in PCF: its parameter id, MQSC keyword, (strings) MQ length, and (an
    integer whose words are its own, not :data:`WORDS`'s for its keyword) its words."""

    parameter: int
    keyword: str
    length: int = 0  #: 0 for integers; the MQ_*_LENGTH a string is padded to
    own_words: Mapping[str, int] | None = None
    is_list: bool = False  #: a list of strings (an MQCFSL), such as a namelist's NAMES

    @property
    def is_string(self) -> bool:
        return self.length > 0

    @property
    def words(self) -> Mapping[str, int] | None:
        return self.own_words if self.own_words is not None else WORDS.get(self.keyword)

    def accepts(self, param: object) -> bool:
        """Whether a request's PCF structure is the type this attribute is carried in: an
        MQCFST for a string, an MQCFIN for an integer."""
        if self.is_list:
            return isinstance(param, pcf.CFSL)
        return isinstance(param, pcf.CFST if self.is_string else pcf.CFIN)

    def to_pcf(self, value: object) -> int | bytes | list[bytes]:
        """A stored value as PCF carries it."""
        if self.is_string:
            if isinstance(value, (list, tuple)):
                return [str(v).encode("latin-1", "replace").ljust(self.length)
                        for v in value]
            return str(value).encode("latin-1", "replace")[: self.length].ljust(self.length)
        words = self.words
        if words is not None and str(value) in words:
            return words[str(value)]
        return int(value)  # type: ignore[call-overload]

    def from_pcf(self, value: object) -> object:
        """A PCF value as the MQSC processor stores it; ValueError if it has no word."""
        if self.is_string:
            if isinstance(value, list):
                return [v.decode("latin-1").rstrip(" \x00") for v in value]
            raw = value if isinstance(value, bytes) else str(value).encode("latin-1")
            return raw.decode("latin-1").rstrip(" \x00")
        words = self.words
        if words is not None:
            for word, number in words.items():
                if number == value:
                    return word
            if self.keyword not in ("KAINT",):
                raise ValueError(f"{self.keyword}: {value}")
        return int(value)  # type: ignore[call-overload]


def _t(*rows: tuple[int, str] | tuple[int, str, int] | tuple[int, str, int, Mapping[str, int]]
       ) -> tuple[PcfAttr, ...]:
    return tuple(PcfAttr(*row) for row in rows)


_Q, _DESC, _DATA = CMQC.MQ_Q_NAME_LENGTH, CMQC.MQ_Q_DESC_LENGTH, CMQC.MQ_TRIGGER_DATA_LENGTH

#: queue attributes (DISPLAY/DEFINE QUEUE <-> MQCMD_INQUIRE_Q / CREATE_Q / CHANGE_Q).
QUEUE: tuple[PcfAttr, ...] = _t(
    (CMQC.MQCA_Q_NAME, "QUEUE", _Q),
    (CMQC.MQIA_Q_TYPE, "TYPE"),
    (CMQC.MQCA_Q_DESC, "DESCR", _DESC),
    (CMQC.MQIA_INHIBIT_PUT, "PUT"),
    (CMQC.MQIA_INHIBIT_GET, "GET"),
    (CMQC.MQIA_DEF_PRIORITY, "DEFPRTY"),
    (CMQC.MQIA_DEF_PERSISTENCE, "DEFPSIST"),
    (CMQC.MQIA_DEF_BIND, "DEFBIND"),
    (CMQC.MQIA_DEF_PUT_RESPONSE_TYPE, "DEFPRESP"),
    (CMQC.MQIA_DEF_READ_AHEAD, "DEFREADA"),
    (CMQC.MQIA_PROPERTY_CONTROL, "PROPCTL"),
    (CMQC.MQIA_SCOPE, "SCOPE"),
    (CMQC.MQIA_MAX_Q_DEPTH, "MAXDEPTH"),
    (CMQC.MQIA_MAX_MSG_LENGTH, "MAXMSGL"),
    (CMQC.MQIA_SHAREABILITY, "SHARE"),
    (CMQC.MQIA_DEF_INPUT_OPEN_OPTION, "DEFSOPT"),
    (CMQC.MQIA_MSG_DELIVERY_SEQUENCE, "MSGDLVSQ"),
    (CMQC.MQIA_TRIGGER_CONTROL, "TRIGGER"),
    (CMQC.MQIA_TRIGGER_TYPE, "TRIGTYPE"),
    (CMQC.MQIA_TRIGGER_DEPTH, "TRIGDPTH"),
    (CMQC.MQIA_TRIGGER_MSG_PRIORITY, "TRIGMPRI"),
    (CMQC.MQCA_TRIGGER_DATA, "TRIGDATA", _DATA),
    (CMQC.MQCA_INITIATION_Q_NAME, "INITQ", _Q),
    (CMQC.MQCA_PROCESS_NAME, "PROCESS", CMQC.MQ_PROCESS_NAME_LENGTH),
    (CMQC.MQIA_BACKOUT_THRESHOLD, "BOTHRESH"),
    (CMQC.MQCA_BACKOUT_REQ_Q_NAME, "BOQNAME", _Q),
    (CMQC.MQIA_HARDEN_GET_BACKOUT, "HARDENBO"),
    (CMQC.MQIA_USAGE, "USAGE"),
    (CMQC.MQCA_STORAGE_CLASS, "STGCLASS", CMQC.MQ_STORAGE_CLASS_LENGTH),
    (CMQC.MQIA_RETENTION_INTERVAL, "RETINTVL"),
    (CMQC.MQIA_Q_DEPTH_HIGH_LIMIT, "QDEPTHHI"),
    (CMQC.MQIA_Q_DEPTH_LOW_LIMIT, "QDEPTHLO"),
    (CMQC.MQIA_Q_DEPTH_HIGH_EVENT, "QDPHIEV"),
    (CMQC.MQIA_Q_DEPTH_LOW_EVENT, "QDPLOEV"),
    (CMQC.MQIA_Q_DEPTH_MAX_EVENT, "QDPMAXEV"),
    (CMQC.MQIA_Q_SERVICE_INTERVAL_EVENT, "QSVCIEV"),
    (CMQC.MQIA_Q_SERVICE_INTERVAL, "QSVCINT"),
    (CMQC.MQIA_DIST_LISTS, "DISTL"),
    (CMQC.MQIA_NPM_CLASS, "NPMCLASS"),
    (CMQC.MQIA_MONITORING_Q, "MONQ"),
    (CMQC.MQIA_STATISTICS_Q, "STATQ"),
    (CMQC.MQIA_ACCOUNTING_Q, "ACCTQ"),
    (CMQC.MQCA_CLUSTER_NAME, "CLUSTER", CMQC.MQ_CLUSTER_NAME_LENGTH),
    (CMQC.MQCA_CLUSTER_NAMELIST, "CLUSNL", CMQC.MQ_NAMELIST_NAME_LENGTH),
    (CMQC.MQIA_CLWL_Q_PRIORITY, "CLWLPRTY"),
    (CMQC.MQIA_CLWL_Q_RANK, "CLWLRANK"),
    (CMQC.MQIA_CLWL_USEQ, "CLWLUSEQ"),
    (CMQC.MQIA_DEFINITION_TYPE, "DEFTYPE"),
    (CMQC.MQCA_BASE_OBJECT_NAME, "TARGET", CMQC.MQ_OBJECT_NAME_LENGTH),
    (CMQC.MQIA_BASE_TYPE, "TARGTYPE"),
    (CMQC.MQCA_REMOTE_Q_NAME, "RNAME", _Q),
    (CMQC.MQCA_REMOTE_Q_MGR_NAME, "RQMNAME", CMQC.MQ_Q_MGR_NAME_LENGTH),
    (CMQC.MQCA_XMIT_Q_NAME, "XMITQ", _Q),
    (CMQC.MQCA_CREATION_DATE, "CRDATE", CMQC.MQ_CREATION_DATE_LENGTH),
    (CMQC.MQCA_CREATION_TIME, "CRTIME", CMQC.MQ_CREATION_TIME_LENGTH),
    (CMQC.MQCA_ALTERATION_DATE, "ALTDATE", CMQC.MQ_DATE_LENGTH),
    (CMQC.MQCA_ALTERATION_TIME, "ALTTIME", CMQC.MQ_TIME_LENGTH),
    (CMQC.MQIA_CURRENT_Q_DEPTH, "CURDEPTH"),
    (CMQC.MQIA_OPEN_INPUT_COUNT, "IPPROCS"),
    (CMQC.MQIA_OPEN_OUTPUT_COUNT, "OPPROCS"),
)

#: channel attributes (DISPLAY/DEFINE CHANNEL <-> MQCMD_INQUIRE_CHANNEL / CREATE_CHANNEL).
CHANNEL: tuple[PcfAttr, ...] = _t(
    (CMQCFC.MQCACH_CHANNEL_NAME, "CHANNEL", CMQC.MQ_CHANNEL_NAME_LENGTH),
    (CMQCFC.MQIACH_CHANNEL_TYPE, "CHLTYPE"),
    (CMQCFC.MQCACH_DESC, "DESCR", CMQC.MQ_CHANNEL_DESC_LENGTH),
    (CMQCFC.MQIACH_XMIT_PROTOCOL_TYPE, "TRPTYPE"),
    (CMQCFC.MQCACH_CONNECTION_NAME, "CONNAME", CMQC.MQ_CONN_NAME_LENGTH),
    (CMQCFC.MQCACH_XMIT_Q_NAME, "XMITQ", _Q),
    (CMQCFC.MQIACH_MCA_TYPE, "MCATYPE"),
    (CMQCFC.MQCACH_MCA_NAME, "MCANAME", CMQC.MQ_MCA_NAME_LENGTH),
    (CMQCFC.MQCACH_MCA_USER_ID, "MCAUSER", CMQC.MQ_USER_ID_LENGTH),
    (CMQCFC.MQIACH_BATCH_SIZE, "BATCHSZ"),
    (CMQCFC.MQIACH_BATCH_INTERVAL, "BATCHINT"),
    (CMQCFC.MQIACH_BATCH_HB, "BATCHHB"),
    (CMQCFC.MQIACH_BATCH_DATA_LIMIT, "BATCHLIM"),
    (CMQCFC.MQIACH_DISC_INTERVAL, "DISCINT"),
    (CMQCFC.MQIACH_HB_INTERVAL, "HBINT"),
    (CMQCFC.MQIACH_KEEP_ALIVE_INTERVAL, "KAINT"),
    (CMQCFC.MQIACH_SHORT_RETRY, "SHORTRTY"),
    (CMQCFC.MQIACH_SHORT_TIMER, "SHORTTMR"),
    (CMQCFC.MQIACH_LONG_RETRY, "LONGRTY"),
    (CMQCFC.MQIACH_LONG_TIMER, "LONGTMR"),
    (CMQCFC.MQIACH_MAX_MSG_LENGTH, "MAXMSGL"),
    (CMQCFC.MQIACH_SEQUENCE_NUMBER_WRAP, "SEQWRAP"),
    (CMQCFC.MQIACH_NPM_SPEED, "NPMSPEED"),
    (CMQCFC.MQIACH_MR_COUNT, "MRRTY"),
    (CMQCFC.MQIACH_MR_INTERVAL, "MRTMR"),
    (CMQCFC.MQIACH_PUT_AUTHORITY, "PUTAUT"),
    (CMQC.MQIA_USE_DEAD_LETTER_Q, "USEDLQ"),
    (CMQCFC.MQIACH_DATA_CONVERSION, "CONVERT"),
    (CMQC.MQIA_MONITORING_CHANNEL, "MONCHL"),
    (CMQC.MQIA_STATISTICS_CHANNEL, "STATCHL"),
    (CMQCFC.MQIACH_SHARING_CONVERSATIONS, "SHARECNV"),
    (CMQCFC.MQIACH_MAX_INSTANCES, "MAXINST"),
    (CMQCFC.MQIACH_MAX_INSTS_PER_CLIENT, "MAXINSTC"),
    (CMQC.MQCA_CLUSTER_NAME, "CLUSTER", CMQC.MQ_CLUSTER_NAME_LENGTH),
    (CMQC.MQCA_CLUSTER_NAMELIST, "CLUSNL", CMQC.MQ_NAMELIST_NAME_LENGTH),
    (CMQCFC.MQIACH_NETWORK_PRIORITY, "NETPRTY"),
    (CMQC.MQCA_Q_MGR_NAME, "QMNAME", CMQC.MQ_Q_MGR_NAME_LENGTH),
    (CMQC.MQCA_ALTERATION_DATE, "ALTDATE", CMQC.MQ_DATE_LENGTH),
    (CMQC.MQCA_ALTERATION_TIME, "ALTTIME", CMQC.MQ_TIME_LENGTH),
)

_QMGR_OWN: tuple[PcfAttr, ...] = _t(
    (CMQC.MQCA_Q_MGR_NAME, "QMNAME", CMQC.MQ_Q_MGR_NAME_LENGTH),
    (CMQC.MQCA_Q_MGR_DESC, "DESCR", CMQC.MQ_Q_MGR_DESC_LENGTH),
    (CMQC.MQCA_DEAD_LETTER_Q_NAME, "DEADQ", _Q),
    (CMQC.MQCA_DEF_XMIT_Q_NAME, "DEFXMITQ", _Q),
    (CMQC.MQCA_COMMAND_INPUT_Q_NAME, "COMMANDQ", _Q),
    (CMQC.MQIA_MAX_MSG_LENGTH, "MAXMSGL"),
    (CMQC.MQIA_MAX_PRIORITY, "MAXPRTY"),
    (CMQC.MQIA_CODED_CHAR_SET_ID, "CCSID"),
    (CMQC.MQIA_TRIGGER_INTERVAL, "TRIGINT"),
    (CMQC.MQIA_COMMAND_LEVEL, "CMDLEVEL"),
    (CMQC.MQIA_PLATFORM, "PLATFORM"),
    (CMQC.MQIA_SYNCPOINT, "SYNCPT"),
    (CMQC.MQIA_MAX_UNCOMMITTED_MSGS, "MAXUMSGS"),
    (CMQC.MQIA_STATISTICS_INTERVAL, "STATINT"),
    (CMQC.MQIA_SSL_RESET_COUNT, "SSLRKEYC"),
    (CMQC.MQIA_MONITORING_Q, "MONQ"),
    (CMQC.MQIA_MONITORING_CHANNEL, "MONCHL"),
    (CMQC.MQIA_STATISTICS_Q, "STATQ"),
    (CMQC.MQIA_STATISTICS_CHANNEL, "STATCHL"),
    (CMQC.MQCA_CREATION_DATE, "CRDATE", CMQC.MQ_CREATION_DATE_LENGTH),
    (CMQC.MQCA_CREATION_TIME, "CRTIME", CMQC.MQ_CREATION_TIME_LENGTH),
)
#: queue-manager attributes (DISPLAY/ALTER QMGR <-> Inquire / Change Queue Manager): those
#: above, then the rest of MQINQ's (CONNAUTH, VERSION, CERTLABL...) with MQINQ's words
QMGR: tuple[PcfAttr, ...] = _QMGR_OWN + tuple(
    PcfAttr(selector, keyword, form if isinstance(form, int) else 0,
            None if isinstance(form, int) or not form else form)
    for selector, (keyword, _default, form) in mqinq.QMGR_ATTRIBUTES.items()
    if selector not in {a.parameter for a in _QMGR_OWN})


_CHECK = {"NONE": CMQCFC.MQCHK_NONE, "OPTIONAL": CMQCFC.MQCHK_OPTIONAL,
          "REQUIRED": CMQCFC.MQCHK_REQUIRED, "REQDADM": CMQCFC.MQCHK_REQUIRED_ADMIN,
          "ASQMGR": CMQCFC.MQCHK_AS_Q_MGR}

#: namelist attributes (DEFINE/ALTER/DISPLAY NAMELIST <-> Create/Change/Copy/Inquire
#: Namelist); NAMCOUNT is DISPLAY's, the queue manager keeps it.
NAMELIST: tuple[PcfAttr, ...] = (
    PcfAttr(CMQC.MQCA_NAMELIST_NAME, "NAMELIST", CMQC.MQ_NAMELIST_NAME_LENGTH),
    PcfAttr(CMQC.MQCA_NAMELIST_DESC, "DESCR", CMQC.MQ_NAMELIST_DESC_LENGTH),
    PcfAttr(CMQC.MQCA_NAMES, "NAMES", CMQC.MQ_OBJECT_NAME_LENGTH, is_list=True),
    PcfAttr(CMQC.MQIA_NAME_COUNT, "NAMCOUNT"),
    PcfAttr(CMQC.MQCA_ALTERATION_DATE, "ALTDATE", CMQC.MQ_DATE_LENGTH),
    PcfAttr(CMQC.MQCA_ALTERATION_TIME, "ALTTIME", CMQC.MQ_TIME_LENGTH),
)

#: authentication information attributes (DEFINE/ALTER/DISPLAY AUTHINFO <-> Create/Change/
#: Copy/Inquire Authentication Information).
AUTHINFO: tuple[PcfAttr, ...] = _t(
    (CMQC.MQCA_AUTH_INFO_NAME, "AUTHINFO", CMQC.MQ_AUTH_INFO_NAME_LENGTH),
    (CMQC.MQIA_AUTH_INFO_TYPE, "AUTHTYPE", 0, {
        "CRLLDAP": CMQC.MQAIT_CRL_LDAP, "OCSP": CMQC.MQAIT_OCSP,
        "IDPWOS": CMQC.MQAIT_IDPW_OS, "IDPWLDAP": CMQC.MQAIT_IDPW_LDAP}),
    (CMQC.MQCA_AUTH_INFO_DESC, "DESCR", CMQC.MQ_AUTH_INFO_DESC_LENGTH),
    (CMQC.MQIA_CHECK_CLIENT_BINDING, "CHCKCLNT", 0, _CHECK),
    (CMQC.MQIA_CHECK_LOCAL_BINDING, "CHCKLOCL", 0, _CHECK),
    (CMQC.MQIA_ADOPT_CONTEXT, "ADOPTCTX", 0, {"YES": CMQCFC.MQADPCTX_YES,
                                               "NO": CMQCFC.MQADPCTX_NO}),
    (CMQC.MQIA_AUTHENTICATION_FAIL_DELAY, "FAILDLAY"),
    (CMQC.MQCA_AUTH_INFO_CONN_NAME, "CONNAME", CMQC.MQ_AUTH_INFO_CONN_NAME_LENGTH),
    (CMQC.MQCA_AUTH_INFO_OCSP_URL, "OCSPURL", CMQC.MQ_AUTH_INFO_OCSP_URL_LENGTH),
    (CMQC.MQCA_ALTERATION_DATE, "ALTDATE", CMQC.MQ_DATE_LENGTH),
    (CMQC.MQCA_ALTERATION_TIME, "ALTTIME", CMQC.MQ_TIME_LENGTH),
)

#: channel authentication record attributes (SET / DISPLAY CHLAUTH <-> Set / Inquire
#: Channel Authentication Records); the record's profile is its channel name.
CHLAUTH: tuple[PcfAttr, ...] = (
    PcfAttr(CMQCFC.MQCACH_CHANNEL_NAME, "CHLAUTH", CMQC.MQ_CHANNEL_NAME_LENGTH),
    PcfAttr(CMQCFC.MQIACF_CHLAUTH_TYPE, "TYPE", 0, {
        "BLOCKUSER": CMQCFC.MQCAUT_BLOCKUSER, "BLOCKADDR": CMQCFC.MQCAUT_BLOCKADDR,
        "SSLPEERMAP": CMQCFC.MQCAUT_SSLPEERMAP, "ADDRESSMAP": CMQCFC.MQCAUT_ADDRESSMAP,
        "USERMAP": CMQCFC.MQCAUT_USERMAP, "QMGRMAP": CMQCFC.MQCAUT_QMGRMAP}),
    PcfAttr(CMQCFC.MQCACH_MCA_USER_ID_LIST, "USERLIST", CMQC.MQ_MCA_USER_ID_LENGTH,
            is_list=True),
    PcfAttr(CMQCFC.MQCACH_CONNECTION_NAME_LIST, "ADDRLIST", CMQC.MQ_CONN_NAME_LENGTH,
            is_list=True),
    PcfAttr(CMQCFC.MQCACH_SSL_PEER_NAME, "SSLPEER", CMQC.MQ_SSL_PEER_NAME_LENGTH),
    PcfAttr(CMQC.MQCA_SSL_CERT_ISSUER_NAME, "SSLCERTI", CMQC.MQ_SSL_PEER_NAME_LENGTH),
    PcfAttr(CMQCFC.MQCACH_CLIENT_USER_ID, "CLNTUSER", CMQC.MQ_CLIENT_USER_ID_LENGTH),
    PcfAttr(CMQC.MQCA_REMOTE_Q_MGR_NAME, "QMNAME", CMQC.MQ_Q_MGR_NAME_LENGTH),
    PcfAttr(CMQCFC.MQCACH_CONNECTION_NAME, "ADDRESS", CMQC.MQ_CONN_NAME_LENGTH),
    PcfAttr(CMQCFC.MQIACH_USER_SOURCE, "USERSRC", 0, {
        "MAP": CMQC.MQUSRC_MAP, "NOACCESS": CMQC.MQUSRC_NOACCESS,
        "CHANNEL": CMQC.MQUSRC_CHANNEL}),
    PcfAttr(CMQCFC.MQCACH_MCA_USER_ID, "MCAUSER", CMQC.MQ_MCA_USER_ID_LENGTH),
    PcfAttr(CMQC.MQIA_CHECK_CLIENT_BINDING, "CHCKCLNT", 0, _CHECK),
    PcfAttr(CMQC.MQCA_CHLAUTH_DESC, "DESCR", CMQC.MQ_CHLAUTH_DESC_LENGTH),
    PcfAttr(CMQCFC.MQIACH_WARNING, "WARN", 0, {"YES": CMQC.MQWARN_YES,
                                               "NO": CMQC.MQWARN_NO}),
    PcfAttr(CMQC.MQCA_ALTERATION_DATE, "ALTDATE", CMQC.MQ_DATE_LENGTH),
    PcfAttr(CMQC.MQCA_ALTERATION_TIME, "ALTTIME", CMQC.MQ_TIME_LENGTH),
)

#: a connection's attributes (DISPLAY CONN <-> Inquire Connection, ConnInfoType CONN)
CONNECTION: tuple[PcfAttr, ...] = _t(
    (CMQCFC.MQCACF_APPL_TAG, "APPLTAG", CMQC.MQ_APPL_TAG_LENGTH),
    (CMQC.MQIA_APPL_TYPE, "APPLTYPE", 0, {"USER": CMQC.MQAT_USER, "QMGR": CMQC.MQAT_QMGR,
                                          "CHINIT": CMQC.MQAT_CHANNEL_INITIATOR}),
    (CMQCFC.MQIACF_ASYNC_STATE, "ASTATE", 0, {"NONE": CMQCFC.MQAS_NONE}),
    (CMQCFC.MQCACH_CHANNEL_NAME, "CHANNEL", CMQC.MQ_CHANNEL_NAME_LENGTH),
    (CMQCFC.MQCACH_CONNECTION_NAME, "CONNAME", CMQC.MQ_CONN_NAME_LENGTH),
    (CMQCFC.MQIACF_CONNECT_OPTIONS, "CONNOPTS"),
    (CMQCFC.MQCACF_USER_IDENTIFIER, "USERID", CMQC.MQ_USER_ID_LENGTH),
    (CMQCFC.MQCACF_UOW_LOG_START_DATE, "UOWLOGDA", CMQC.MQ_DATE_LENGTH),
    (CMQCFC.MQCACF_UOW_LOG_START_TIME, "UOWLOGTI", CMQC.MQ_TIME_LENGTH),
    (CMQCFC.MQCACF_UOW_START_DATE, "UOWSTDA", CMQC.MQ_DATE_LENGTH),
    (CMQCFC.MQCACF_UOW_START_TIME, "UOWSTTI", CMQC.MQ_TIME_LENGTH),
    (CMQCFC.MQIACF_UOW_STATE, "UOWSTATE", 0, {"NONE": CMQCFC.MQUOWST_NONE,
                                             "ACTIVE": CMQCFC.MQUOWST_ACTIVE}),
    (CMQCFC.MQIACF_PROCESS_ID, "PID"),
    (CMQCFC.MQIACF_THREAD_ID, "TID"),
)

#: service attributes (DEFINE/ALTER/DISPLAY SERVICE <-> Create/Change/Copy/Inquire Service).
SERVICE: tuple[PcfAttr, ...] = _t(
    (CMQC.MQCA_SERVICE_NAME, "SERVICE", CMQC.MQ_OBJECT_NAME_LENGTH),
    (CMQC.MQCA_SERVICE_DESC, "DESCR", CMQC.MQ_SERVICE_DESC_LENGTH),
    (CMQC.MQIA_SERVICE_TYPE, "SERVTYPE"),
    (CMQC.MQIA_SERVICE_CONTROL, "CONTROL"),
    (CMQC.MQCA_SERVICE_START_COMMAND, "STARTCMD", CMQC.MQ_SERVICE_COMMAND_LENGTH),
    (CMQC.MQCA_SERVICE_START_ARGS, "STARTARG", CMQC.MQ_SERVICE_ARGS_LENGTH),
    (CMQC.MQCA_SERVICE_STOP_COMMAND, "STOPCMD", CMQC.MQ_SERVICE_COMMAND_LENGTH),
    (CMQC.MQCA_SERVICE_STOP_ARGS, "STOPARG", CMQC.MQ_SERVICE_ARGS_LENGTH),
    (CMQC.MQCA_STDOUT_DESTINATION, "STDOUT", CMQC.MQ_SERVICE_PATH_LENGTH),
    (CMQC.MQCA_STDERR_DESTINATION, "STDERR", CMQC.MQ_SERVICE_PATH_LENGTH),
    (CMQC.MQCA_ALTERATION_DATE, "ALTDATE", CMQC.MQ_DATE_LENGTH),
    (CMQC.MQCA_ALTERATION_TIME, "ALTTIME", CMQC.MQ_TIME_LENGTH),
)

#: Inquire Service Status's own fields (DISPLAY SVSTATUS); the service's status words are
#: cmqcfc.h's MQSVC_STATUS_* (a listener's too), which the generated constants lack.
SVC_STATUS: dict[str, int] = {"STOPPED": 0, "STARTING": 1, "RUNNING": 2, "STOPPING": 3,
                              "RETRYING": 4}
SERVICE_STATUS: tuple[PcfAttr, ...] = _t(
    (CMQCFC.MQIACF_SERVICE_STATUS, "STATUS", 0, SVC_STATUS),
    (CMQCFC.MQIACF_PROCESS_ID, "PID"),
    (CMQCFC.MQCACF_SERVICE_START_DATE, "STARTDA", CMQC.MQ_DATE_LENGTH),
    (CMQCFC.MQCACF_SERVICE_START_TIME, "STARTTI", CMQC.MQ_TIME_LENGTH),
)


def parm_id_error(param: object) -> int:
    """The MQRCCF_*_PARM_ID_ERROR a command server answers for a parameter it does not take
    in the structure it came in (IBM names the structure: MQCFST, MQCFIN, MQCFSL...)."""
    return {pcf.CFST: CMQCFC.MQRCCF_CFST_PARM_ID_ERROR,
            pcf.CFSL: CMQCFC.MQRCCF_CFSL_PARM_ID_ERROR,
            pcf.CFIL: CMQCFC.MQRCCF_CFIL_PARM_ID_ERROR,
            pcf.CFBS: CMQCFC.MQRCCF_CFBS_PARM_ID_ERROR,
            pcf.CFGR: CMQCFC.MQRCCF_CFGR_PARM_ID_ERROR,
            pcf.CFIF: CMQCFC.MQRCCF_CFIF_PARM_ID_ERROR,
            pcf.CFSF: CMQCFC.MQRCCF_CFSF_PARM_ID_ERROR,
            pcf.CFBF: CMQCFC.MQRCCF_CFBF_PARM_ID_ERROR,
            }.get(type(param), CMQCFC.MQRCCF_CFIN_PARM_ID_ERROR)


def by_parameter(table: tuple[PcfAttr, ...]) -> Mapping[int, PcfAttr]:
    return {a.parameter: a for a in table}


def by_keyword(table: tuple[PcfAttr, ...]) -> Mapping[str, PcfAttr]:
    return {a.keyword: a for a in table}
