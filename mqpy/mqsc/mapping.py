"""MQSC parameters <-> the engine's stored attributes, and the defaults DISPLAY shows.

The engine stores an object's attributes under the MQSC keyword, with MQSC's words as values
(``mqpy.engine.objects``), and the parser hands over the same keywords, so almost everything
passes through unchanged. The exceptions are the attributes MQSC writes as a bare flag and
its ``NO`` form; they are stored as one keyword with YES/NO:

=============  ==============  ==================================
MQSC (input)   stored          DISPLAY prints
=============  ==============  ==================================
TRIGGER        TRIGGER YES     TRIGGER
NOTRIGGER      TRIGGER NO      NOTRIGGER
SHARE          SHARE YES       SHARE
NOSHARE        SHARE NO        NOSHARE
HARDENBO       HARDENBO YES    HARDENBO
NOHARDENBO     HARDENBO NO     NOHARDENBO
(none)         SYNCPT AVAIL.   SYNCPT (queue manager)
list values    list            comma separated (``NAMES(A,B)``)
=============  ==============  ==================================

Attributes an object was stored without (system objects made before an attribute was known,
or attributes the engine does not use) show IBM's default from :data:`EXTRA_DEFAULTS`.
Channel definitions get IBM's defaults for their channel type from :func:`channel_defaults`.
"""

from __future__ import annotations

from collections.abc import Mapping

from mqpy.mqsc import grammar as g

__all__ = [
    "EXTRA_DEFAULTS",
    "FLAG_ATTRS",
    "STAMPS",
    "channel_defaults",
    "display_items",
    "display_keywords",
    "to_stored",
]

#: bare keyword -> (stored keyword, stored value)
FLAG_ATTRS: Mapping[str, tuple[str, str]] = {
    "TRIGGER": ("TRIGGER", "YES"),
    "NOTRIGGER": ("TRIGGER", "NO"),
    "SHARE": ("SHARE", "YES"),
    "NOSHARE": ("SHARE", "NO"),
    "HARDENBO": ("HARDENBO", "YES"),
    "NOHARDENBO": ("HARDENBO", "NO"),
}

#: creation/alteration stamps: kept by the engine, never copied by LIKE or REPLACE.
STAMPS = frozenset({"CRDATE", "CRTIME", "ALTDATE", "ALTTIME"})

_NINES = 999_999_999

_Q_EXTRA: dict[str, object] = {
    "DEFPRESP": "SYNC", "CUSTOM": "", "SCOPE": "QMGR", "DEFBIND": "OPEN",
}
_QL_EXTRA: dict[str, object] = {
    **_Q_EXTRA, "DEFREADA": "NO", "PROPCTL": "COMPAT", "QDPHIEV": "DISABLED",
    "QDPLOEV": "DISABLED", "QDPMAXEV": "ENABLED", "QSVCIEV": "NONE", "QSVCINT": _NINES,
    "DISTL": "NO", "CLCHNAME": "", "MAXFSIZE": "DEFAULT", "IMGRCOVQ": "QMGR",
    "DEFTYPE": "PREDEFINED", "TRIGGER": "NO", "HARDENBO": "YES", "SHARE": "YES",
}  # fmt: skip

#: objtype -> attributes IBM shows that the engine's defaults may lack.
EXTRA_DEFAULTS: Mapping[str, Mapping[str, object]] = {
    "QLOCAL": _QL_EXTRA,
    "QMODEL": {**_QL_EXTRA, "DEFTYPE": "TEMPDYN"},
    "QALIAS": {**_Q_EXTRA, "DEFREADA": "NO", "PROPCTL": "COMPAT"},
    "QREMOTE": dict(_Q_EXTRA),
    "NAMELIST": {"NLTYPE": "NONE"},
    "STGCLASS": {"XCFGNAME": "", "XCFMNAME": "", "PASSTKTA": "NO"},
    "LISTENER": {"ADAPTER": 0, "COMMANDS": 0, "LOCLNAME": "", "NTBNAMES": 0,
                 "SESSIONS": 0, "SOCKET": 0, "TPNAME": ""},
    "CHANNEL": {},
    "PROCESS": {},
    "QMGR": {
        "DEFCLXQ": "SCTQ", "MAXHANDS": 256, "CHADEXIT": "", "STATACLS": "QMGR",
        "ACCTCONO": "DISABLED", "MONACLS": "QMGR", "ADOPTMCA": "ALL", "ADOPTCHK": "ALL",
        "SSLKEYR": "", "SSLRKEYC": 0, "CERTLABL": "ibmwebspheremq", "CONNAUTH": "", "CHLAUTH": "ENABLED",
        "CLWLDATA": "", "CLWLEXIT": "", "CLWLLEN": 100, "CLWLMRUC": _NINES,
        "SCHINIT": "QMGR", "SCMDSERV": "QMGR", "MARKINT": 5000, "ROUTEREC": "MSG",
        "ACTIVREC": "MSG", "AUTHOREV": "DISABLED", "INHIBTEV": "DISABLED",
        "LOCALEV": "DISABLED", "REMOTEEV": "DISABLED", "PERFMEV": "DISABLED",
        "STRSTPEV": "ENABLED", "CHLEV": "DISABLED", "SSLEV": "DISABLED",
        "CONFIGEV": "DISABLED", "CMDEV": "DISABLED", "LOGGEREV": "DISABLED",
        "IPADDRV": "IPV4", "MAXPROPL": "NOLIMIT", "PSMODE": "ENABLED", "TREELIFE": 1800,
        "PARENT": "", "TCPKEEP": "NO", "DISTL": "YES", "VERSION": "09020500",
        "QMID": "", "ACCTMQI": "OFF", "ACCTQ": "OFF",
    },
}  # fmt: skip

