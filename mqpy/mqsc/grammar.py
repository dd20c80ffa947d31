"""The MQSC vocabulary as data: verbs, object types, attribute keywords, and which go together.

Theory of operation. Everything the parser accepts is declared here once, in tables, so the
command processor and DISPLAY output read the same facts:

- :data:`VERBS` / :data:`OBJECTS`: canonical keyword -> accepted synonyms (IBM's "MQSC command
  and object synonyms" table; ``DEFI`` is not ``DEFINE``: synonyms are not prefixes, and
  DELETE has none on purpose).
- :class:`Attr`: one attribute keyword: its canonical name, value kind (name / string /
  integer / enum / list / flag), length or range, enum values, synonyms (``TARGQ`` for
  ``TARGET``), and for a flag the keyword it negates (``NOTRIGGER`` -> ``TRIGGER``).
- Per object type, a dict of the attributes it has (``QUEUE_ATTRS``, ``CHANNEL_ATTRS`` ...).
  The same keyword may differ by object (``MAXMSGL`` has a higher floor on QMGR, ``MONCHL``
  takes ``QMGR`` on a channel but not on the queue manager), so lookups are per object.
- :class:`CommandSpec`: for each (verb, object) pair, whether a name is required and may be
  generic, which ``KEY(value)`` parameters and bare flags are allowed, which attributes
  DISPLAY may request or filter with WHERE, which parameters are required, and, for
  channels, which attributes each CHLTYPE accepts (:data:`CHLTYPE_ATTRS`).

Ranges and values are IBM MQ 9's for Multiplatforms; z/OS-only keywords (QSGDISP,
CMDSCOPE ...) are left out. STGCLASS and NAMELIST NLTYPE are kept because the spec names
storage classes.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from types import MappingProxyType

import attrs

from mqpy.fap.channeldefs import CLUSRCVR_TO_CLUSSDR

__all__ = [
    "Attr",
    "CHANNEL_ATTRS",
    "CHLTYPES",
    "CHLTYPE_ATTRS",
    "COMMANDS",
    "CommandSpec",
    "OBJECTS",
    "QUEUE_TYPE_ATTRS",
    "VERBS",
    "WHERE_OPERATORS",
    "canonical_object",
    "canonical_verb",
    "command_spec",
    "objects_for_verb",
    "syntax_help",
]

# Value kinds.
NAME = "name"  #: an MQ object name: unquoted it is folded and limited to A-Z 0-9 . / _ %
STRING = "string"  #: free text; quote it to keep case and blanks
INT = "int"
ENUM = "enum"
LIST = "list"
FLAG = "flag"  #: a bare keyword (REPLACE, NOTRIGGER, ALL)


@attrs.frozen(slots=True)
class Attr:
    """One MQSC attribute keyword and the values it takes."""

    keyword: str
    kind: str
    length: int = 0  #: NAME / STRING / list items: maximum length
    minimum: int = 0  #: INT
    maximum: int = 0  #: INT
    values: tuple[str, ...] = ()  #: ENUM values; INT: words allowed besides numbers (AUTO)
    item: str = ""  #: LIST: kind of each item (NAME, STRING or ENUM)
    max_items: int = 0  #: LIST
    negates: str = ""  #: FLAG: the keyword this one turns off (NOTRIGGER -> TRIGGER)
    synonyms: tuple[str, ...] = ()


def name(k: str, n: int = 48, *syn: str) -> Attr:
    return Attr(k, NAME, length=n, synonyms=syn)


def string(k: str, n: int) -> Attr:
    return Attr(k, STRING, length=n)


def integer(k: str, lo: int, hi: int, *words: str) -> Attr:
    return Attr(k, INT, minimum=lo, maximum=hi, values=words)


def enum(k: str, *values: str) -> Attr:
    return Attr(k, ENUM, values=values)


def flag(k: str, negates: str = "") -> Attr:
    return Attr(k, FLAG, negates=negates)


def names(k: str, max_items: int, n: int = 48) -> Attr:
    return Attr(k, LIST, item=NAME, length=n, max_items=max_items)


def enums(k: str, max_items: int, *values: str) -> Attr:
    return Attr(k, LIST, item=ENUM, values=values, max_items=max_items)


def strings(k: str, max_items: int, n: int) -> Attr:
    return Attr(k, LIST, item=STRING, length=n, max_items=max_items)


def _table(*attrs_: Attr) -> dict[str, Attr]:
    return {a.keyword: a for a in attrs_}


def _frozen(d: Mapping[str, Attr]) -> Mapping[str, Attr]:
    return MappingProxyType(dict(d))


NINES = 999_999_999
ED = ("ENABLED", "DISABLED")
YESNO = ("YES", "NO")

# --------------------------------------------------------------------------------------
# Verbs and objects (IBM MQ 9.3 "MQSC command and object synonyms"; PRO is also accepted
# for PROCESS as the DEFINE PROCESS page gives "DEF PRO", and QR for QREMOTE).
# --------------------------------------------------------------------------------------

VERBS: Mapping[str, tuple[str, ...]] = MappingProxyType(
    {
        "ALTER": ("ALT",),
        "CLEAR": (),
        "DEFINE": ("DEF",),
        "DELETE": (),
        "DISPLAY": ("DIS",),
        "END": (),
        "EXIT": (),
        "PING": (),
        "QUIT": (),
        "REFRESH": ("REF",),
        "RESET": (),
        "RESOLVE": (),
        "RESUME": (),
        "SET": (),
        "START": ("STA",),
        "STOP": (),
        "SUSPEND": (),
    }
)

OBJECTS: Mapping[str, tuple[str, ...]] = MappingProxyType(
    {
        "AUTHINFO": (),
        "AUTHREC": (),
        "CHANNEL": ("CHL",),
        "CHINIT": (),
        "CHLAUTH": (),
        "CHSTATUS": ("CHS",),
        "CLUSQMGR": (),
        "CLUSTER": (),
        "CONN": (),
        "LISTENER": ("LSTR",),
        "LSSTATUS": (),
        "NAMELIST": ("NL",),
        "PROCESS": ("PRO", "PROC"),
        "PUBSUB": (),
        "QALIAS": ("QA",),
        "QCLUSTER": ("QC",),
        "TCLUSTER": (),
        "QLOCAL": ("QL",),
        "QMGR": (),
        "QMODEL": ("QM",),
        "QMSTATUS": (),
        "QREMOTE": ("QR",),
        "QSTATS": (),
        "QSTATUS": ("QS",),
        "QUEUE": ("Q",),
        "SBSTATUS": (),
        "SECURITY": ("SEC",),
        "SERVICE": (),
        "STGCLASS": ("STC",),
        "SUB": (),
        "SVSTATUS": (),
        "TOPIC": ("TPC",),
        "TPSTATUS": ("TPS",),
    }
)

_VERB_LOOKUP = {s: v for v, syns in VERBS.items() for s in (v, *syns)}
_OBJECT_LOOKUP = {s: o for o, syns in OBJECTS.items() for s in (o, *syns)}


def canonical_verb(word: str) -> str | None:
    """``'dis'`` -> ``'DISPLAY'``; None if not a verb."""
    return _VERB_LOOKUP.get(word.upper())


def canonical_object(word: str) -> str | None:
    """``'ql'`` -> ``'QLOCAL'``; None if not an object keyword."""
    return _OBJECT_LOOKUP.get(word.upper())


#: WHERE(keyword operator value) operators (DISPLAY QUEUE, "Parameter descriptions").
WHERE_OPERATORS: Mapping[str, str] = MappingProxyType(
    {
        "LT": "Less than",
        "GT": "Greater than",
        "EQ": "Equal to",
        "NE": "Not equal to",
        "LE": "Less than or equal to",
        "GE": "Greater than or equal to",
        "LK": "Matches a generic string",
        "NL": "Does not match a generic string",
        "CT": "Contains a specified item",
        "EX": "Does not contain a specified item",
        "CTG": "Contains an item which matches a generic string",
        "EXG": "Does not contain any item which matches a generic string",
    }
)

# --------------------------------------------------------------------------------------
# Queues
# --------------------------------------------------------------------------------------

DESCR = string("DESCR", 64)
QTYPES = ("QLOCAL", "QMODEL", "QALIAS", "QREMOTE")

QUEUE_ATTRS: dict[str, Attr] = _table(
    DESCR,
    enum("PUT", *ED),
    enum("GET", *ED),
    integer("DEFPRTY", 0, 9),
    enum("DEFPSIST", *YESNO),
    enum("DEFPRESP", "SYNC", "ASYNC"),
    enum("DEFREADA", "NO", "YES", "DISABLED"),
    enum("DEFBIND", "OPEN", "NOTFIXED", "GROUP"),
    enum("PROPCTL", "ALL", "FORCE", "COMPAT", "NONE", "V6COMPAT"),
    enum("SCOPE", "QMGR", "CELL"),
    integer("MAXDEPTH", 0, NINES),
    integer("MAXMSGL", 0, 104_857_600),
    flag("SHARE"),
    flag("NOSHARE", negates="SHARE"),
    enum("DEFSOPT", "EXCL", "SHARED"),
    enum("MSGDLVSQ", "PRIORITY", "FIFO"),
    flag("TRIGGER"),
    flag("NOTRIGGER", negates="TRIGGER"),
    enum("TRIGTYPE", "FIRST", "EVERY", "DEPTH", "NONE"),
    integer("TRIGDPTH", 1, NINES),
    integer("TRIGMPRI", 0, 9),
    string("TRIGDATA", 64),
    name("INITQ"),
    name("PROCESS"),
    integer("BOTHRESH", 0, NINES),
    name("BOQNAME"),
    flag("HARDENBO"),
    flag("NOHARDENBO", negates="HARDENBO"),
    enum("USAGE", "NORMAL", "XMITQ"),
    name("STGCLASS", 8),
    integer("RETINTVL", 0, NINES),
    integer("QDEPTHHI", 0, 100),
    integer("QDEPTHLO", 0, 100),
    enum("QDPHIEV", *ED),
    enum("QDPLOEV", *ED),
    enum("QDPMAXEV", *ED),
    enum("QSVCIEV", "HIGH", "OK", "NONE"),
    integer("QSVCINT", 0, NINES),
    enum("DISTL", *YESNO),
    enum("NPMCLASS", "NORMAL", "HIGH"),
    enum("MONQ", "QMGR", "OFF", "LOW", "MEDIUM", "HIGH"),
    enum("STATQ", "QMGR", "OFF", "ON"),
    enum("ACCTQ", "QMGR", "OFF", "ON"),
    name("CLUSTER"),
    name("CLUSNL"),
    integer("CLWLPRTY", 0, 9),
    integer("CLWLRANK", 0, 9),
    enum("CLWLUSEQ", "QMGR", "LOCAL", "ANY"),
    enum("DEFTYPE", "PERMDYN", "TEMPDYN", "SHAREDYN", "PREDEFINED"),
    name("TARGET", 48, "TARGQ"),
    enum("TARGTYPE", "QUEUE", "TOPIC"),
    name("RNAME"),
    name("RQMNAME"),
    name("XMITQ"),
    string("CUSTOM", 128),
    name("CLCHNAME", 20),
    integer("MAXFSIZE", 20, NINES, "DEFAULT"),
    enum("IMGRCOVQ", "YES", "NO", "QMGR"),
)

_Q_COMMON = ("DESCR", "PUT", "DEFPRTY", "DEFPSIST", "DEFPRESP", "CUSTOM")
_Q_LOCAL_MODEL = (
    "GET", "MAXDEPTH", "MAXMSGL", "SHARE", "NOSHARE", "DEFSOPT", "MSGDLVSQ", "TRIGGER",
    "NOTRIGGER", "TRIGTYPE", "TRIGDPTH", "TRIGMPRI", "TRIGDATA", "INITQ", "PROCESS",
    "BOTHRESH", "BOQNAME", "HARDENBO", "NOHARDENBO", "USAGE", "STGCLASS", "RETINTVL",
    "QDEPTHHI", "QDEPTHLO", "QDPHIEV", "QDPLOEV", "QDPMAXEV", "QSVCIEV", "QSVCINT",
    "DISTL", "NPMCLASS", "MONQ", "STATQ", "ACCTQ", "DEFREADA", "PROPCTL", "DEFBIND",
    "CLCHNAME", "MAXFSIZE",
)  # fmt: skip
_Q_CLUSTERED = ("CLUSTER", "CLUSNL", "CLWLPRTY", "CLWLRANK", "DEFBIND", "SCOPE")

#: queue type -> attribute keywords DEFINE/ALTER accept for it.
QUEUE_TYPE_ATTRS: Mapping[str, frozenset[str]] = MappingProxyType(
    {
        "QLOCAL": frozenset(
            (*_Q_COMMON, *_Q_LOCAL_MODEL, *_Q_CLUSTERED, "CLWLUSEQ", "IMGRCOVQ")
        ),
        "QMODEL": frozenset((*_Q_COMMON, *_Q_LOCAL_MODEL, "DEFTYPE")),
        "QALIAS": frozenset(
            (*_Q_COMMON, *_Q_CLUSTERED, "GET", "TARGET", "TARGTYPE", "DEFREADA", "PROPCTL")
        ),
        "QREMOTE": frozenset((*_Q_COMMON, *_Q_CLUSTERED, "RNAME", "RQMNAME", "XMITQ")),
    }
)

#: attributes DISPLAY QUEUE shows that DEFINE cannot set.
QUEUE_STATUS_ATTRS: dict[str, Attr] = _table(
    name("QUEUE"),
    enum("TYPE", "QLOCAL", "QALIAS", "QREMOTE", "QMODEL", "QCLUSTER", "ALL"),
    integer("CURDEPTH", 0, NINES),
    integer("IPPROCS", 0, NINES),
    integer("OPPROCS", 0, NINES),
    string("CRDATE", 10),
    string("CRTIME", 8),
    string("ALTDATE", 10),
    string("ALTTIME", 8),
    name("CLUSQMGR"),
    string("CLUSDATE", 10),
    string("CLUSTIME", 8),
    enum("CLUSQT", "QALIAS", "QLOCAL", "QMGR", "QREMOTE"),
    string("QMID", 48),
    string("TPIPE", 8),
)

# --------------------------------------------------------------------------------------
# Channels
# --------------------------------------------------------------------------------------

CHLTYPES = ("SDR", "SVR", "RCVR", "RQSTR", "CLNTCONN", "SVRCONN", "CLUSSDR", "CLUSRCVR")

CHANNEL_ATTRS: dict[str, Attr] = _table(
    enum("CHLTYPE", *CHLTYPES),
    DESCR,
    enum("TRPTYPE", "TCP", "LU62", "NETBIOS", "SPX"),
    string("CONNAME", 264),
    name("XMITQ"),
    enum("MCATYPE", "PROCESS", "THREAD"),
    string("MCANAME", 20),
    string("MCAUSER", 64),
    integer("BATCHSZ", 1, 9999),
    integer("BATCHINT", 0, NINES),
    integer("BATCHHB", 0, NINES),
    integer("BATCHLIM", 0, 999_999),
    integer("DISCINT", 0, 999_999),
    integer("HBINT", 0, 999_999),
    integer("KAINT", 0, 99_999, "AUTO"),
    integer("SHORTRTY", 0, NINES),
    integer("SHORTTMR", 0, 999_999),
    integer("LONGRTY", 0, NINES),
    integer("LONGTMR", 0, 999_999),
    integer("MAXMSGL", 0, 104_857_600),
    integer("SEQWRAP", 100, NINES),
    enum("NPMSPEED", "FAST", "NORMAL"),
    integer("MRRTY", 0, NINES),
    integer("MRTMR", 0, NINES),
    string("MREXIT", 128),
    string("MRDATA", 32),
    enum("PUTAUT", "DEF", "CTX", "ONLYMCA", "ALTMCA"),
    enum("USEDLQ", *YESNO),
    enum("CONVERT", *YESNO),
    enum("MONCHL", "QMGR", "OFF", "LOW", "MEDIUM", "HIGH"),
    enum("STATCHL", "QMGR", "OFF", "LOW", "MEDIUM", "HIGH"),
    string("SSLCIPH", 32),
    enum("SSLCAUTH", "REQUIRED", "OPTIONAL"),
    string("SSLPEER", 1024),
    string("CERTLABL", 64),
    integer("SHARECNV", 0, NINES),
    integer("MAXINST", 0, NINES),
    integer("MAXINSTC", 0, NINES),
    name("CLUSTER"),
    name("CLUSNL"),
    integer("CLWLPRTY", 0, 9),
    integer("CLWLRANK", 0, 9),
    integer("CLWLWGHT", 1, 99),
    integer("NETPRTY", 0, 9),
    name("QMNAME"),
    string("USERID", 12),
    string("PASSWORD", 12),
    string("SCYEXIT", 128),
    string("SCYDATA", 32),
    strings("MSGEXIT", 10, 128),
    strings("MSGDATA", 10, 32),
    strings("SENDEXIT", 10, 128),
    strings("SENDDATA", 10, 32),
    strings("RCVEXIT", 10, 128),
    strings("RCVDATA", 10, 32),
    enums("COMPHDR", 2, "NONE", "SYSTEM"),
    enums("COMPMSG", 4, "NONE", "RLE", "ZLIBFAST", "ZLIBHIGH", "ANY"),
    enum("DEFRECON", "NO", "YES", "QMGR", "DISABLED"),
    enum("AFFINITY", "PREFERRED", "NONE"),
    integer("CLNTWGHT", 0, 99),
    string("LOCLADDR", 48),
    string("TPNAME", 64),
    string("MODENAME", 8),
    enum("PROPCTL", "COMPAT", "NONE", "ALL"),
    enum("AUTOSTART", *ED),
    enum("RESETSEQ", "NO"),
)

_SENDING = ("SDR", "SVR", "CLUSSDR", "CLUSRCVR")
_MESSAGE = ("SDR", "SVR", "RCVR", "RQSTR", "CLUSSDR", "CLUSRCVR")
_RECEIVING = ("RCVR", "RQSTR", "CLUSRCVR")
_ALL = CHLTYPES

#: attribute -> channel types it is valid for (IBM's "Channel attributes and channel types").
_CHANNEL_APPLICABILITY: dict[str, tuple[str, ...]] = {
    "CHLTYPE": _ALL, "DESCR": _ALL, "TRPTYPE": _ALL, "HBINT": _ALL, "KAINT": _ALL,
    "MAXMSGL": _ALL, "SSLCIPH": _ALL, "SSLPEER": _ALL, "CERTLABL": _ALL,
    "COMPHDR": _ALL, "COMPMSG": _ALL, "LOCLADDR": ("SDR", "SVR", "RQSTR", "CLNTCONN",
                                                    "CLUSSDR", "CLUSRCVR"),
    "CONNAME": ("SDR", "SVR", "RQSTR", "CLNTCONN", "CLUSSDR", "CLUSRCVR"),
    "XMITQ": ("SDR", "SVR"),
    "MCATYPE": ("SDR", "SVR", "RQSTR", "CLUSSDR", "CLUSRCVR"),
    "MCANAME": ("SDR", "SVR", "RQSTR", "CLUSSDR", "CLUSRCVR"),
    "MCAUSER": ("SDR", "SVR", "RCVR", "RQSTR", "SVRCONN", "CLUSSDR", "CLUSRCVR"),
    "BATCHSZ": _MESSAGE, "SEQWRAP": _MESSAGE, "NPMSPEED": _MESSAGE, "STATCHL": _MESSAGE,
    "BATCHINT": _SENDING, "BATCHHB": _SENDING, "BATCHLIM": _SENDING, "CONVERT": _SENDING,
    "SHORTRTY": _SENDING, "SHORTTMR": _SENDING, "LONGRTY": _SENDING, "LONGTMR": _SENDING,
    "PROPCTL": _SENDING,
    "DISCINT": (*_SENDING, "SVRCONN"),
    "MRRTY": _RECEIVING, "MRTMR": _RECEIVING, "MREXIT": _RECEIVING, "MRDATA": _RECEIVING,
    "PUTAUT": _RECEIVING, "USEDLQ": _MESSAGE,
    "MONCHL": tuple(t for t in _ALL if t != "CLNTCONN"),
    "SSLCAUTH": ("SVR", "RCVR", "RQSTR", "SVRCONN", "CLUSRCVR"),
    "SHARECNV": ("SVRCONN", "CLNTCONN"),
    "MAXINST": ("SVRCONN",), "MAXINSTC": ("SVRCONN",),
    "CLUSTER": ("CLUSSDR", "CLUSRCVR"), "CLUSNL": ("CLUSSDR", "CLUSRCVR"),
    "CLWLPRTY": ("CLUSSDR", "CLUSRCVR"), "CLWLRANK": ("CLUSSDR", "CLUSRCVR"),
    "CLWLWGHT": ("CLUSSDR", "CLUSRCVR"), "NETPRTY": ("CLUSRCVR",),
    "QMNAME": ("CLNTCONN",), "DEFRECON": ("CLNTCONN",), "AFFINITY": ("CLNTCONN",),
    "CLNTWGHT": ("CLNTCONN",),
    "USERID": ("SDR", "SVR", "RQSTR", "CLNTCONN", "CLUSSDR"),
    "PASSWORD": ("SDR", "SVR", "RQSTR", "CLNTCONN", "CLUSSDR"),
    "SCYEXIT": _ALL, "SCYDATA": _ALL, "SENDEXIT": _ALL, "SENDDATA": _ALL,
    "RCVEXIT": _ALL, "RCVDATA": _ALL,
    "MSGEXIT": _MESSAGE, "MSGDATA": _MESSAGE,
    "TPNAME": _ALL, "MODENAME": _ALL,
    "AUTOSTART": ("RCVR", "RQSTR", "SVR", "SVRCONN", "CLUSRCVR"),
}  # fmt: skip

#: channel type -> attribute keywords DEFINE/ALTER CHANNEL accept with it.
CHLTYPE_ATTRS: Mapping[str, frozenset[str]] = MappingProxyType(
    {
        t: frozenset(k for k, types in _CHANNEL_APPLICABILITY.items() if t in types)
        for t in CHLTYPES
    }
)

CHANNEL_STATUS_ATTRS: dict[str, Attr] = _table(
    name("CHANNEL", 20),
    string("ALTDATE", 10),
    string("ALTTIME", 8),
)

CHSTATUS_ATTRS: dict[str, Attr] = _table(
    name("CHANNEL", 20),
    enum("CHLTYPE", *CHLTYPES),
    string("CONNAME", 264),
    name("XMITQ"),
    enum("STATUS", "BINDING", "INACTIVE", "INITIALIZING", "PAUSED", "REQUESTING",
         "RETRYING", "RUNNING", "STARTING", "STOPPED", "STOPPING", "SWITCHING"),
    string("SUBSTATE", 16),
    integer("MSGS", 0, NINES),
    integer("BATCHES", 0, NINES),
    integer("BATCHSZ", 1, 9999),
    integer("BUFSSENT", 0, NINES),
    integer("BUFSRCVD", 0, NINES),
    integer("BYTSSENT", 0, NINES),
    integer("BYTSRCVD", 0, NINES),
    integer("LSTSEQNO", 0, NINES),
    integer("CURSEQNO", 0, NINES),
    integer("CURMSGS", 0, NINES),
    enum("INDOUBT", *YESNO),
    string("CURLUWID", 16),
    string("LSTLUWID", 16),
    integer("SHORTRTS", 0, NINES),
    integer("LONGRTS", 0, NINES),
    string("LSTMSGDA", 10),
    string("LSTMSGTI", 8),
    string("CHSTADA", 10),
    string("CHSTATI", 8),
    integer("HBINT", 0, 999_999),
    integer("KAINT", 0, 99_999),
    integer("MAXMSGL", 0, 104_857_600),
    enum("NPMSPEED", "FAST", "NORMAL"),
    name("RQMNAME"),
    enum("MCASTAT", "RUNNING", "NOTRUNNING"),
    string("MCAUSER", 64),
    string("JOBNAME", 28),
    enum("STOPREQ", *YESNO),
    string("LOCLADDR", 48),
    enum("MONCHL", "OFF", "LOW", "MEDIUM", "HIGH"),
    strings("XBATCHSZ", 2, 12),
    strings("XQTIME", 2, 12),
    strings("NETTIME", 2, 12),
    strings("EXITTIME", 2, 12),
    strings("COMPRATE", 2, 12),
    strings("COMPTIME", 2, 12),
    integer("XQMSGSA", 0, 999),
    integer("CURSHCNV", 0, NINES),
    integer("MAXSHCNV", 0, NINES),
    string("SSLCERTI", 1024),
    string("SSLPEER", 1024),
    string("RAPPLTAG", 28),
    string("RVERSION", 8),
    string("RPRODUCT", 4),
    enum("SECPROT", "NONE", "SSLV3", "TLSV1", "TLSV12", "TLSV13"),
    strings("COMPHDR", 2, 8),
    strings("COMPMSG", 2, 8),
    integer("SSLRKEYS", 0, NINES),
    string("SSLKEYDA", 10),
    string("SSLKEYTI", 8),
    enum("STATCHL", "OFF", "LOW", "MEDIUM", "HIGH"),
)  # fmt: skip

# --------------------------------------------------------------------------------------
# Queue manager
# --------------------------------------------------------------------------------------

_EVENT = ED
QMGR_ATTRS: dict[str, Attr] = _table(
    DESCR,
    name("DEADQ"),
    name("DEFXMITQ"),
    name("DEFCLXQ"),
    integer("MAXMSGL", 32768, 104_857_600),
    integer("MAXHANDS", 0, NINES),
    integer("MAXUMSGS", 1, NINES),
    integer("TRIGINT", 0, NINES),
    integer("CCSID", 1, 65535),
    enum("CHAD", *ED),
    enum("CHADEV", *_EVENT),
    string("CHADEXIT", 128),
    enum("STATMQI", "ON", "OFF"),
    enum("STATQ", "ON", "OFF", "NONE"),
    enum("STATCHL", "OFF", "NONE", "LOW", "MEDIUM", "HIGH"),
    enum("STATACLS", "QMGR", "OFF", "LOW", "MEDIUM", "HIGH"),
    integer("STATINT", 1, 604_800),
    enum("ACCTMQI", "ON", "OFF"),
    enum("ACCTQ", "ON", "OFF", "NONE"),
    enum("ACCTCONO", *ED),
    integer("ACCTINT", 1, 604_800),
    enum("MONCHL", "OFF", "NONE", "LOW", "MEDIUM", "HIGH"),
    enum("MONQ", "OFF", "NONE", "LOW", "MEDIUM", "HIGH"),
    enum("MONACLS", "QMGR", "OFF", "LOW", "MEDIUM", "HIGH"),
    name("REPOS"),
    name("REPOSNL"),
    enum("ADOPTMCA", "ALL", "NO"),
    enum("ADOPTCHK", "ALL", "NETADDR", "NONE", "QMNAME"),
    string("SSLKEYR", 256),
    integer("SSLRKEYC", 0, NINES),  # accepted and shown; mqpy never resets the key
    string("CERTLABL", 64),
    name("CONNAUTH"),
    enum("CHLAUTH", *ED),
    enum("CLWLUSEQ", "LOCAL", "ANY"),
    string("CLWLDATA", 32),
    string("CLWLEXIT", 128),
    integer("CLWLLEN", 0, NINES),
    integer("CLWLMRUC", 1, NINES),
    enum("SCHINIT", "QMGR", "MANUAL"),
    enum("SCMDSERV", "QMGR", "MANUAL"),
    integer("MARKINT", 0, NINES, "NOLIMIT"),
    enum("ROUTEREC", "MSG", "QUEUE", "DISABLED"),
    enum("ACTIVREC", "MSG", "QUEUE", "DISABLED"),
    enum("AUTHOREV", *_EVENT),
    enum("INHIBTEV", *_EVENT),
    enum("LOCALEV", *_EVENT),
    enum("REMOTEEV", *_EVENT),
    enum("PERFMEV", *_EVENT),
    enum("STRSTPEV", *_EVENT),
    enum("CHLEV", "ENABLED", "DISABLED", "EXCEPTION"),
    enum("SSLEV", *_EVENT),
    enum("CONFIGEV", *_EVENT),
    enum("CMDEV", "ENABLED", "DISABLED", "NODISPLAY"),
    enum("LOGGEREV", *_EVENT),
    enum("IPADDRV", "IPV4", "IPV6"),
    integer("MAXPROPL", 0, 104_857_600, "NOLIMIT"),
    enum("PSMODE", "COMPAT", "DISABLED", "ENABLED"),
    integer("TREELIFE", 0, 604_000),
    name("PARENT"),
    enum("TCPKEEP", *YESNO),
    flag("FORCE"),
)

QMGR_STATUS_ATTRS: dict[str, Attr] = _table(
    name("QMNAME"),
    string("QMID", 48),
    string("CRDATE", 10),
    string("CRTIME", 8),
    string("ALTDATE", 10),
    string("ALTTIME", 8),
    enum("PLATFORM", "UNIX", "WINDOWSNT", "MVS", "OS400", "NSK", "APPLIANCE"),
    integer("CMDLEVEL", 0, 9999),
    name("COMMANDQ"),
    integer("MAXPRTY", 0, 9),
    flag("SYNCPT"),
    enum("DISTL", *YESNO),
    string("VERSION", 8),
    flag("ALL"),
)

# --------------------------------------------------------------------------------------
# Other objects
# --------------------------------------------------------------------------------------

PROCESS_ATTRS: dict[str, Attr] = _table(
    DESCR,
    integer("APPLTYPE", 0, NINES, "CICS", "DEF", "DOS", "IMS", "MVS", "NOTESAGENT",
            "NSK", "OS2", "OS400", "UNIX", "WINDOWS", "WINDOWSNT", "WLM"),
    string("APPLICID", 256),
    string("USERDATA", 128),
    string("ENVRDATA", 128),
)  # fmt: skip

NAMELIST_ATTRS: dict[str, Attr] = _table(
    DESCR,
    names("NAMES", 256),
    enum("NLTYPE", "NONE", "QUEUE", "CLUSTER", "AUTHINFO"),
)

STGCLASS_ATTRS: dict[str, Attr] = _table(
    DESCR,
    integer("PSID", 0, 99),
    string("XCFGNAME", 8),
    string("XCFMNAME", 16),
    enum("PASSTKTA", "YES", "NO"),
)

_CONTROL = enum("CONTROL", "MANUAL", "QMGR", "STARTONLY")
LISTENER_ATTRS: dict[str, Attr] = _table(
    DESCR,
    enum("TRPTYPE", "TCP", "LU62", "NETBIOS", "SPX"),
    integer("PORT", 0, 65535),
    string("IPADDR", 48),
    _CONTROL,
    integer("BACKLOG", 0, NINES),
    integer("ADAPTER", 0, 7),
    integer("COMMANDS", 0, NINES),
    string("LOCLNAME", 16),
    integer("NTBNAMES", 0, NINES),
    integer("SESSIONS", 0, NINES),
    integer("SOCKET", 0, 65535),
    string("TPNAME", 64),
)

SERVICE_ATTRS: dict[str, Attr] = _table(
    DESCR,
    enum("SERVTYPE", "COMMAND", "SERVER"),
    _CONTROL,
    string("STARTCMD", 255),
    string("STARTARG", 255),
    string("STOPCMD", 255),
    string("STOPARG", 255),
    string("STDOUT", 255),
    string("STDERR", 255),
)

AUTHINFO_ATTRS: dict[str, Attr] = _table(
    DESCR,
    enum("AUTHTYPE", "CRLLDAP", "OCSP", "IDPWOS", "IDPWLDAP"),
    string("CONNAME", 264),
    enum("CHCKCLNT", "NONE", "OPTIONAL", "REQUIRED", "REQDADM"),
    enum("CHCKLOCL", "NONE", "OPTIONAL", "REQUIRED", "REQDADM"),
    enum("ADOPTCTX", *YESNO),
    integer("FAILDLAY", 0, 60),
    string("OCSPURL", 256),
)

TOPIC_ATTRS: dict[str, Attr] = _table(
    DESCR,
    string("TOPICSTR", 10240),
    enum("TYPE", "LOCAL", "CLUSTER", "ALL"),
    name("CLUSTER"),
    enum("DURSUB", "ASPARENT", "YES", "NO"),
    enum("PUB", "ASPARENT", *ED),
    enum("SUB", "ASPARENT", *ED),
    enum("DEFPSIST", "ASPARENT", *YESNO),
    integer("DEFPRTY", 0, 9, "ASPARENT"),
    enum("NPMSGDLV", "ASPARENT", "ALL", "ALLAVAIL", "ALLDUR"),
    enum("PMSGDLV", "ASPARENT", "ALL", "ALLAVAIL", "ALLDUR"),
    name("MDURMDL"),
    name("MNDURMDL"),
    enum("PUBSCOPE", "ASPARENT", "QMGR", "ALL"),
    enum("SUBSCOPE", "ASPARENT", "QMGR", "ALL"),
    enum("USEDLQ", "ASPARENT", *YESNO),
    enum("MCAST", "ASPARENT", *ED, "ONLY"),
    enum("WILDCARD", "PASSTHRU", "BLOCK"),
    enum("DEFPRESP", "ASPARENT", "SYNC", "ASYNC"),
    enum("PROXYSUB", "FIRSTUSE", "FORCE"),
    enum("CLROUTE", "DIRECT", "TOPICHOST", "NONE"),
    name("COMMINFO"),
    string("CUSTOM", 128),
    integer("CAPEXPRY", 1, NINES, "ASPARENT", "NOLIMIT"),
)

SUB_ATTRS: dict[str, Attr] = _table(
    string("TOPICSTR", 10240),
    name("TOPICOBJ"),
    name("DEST"),
    name("DESTQMGR"),
    string("DESTCORL", 48),
    string("SELECTOR", 10240),
    string("SUBUSER", 12),
    string("USERDATA", 10240),
    enum("PSPROP", "NONE", "COMPAT", "RFH2", "MSGPROP"),
    enum("DESTCLAS", "MANAGED", "PROVIDED"),
    enum("SUBSCOPE", "ALL", "QMGR"),
    enum("VARUSER", "ANY", "FIXED"),
    enum("WSCHEMA", "CHAR", "TOPIC"),
    enum("REQONLY", *YESNO),
    integer("EXPIRY", 0, NINES, "UNLIMITED"),
    string("SUBID", 48),
)

CHLAUTH_ATTRS: dict[str, Attr] = _table(
    DESCR,
    enum("TYPE", "BLOCKUSER", "BLOCKADDR", "SSLPEERMAP", "ADDRESSMAP", "USERMAP", "QMGRMAP",
         "ALL"),
    enum("ACTION", "ADD", "REPLACE", "REMOVE", "REMOVEALL"),
    string("ADDRESS", 264),
    strings("ADDRLIST", 256, 264),
    strings("USERLIST", 100, 64),
    string("MCAUSER", 64),
    enum("USERSRC", "MAP", "NOACCESS", "CHANNEL"),
    enum("CHCKCLNT", "ASQMGR", "REQUIRED", "REQDADM"),
    enum("WARN", *YESNO),
    string("QMNAME", 48),
    string("CLNTUSER", 64),
    string("SSLPEER", 1024),
    string("SSLCERTI", 1024),
    enum("MATCH", "RUNCHECK", "EXACT", "GENERIC", "ALL"),
)  # fmt: skip

_AUTHS = ("ALL", "ALLADM", "ALLMQI", "NONE", "ALTUSR", "BROWSE", "CHG", "CLR", "CONNECT",
          "CRT", "CTRL", "CTRLX", "DLT", "DSP", "GET", "INQ", "PUB", "PUT", "PASSALL",
          "PASSID", "RESUME", "SET", "SETALL", "SETID", "SUB", "SYSTEM")  # fmt: skip
AUTHREC_ATTRS: dict[str, Attr] = _table(
    string("PROFILE", 48),
    enum("OBJTYPE", "AUTHINFO", "CHANNEL", "CLNTCONN", "COMMINFO", "LISTENER", "NAMELIST",
         "PROCESS", "QUEUE", "QMGR", "RQMNAME", "SERVICE", "TOPIC"),
    string("PRINCIPAL", 64),
    string("GROUP", 64),
    enums("AUTHADD", 26, *_AUTHS),
    enums("AUTHRMV", 26, *_AUTHS),
    strings("ENTITY", 1, 64),
    enums("AUTHLIST", 26, *_AUTHS),
    string("SERVCOMP", 48),
)  # fmt: skip

QSTATUS_ATTRS: dict[str, Attr] = _table(
    enum("TYPE", "QUEUE", "HANDLE"),
    enum("OPENTYPE", "ALL", "INPUT", "OUTPUT"),
    integer("CURDEPTH", 0, NINES),
    integer("IPPROCS", 0, NINES),
    integer("OPPROCS", 0, NINES),
    integer("CURFSIZE", 0, NINES),
    integer("CURMAXFS", 0, NINES),
    string("LGETDATE", 10),
    string("LGETTIME", 8),
    string("LPUTDATE", 10),
    string("LPUTTIME", 8),
    string("MEDIALOG", 12),
    enum("MONQ", "OFF", "LOW", "MEDIUM", "HIGH"),
    integer("MSGAGE", 0, NINES),
    strings("QTIME", 2, 12),
    integer("UNCOM", 0, NINES),
    string("APPLTAG", 28),
    string("APPLTYPE", 12),
    string("CHANNEL", 20),
    string("CONNAME", 264),
    string("USERID", 64),
    integer("PID", 0, NINES),
    integer("TID", 0, NINES),
    enum("ASTATE", "ACTIVE", "INACTIVE", "SUSPENDED", "SUSPTEMP", "NONE"),
    enum("BROWSE", *YESNO),
    enum("INPUT", "SHARED", "EXCL", "NO"),
    enum("INQUIRE", *YESNO),
    enum("OUTPUT", *YESNO),
    enum("SET", *YESNO),
    string("URID", 64),
    enum("URTYPE", "QMGR", "XA"),
    enum("READA", "NO", "YES", "BACKLOG", "INHIBITED"),
    string("APPLDESC", 64),
    enum("HSTATE", "ACTIVE", "INACTIVE"),
    string("QMURID", 64),
)

CONN_ATTRS: dict[str, Attr] = _table(
    enum("TYPE", "CONN", "HANDLE", "ALL"),
    string("APPLTAG", 28),
    string("APPLTYPE", 12),
    string("CHANNEL", 20),
    string("CONNAME", 264),
    string("USERID", 64),
    integer("PID", 0, NINES),
    integer("TID", 0, NINES),
    strings("CONNOPTS", 20, 32),
    string("UOWLOGDA", 10),
    string("UOWLOGTI", 8),
    string("UOWSTDA", 10),
    string("UOWSTTI", 8),
    enum("UOWSTATE", "NONE", "ACTIVE", "PREPARED", "UNRESOLVED"),
    string("QMURID", 64),
    string("EXTURID", 128),
    string("APPLDESC", 64),
    enum("URTYPE", "QMGR", "XA"),
    string("OBJNAME", 48),
    enum("OBJTYPE", "QUEUE", "PROCESS", "QMGR", "NAMELIST", "CHANNEL", "AUTHINFO", "TOPIC"),
    enum("ASTATE", "SUSPENDED", "ACTIVE", "INACTIVE", "NONE"),
    strings("OPENOPTS", 20, 32),
    enum("CONNTAG", *YESNO),
)

LSSTATUS_ATTRS: dict[str, Attr] = _table(
    enum("STATUS", "STARTING", "RUNNING", "STOPPING"),
    integer("PID", 0, NINES),
    string("STARTDA", 10),
    string("STARTTI", 8),
    DESCR,
    enum("TRPTYPE", "TCP", "LU62", "NETBIOS", "SPX"),
    _CONTROL,
    string("IPADDR", 48),
    integer("PORT", 0, 65535),
    integer("BACKLOG", 0, NINES),
)

SVSTATUS_ATTRS: dict[str, Attr] = _table(
    enum("STATUS", "STARTING", "RUNNING", "STOPPING"),
    integer("PID", 0, NINES),
    string("STARTDA", 10),
    string("STARTTI", 8),
    DESCR,
    _CONTROL,
    enum("SERVTYPE", "COMMAND", "SERVER"),
    string("STARTCMD", 255),
    string("STARTARG", 255),
    string("STOPCMD", 255),
    string("STOPARG", 255),
    string("STDOUT", 255),
    string("STDERR", 255),
)

QMSTATUS_ATTRS: dict[str, Attr] = _table(
    name("QMNAME"),
    enum("STATUS", "STARTING", "RUNNING", "QUIESCING", "STANDBY"),
    enum("CHINIT", "STOPPED", "STARTING", "RUNNING", "STOPPING"),
    enum("CMDSERV", "STOPPED", "STARTING", "RUNNING", "STOPPING"),
    integer("CONNS", 0, NINES),
    string("STARTDA", 10),
    string("STARTTI", 8),
    string("CURRLOG", 12),
    string("RECLOG", 12),
    string("MEDIALOG", 12),
    string("LOGPATH", 1024),
    integer("LOGINUSE", 0, 100),
    integer("LOGUTIL", 0, NINES),
    string("INSTNAME", 16),
    string("INSTPATH", 256),
)

CLUSQMGR_ATTRS: dict[str, Attr] = _table(
    name("CLUSQMGR"),
    name("CHANNEL", 20),
    name("CLUSTER"),
    string("CONNAME", 264),
    enum("DEFTYPE", "CLUSSDR", "CLUSSDRA", "CLUSSDRB", "CLUSRCVR"),
    enum("QMTYPE", "REPOS", "NORMAL"),
    string("QMID", 48),
    enum("STATUS", "BINDING", "INACTIVE", "INITIALIZING", "PAUSED", "REQUESTING",
         "RETRYING", "RUNNING", "STARTING", "STOPPED", "STOPPING"),
    enum("SUSPEND", *YESNO),
    name("XMITQ"),
    string("CLUSDATE", 10),
    string("CLUSTIME", 8),
    string("VERSION", 8),
    string("ALTDATE", 10),
    string("ALTTIME", 8),
)  # fmt: skip

_CLWL_CHANNEL = ("CLWLPRTY", "CLWLRANK", "CLWLWGHT", "NETPRTY")
# ... and the channel attributes the member's CLUSRCVR advertises (an auto-defined CLUSSDR
# to it takes them), with their channel definitions' ranges
CLUSQMGR_ATTRS.update({k: a for k, a in CHANNEL_ATTRS.items()
                       if k in CLUSRCVR_TO_CLUSSDR or k in _CLWL_CHANNEL})

TCLUSTER_ATTRS: dict[str, Attr] = _table(  # DISPLAY TCLUSTER: the cluster topics known
    name("TOPIC"), enum("TYPE", "CLUSTER"), name("CLUSTER"), name("CLUSQMGR"),
    string("TOPICSTR", 10240), enum("CLROUTE", "DIRECT", "TOPICHOST"), string("QMID", 48),
    enum("CLSTATE", "ACTIVE", "PENDING", "INVALID", "ERROR"), enum("PUB", "ENABLED", "DISABLED"),
    enum("SUB", "ENABLED", "DISABLED"), string("CLUSDATE", 10), string("CLUSTIME", 8),
)

QCLUSTER_ATTRS: dict[str, Attr] = _table(
    name("QUEUE"),
    name("CLUSTER"),
    name("CLUSNL"),
    name("CLUSQMGR"),
    string("CLUSDATE", 10),
    string("CLUSTIME", 8),
    enum("CLUSQT", "QALIAS", "QLOCAL", "QMGR", "QREMOTE"),
    string("QMID", 48),
    DESCR,
    enum("DEFBIND", "OPEN", "NOTFIXED", "GROUP"),
    integer("DEFPRTY", 0, 9),
    enum("DEFPSIST", *YESNO),
    enum("DEFPRESP", "SYNC", "ASYNC"),
    enum("PUT", *ED),
    integer("CLWLPRTY", 0, 9),
    integer("CLWLRANK", 0, 9),
    string("ALTDATE", 10),
    string("ALTTIME", 8),
)

SBSTATUS_ATTRS: dict[str, Attr] = _table(
    string("SUBID", 48),
    enum("DURABLE", "ALL", *YESNO),
    enum("SUBTYPE", "ADMIN", "API", "PROXY", "USER", "ALL"),
    string("ACTCONN", 48),
    string("LMSGDATE", 10),
    string("LMSGTIME", 8),
    integer("NUMMSGS", 0, NINES),
    string("RESMDATE", 10),
    string("RESMTIME", 8),
)

TPSTATUS_ATTRS: dict[str, Attr] = _table(
    enum("TYPE", "TOPIC", "SUB", "PUB"),
    string("ADMIN", 48),
    enum("DURSUB", *YESNO),
    enum("PUB", *ED),
    enum("SUB", *ED),
    integer("PUBCOUNT", 0, NINES),
    integer("SUBCOUNT", 0, NINES),
    enum("RETAINED", *YESNO),
    string("TOPICSTR", 10240),
    string("SUBID", 48), string("SUBUSER", 12), string("ACTCONN", 48),
    enum("DURABLE", *YESNO), enum("SUBTYPE", "ADMIN", "API", "PROXY"),
    enum("DEFPSIST", *YESNO), integer("DEFPRTY", 0, 9), enum("DEFPRESP", "SYNC", "ASYNC"),
    enum("NPMSGDLV", "ALL", "ALLAVAIL", "ALLDUR"), enum("PMSGDLV", "ALL", "ALLAVAIL", "ALLDUR"),
    name("MDURMDL"), name("MNDURMDL"), enum("PUBSCOPE", "QMGR", "ALL"),
    enum("SUBSCOPE", "QMGR", "ALL"), enum("USEDLQ", *YESNO), name("CLUSTER"),
    enum("CLROUTE", "DIRECT", "TOPICHOST", "NONE"),
    string("LMSGDATE", 10), string("LMSGTIME", 8), integer("NUMMSGS", 0, NINES),
    string("RESMDATE", 10), string("RESMTIME", 8),
    string("LPUBDATE", 10), string("LPUBTIME", 8), integer("NUMPUBS", 0, NINES),
)

PUBSUB_ATTRS: dict[str, Attr] = _table(
    enum("TYPE", "CHILD", "PARENT", "LOCAL", "ALL"),
    enum("STATUS", "ACTIVE", "COMPAT", "ERROR", "INACTIVE", "STARTING", "STOPPING",
         "REFUSED"),
    name("QMNAME"),
    integer("SUBCOUNT", 0, NINES),
    integer("TPCOUNT", 0, NINES),
)  # fmt: skip

# --------------------------------------------------------------------------------------
# Command specifications
# --------------------------------------------------------------------------------------

OBJECT_NAME = name("", 48)
CHANNEL_NAME = name("", 20)
STGCLASS_NAME = name("", 8)
FREE_NAME = string("", 48)  #: names that are not MQ object names (CONN ids, CLUSQMGR *)


@attrs.frozen(slots=True)
class CommandSpec:
    """What one (verb, object) pair accepts. See the module docstring."""

    verb: str
    objtype: str | None
    name: str = "none"  #: "required" | "optional" | "none"
    name_attr: Attr = OBJECT_NAME  #: how the (name) is validated
    generic: bool = False  #: the name may end in * (or be *)
    params: Mapping[str, Attr] = attrs.field(factory=dict, converter=_frozen, hash=False)
    flags: frozenset[str] = frozenset()
    display: Mapping[str, Attr] | None = attrs.field(
        default=None, converter=lambda d: None if d is None else _frozen(d), hash=False
    )
    where: bool = False
    #: keywords WHERE may not name though DISPLAY shows them (IBM lists them per command)
    not_filters: frozenset[str] = frozenset()
    required: tuple[tuple[str, ...], ...] = ()  #: each group: at least one must be given
    exclusive: tuple[tuple[str, ...], ...] = ()  #: each group: at most one may be given
    type_keyword: str = ""  #: e.g. "CHLTYPE": further params depend on its value
    type_params: Mapping[str, frozenset[str]] = attrs.field(
        factory=dict, converter=MappingProxyType, hash=False
    )

    def param(self, keyword: str) -> Attr | None:
        return self.params.get(keyword)


def _pick(table: Mapping[str, Attr], keys: Iterable[str]) -> dict[str, Attr]:
    return {k: table[k] for k in keys}


def _params(table: Mapping[str, Attr]) -> dict[str, Attr]:
    return {k: a for k, a in table.items() if a.kind != FLAG}


def _flags(table: Mapping[str, Attr]) -> frozenset[str]:
    return frozenset(k for k, a in table.items() if a.kind == FLAG)


_DEFINE_FLAGS = frozenset({"REPLACE", "NOREPLACE"})
_LIKE = {"LIKE": name("LIKE")}
_LIKE_CHANNEL = {"LIKE": name("LIKE", 20)}
_COMMANDS: dict[tuple[str, str | None], CommandSpec] = {}


def _add(spec: CommandSpec) -> None:
    _COMMANDS[(spec.verb, spec.objtype)] = spec


def _display_only(table: Mapping[str, Attr], extra: Mapping[str, Attr] = {}) -> dict[str, Attr]:
    return {**table, **extra}


def _define_alter_delete_display(
    objtype: str,
    table: Mapping[str, Attr],
    status: Mapping[str, Attr],
    *,
    name_attr: Attr = OBJECT_NAME,
    like: Mapping[str, Attr] = _LIKE,
    delete_params: Mapping[str, Attr] | None = None,
    delete_flags: frozenset[str] = frozenset(),
) -> None:
    params, flags = _params(table), _flags(table)
    _add(CommandSpec("DEFINE", objtype, "required", name_attr, params={**params, **like},
                     flags=flags | _DEFINE_FLAGS))  # fmt: skip
    _add(CommandSpec("ALTER", objtype, "required", name_attr, params=params, flags=flags))
    _add(CommandSpec("DELETE", objtype, "required", name_attr,
                     params=delete_params or {}, flags=delete_flags))  # fmt: skip
    _add(CommandSpec("DISPLAY", objtype, "required", name_attr, generic=True,
                     flags=frozenset({"ALL"}), display={**table, **status},
                     where=True))  # fmt: skip


# Queues: DEFINE/ALTER/DELETE per type; DISPLAY also for QUEUE (all types).
for _qt in QTYPES:
    _qtable = {k: QUEUE_ATTRS[k] for k in sorted(QUEUE_TYPE_ATTRS[_qt])}
    _qparams, _qflags = _params(_qtable), _flags(_qtable)
    _add(CommandSpec("DEFINE", _qt, "required", params={**_qparams, **_LIKE},
                     flags=_qflags | _DEFINE_FLAGS))  # fmt: skip
    _add(CommandSpec("ALTER", _qt, "required", params=_qparams,
                     flags=_qflags | {"FORCE"}))  # fmt: skip
    _add(CommandSpec("DELETE", _qt, "required",
                     flags=frozenset({"PURGE", "NOPURGE"}) if _qt == "QLOCAL" else frozenset()))
    _add(CommandSpec("DISPLAY", _qt, "required", generic=True, flags=frozenset({"ALL"}),
                     display={**_qtable, **QUEUE_STATUS_ATTRS}, where=True))  # fmt: skip
_add(CommandSpec("DISPLAY", "QUEUE", "required", generic=True, flags=frozenset({"ALL"}),
                 params=_pick(QUEUE_STATUS_ATTRS, ["TYPE"]),
                 display={**QUEUE_ATTRS, **QUEUE_STATUS_ATTRS}, where=True))  # fmt: skip
_add(CommandSpec("CLEAR", "QLOCAL", "required"))

# Channels.
_chl_params = {**_params(CHANNEL_ATTRS)}
_chl_types = {t: frozenset(CHLTYPE_ATTRS[t]) for t in CHLTYPES}
_add(CommandSpec("DEFINE", "CHANNEL", "required", CHANNEL_NAME,
                 params={**_chl_params, **_LIKE_CHANNEL}, flags=_DEFINE_FLAGS,
                 required=(("CHLTYPE",),), type_keyword="CHLTYPE",
                 type_params={t: ps | {"LIKE"} for t, ps in _chl_types.items()}))  # fmt: skip
_add(CommandSpec("ALTER", "CHANNEL", "required", CHANNEL_NAME, params=_chl_params,
                 required=(("CHLTYPE",),), type_keyword="CHLTYPE",
                 type_params=_chl_types))  # fmt: skip
_add(CommandSpec("DELETE", "CHANNEL", "required", CHANNEL_NAME,
                 params={"CHLTABLE": enum("CHLTABLE", "QMGRTBL", "CLNTTBL")}))  # fmt: skip
_add(CommandSpec("DISPLAY", "CHANNEL", "required", CHANNEL_NAME, generic=True,
                 flags=frozenset({"ALL"}), params=_pick(CHANNEL_ATTRS, ["CHLTYPE"]),
                 display={**CHANNEL_ATTRS, **CHANNEL_STATUS_ATTRS}, where=True))  # fmt: skip
_add(CommandSpec("DISPLAY", "CHSTATUS", "required", CHANNEL_NAME, generic=True,
                 flags=frozenset({"ALL", "CURRENT", "SAVED", "SHORT", "MONITOR"}),
                 params=_pick(CHSTATUS_ATTRS, ["CONNAME", "XMITQ", "CHLTYPE"]),
                 display=CHSTATUS_ATTRS, where=True,
                 exclusive=(("CURRENT", "SAVED", "SHORT"),)))  # fmt: skip
_add(CommandSpec("START", "CHANNEL", "required", CHANNEL_NAME,
                 params={"IGNSTATE": enum("IGNSTATE", *YESNO)}))
_add(CommandSpec("STOP", "CHANNEL", "required", CHANNEL_NAME, generic=True,
                 params={"MODE": enum("MODE", "QUIESCE", "FORCE", "TERMINATE"),
                         "STATUS": enum("STATUS", "STOPPED", "INACTIVE"),
                         "CONNAME": CHANNEL_ATTRS["CONNAME"], "QMNAME": name("QMNAME"),
                         "IGNSTATE": enum("IGNSTATE", *YESNO)}))
_add(CommandSpec("PING", "CHANNEL", "required", CHANNEL_NAME,
                 params={"DATALEN": integer("DATALEN", 16, 32768)}))  # fmt: skip
_add(CommandSpec("RESET", "CHANNEL", "required", CHANNEL_NAME,
                 params={"SEQNUM": integer("SEQNUM", 1, NINES)}))  # fmt: skip
_add(CommandSpec("RESOLVE", "CHANNEL", "required", CHANNEL_NAME,
                 params={"ACTION": enum("ACTION", "COMMIT", "BACKOUT")},
                 required=(("ACTION",),)))  # fmt: skip
_add(CommandSpec("START", "CHINIT", "none", params={"INITQ": name("INITQ")}))
_add(CommandSpec("STOP", "CHINIT", "none"))

# Queue manager.
_add(CommandSpec("ALTER", "QMGR", "none", params=_params(QMGR_ATTRS), flags=_flags(QMGR_ATTRS)))
_add(CommandSpec("DISPLAY", "QMGR", "none",
                 flags=frozenset({"ALL", "SYSTEM", "EVENT", "CHINIT", "PUBSUB"}),
                 display={k: a for k, a in {**QMGR_ATTRS, **QMGR_STATUS_ATTRS}.items()
                          if k not in ("FORCE", "ALL")}))  # fmt: skip
_add(CommandSpec("DISPLAY", "QMSTATUS", "none", flags=frozenset({"ALL"}),
                 display=QMSTATUS_ATTRS))  # fmt: skip
_add(CommandSpec("PING", "QMGR", "none"))
_add(CommandSpec("REFRESH", "QMGR", "none",
                 params={"TYPE": enum("TYPE", "CONFIGEV", "EARLY", "EXPIRY", "NSUBSCR",
                                      "PROXYSUB"),
                         "NAME": string("NAME", 48),
                         "OBJECT": enum("OBJECT", "AUTHINFO", "AUTHREC", "CHANNEL",
                                        "CHLAUTH", "COMMINFO", "LISTENER", "NAMELIST",
                                        "PROCESS", "QALIAS", "QLOCAL", "QMGR", "QMODEL",
                                        "QREMOTE", "QUEUE", "SERVICE", "TOPIC", "ALL"),
                         "INCLINT": integer("INCLINT", 0, 999_999)}))  # fmt: skip
_add(CommandSpec("RESET", "QMGR", "none",
                 params={"TYPE": enum("TYPE", "STATISTICS", "ADVANCELOG", "PUBSUB",
                                      "REDUCELOG"),
                         "ARCHIVED": enum("ARCHIVED", *YESNO)},
                 required=(("TYPE",),)))  # fmt: skip
_cluster_select = {"CLUSTER": name("CLUSTER"), "CLUSNL": name("CLUSNL")}
_add(CommandSpec("SUSPEND", "QMGR", "none",
                 params={**_cluster_select, "MODE": enum("MODE", "QUIESCE", "FORCE")},
                 required=(("CLUSTER", "CLUSNL"),),
                 exclusive=(("CLUSTER", "CLUSNL"),)))  # fmt: skip
_add(CommandSpec("RESUME", "QMGR", "none", params=_cluster_select,
                 required=(("CLUSTER", "CLUSNL"),),
                 exclusive=(("CLUSTER", "CLUSNL"),)))  # fmt: skip

# Clusters.
_add(CommandSpec("REFRESH", "CLUSTER", "required", generic=True,
                 params={"REPOS": enum("REPOS", *YESNO)}))  # fmt: skip
_add(CommandSpec("RESET", "CLUSTER", "required",
                 params={"ACTION": enum("ACTION", "FORCEREMOVE"), "QMNAME": name("QMNAME"),
                         "QMID": string("QMID", 48), "QUEUES": enum("QUEUES", *YESNO)},
                 required=(("ACTION",), ("QMNAME", "QMID")),
                 exclusive=(("QMNAME", "QMID"),)))  # fmt: skip
_add(CommandSpec("DISPLAY", "CLUSQMGR", "required", generic=True, flags=frozenset({"ALL"}),
                 params=_pick(CLUSQMGR_ATTRS, ["CLUSTER"]),
                 display=CLUSQMGR_ATTRS, where=True))  # fmt: skip
_add(CommandSpec("DISPLAY", "TCLUSTER", "required", generic=True, flags=frozenset({"ALL"}),
                 params=_pick(TCLUSTER_ATTRS, ["CLUSTER"]),
                 display=TCLUSTER_ATTRS, where=True))  # fmt: skip
_add(CommandSpec("DISPLAY", "QCLUSTER", "required", generic=True, flags=frozenset({"ALL"}),
                 params=_pick(QCLUSTER_ATTRS, ["CLUSTER"]),
                 display=QCLUSTER_ATTRS, where=True))  # fmt: skip

# Simple objects: DEFINE / ALTER / DELETE / DISPLAY.
_STAMPS = _table(string("ALTDATE", 10), string("ALTTIME", 8))
_define_alter_delete_display("PROCESS", PROCESS_ATTRS, _STAMPS)
_define_alter_delete_display("NAMELIST", NAMELIST_ATTRS, {**_STAMPS, **_table(
    integer("NAMCOUNT", 0, 256))})  # fmt: skip
_define_alter_delete_display("STGCLASS", STGCLASS_ATTRS, _STAMPS, name_attr=STGCLASS_NAME,
                             like={"LIKE": name("LIKE", 8)})  # fmt: skip
_define_alter_delete_display("LISTENER", LISTENER_ATTRS, _STAMPS)
_define_alter_delete_display("SERVICE", SERVICE_ATTRS, _STAMPS)
_define_alter_delete_display("AUTHINFO", AUTHINFO_ATTRS, _STAMPS)
_define_alter_delete_display("TOPIC", TOPIC_ATTRS, _STAMPS)
_define_alter_delete_display("SUB", SUB_ATTRS, {**_STAMPS, **_table(  # what DISPLAY SUB shows
    enum("DURABLE", *YESNO), enum("SUBTYPE", "API", "ADMIN", "PROXY"), integer("SUBLEVEL", 0, 9),
    string("PUBAPPID", 32), string("PUBACCT", 64), string("PUBPRTY", 6))},
    name_attr=string("", 10240))
for _obj in ("SUB",):  # a subscription may be named by SUBID or TOPICSTR instead
    for _verb in ("ALTER", "DELETE", "DISPLAY"):
        _s = _COMMANDS[(_verb, _obj)]
        _COMMANDS[(_verb, _obj)] = attrs.evolve(
            _s, name="optional", params={**_s.params, "SUBID": SUB_ATTRS["SUBID"]}
        )
_s = _COMMANDS[("DISPLAY", "SUB")]  # DISPLAY SUB SUBTYPE(USER|PROXY|ALL ...): which ones
_COMMANDS[("DISPLAY", "SUB")] = attrs.evolve(
    _s, params={**_s.params, "SUBTYPE": SBSTATUS_ATTRS["SUBTYPE"]})
_add(CommandSpec("START", "LISTENER", "optional",
                 params=_pick(LISTENER_ATTRS, ["TRPTYPE", "PORT", "IPADDR", "BACKLOG"])))
_add(CommandSpec("STOP", "LISTENER", "optional",
                 params=_pick(LISTENER_ATTRS, ["TRPTYPE", "PORT", "IPADDR"])))  # fmt: skip
_add(CommandSpec("DISPLAY", "LSSTATUS", "required", generic=True, flags=frozenset({"ALL"}),
                 display=LSSTATUS_ATTRS, where=True))  # fmt: skip
# IGNSTATE (IBM MQ 9.2): YES makes starting a running service, or stopping a stopped one,
# no failure
_add(CommandSpec("START", "SERVICE", "required",
                 params={"IGNSTATE": enum("IGNSTATE", *YESNO)}))
_add(CommandSpec("STOP", "SERVICE", "required",
                 params={"IGNSTATE": enum("IGNSTATE", *YESNO)}))
_add(CommandSpec("DISPLAY", "SVSTATUS", "required", generic=True, flags=frozenset({"ALL"}),
                 display=SVSTATUS_ATTRS, where=True))  # fmt: skip
_add(CommandSpec("DISPLAY", "QSTATUS", "required", generic=True,
                 flags=frozenset({"ALL", "MONITOR"}),
                 params=_pick(QSTATUS_ATTRS, ["TYPE", "OPENTYPE"]),
                 display=QSTATUS_ATTRS, where=True,
                 not_filters=frozenset({"CMDSCOPE", "MONITOR", "OPENTYPE", "QSGDISP", "QTIME",
                                        "TYPE", "URID"})))  # fmt: skip
_add(CommandSpec("RESET", "QSTATS", "required", generic=True))
_add(CommandSpec("DISPLAY", "CONN", "required", FREE_NAME, generic=True,
                 flags=frozenset({"ALL"}), params=_pick(CONN_ATTRS, ["TYPE"]),
                 display=CONN_ATTRS, where=True))  # fmt: skip
_add(CommandSpec("STOP", "CONN", "required", FREE_NAME))
_add(CommandSpec("DISPLAY", "SBSTATUS", "optional", string("", 10240), generic=True,
                 flags=frozenset({"ALL"}),
                 params=_pick(SBSTATUS_ATTRS, ["SUBID", "DURABLE", "SUBTYPE"]),
                 display=SBSTATUS_ATTRS, where=True))  # fmt: skip
_add(CommandSpec("DISPLAY", "TPSTATUS", "required", string("", 10240), generic=True,
                 flags=frozenset({"ALL"}), params=_pick(TPSTATUS_ATTRS, ["TYPE"]),
                 display=TPSTATUS_ATTRS, where=True))  # fmt: skip
_add(CommandSpec("DISPLAY", "PUBSUB", "none", flags=frozenset({"ALL"}),
                 params=_pick(PUBSUB_ATTRS, ["TYPE"]), display=PUBSUB_ATTRS))  # fmt: skip

# Security.
_add(CommandSpec("SET", "CHLAUTH", "required", string("", 48), generic=True,
                 params=_params(CHLAUTH_ATTRS), required=(("TYPE",),)))  # fmt: skip
_add(CommandSpec("DISPLAY", "CHLAUTH", "required", string("", 48), generic=True,
                 flags=frozenset({"ALL"}),
                 params=_pick(CHLAUTH_ATTRS, ["TYPE", "MATCH", "ADDRESS", "CLNTUSER",
                                              "QMNAME", "SSLPEER", "SSLCERTI"]),
                 display=CHLAUTH_ATTRS, where=True))  # fmt: skip
_add(CommandSpec("SET", "AUTHREC", "none", params=_params(AUTHREC_ATTRS),
                 required=(("OBJTYPE",), ("PRINCIPAL", "GROUP"), ("AUTHADD", "AUTHRMV")),
                 exclusive=(("PRINCIPAL", "GROUP"),)))  # fmt: skip
_add(CommandSpec("DELETE", "AUTHREC", "none",
                 params=_pick(AUTHREC_ATTRS, ["PROFILE", "OBJTYPE", "PRINCIPAL", "GROUP"]),
                 required=(("OBJTYPE",), ("PRINCIPAL", "GROUP")),
                 exclusive=(("PRINCIPAL", "GROUP"),)))  # fmt: skip
_add(CommandSpec("DISPLAY", "AUTHREC", "none", flags=frozenset({"ALL", "MATCH"}),
                 params=_pick(AUTHREC_ATTRS, ["PROFILE", "OBJTYPE", "PRINCIPAL", "GROUP",
                                              "SERVCOMP"]),
                 display=AUTHREC_ATTRS))  # fmt: skip
_add(CommandSpec("REFRESH", "SECURITY", "optional", string("", 1), generic=True,
                 params={"TYPE": enum("TYPE", "AUTHSERV", "CONNAUTH", "SSL", "ALL")}))

# Verbs with no object.
for _v in ("END", "EXIT", "QUIT"):
    _add(CommandSpec(_v, None))

#: (verb, objtype) -> CommandSpec; objtype None for END/EXIT/QUIT.
COMMANDS: Mapping[tuple[str, str | None], CommandSpec] = MappingProxyType(_COMMANDS)


def command_spec(verb: str, objtype: str | None) -> CommandSpec | None:
    return COMMANDS.get((verb, objtype))


def objects_for_verb(verb: str) -> list[str]:
    """The object keywords a verb takes, sorted (for syntax help)."""
    return sorted(o for v, o in COMMANDS if v == verb and o is not None)


def _value_help(a: Attr) -> str:
    if a.kind == ENUM:
        return " | ".join(a.values)
    if a.kind == INT:
        return " | ".join((*a.values, "integer"))
    if a.kind == LIST:
        return (" | ".join(a.values) if a.item == ENUM else "string") + ", ..."
    return "string"


def syntax_help(verb: str, objtype: str | None) -> list[str]:
    """Lines in the style of runmqsc's AMQ8427I help: the command then its parameters."""
    spec = command_spec(verb, objtype)
    if spec is None:
        objs = objects_for_verb(verb)
        return [f"  {verb} " + " | ".join(objs)] if objs else [f"  {verb}"]
    head = f"  {verb} {objtype}" if objtype else f"  {verb}"
    if spec.name == "required":
        head += "( generic_name )" if spec.generic else "( name )"
    elif spec.name == "optional":
        head += " [ ( name ) ]"
    lines = [head]
    items = [f"[ {k}( {_value_help(a)} ) ]" for k, a in sorted(spec.params.items())]
    items += [f"[ {f} ]" for f in sorted(spec.flags)]
    if spec.display is not None:
        if spec.where:
            items.append("[ WHERE( keyword operator value ) ]")
        items += [f"[ {k} ]" for k, a in sorted(spec.display.items()) if a.kind != FLAG]
    pending = ""
    for item in items:
        if not pending:
            pending = item
        elif len(pending) < 39 and len(item) < 38:
            lines.append(f"   {pending.ljust(39)} {item}")
            pending = ""
        else:
            lines.append(f"   {pending}")
            pending = item
    if pending:
        lines.append(f"   {pending}")
    return lines
