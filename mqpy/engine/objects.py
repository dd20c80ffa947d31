"""Object definitions (queues, processes, namelists, storage classes, channels, listeners,
services, the queue manager).

An object is its type, its name and a dictionary of attributes keyed by the MQSC keyword, with
values as MQSC shows them (integers, or upper-case words such as ``ENABLED``). Defaults are IBM's.
Definitions are kept on pageset 0 and every change is logged first, so they are recovered like
messages. This module only describes objects; the engine decides who may change them.
"""

from __future__ import annotations

import copy
import time

import attrs

QUEUE_TYPES = ("QLOCAL", "QMODEL", "QALIAS", "QREMOTE")

_QUEUE_COMMON = {
    "DESCR": "",
    "PUT": "ENABLED",
    "DEFPRTY": 0,
    "DEFPSIST": "NO",
    "DEFBIND": "OPEN",
    "CLUSTER": "",
    "CLUSNL": "",
    "CLWLPRTY": 0,
    "CLWLRANK": 0,
}

_QLOCAL = {
    **_QUEUE_COMMON,
    "GET": "ENABLED",
    "MAXDEPTH": 5000,
    "MAXMSGL": 4194304,
    "SHARE": "YES",
    "DEFSOPT": "SHARED",
    "MSGDLVSQ": "PRIORITY",
    "USAGE": "NORMAL",
    "STGCLASS": "DEFAULT",
    "TRIGGER": "NO",
    "TRIGTYPE": "FIRST",
    "TRIGDPTH": 1,
    "TRIGMPRI": 0,
    "TRIGDATA": "",
    "INITQ": "",
    "PROCESS": "",
    "BOTHRESH": 0,
    "BOQNAME": "",
    "RETINTVL": 999999999,
    "QDEPTHHI": 80,
    "QDEPTHLO": 20,
    "STATQ": "QMGR",
    "ACCTQ": "QMGR",
    "MONQ": "QMGR",
    "CLWLUSEQ": "QMGR",
    "NPMCLASS": "NORMAL",
    "HARDENBO": "YES",
    "DISTL": "NO",  # the partner takes distribution lists: set by the sending MCA (seed 000)
}

DEFAULTS: dict[str, dict[str, object]] = {
    "QLOCAL": _QLOCAL,
    "QMODEL": {**{k: v for k, v in _QLOCAL.items() if k not in ("CLUSTER", "CLUSNL",
                                                                  "CLWLPRTY", "CLWLRANK")},
               "DEFTYPE": "TEMPDYN"},
    "QALIAS": {**_QUEUE_COMMON, "GET": "ENABLED", "TARGET": "", "TARGTYPE": "QUEUE"},
    "QREMOTE": {**_QUEUE_COMMON, "RNAME": "", "RQMNAME": "", "XMITQ": ""},
    "PROCESS": {"DESCR": "", "APPLTYPE": "UNIX", "APPLICID": "", "USERDATA": "", "ENVRDATA": ""},
    "NAMELIST": {"DESCR": "", "NAMES": []},
    "STGCLASS": {"DESCR": "", "PSID": 1},
    "LISTENER": {"DESCR": "", "TRPTYPE": "TCP", "PORT": 1414, "IPADDR": "", "CONTROL": "MANUAL",
                 "BACKLOG": 0},
    "CHANNEL": {"DESCR": ""},
    # IBM's DEFINE SERVICE defaults (SERVTYPE(COMMAND), CONTROL(MANUAL), blank strings)
    "SERVICE": {"DESCR": "", "SERVTYPE": "COMMAND", "CONTROL": "MANUAL", "STARTCMD": "",
                "STARTARG": "", "STOPCMD": "", "STOPARG": "", "STDOUT": "", "STDERR": ""},
    # IBM's SYSTEM.DEFAULT.TOPIC: every inherited attribute ASPARENT (mqpy.pubsub.topictree)
    "TOPIC": {"DESCR": "", "TOPICSTR": "", "TYPE": "LOCAL", "CLUSTER": "", "CLROUTE": "DIRECT",
              "DURSUB": "ASPARENT", "PUB": "ASPARENT", "SUB": "ASPARENT",
              "DEFPSIST": "ASPARENT", "DEFPRTY": "ASPARENT", "DEFPRESP": "ASPARENT",
              "NPMSGDLV": "ASPARENT", "PMSGDLV": "ASPARENT", "MDURMDL": "", "MNDURMDL": "",
              "WILDCARD": "PASSTHRU", "PUBSCOPE": "ASPARENT", "SUBSCOPE": "ASPARENT",
              "PROXYSUB": "FIRSTUSE", "USEDLQ": "ASPARENT", "MCAST": "ASPARENT",
              "COMMINFO": "", "CUSTOM": "", "CAPEXPRY": "ASPARENT"},
}

