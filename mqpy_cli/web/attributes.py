"""IBM's REST API attribute names (``group.attributeName``) and the MQSC keywords behind them,
for queues and channels, with the value conversions (booleans, IBM's lower-case words).
Declarative: :mod:`mqpy_cli.web.admin` reads it both ways, answers and requests."""

from __future__ import annotations

from collections.abc import Callable

import attrs


@attrs.frozen
class RestAttr:
    rest: str  #: "storage.maximumDepth"
    keyword: str  #: "MAXDEPTH"
    #: stored MQSC value -> JSON value, and back
    out: Callable[[object], object] = lambda v: v
    into: Callable[[object], object] = lambda v: v


def _flag(true_word: str, false_word: str) -> tuple[Callable, Callable]:
    return (lambda v: v == true_word), (lambda v: true_word if v else false_word)


def _lower_words(words: dict[str, str]) -> tuple[Callable, Callable]:
    back = {v: k for k, v in words.items()}
    return (lambda v: words.get(str(v), str(v).lower())), \
        (lambda v: back.get(str(v), str(v).upper()))


def _a(rest: str, keyword: str, conv: tuple[Callable, Callable] | None = None) -> RestAttr:
    return RestAttr(rest, keyword, *conv) if conv else RestAttr(rest, keyword)


_INHIBIT = _flag("DISABLED", "ENABLED")
_YES = _flag("YES", "NO")

#: queue type word -> IBM's REST type, and back
QUEUE_TYPES = {"QLOCAL": "local", "QALIAS": "alias", "QREMOTE": "remote", "QMODEL": "model"}
QUEUE_TYPE_WORDS = {v: k for k, v in QUEUE_TYPES.items()}

QUEUE: tuple[RestAttr, ...] = (
    _a("general.description", "DESCR"),
    _a("general.inhibitPut", "PUT", _INHIBIT),
    _a("general.inhibitGet", "GET", _INHIBIT),
    _a("general.isTransmissionQueue", "USAGE", _flag("XMITQ", "NORMAL")),
    _a("general.defaultPriority", "DEFPRTY"),
    _a("general.defaultPersistence", "DEFPSIST", _YES),
    _a("storage.maximumDepth", "MAXDEPTH"),
    _a("storage.maximumMessageLength", "MAXMSGL"),
    _a("storage.messageDeliverySequence", "MSGDLVSQ",
       _lower_words({"PRIORITY": "priority", "FIFO": "fifo"})),
    _a("events.depth.highPercentage", "QDEPTHHI"),
    _a("events.depth.lowPercentage", "QDEPTHLO"),
    _a("events.depth.highEnabled", "QDPHIEV", _flag("ENABLED", "DISABLED")),
    _a("events.depth.fullEnabled", "QDPMAXEV", _flag("ENABLED", "DISABLED")),
    _a("backout.threshold", "BOTHRESH"),
    _a("backout.requeueQueueName", "BOQNAME"),
    _a("trigger.enabled", "TRIGGER", _flag("TRIGGER", "NOTRIGGER")),
    _a("trigger.type", "TRIGTYPE",
       _lower_words({"NONE": "none", "FIRST": "first", "EVERY": "every", "DEPTH": "depth"})),
    _a("trigger.depth", "TRIGDPTH"),
    _a("trigger.initiationQueueName", "INITQ"),
    _a("trigger.processName", "PROCESS"),
    _a("remote.queueName", "RNAME"),
    _a("remote.qmgrName", "RQMNAME"),
    _a("remote.transmissionQueueName", "XMITQ"),
    _a("alias.targetName", "TARGET"),
    _a("cluster.name", "CLUSTER"),
    _a("timestamps.created", "CRDATE"),
    _a("timestamps.altered", "ALTDATE"),
)

#: status.* of a queue (Inquire Queue Status)
QUEUE_STATUS: tuple[RestAttr, ...] = (
    _a("status.currentDepth", "CURDEPTH"),
    _a("status.openInputCount", "IPPROCS"),
    _a("status.openOutputCount", "OPPROCS"),
    _a("status.oldestMessageAge", "MSGAGE"),
    _a("status.uncommittedMessages", "UNCOM"),
    _a("status.lastPut", "LPUT"),
    _a("status.lastGet", "LGET"),
)

