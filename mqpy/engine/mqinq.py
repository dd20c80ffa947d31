"""MQINQ and MQSET of a connection, on an open queue or the queue manager
(:class:`InquireCalls`), and the queue and queue-manager selectors IBM documents for MQINQ
beyond the engine's shared table (:data:`QUEUE_ATTRIBUTES`, :data:`QMGR_ATTRIBUTES`)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from mqpy import CMQC, CMQCFC
from mqpy.engine import selectors as sel
from mqpy.engine.callcounts import counted
from mqpy.engine.options import _WARNING, _fail

_EVENT = {"ENABLED": CMQCFC.MQEVR_ENABLED, "DISABLED": CMQCFC.MQEVR_DISABLED}
_EVENT_EX = {**_EVENT, "EXCEPTION": CMQCFC.MQEVR_EXCEPTION}
_SWITCH = {"ENABLED": CMQC.MQMON_ENABLED, "DISABLED": CMQC.MQMON_DISABLED}
_ON_OFF = {"OFF": CMQC.MQMON_OFF, "ON": CMQC.MQMON_ON, "NONE": CMQC.MQMON_NONE}
_LEVELS = {"OFF": CMQC.MQMON_OFF, "LOW": CMQC.MQMON_LOW, "MEDIUM": CMQC.MQMON_MEDIUM,
           "HIGH": CMQC.MQMON_HIGH, "NONE": CMQC.MQMON_NONE, "QMGR": CMQC.MQMON_Q_MGR}
_RECORDING = {"DISABLED": CMQC.MQRECORDING_DISABLED, "MSG": CMQC.MQRECORDING_MSG,
              "QUEUE": CMQC.MQRECORDING_Q}
_CONTROL = {"QMGR": CMQC.MQSVC_CONTROL_Q_MGR, "MANUAL": CMQC.MQSVC_CONTROL_MANUAL}

#: selector -> (MQSC keyword, value of a new queue manager, MQSC words or a string's MQ
#: length): the queue-manager attributes of IBM's MQINQ table (distributed platforms) that
#: the engine's shared table (:data:`mqpy.engine.selectors.QMGR_SELECTORS`) lacks
QMGR_ATTRIBUTES: Mapping[int, tuple[str, object, Mapping[str, int] | int]] = {
    CMQC.MQIA_ACCOUNTING_CONN_OVERRIDE: ("ACCTCONO", "DISABLED", _SWITCH),
    CMQC.MQIA_ACCOUNTING_INTERVAL: ("ACCTINT", 1800, {}),
    CMQC.MQIA_ACCOUNTING_MQI: ("ACCTMQI", "OFF", _ON_OFF),
    CMQC.MQIA_ACCOUNTING_Q: ("ACCTQ", "OFF", _ON_OFF),
    CMQC.MQIA_ACTIVITY_CONN_OVERRIDE: ("ACTVCONO", "DISABLED", _SWITCH),
    CMQC.MQIA_ACTIVITY_RECORDING: ("ACTIVREC", "MSG", _RECORDING),
    CMQC.MQIA_ACTIVITY_TRACE: ("ACTVTRC", "OFF", _ON_OFF),
    CMQC.MQIA_ADOPTNEWMCA_CHECK: ("ADOPTCHK", "ALL", {
        "ALL": CMQC.MQADOPT_CHECK_ALL, "NETADDR": CMQC.MQADOPT_CHECK_NET_ADDR,
        "QMNAME": CMQC.MQADOPT_CHECK_Q_MGR_NAME, "NONE": CMQC.MQADOPT_CHECK_NONE}),
    CMQC.MQIA_ADOPTNEWMCA_TYPE: ("ADOPTMCA", "ALL", {"ALL": CMQC.MQADOPT_TYPE_ALL,
                                                     "NO": CMQC.MQADOPT_TYPE_NO}),
    CMQC.MQIA_AUTHORITY_EVENT: ("AUTHOREV", "DISABLED", _EVENT),
    CMQC.MQIA_CERT_VAL_POLICY: ("CERTVPOL", "ANY", {
        "ANY": CMQC.MQ_CERT_VAL_POLICY_ANY, "RFC5280": CMQC.MQ_CERT_VAL_POLICY_RFC5280}),
    CMQC.MQIA_CHANNEL_AUTO_DEF: ("CHAD", "DISABLED", {"DISABLED": CMQC.MQCHAD_DISABLED,
                                                      "ENABLED": CMQC.MQCHAD_ENABLED}),
    CMQC.MQIA_CHANNEL_AUTO_DEF_EVENT: ("CHADEV", "DISABLED", _EVENT),
    CMQC.MQIA_CHANNEL_EVENT: ("CHLEV", "DISABLED", _EVENT_EX),
    CMQC.MQIA_CHINIT_CONTROL: ("SCHINIT", "QMGR", _CONTROL),
    CMQC.MQIA_CHLAUTH_RECORDS: ("CHLAUTH", "ENABLED", {"ENABLED": CMQCFC.MQCHLA_ENABLED,
                                                       "DISABLED": CMQCFC.MQCHLA_DISABLED}),
    CMQC.MQIA_CLUSTER_WORKLOAD_LENGTH: ("CLWLLEN", 100, {}),
    CMQC.MQIA_CLWL_MRU_CHANNELS: ("CLWLMRUC", 999999999, {}),
    CMQC.MQIA_CLWL_USEQ: ("CLWLUSEQ", "LOCAL", {"LOCAL": CMQC.MQCLWL_USEQ_LOCAL,
                                                "ANY": CMQC.MQCLWL_USEQ_ANY}),
    CMQC.MQIA_CMD_SERVER_CONTROL: ("SCMDSERV", "QMGR", _CONTROL),
    CMQC.MQIA_COMMAND_EVENT: ("CMDEV", "DISABLED", {**_EVENT,
                                                    "NODISPLAY": CMQCFC.MQEVR_NO_DISPLAY}),
    CMQC.MQIA_CONFIGURATION_EVENT: ("CONFIGEV", "DISABLED", _EVENT),
    CMQC.MQIA_DEF_CLUSTER_XMIT_Q_TYPE: ("DEFCLXQ", "SCTQ", {"SCTQ": CMQCFC.MQCLXQ_SCTQ,
                                                            "CHANNEL": CMQCFC.MQCLXQ_CHANNEL}),
    CMQC.MQIA_DIST_LISTS: ("DISTL", "YES", sel.ENUMS["DISTL"]),
    CMQC.MQIA_INHIBIT_EVENT: ("INHIBTEV", "DISABLED", _EVENT),
    CMQC.MQIA_IP_ADDRESS_VERSION: ("IPADDRV", "IPV4", {"IPV4": CMQC.MQIPADDR_IPV4,
                                                       "IPV6": CMQC.MQIPADDR_IPV6}),
    CMQC.MQIA_LISTENER_TIMER: ("LSTRTMR", 60, {}),
    CMQC.MQIA_LOCAL_EVENT: ("LOCALEV", "DISABLED", _EVENT),
    CMQC.MQIA_LOGGER_EVENT: ("LOGGEREV", "DISABLED", _EVENT),
    CMQC.MQIA_MAX_HANDLES: ("MAXHANDS", 256, {}),
    CMQC.MQIA_MAX_PROPERTIES_LENGTH: ("MAXPROPL", "NOLIMIT", {
        "NOLIMIT": CMQC.MQPROP_UNRESTRICTED_LENGTH}),
    CMQC.MQIA_MONITORING_AUTO_CLUSSDR: ("MONACLS", "QMGR", _LEVELS),
    CMQC.MQIA_MONITORING_Q: ("MONQ", "OFF", _LEVELS),
    CMQC.MQIA_MSG_MARK_BROWSE_INTERVAL: ("MARKINT", 5000, {}),
    CMQC.MQIA_PERFORMANCE_EVENT: ("PERFMEV", "DISABLED", _EVENT),
    CMQC.MQIA_PUBSUB_MAXMSG_RETRY_COUNT: ("PSRTYCNT", 5, {}),
    CMQC.MQIA_PUBSUB_MODE: ("PSMODE", "ENABLED", {"COMPAT": CMQC.MQPSM_COMPAT,
                                                  "DISABLED": CMQC.MQPSM_DISABLED,
                                                  "ENABLED": CMQC.MQPSM_ENABLED}),
    CMQC.MQIA_PUBSUB_NP_MSG: ("PSNPMSG", "DISCARD", {"DISCARD": CMQCFC.MQUNDELIVERED_DISCARD,
                                                     "KEEP": CMQCFC.MQUNDELIVERED_KEEP}),
    CMQC.MQIA_PUBSUB_NP_RESP: ("PSNPRES", "NORMAL", {
        "NORMAL": CMQCFC.MQUNDELIVERED_NORMAL, "SAFE": CMQCFC.MQUNDELIVERED_SAFE,
        "DISCARD": CMQCFC.MQUNDELIVERED_DISCARD, "KEEP": CMQCFC.MQUNDELIVERED_KEEP}),
    CMQC.MQIA_PUBSUB_SYNC_PT: ("PSSYNCPT", "IFPER", {"IFPER": CMQCFC.MQSYNCPOINT_IFPER,
                                                     "YES": CMQCFC.MQSYNCPOINT_YES}),
    CMQC.MQIA_REMOTE_EVENT: ("REMOTEEV", "DISABLED", _EVENT),
    CMQC.MQIA_SSL_EVENT: ("SSLEV", "DISABLED", _EVENT),
    CMQC.MQIA_SSL_FIPS_REQUIRED: ("SSLFIPS", "NO", {"NO": CMQC.MQSSL_FIPS_NO,
                                                    "YES": CMQC.MQSSL_FIPS_YES}),
    CMQC.MQIA_START_STOP_EVENT: ("STRSTPEV", "ENABLED", _EVENT),
    CMQC.MQIA_STATISTICS_AUTO_CLUSSDR: ("STATACLS", "QMGR", _LEVELS),
    CMQC.MQIA_STATISTICS_CHANNEL: ("STATCHL", "OFF", _LEVELS),
    CMQC.MQIA_STATISTICS_INTERVAL: ("STATINT", 1800, {}),
    CMQC.MQIA_STATISTICS_MQI: ("STATMQI", "OFF", _ON_OFF),
    CMQC.MQIA_STATISTICS_Q: ("STATQ", "OFF", _ON_OFF),
    CMQC.MQIA_SUITE_B_STRENGTH: ("SUITEB", "NONE", {"NONE": CMQC.MQ_SUITE_B_NONE}),
    CMQC.MQIA_TRACE_ROUTE_RECORDING: ("ROUTEREC", "MSG", _RECORDING),
    CMQC.MQIA_TREE_LIFE_TIME: ("TREELIFE", 1800, {}),
    CMQC.MQCA_ALTERATION_DATE: ("ALTDATE", "", CMQC.MQ_DATE_LENGTH),
    CMQC.MQCA_ALTERATION_TIME: ("ALTTIME", "", CMQC.MQ_TIME_LENGTH),
    CMQC.MQCA_CERT_LABEL: ("CERTLABL", None, CMQC.MQ_CERT_LABEL_LENGTH),
    CMQC.MQCA_CHANNEL_AUTO_DEF_EXIT: ("CHADEXIT", "", CMQC.MQ_EXIT_NAME_LENGTH),
    CMQC.MQCA_CLUSTER_WORKLOAD_DATA: ("CLWLDATA", "", CMQC.MQ_EXIT_DATA_LENGTH),
    CMQC.MQCA_CLUSTER_WORKLOAD_EXIT: ("CLWLEXIT", "", CMQC.MQ_EXIT_NAME_LENGTH),
    CMQC.MQCA_CONN_AUTH: ("CONNAUTH", "", CMQC.MQ_AUTH_INFO_NAME_LENGTH),
    CMQC.MQCA_CREATION_DATE: ("CRDATE", "", CMQC.MQ_CREATION_DATE_LENGTH),
    CMQC.MQCA_CREATION_TIME: ("CRTIME", "", CMQC.MQ_CREATION_TIME_LENGTH),
    CMQC.MQCA_CUSTOM: ("CUSTOM", "", CMQC.MQ_CUSTOM_LENGTH),
    CMQC.MQCA_PARENT: ("PARENT", "", CMQC.MQ_Q_MGR_NAME_LENGTH),
    CMQC.MQCA_Q_MGR_IDENTIFIER: ("QMID", None, CMQC.MQ_Q_MGR_IDENTIFIER_LENGTH),
    CMQC.MQCA_REPOSITORY_NAME: ("REPOS", "", CMQC.MQ_CLUSTER_NAME_LENGTH),
    CMQC.MQCA_REPOSITORY_NAMELIST: ("REPOSNL", "", CMQC.MQ_NAMELIST_NAME_LENGTH),
    CMQC.MQCA_SSL_CRL_NAMELIST: ("SSLCRLNL", "", CMQC.MQ_NAMELIST_NAME_LENGTH),
    CMQC.MQCA_SSL_CRYPTO_HARDWARE: ("SSLCRYP", "", CMQC.MQ_SSL_CRYPTO_HARDWARE_LENGTH),
    CMQC.MQCA_SSL_KEY_REPOSITORY: ("SSLKEYR", "", CMQC.MQ_SSL_KEY_REPOSITORY_LENGTH),
    CMQC.MQCA_VERSION: ("VERSION", None, CMQC.MQ_VERSION_LENGTH),
}


_LOCAL = frozenset({"QLOCAL"})
_LOCAL_MODEL = frozenset({"QLOCAL", "QMODEL"})
_NOT_REMOTE = frozenset({"QLOCAL", "QMODEL", "QALIAS"})
_NOT_MODEL = frozenset({"QLOCAL", "QALIAS", "QREMOTE"})
_EVERY = frozenset({"QLOCAL", "QMODEL", "QALIAS", "QREMOTE"})
_QMGR_ON_OFF = {**_ON_OFF, "QMGR": CMQC.MQMON_Q_MGR}

#: selector -> (MQSC keyword, the queue types that have it, value of a new definition, MQSC
#: words or a string's MQ length): the queue attributes of IBM's MQINQ table (distributed
#: platforms) that the engine's shared table (selectors.QUEUE_SELECTORS) lacks
QUEUE_ATTRIBUTES: Mapping[int, tuple[str, frozenset[str], object, Mapping[str, int] | int]] = {
    CMQC.MQIA_ACCOUNTING_Q: ("ACCTQ", _LOCAL_MODEL, "QMGR", _QMGR_ON_OFF),
    CMQC.MQIA_MONITORING_Q: ("MONQ", _LOCAL_MODEL, "QMGR", _LEVELS),
    CMQC.MQIA_STATISTICS_Q: ("STATQ", _LOCAL_MODEL, "QMGR", _QMGR_ON_OFF),
    CMQC.MQIA_BASE_TYPE: ("TARGTYPE", frozenset({"QALIAS"}), "QUEUE", {
        "QUEUE": CMQC.MQOT_Q, "TOPIC": CMQC.MQOT_TOPIC}),
    CMQC.MQIA_CLWL_Q_PRIORITY: ("CLWLPRTY", _NOT_MODEL, 0, {}),
    CMQC.MQIA_CLWL_Q_RANK: ("CLWLRANK", _NOT_MODEL, 0, {}),
    CMQC.MQIA_CLWL_USEQ: ("CLWLUSEQ", _LOCAL, "QMGR", {
        "QMGR": CMQC.MQCLWL_USEQ_AS_Q_MGR, "LOCAL": CMQC.MQCLWL_USEQ_LOCAL,
        "ANY": CMQC.MQCLWL_USEQ_ANY}),
    CMQC.MQIA_DEF_BIND: ("DEFBIND", _EVERY, "OPEN", {
        "OPEN": CMQC.MQBND_BIND_ON_OPEN, "NOTFIXED": CMQC.MQBND_BIND_NOT_FIXED,
        "GROUP": CMQC.MQBND_BIND_ON_GROUP}),
    CMQC.MQIA_DEF_PUT_RESPONSE_TYPE: ("DEFPRESP", _EVERY, "SYNC", {
        "SYNC": CMQC.MQPRT_SYNC_RESPONSE, "ASYNC": CMQC.MQPRT_ASYNC_RESPONSE}),
    CMQC.MQIA_DEF_READ_AHEAD: ("DEFREADA", _NOT_REMOTE, "NO", {
        "NO": CMQC.MQREADA_NO, "YES": CMQC.MQREADA_YES, "DISABLED": CMQC.MQREADA_DISABLED}),
    CMQC.MQIA_HARDEN_GET_BACKOUT: ("HARDENBO", _LOCAL_MODEL, "YES", {
        "YES": CMQC.MQQA_BACKOUT_HARDENED, "NO": CMQC.MQQA_BACKOUT_NOT_HARDENED}),
    CMQC.MQIA_NPM_CLASS: ("NPMCLASS", _LOCAL_MODEL, "NORMAL", {
        "NORMAL": CMQC.MQNPM_CLASS_NORMAL, "HIGH": CMQC.MQNPM_CLASS_HIGH}),
    CMQC.MQIA_PROPERTY_CONTROL: ("PROPCTL", _NOT_REMOTE, "COMPAT", {
        "ALL": CMQC.MQPROP_ALL, "FORCE": CMQC.MQPROP_FORCE_MQRFH2,
        "COMPAT": CMQC.MQPROP_COMPATIBILITY, "NONE": CMQC.MQPROP_NONE,
        "V6COMPAT": CMQC.MQPROP_V6COMPAT}),
    CMQC.MQIA_Q_DEPTH_HIGH_EVENT: ("QDPHIEV", _LOCAL_MODEL, "DISABLED", _EVENT),
    CMQC.MQIA_Q_DEPTH_HIGH_LIMIT: ("QDEPTHHI", _LOCAL_MODEL, 80, {}),
    CMQC.MQIA_Q_DEPTH_LOW_EVENT: ("QDPLOEV", _LOCAL_MODEL, "DISABLED", _EVENT),
    CMQC.MQIA_Q_DEPTH_LOW_LIMIT: ("QDEPTHLO", _LOCAL_MODEL, 20, {}),
    CMQC.MQIA_Q_DEPTH_MAX_EVENT: ("QDPMAXEV", _LOCAL_MODEL, "ENABLED", _EVENT),
    CMQC.MQIA_Q_SERVICE_INTERVAL: ("QSVCINT", _LOCAL_MODEL, 999999999, {}),
    CMQC.MQIA_Q_SERVICE_INTERVAL_EVENT: ("QSVCIEV", _LOCAL_MODEL, "NONE", {
        "HIGH": CMQCFC.MQQSIE_HIGH, "OK": CMQCFC.MQQSIE_OK, "NONE": CMQCFC.MQQSIE_NONE}),
    CMQC.MQIA_RETENTION_INTERVAL: ("RETINTVL", _LOCAL_MODEL, 999999999, {}),
    CMQC.MQIA_SCOPE: ("SCOPE", _NOT_MODEL, "QMGR", {"QMGR": CMQCFC.MQSCO_Q_MGR,
                                                     "CELL": CMQCFC.MQSCO_CELL}),
    CMQC.MQCA_CLUSTER_NAME: ("CLUSTER", _NOT_MODEL, "", CMQC.MQ_CLUSTER_NAME_LENGTH),
    CMQC.MQCA_CLUSTER_NAMELIST: ("CLUSNL", _NOT_MODEL, "", CMQC.MQ_NAMELIST_NAME_LENGTH),
    CMQC.MQCA_CUSTOM: ("CUSTOM", _EVERY, "", CMQC.MQ_CUSTOM_LENGTH),
}


def _as_mqi(value: object, form: Mapping[str, int] | int) -> int | bytes:
    """A stored value as MQINQ answers it: a string blank-padded to its MQ length
    (``form`` an int), a word as MQ's number, or an integer."""
    if isinstance(form, int):
        return str(value).encode("latin-1", "replace")[:form].ljust(form, b" ")
    if isinstance(value, str) and value in form:
        return form[value]
    return int(value)  # type: ignore[call-overload]