QMGR_DEFAULTS: dict[str, object] = {
    "DESCR": "",
    "DEADQ": "",
    "DEFXMITQ": "",
    "MAXMSGL": 4194304,
    "MAXPRTY": 9,
    "TRIGINT": 999999999,
    "CCSID": 1208,
    "CMDLEVEL": 925,
    "PLATFORM": "UNIX",
    "CHAD": "DISABLED",
    "CHADEV": "DISABLED",
    "STATMQI": "OFF",
    "STATQ": "OFF",
    "STATCHL": "OFF",
    "STATINT": 1800,
    "ACCTMQI": "OFF",
    "ACCTQ": "OFF",
    "ACCTINT": 1800,
    "MONCHL": "OFF",
    "MONQ": "OFF",
    "REPOS": "",
    "REPOSNL": "",
    "CLWLUSEQ": "LOCAL",
    "SYNCPT": "AVAILABLE",
    "MAXUMSGS": 10000,
    "COMMANDQ": "SYSTEM.ADMIN.COMMAND.QUEUE",
}


def _stamp() -> tuple[str, str]:
    now = time.localtime()
    return time.strftime("%Y-%m-%d", now), time.strftime("%H.%M.%S", now)


@attrs.define
class ObjectDef:
    """One defined object. ``qid`` identifies a local queue's messages on its pageset."""

    objtype: str
    name: str
    attributes: dict[str, object]
    qid: int = 0

    @classmethod
    def new(cls, objtype: str, name: str, attributes: dict[str, object] | None = None,
            like: ObjectDef | None = None, qid: int = 0) -> ObjectDef:
        base = copy.deepcopy(like.attributes) if like is not None else \
            copy.deepcopy(DEFAULTS.get(objtype, {}))
        base.update(attributes or {})
        date, tod = _stamp()
        base.setdefault("CRDATE", date)
        base.setdefault("CRTIME", tod)
        if like is not None:
            base["CRDATE"], base["CRTIME"] = date, tod
        base["ALTDATE"], base["ALTTIME"] = date, tod
        return cls(objtype, name, base, qid)

    def get(self, key: str) -> object:
        return self.attributes[key]

    def to_json(self) -> dict:
        return {"objtype": self.objtype, "name": self.name, "attributes": self.attributes,
                "qid": self.qid}

    @classmethod
    def from_json(cls, d: dict) -> ObjectDef:
        return cls(d["objtype"], d["name"], dict(d["attributes"]), d.get("qid", 0))

    @property
    def is_queue(self) -> bool:
        return self.objtype in QUEUE_TYPES


def namespace(objtype: str) -> str:
    """Queues of every type share one namespace; other types have their own."""
    return "QUEUE" if objtype in QUEUE_TYPES else objtype