CHANNEL_TYPES = {"SDR": "sender", "RCVR": "receiver", "SVR": "server", "RQSTR": "requester",
                 "SVRCONN": "serverConnection", "CLNTCONN": "clientConnection",
                 "CLUSSDR": "clusterSender", "CLUSRCVR": "clusterReceiver"}

CHANNEL: tuple[RestAttr, ...] = (
    _a("general.description", "DESCR"),
    _a("general.maximumMessageLength", "MAXMSGL"),
    _a("general.heartbeatInterval", "HBINT"),
    _a("sender.connectionName", "CONNAME"),
    _a("sender.transmissionQueueName", "XMITQ"),
    _a("batch.size", "BATCHSZ"),
    _a("batch.interval", "BATCHINT"),
    _a("disconnectInterval", "DISCINT"),
    _a("mcaUserId", "MCAUSER"),
    _a("timestamps.altered", "ALTDATE"),
)

#: status.* of a channel (Inquire Channel Status)
CHANNEL_STATUS: tuple[RestAttr, ...] = (
    _a("status.state", "STATUS", _lower_words({})),
    _a("status.connectionName", "CONNAME"),
    _a("status.remoteQmgrName", "RQMNAME"),
    _a("status.transmissionQueueName", "XMITQ"),
    _a("status.messages", "MSGS"),
    _a("status.bytesSent", "BYTSSENT"),
    _a("status.bytesReceived", "BYTSRCVD"),
    _a("status.batches", "BATCHES"),
    _a("status.inDoubt", "INDOUBT", _YES),
    _a("status.lastMessageDate", "LSTMSGDA"),
    _a("status.lastMessageTime", "LSTMSGTI"),
    _a("status.startDate", "CHSTADA"),
    _a("status.startTime", "CHSTATI"),
)


def by_rest(table: tuple[RestAttr, ...]) -> dict[str, RestAttr]:
    return {a.rest: a for a in table}


def groups(table: tuple[RestAttr, ...]) -> set[str]:
    return {a.rest.split(".")[0] for a in table if "." in a.rest}


def select(table: tuple[RestAttr, ...], asked: str | None) -> list[RestAttr]:
    """The attributes an ``attributes=`` / ``status=`` value asks for: ``*``, group names
    (``storage``) or full names (``storage.maximumDepth``), comma separated. ValueError
    naming the first unknown one."""
    if not asked:
        return []
    out: list[RestAttr] = []
    names = by_rest(table)
    for item in (x.strip() for x in asked.split(",")):
        if item == "*":
            return list(table)
        if item in names:
            out.append(names[item])
        elif item in groups(table):
            out.extend(a for a in table if a.rest.split(".")[0] == item)
        else:
            raise ValueError(item)
    return out


def put_path(target: dict, path: str, value: object) -> None:
    """``target["a"]["b"] = value`` for path ``a.b``."""
    *parents, leaf = path.split(".")
    for p in parents:
        target = target.setdefault(p, {})
    target[leaf] = value


def flatten(body: dict, prefix: str = "") -> dict[str, object]:
    """A nested request body as ``{"group.attribute": value}``."""
    out: dict[str, object] = {}
    for key, value in body.items():
        path = f"{prefix}{key}"
        if isinstance(value, dict):
            out.update(flatten(value, path + "."))
        else:
            out[path] = value
    return out


#: a subscription's objects (Inquire Subscription); id, name and resolvedTopicString are
#: always given, as IBM's GET gives them
SUBSCRIPTION: tuple[RestAttr, ...] = (
    _a("topic.name", "TOPICOBJ"),
    _a("selector.value", "SELECTOR"),
    _a("selector.type", "SELTYPE"),
    _a("destination.isManaged", "DESTCLAS", _flag("MANAGED", "PROVIDED")),
    _a("destination.qmgrName", "DESTQMGR"),
    _a("destination.name", "DEST"),
    _a("destination.correlationId", "DESTCORL"),
    _a("user.userId", "SUBUSER"),
    _a("user.data", "USERDATA"),
    _a("general.isDurable", "DURABLE", _YES),
    _a("general.type", "SUBTYPE", _lower_words({})),
    _a("general.requestOnly", "REQONLY", _YES),
    _a("general.wildcardSchema", "WSCHEMA", _lower_words({})),
)