def queue_attribute(selector: int, objtype: str, attributes: Mapping[str, object]
                    ) -> int | bytes:
    """MQINQ's answer for one queue ``selector`` of :data:`QUEUE_ATTRIBUTES`; for a queue
    type without it, MQCC_WARNING with MQRC_SELECTOR_NOT_FOR_TYPE."""
    keyword, types, default, form = QUEUE_ATTRIBUTES[selector]
    if objtype not in types:
        raise _fail(CMQC.MQRC_SELECTOR_NOT_FOR_TYPE, _WARNING)
    return _as_mqi(attributes.get(keyword, default), form)


def version_of(cmdlevel: int) -> str:
    """The VRMF a command level stands for, as MQCA_VERSION gives it (925 -> ``09020500``)."""
    return f"{cmdlevel // 100:02d}{cmdlevel // 10 % 10:02d}{cmdlevel % 10:02d}00"


def _derived(keyword: str, name: str, qmgr: Mapping[str, object]) -> str:
    """The attributes whose default IBM derives from the queue manager: CERTLABL is
    ``ibmwebspheremq`` and the name in lower case, QMID the name and its creation time,
    VERSION the VRMF of the command level."""
    if keyword == "CERTLABL":
        return "ibmwebspheremq" + name.lower()
    if keyword == "QMID":
        return f"{name}_{qmgr.get('CRDATE', '')}_{qmgr.get('CRTIME', '')}"
    return version_of(int(qmgr.get("CMDLEVEL", CMQC.MQCMDL_CURRENT_LEVEL)))  # type: ignore


