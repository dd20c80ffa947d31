"""MQINQ / MQSET selectors: IBM's MQIA_* / MQCA_* numbers mapped onto MQSC attribute keywords.

Definitions keep MQSC's words (``PUT(DISABLED)``); the MQI speaks numbers
(``MQIA_INHIBIT_PUT`` = ``MQQA_PUT_INHIBITED``). This table is the one place that translates.
"""

from __future__ import annotations

from mqpy import CMQC

_QTYPE = {"QLOCAL": CMQC.MQQT_LOCAL, "QMODEL": CMQC.MQQT_MODEL, "QALIAS": CMQC.MQQT_ALIAS,
          "QREMOTE": CMQC.MQQT_REMOTE}

# keyword -> {MQSC word: MQI number}
ENUMS: dict[str, dict[str, int]] = {
    "PUT": {"ENABLED": CMQC.MQQA_PUT_ALLOWED, "DISABLED": CMQC.MQQA_PUT_INHIBITED},
    "GET": {"ENABLED": CMQC.MQQA_GET_ALLOWED, "DISABLED": CMQC.MQQA_GET_INHIBITED},
    "DEFPSIST": {"YES": CMQC.MQPER_PERSISTENT, "NO": CMQC.MQPER_NOT_PERSISTENT},
    "MSGDLVSQ": {"PRIORITY": CMQC.MQMDS_PRIORITY, "FIFO": CMQC.MQMDS_FIFO},
    "SHARE": {"YES": CMQC.MQQA_SHAREABLE, "NO": CMQC.MQQA_NOT_SHAREABLE},
    "DEFSOPT": {"SHARED": CMQC.MQOO_INPUT_SHARED, "EXCL": CMQC.MQOO_INPUT_EXCLUSIVE},
    "USAGE": {"NORMAL": CMQC.MQUS_NORMAL, "XMITQ": CMQC.MQUS_TRANSMISSION},
    "TRIGGER": {"YES": CMQC.MQTC_ON, "NO": CMQC.MQTC_OFF},
    "TRIGTYPE": {"NONE": CMQC.MQTT_NONE, "FIRST": CMQC.MQTT_FIRST, "EVERY": CMQC.MQTT_EVERY,
                 "DEPTH": CMQC.MQTT_DEPTH},
    "MONCHL": {"OFF": CMQC.MQMON_OFF, "NONE": CMQC.MQMON_NONE, "LOW": CMQC.MQMON_LOW,
               "MEDIUM": CMQC.MQMON_MEDIUM, "HIGH": CMQC.MQMON_HIGH,
               "QMGR": CMQC.MQMON_Q_MGR},
    "DISTL": {"YES": CMQC.MQDL_SUPPORTED, "NO": CMQC.MQDL_NOT_SUPPORTED},
    "DEFTYPE": {"PREDEFINED": CMQC.MQQDT_PREDEFINED, "PERMDYN": CMQC.MQQDT_PERMANENT_DYNAMIC,
                "TEMPDYN": CMQC.MQQDT_TEMPORARY_DYNAMIC},
}

# selector -> keyword (live status keywords come from the engine's queue_status)
QUEUE_SELECTORS: dict[int, str] = {
    CMQC.MQIA_CURRENT_Q_DEPTH: "CURDEPTH",
    CMQC.MQIA_OPEN_INPUT_COUNT: "IPPROCS",
    CMQC.MQIA_OPEN_OUTPUT_COUNT: "OPPROCS",
    CMQC.MQIA_MAX_Q_DEPTH: "MAXDEPTH",
    CMQC.MQIA_MAX_MSG_LENGTH: "MAXMSGL",
    CMQC.MQIA_DEF_PERSISTENCE: "DEFPSIST",
    CMQC.MQIA_DEF_PRIORITY: "DEFPRTY",
    CMQC.MQIA_INHIBIT_PUT: "PUT",
    CMQC.MQIA_INHIBIT_GET: "GET",
    CMQC.MQIA_MSG_DELIVERY_SEQUENCE: "MSGDLVSQ",
    CMQC.MQIA_SHAREABILITY: "SHARE",
    CMQC.MQIA_DEF_INPUT_OPEN_OPTION: "DEFSOPT",
    CMQC.MQIA_USAGE: "USAGE",
    CMQC.MQIA_BACKOUT_THRESHOLD: "BOTHRESH",
    CMQC.MQIA_TRIGGER_CONTROL: "TRIGGER",
    CMQC.MQIA_TRIGGER_TYPE: "TRIGTYPE",
    CMQC.MQIA_TRIGGER_DEPTH: "TRIGDPTH",
    CMQC.MQIA_TRIGGER_MSG_PRIORITY: "TRIGMPRI",
    CMQC.MQIA_DEFINITION_TYPE: "DEFTYPE",
    CMQC.MQIA_DIST_LISTS: "DISTL",
    CMQC.MQCA_Q_DESC: "DESCR",
    CMQC.MQCA_BACKOUT_REQ_Q_NAME: "BOQNAME",
    CMQC.MQCA_TRIGGER_DATA: "TRIGDATA",
    CMQC.MQCA_INITIATION_Q_NAME: "INITQ",
    CMQC.MQCA_PROCESS_NAME: "PROCESS",
    CMQC.MQCA_BASE_Q_NAME: "TARGET",
    CMQC.MQCA_REMOTE_Q_NAME: "RNAME",
    CMQC.MQCA_REMOTE_Q_MGR_NAME: "RQMNAME",
    CMQC.MQCA_XMIT_Q_NAME: "XMITQ",
    CMQC.MQCA_STORAGE_CLASS: "STGCLASS",
    CMQC.MQCA_CREATION_DATE: "CRDATE",
    CMQC.MQCA_CREATION_TIME: "CRTIME",
    CMQC.MQCA_ALTERATION_DATE: "ALTDATE",
    CMQC.MQCA_ALTERATION_TIME: "ALTTIME",
}