# IBM's defaults for a channel (SYSTEM.DEF.* channels), applied then filtered by CHLTYPE.
_CHANNEL_DEFAULTS: dict[str, object] = {
    "DESCR": "", "TRPTYPE": "TCP", "CONNAME": "", "XMITQ": "", "MCATYPE": "PROCESS",
    "MCANAME": "", "MCAUSER": "", "BATCHSZ": 50, "BATCHINT": 0, "BATCHHB": 0,
    "BATCHLIM": 5000, "DISCINT": 6000, "HBINT": 300, "KAINT": "AUTO", "SHORTRTY": 10,
    "SHORTTMR": 60, "LONGRTY": _NINES, "LONGTMR": 1200, "MAXMSGL": 4194304,
    "SEQWRAP": _NINES, "NPMSPEED": "FAST", "MRRTY": 10, "MRTMR": 1000, "MREXIT": "",
    "MRDATA": "", "PUTAUT": "DEF", "USEDLQ": "YES", "CONVERT": "NO", "MONCHL": "QMGR",
    "STATCHL": "QMGR",
    "SSLCIPH": "", "SSLCAUTH": "REQUIRED", "SSLPEER": "", "CERTLABL": "", "SHARECNV": 10,
    "MAXINST": _NINES, "MAXINSTC": _NINES, "CLUSTER": "", "CLUSNL": "", "CLWLPRTY": 0,
    "CLWLRANK": 0, "CLWLWGHT": 50, "NETPRTY": 0, "QMNAME": "", "USERID": "",
    "PASSWORD": "", "SCYEXIT": "", "SCYDATA": "", "MSGEXIT": [], "MSGDATA": [],
    "SENDEXIT": [], "SENDDATA": [], "RCVEXIT": [], "RCVDATA": [], "COMPHDR": ["NONE"],
    "COMPMSG": ["NONE"], "DEFRECON": "NO", "AFFINITY": "PREFERRED", "CLNTWGHT": 0,
    "LOCLADDR": "", "TPNAME": "", "MODENAME": "", "PROPCTL": "COMPAT",
    "AUTOSTART": "ENABLED",
}  # fmt: skip

#: SVRCONN channels do not disconnect idle clients by default (IBM: DISCINT(0)).
_PER_TYPE: dict[str, dict[str, object]] = {"SVRCONN": {"DISCINT": 0}}


def channel_defaults(chltype: str) -> dict[str, object]:
    """IBM's defaults for a new channel of ``chltype``: only the attributes it has."""
    allowed = g.CHLTYPE_ATTRS[chltype]
    out: dict[str, object] = {"CHLTYPE": chltype}
    for key, value in {**_CHANNEL_DEFAULTS, **_PER_TYPE.get(chltype, {})}.items():
        if key in allowed:
            out[key] = list(value) if isinstance(value, list) else value
    return out


def to_stored(params: Mapping[str, object], flags: frozenset[str]) -> dict[str, object]:
    """A parsed command's ``KEY(value)`` parameters and flags as stored attributes."""
    out: dict[str, object] = {}
    for key, value in params.items():
        if key == "LIKE":
            continue
        out[key] = list(value) if isinstance(value, tuple) else value
    for flag in flags:
        if flag in FLAG_ATTRS:
            key, value = FLAG_ATTRS[flag]
            out[key] = value
    return out


def display_keywords(objtype: str, chltype: str = "") -> frozenset[str]:
    """The stored keywords DISPLAY shows for an object of ``objtype`` (flags by base name)."""
    if objtype in g.QUEUE_TYPE_ATTRS:
        base = set(g.QUEUE_TYPE_ATTRS[objtype]) | {"CRDATE", "CRTIME", "ALTDATE", "ALTTIME"}
        if objtype == "QLOCAL":
            base |= {"CURDEPTH", "IPPROCS", "OPPROCS", "DEFTYPE"}
    elif objtype == "CHANNEL":
        base = set(g.CHLTYPE_ATTRS.get(chltype, ())) | {"ALTDATE", "ALTTIME"}
    elif objtype == "QMGR":
        base = {k for k in (*g.QMGR_ATTRS, *g.QMGR_STATUS_ATTRS) if k not in ("FORCE", "ALL")}
    else:
        spec = g.command_spec("DISPLAY", objtype)
        base = set(spec.display or {}) if spec is not None else set()
    return frozenset(FLAG_ATTRS.get(k, (k, ""))[0] for k in base)


def display_items(stored: Mapping[str, object]) -> list[tuple[str, object]]:
    """Stored attributes as ``(keyword, value)`` DISPLAY items, in IBM's order (alphabetical
    by the keyword printed; a flag sorts under its printed form, NOTRIGGER under N)."""
    items: list[tuple[str, object]] = []
    for key, value in stored.items():
        if key in ("TRIGGER", "SHARE", "HARDENBO") and value in ("YES", "NO"):
            items.append((key if value == "YES" else f"NO{key}", None))
        elif key == "SYNCPT":
            items.append(("SYNCPT", None))
        else:
            items.append((key, value))
    items.sort(key=lambda kv: kv[0])
    return items