def qmgr_attribute(selector: int, name: str, qmgr: Mapping[str, object]) -> int | bytes:
    """MQINQ's answer for one queue-manager ``selector`` of :data:`QMGR_ATTRIBUTES`, from the
    queue manager's stored attributes ``qmgr``."""
    keyword, default, form = QMGR_ATTRIBUTES[selector]
    value = qmgr.get(keyword, default)
    if value is None:
        value = _derived(keyword, name, qmgr)
    return _as_mqi(value, form)


class InquireCalls:
    """MQINQ and MQSET of a :class:`~mqpy.engine.connection.Connection`."""

    @counted("inqs", "inq_fails")
    def inquire(self, hobj: int, selector: int) -> int | bytes:
        """MQINQ of one attribute of an open queue."""
        return self._inquire(hobj, selector)

    @counted("inqs", "inq_fails")
    def inquire_qmgr(self, selector: int) -> int | bytes:
        """MQINQ of one attribute of the queue manager."""
        return self._inquire_qmgr(selector)

    @counted("inqs", "inq_fails")
    def inquire_all(self, hobj: int, selectors: Iterable[int]) -> list[int | bytes]:
        """One MQINQ of ``selectors`` (``hobj`` 0: of the queue manager), as the bindings
        and client flows carry it: their values, in order."""
        if hobj == 0:
            return [self._inquire_qmgr(s) for s in selectors]
        return [self._inquire(hobj, s) for s in selectors]

    def _inquire(self, hobj: int, selector: int) -> int | bytes:
        eng = self.engine
        with eng.lock:
            self.check_usable()
            h = self._handle(hobj, CMQC.MQRC_NOT_OPEN_FOR_INQUIRE)
            if not h.options & CMQC.MQOO_INQUIRE:
                raise _fail(CMQC.MQRC_NOT_OPEN_FOR_INQUIRE)
            if selector == CMQC.MQIA_Q_TYPE:
                return sel.queue_type_of(h.obj.objtype)
            if selector == CMQC.MQCA_Q_NAME:
                return sel.to_mqi(selector, "NAME", h.obj.name)
            keyword = sel.QUEUE_SELECTORS.get(selector)
            if keyword is None:
                if selector in QUEUE_ATTRIBUTES:
                    return queue_attribute(selector, h.obj.objtype, h.obj.attributes)
                raise _fail(CMQC.MQRC_SELECTOR_ERROR)
            if keyword in ("CURDEPTH", "IPPROCS", "OPPROCS"):
                if h.obj.objtype != "QLOCAL":
                    raise _fail(CMQC.MQRC_SELECTOR_NOT_FOR_TYPE, _WARNING)
                return int(eng.queue_status(h.obj.name)[keyword])  # type: ignore[arg-type]
            if keyword == "DEFTYPE" and h.obj.objtype == "QLOCAL":
                return sel.to_mqi(selector, keyword,
                                  h.obj.attributes.get("DEFTYPE", "PREDEFINED"))
            if keyword == "DISTL" and h.obj.objtype == "QLOCAL":  # older definitions lack it
                return sel.to_mqi(selector, keyword, h.obj.attributes.get("DISTL", "NO"))
            if keyword not in h.obj.attributes:
                raise _fail(CMQC.MQRC_SELECTOR_NOT_FOR_TYPE, _WARNING)
            return sel.to_mqi(selector, keyword, h.obj.attributes[keyword])

    def _inquire_qmgr(self, selector: int) -> int | bytes:
        eng = self.engine
        with eng.lock:
            self.check_usable()
            keyword = sel.QMGR_SELECTORS.get(selector)
            if keyword is None:
                if selector in QMGR_ATTRIBUTES:
                    return qmgr_attribute(selector, eng.name, eng.catalog.qmgr)
                raise _fail(CMQC.MQRC_SELECTOR_ERROR)
            value = eng.name if keyword == "QMNAME" else eng.catalog.qmgr.get(keyword, "")
            return sel.to_mqi(selector, keyword, value)

    def set(self, hobj: int, selector: int, value: int | bytes | str) -> None:
        """MQSET of one attribute (:meth:`set_many`)."""
        self.set_many(hobj, ((selector, value),))

    @counted("sets", "set_fails")
    def set_many(self, hobj: int, settings: Iterable[tuple[int, int | bytes | str]]) -> None:
        """MQSET of the attributes IBM allows (inhibit put/get, trigger attributes,
        distribution lists), all or none: "If the call fails, no attributes are changed".
        Every selector and value is judged first, in the order given, the first one wrong
        failing the call with its reason (:func:`set_value`); then they are set together,
        in one ALTER of the queue (a selector given twice: its last value, as IBM's)."""
        eng = self.engine
        with eng.lock:
            self.check_usable()
            h = self._handle(hobj, CMQC.MQRC_NOT_OPEN_FOR_SET)
            if not h.options & CMQC.MQOO_SET:
                raise _fail(CMQC.MQRC_NOT_OPEN_FOR_SET)
            changes: dict[str, object] = {}
            for count, (selector, value) in enumerate(settings, 1):
                if count > _MAX_SELECTORS:
                    raise _fail(CMQC.MQRC_SELECTOR_COUNT_ERROR)
                keyword, stored = set_value(h.obj.objtype, h.obj.attributes, selector, value)
                changes[keyword] = stored
            if changes:
                before = h.obj.attributes  # (ALTER replaces the dictionary, never edits it)
                eng.alter(h.obj.objtype, h.obj.name, changes)
                if eng.object_changed is not None:  # configuration events (CONFIGEV)
                    eng.object_changed(self, "MQSET", h.obj, before)