QMGR_SELECTORS: dict[int, str] = {
    CMQC.MQCA_Q_MGR_NAME: "QMNAME",
    CMQC.MQCA_DEAD_LETTER_Q_NAME: "DEADQ",
    CMQC.MQCA_DEF_XMIT_Q_NAME: "DEFXMITQ",
    CMQC.MQIA_MAX_MSG_LENGTH: "MAXMSGL",
    CMQC.MQIA_MAX_PRIORITY: "MAXPRTY",
    CMQC.MQIA_CODED_CHAR_SET_ID: "CCSID",
    CMQC.MQIA_TRIGGER_INTERVAL: "TRIGINT",
    CMQC.MQIA_COMMAND_LEVEL: "CMDLEVEL",
    CMQC.MQIA_PLATFORM: "PLATFORM",
    CMQC.MQIA_SYNCPOINT: "SYNCPT",
    CMQC.MQIA_MAX_UNCOMMITTED_MSGS: "MAXUMSGS",
    CMQC.MQCA_COMMAND_INPUT_Q_NAME: "COMMANDQ",
    CMQC.MQCA_Q_MGR_DESC: "DESCR",
    CMQC.MQIA_MONITORING_CHANNEL: "MONCHL",
    CMQC.MQIA_SSL_RESET_COUNT: "SSLRKEYC",
}

# Character attributes' lengths (MQ_*_LENGTH) for MQINQ answers.
_CHAR_LENGTHS = {"DESCR": 64, "TRIGDATA": 64, "CRDATE": 12, "CRTIME": 8, "ALTDATE": 12,
                 "ALTTIME": 8, "STGCLASS": 8}

SETTABLE = {CMQC.MQIA_INHIBIT_PUT, CMQC.MQIA_INHIBIT_GET, CMQC.MQIA_TRIGGER_CONTROL,
            CMQC.MQIA_TRIGGER_TYPE, CMQC.MQIA_TRIGGER_DEPTH, CMQC.MQIA_TRIGGER_MSG_PRIORITY,
            CMQC.MQCA_TRIGGER_DATA, CMQC.MQIA_DIST_LISTS}

_SPECIAL = {"PLATFORM": {"UNIX": CMQC.MQPL_UNIX}, "SYNCPT": {"AVAILABLE": CMQC.MQSP_AVAILABLE}}


def to_mqi(selector: int, keyword: str, value: object, objtype: str | None = None) -> int | bytes:
    """An attribute value as MQINQ returns it: an int, or blank-padded bytes."""
    if keyword == "QTYPE":
        return _QTYPE[str(value)]
    enum = ENUMS.get(keyword) or _SPECIAL.get(keyword)
    if enum is not None:
        return enum[str(value)]
    if CMQC.MQIA_FIRST <= selector <= CMQC.MQIA_LAST:
        return int(value)  # type: ignore[arg-type]
    length = _CHAR_LENGTHS.get(keyword, 48)
    raw = str(value).encode("latin-1", "replace")
    return raw[:length].ljust(length, b" ")


def from_mqi(keyword: str, value: int | bytes | str) -> object:
    """An MQSET value as the definition stores it."""
    enum = ENUMS.get(keyword)
    if enum is not None:
        for word, number in enum.items():
            if number == value:
                return word
        raise ValueError(value)
    if isinstance(value, str):  # embedded: as the bindings and client MQSET send it
        value = value.encode("utf-8")
    if isinstance(value, bytes):
        return value.decode("latin-1").rstrip(" \x00")
    return int(value)


def queue_type_of(objtype: str) -> int:
    return _QTYPE[objtype]