# The system and default objects of a new queue manager (IBM's names; the system objects'
# descriptions are IBM's [M], the default objects', blank as at IBM).
SYSTEM_OBJECTS: list[tuple[str, str, dict[str, object]]] = [
    ("QLOCAL", "SYSTEM.DEFAULT.LOCAL.QUEUE", {}),
    ("QMODEL", "SYSTEM.DEFAULT.MODEL.QUEUE", {}),
    ("QALIAS", "SYSTEM.DEFAULT.ALIAS.QUEUE", {}),
    ("QREMOTE", "SYSTEM.DEFAULT.REMOTE.QUEUE", {}),
    ("PROCESS", "SYSTEM.DEFAULT.PROCESS", {}),
    ("NAMELIST", "SYSTEM.DEFAULT.NAMELIST", {}),
    ("STGCLASS", "DEFAULT", {"PSID": 1}),
    ("STGCLASS", "SYSTEM", {"PSID": 1}),
    ("QLOCAL", "SYSTEM.CHANNEL.INITQ", {"SHARE": "YES",
                                       "DESCR": "IBM MQ Channel Initiation Queue"}),
    ("QLOCAL", "SYSTEM.DEFAULT.INITIATION.QUEUE", {
        "DESCR": "IBM MQ Default Initiation Queue"}),
    ("QLOCAL", "SYSTEM.CHANNEL.SYNCQ", {"DEFPSIST": "YES", "MAXDEPTH": 10000,
                                       "DESCR": "IBM MQ Channel Sync Queue"}),
    ("QLOCAL", "SYSTEM.ADMIN.COMMAND.QUEUE", {"MAXDEPTH": 3000,
                                             "DESCR": "IBM MQ Admin Command Queue"}),
    ("QLOCAL", "SYSTEM.ADMIN.STATISTICS.QUEUE", {"DEFPSIST": "YES", "MAXDEPTH": 3000,
                                                "DESCR": "IBM MQ Statistics Queue"}),
    ("QLOCAL", "SYSTEM.ADMIN.ACCOUNTING.QUEUE", {"DEFPSIST": "YES", "MAXDEPTH": 3000,
                                                "DESCR": "IBM MQ Accounting Queue"}),
    ("QLOCAL", "SYSTEM.ADMIN.CHANNEL.EVENT", {"DESCR": "IBM MQ Channel Event Queue"}),
    ("QLOCAL", "SYSTEM.ADMIN.QMGR.EVENT", {"DESCR": "IBM MQ Queue Manager Event Queue"}),
    ("QLOCAL", "SYSTEM.ADMIN.PERFM.EVENT", {"DESCR": "IBM MQ Performance Event Queue"}),
    ("QLOCAL", "SYSTEM.ADMIN.COMMAND.EVENT", {"DESCR": "IBM MQ Command Event Queue"}),
    ("QLOCAL", "SYSTEM.ADMIN.CONFIG.EVENT", {"DESCR": "IBM MQ Config Event Queue"}),
    ("QLOCAL", "SYSTEM.CLUSTER.TRANSMIT.QUEUE", {"USAGE": "XMITQ", "DEFPSIST": "YES",
                                                 "MAXDEPTH": 999999999,
                                                 "DESCR": "IBM MQ Cluster Transmission Queue"}),
    ("QLOCAL", "SYSTEM.CLUSTER.COMMAND.QUEUE", {"DEFPSIST": "YES", "MAXDEPTH": 999999999,
                                                "DESCR": "IBM MQ Cluster Command Queue"}),
    ("QLOCAL", "SYSTEM.CLUSTER.REPOSITORY.QUEUE", {"DEFPSIST": "YES", "MAXDEPTH": 999999999,
                                                   "SHARE": "NO", "DEFSOPT": "EXCL",
                                                   "DESCR": "IBM MQ Repository Queue"}),
    ("QMODEL", "SYSTEM.COMMAND.REPLY.MODEL", {"DESCR": "IBM MQ Command Reply Model Queue"}),
    ("LISTENER", "SYSTEM.DEFAULT.LISTENER.TCP", {}),
    ("SERVICE", "SYSTEM.DEFAULT.SERVICE", {}),
    ("CHANNEL", "SYSTEM.DEF.SENDER", {"CHLTYPE": "SDR", "TRPTYPE": "TCP"}),
    ("CHANNEL", "SYSTEM.DEF.SERVER", {"CHLTYPE": "SVR", "TRPTYPE": "TCP"}),
    ("CHANNEL", "SYSTEM.DEF.RECEIVER", {"CHLTYPE": "RCVR", "TRPTYPE": "TCP"}),
    ("CHANNEL", "SYSTEM.DEF.REQUESTER", {"CHLTYPE": "RQSTR", "TRPTYPE": "TCP"}),
    ("CHANNEL", "SYSTEM.DEF.SVRCONN", {"CHLTYPE": "SVRCONN", "TRPTYPE": "TCP"}),
    ("CHANNEL", "SYSTEM.DEF.CLNTCONN", {"CHLTYPE": "CLNTCONN", "TRPTYPE": "TCP"}),
    ("CHANNEL", "SYSTEM.DEF.CLUSSDR", {"CHLTYPE": "CLUSSDR", "TRPTYPE": "TCP"}),
    ("CHANNEL", "SYSTEM.DEF.CLUSRCVR", {"CHLTYPE": "CLUSRCVR", "TRPTYPE": "TCP"}),
    ("CHANNEL", "SYSTEM.AUTO.RECEIVER", {"CHLTYPE": "RCVR", "TRPTYPE": "TCP",
                                         "DESCR": "Auto-defined receiver channel model"}),
    ("CHANNEL", "SYSTEM.AUTO.SVRCONN", {"CHLTYPE": "SVRCONN", "TRPTYPE": "TCP"}),
    ("QMODEL", "SYSTEM.MQSC.REPLY.QUEUE", {"DESCR": "IBM MQ MQSC Reply Queue"}),
    # publish/subscribe (mqpy.pubsub): the base of ASPARENT resolution, the default topic,
    # the models of managed destinations (MDURMDL, MNDURMDL)
    ("TOPIC", "SYSTEM.BASE.TOPIC", {
        "DESCR": "Base topic for resolving attributes", "DURSUB": "YES", "PUB": "ENABLED",
        "SUB": "ENABLED", "DEFPSIST": "NO", "DEFPRTY": 0, "DEFPRESP": "SYNC",
        "NPMSGDLV": "ALLAVAIL", "PMSGDLV": "ALLDUR", "MDURMDL": "SYSTEM.DURABLE.MODEL.QUEUE",
        "MNDURMDL": "SYSTEM.NDURABLE.MODEL.QUEUE", "PUBSCOPE": "ALL", "SUBSCOPE": "ALL",
        "USEDLQ": "YES", "MCAST": "DISABLED", "CAPEXPRY": "NOLIMIT",
        "COMMINFO": "SYSTEM.DEFAULT.COMMINFO.MULTICAST"}),
    ("TOPIC", "SYSTEM.DEFAULT.TOPIC", {}),
    # the root of IBM's administrative topic branch (mqpy.pubsub.admintopic): wildcard
    # subscriptions above it do not reach into it, and its attributes are its own
    ("TOPIC", "SYSTEM.ADMIN.TOPIC", {
        "TOPICSTR": "$SYS/MQ", "WILDCARD": "BLOCK", "DURSUB": "YES", "PUB": "ENABLED",
        "SUB": "ENABLED", "DEFPSIST": "NO", "DEFPRTY": 0, "DEFPRESP": "SYNC",
        "NPMSGDLV": "ALLAVAIL", "PMSGDLV": "ALLDUR", "PUBSCOPE": "QMGR", "SUBSCOPE": "QMGR",
        "USEDLQ": "YES", "MCAST": "DISABLED", "CAPEXPRY": "NOLIMIT"}),
    ("QMODEL", "SYSTEM.DURABLE.MODEL.QUEUE", {
        "DEFTYPE": "PERMDYN", "DEFPSIST": "YES", "MAXDEPTH": 100000,
        "DESCR": "IBM MQ Managed Durable Subscription Model Queue"}),
    ("QLOCAL", "SYSTEM.RETAINED.PUB.QUEUE", {
        "DEFPSIST": "YES", "MAXDEPTH": 999999999, "SHARE": "YES",
        "DESCR": "IBM MQ Retained Publications - Last Message"}),
    ("QMODEL", "SYSTEM.NDURABLE.MODEL.QUEUE", {
        "DEFTYPE": "TEMPDYN", "MAXDEPTH": 100000,
        "DESCR": "IBM MQ Managed Non-Durable Subscription Model Queue"}),
    # distributed publish/subscribe (mqpy.pubsub.interqmgr): IBM's attributes, DEFPSIST(YES)
    # DEFSOPT(SHARED) MAXDEPTH(999999999)
    ("QLOCAL", "SYSTEM.INTER.QMGR.CONTROL", {
        "DEFPSIST": "YES", "DEFSOPT": "SHARED", "MAXDEPTH": 999999999,
        "DESCR": "IBM MQ distributed pub/sub control queue"}),
    ("QLOCAL", "SYSTEM.INTER.QMGR.FANREQ", {
        "DEFPSIST": "YES", "DEFSOPT": "SHARED", "MAXDEPTH": 999999999,
        "DESCR": "IBM MQ distributed pub/sub fan out request queue"}),
    ("QLOCAL", "SYSTEM.INTER.QMGR.PUBS", {
        "DEFPSIST": "YES", "DEFSOPT": "SHARED", "MAXDEPTH": 999999999,
        "DESCR": "IBM MQ distributed pub/sub publications queue"}),
]