#: the most selectors one MQSET may have (IBM's)
_MAX_SELECTORS = 256
#: MQSET's reason for a value its selector does not take (IBM's), else
#: MQRC_INT_ATTRS_ARRAY_ERROR or MQRC_CHAR_ATTRS_ERROR
_VALUE_ERRORS = {
    CMQC.MQIA_INHIBIT_PUT: CMQC.MQRC_INHIBIT_VALUE_ERROR,
    CMQC.MQIA_INHIBIT_GET: CMQC.MQRC_INHIBIT_VALUE_ERROR,
    CMQC.MQIA_TRIGGER_CONTROL: CMQC.MQRC_TRIGGER_CONTROL_ERROR,
    CMQC.MQIA_TRIGGER_TYPE: CMQC.MQRC_TRIGGER_TYPE_ERROR,
    CMQC.MQIA_TRIGGER_DEPTH: CMQC.MQRC_TRIGGER_DEPTH_ERROR,
    CMQC.MQIA_TRIGGER_MSG_PRIORITY: CMQC.MQRC_TRIGGER_MSG_PRIORITY_ERR,
}
#: the integer attributes' ranges (TRIGDPTH from 1; TRIGMPRI 0 to MAXPRTY, 9)
_RANGES = {CMQC.MQIA_TRIGGER_DEPTH: (1, 999999999),
           CMQC.MQIA_TRIGGER_MSG_PRIORITY: (0, 9)}
#: the character attributes MQSET sets, and their lengths: IBM's MQSET takes that many
#: characters of CharAttrs for each, so a longer value is cut there (a longer TRIGDATA
#: stored made every trigger message of the queue fail, after its put was made)
_CHAR_LENGTHS = {CMQC.MQCA_TRIGGER_DATA: CMQC.MQ_TRIGGER_DATA_LENGTH}


def set_value(objtype: str, attributes: Mapping[str, object], selector: int,
              value: int | bytes | str) -> tuple[str, object]:
    """The MQSC keyword and stored value MQSET makes of ``selector`` and ``value`` for a
    queue of ``objtype`` with ``attributes``, or the call's failure: MQRC_SELECTOR_ERROR (not
    one MQSET sets), MQRC_SELECTOR_NOT_FOR_TYPE, or the value's reason (``_VALUE_ERRORS``)."""
    if selector not in sel.SETTABLE:
        raise _fail(CMQC.MQRC_SELECTOR_ERROR)
    keyword = sel.QUEUE_SELECTORS[selector]
    if keyword not in attributes and not (keyword == "DISTL" and objtype == "QLOCAL"):
        raise _fail(CMQC.MQRC_SELECTOR_NOT_FOR_TYPE)
    wrong = _VALUE_ERRORS.get(selector, CMQC.MQRC_CHAR_ATTRS_ERROR
                              if isinstance(value, (bytes, str))
                              else CMQC.MQRC_INT_ATTRS_ARRAY_ERROR)
    length = _CHAR_LENGTHS.get(selector)
    if length is not None:  # a character attribute: characters, as many as it holds
        if not isinstance(value, (bytes, bytearray, str)):
            raise _fail(CMQC.MQRC_CHAR_ATTRS_ERROR)
        value = bytes(value[:length]) if not isinstance(value, str) else value[:length]
    try:
        stored = sel.from_mqi(keyword, value)
    except (ValueError, TypeError):
        raise _fail(wrong) from None
    bounds = _RANGES.get(selector)
    if bounds is not None and not (isinstance(stored, int)
                                   and bounds[0] <= stored <= bounds[1]):
        raise _fail(wrong)
    return keyword, stored
