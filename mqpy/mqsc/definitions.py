"""DEFINE, ALTER, DELETE and DISPLAY of every object with a definition: queues, processes,
namelists, channels, listeners, services, authentication information, storage classes.
A definition starts from LIKE's object or IBM's default object (SYSTEM.DEFAULT.*)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from mqpy import CMQC, CMQCFC, services
from mqpy.engine.objects import QUEUE_TYPES
from mqpy.errors import MQMIError
from mqpy.mqsc import grammar as g
from mqpy.mqsc.display import format_attrs
from mqpy.mqsc.mapping import (
    EXTRA_DEFAULTS,
    STAMPS,
    channel_defaults,
    display_items,
    display_keywords,
    to_stored,
)
from mqpy.mqsc.messages import DISPLAY_HEADERS, message
from mqpy.mqsc.parser import MQSCCommand
from mqpy.mqsc.results import CommandFailed, Handler, Requester, from_mqi
from mqpy.mqsc.selection import selected, where_passes
from mqpy.pubsub import admintopic, topicobjects
from mqpy.security.chlauth import valid_dn_pattern

if TYPE_CHECKING:
    from mqpy.mqsc.processor import MQSCProcessor

__all__ = ["COMMANDS", "NAME_ITEM", "display"]

# objtype -> (created, deleted, changed) message ids
_OUTCOMES: dict[str, tuple[str, str, str]] = {
    **{q: ("AMQ8006I", "AMQ8007I", "AMQ8008I") for q in QUEUE_TYPES},
    "PROCESS": ("AMQ8010I", "AMQ8011I", "AMQ8012I"),
    "CHANNEL": ("AMQ8014I", "AMQ8015I", "AMQ8016I"),
    "NAMELIST": ("AMQ8552I", "AMQ8553I", "AMQ8551I"),
    "LISTENER": ("AMQ8626I", "AMQ8627I", "AMQ8623I"),
    "STGCLASS": ("AMQ8930I", "AMQ8931I", "AMQ8932I"),
    "AUTHINFO": ("AMQ8563I", "AMQ8564I", "AMQ8567I"),
    "SERVICE": ("AMQ8625I", "AMQ8624I", "AMQ8628I"),
    "TOPIC": ("AMQ8690I", "AMQ8692I", "AMQ8691I"),
}

#: objtype -> the keyword of its name item in DISPLAY output (the objects with definitions).
NAME_ITEM = {**{q: "QUEUE" for q in QUEUE_TYPES}, "PROCESS": "PROCESS", "CHANNEL": "CHANNEL",
             "NAMELIST": "NAMELIST", "STGCLASS": "STGCLASS", "LISTENER": "LISTENER",
             "AUTHINFO": "AUTHINFO", "SERVICE": "SERVICE", "TOPIC": "TOPIC"}

#: objtype -> the object DEFINE copies when no LIKE is given (IBM's default objects).
_DEFAULT_OBJECT = {"QLOCAL": "SYSTEM.DEFAULT.LOCAL.QUEUE", "QMODEL": "SYSTEM.DEFAULT.MODEL.QUEUE",
                   "QALIAS": "SYSTEM.DEFAULT.ALIAS.QUEUE",
                   "QREMOTE": "SYSTEM.DEFAULT.REMOTE.QUEUE", "PROCESS": "SYSTEM.DEFAULT.PROCESS",
                   "NAMELIST": "SYSTEM.DEFAULT.NAMELIST",
                   "LISTENER": "SYSTEM.DEFAULT.LISTENER.TCP",
                   "AUTHINFO": "SYSTEM.DEFAULT.AUTHINFO.IDPWOS",
                   "SERVICE": "SYSTEM.DEFAULT.SERVICE", "TOPIC": "SYSTEM.DEFAULT.TOPIC"}

_CONNAME_REQUIRED = ("SDR", "RQSTR", "CLNTCONN", "CLUSSDR", "CLUSRCVR")


def _check_sslpeer(wanted: dict[str, object]) -> None:
    """A channel's SSLPEER is checked when it is entered (IBM, distributed platforms): a
    malformed DN pattern is refused with MQRCCF_SSL_PEER_NAME_ERROR (4093)."""
    sslpeer = str(wanted.get("SSLPEER") or "").strip()
    if sslpeer and not valid_dn_pattern(sslpeer):
        raise CommandFailed.in_hex(CMQCFC.MQRCCF_SSL_PEER_NAME_ERROR)


def define(proc: MQSCProcessor, cmd: MQSCCommand, who: Requester) -> list[str]:
    objtype, name = str(cmd.objtype), str(cmd.name)
    existing = proc.engine.lookup(objtype, name)
    replace = "REPLACE" in cmd.flags
    if existing is not None and not replace:
        raise CommandFailed.of(CMQCFC.MQRCCF_OBJECT_ALREADY_EXISTS, "AMQ8150E")
    if existing is not None and existing.objtype != objtype:
        raise CommandFailed.of(CMQCFC.MQRCCF_OBJECT_WRONG_TYPE, "AMQ8151E")
    wanted = to_stored(cmd.params, cmd.flags)
    _check_sslpeer(wanted)
    base = _base_attributes(proc, cmd)
    if objtype == "CHANNEL":
        base = _channel_base(wanted, base)
    attributes = {**EXTRA_DEFAULTS.get(objtype, {}), **base, **wanted}
    if str(attributes.get("CLUSTER") or "").strip() and \
            str(attributes.get("CLUSNL") or "").strip():
        # a cluster object belongs to one cluster or to a namelist of them, not both
        raise CommandFailed.of(CMQCFC.MQRCCF_CLUSTER_NAME_CONFLICT, "AMQ8769E")
    if objtype == "TOPIC":  # a topic string, and only one object for it
        refused = topicobjects.definition_error(proc.engine.catalog, name, attributes)
        if refused:
            raise CommandFailed.in_hex(refused)
    proc.engine.define(objtype, name, attributes, replace=existing is not None)
    proc.cluster_changed(objtype, attributes, existing.attributes if existing else None)
    return [message(_OUTCOMES[objtype][0])]


def _channel_base(wanted: dict[str, object], base: dict[str, object]) -> dict[str, object]:
    """A new channel's starting attributes: IBM's defaults for its type, then those of the
    object it copies that the type has; CONNAME required for the types that call out."""
    chltype = str(wanted.get("CHLTYPE") or base.get("CHLTYPE"))
    allowed = g.CHLTYPE_ATTRS[chltype]
    base = {**channel_defaults(chltype), **{k: v for k, v in base.items() if k in allowed}}
    # IBM: the parameter must be *present* (CONNAME(' ') is), unless the channel
    # already has one (so that dmpmqcfg's dump of SYSTEM.DEF.SENDER replays)
    if chltype in _CONNAME_REQUIRED and "CONNAME" not in wanted and not base.get("CONNAME"):
        raise CommandFailed.of(CMQCFC.MQRCCF_CONN_NAME_ERROR, "AMQ8214E")
    return base


def _base_attributes(proc: MQSCProcessor, cmd: MQSCCommand) -> dict[str, object]:
    """LIKE's attributes, else the default object's (IBM: SYSTEM.DEFAULT.*), no stamps."""
    objtype = str(cmd.objtype)
    like = cmd.params.get("LIKE")
    source = None
    if like:
        source = proc.engine.lookup(objtype, str(like))
        if source is None or source.objtype != objtype:
            raise CommandFailed.of(CMQC.MQRC_UNKNOWN_OBJECT_NAME, "AMQ8147E", like)
    elif objtype in _DEFAULT_OBJECT:
        source = proc.engine.lookup(objtype, _DEFAULT_OBJECT[objtype])
    if source is None:
        return {}
    return {k: (list(v) if isinstance(v, list) else v)
            for k, v in source.attributes.items() if k not in STAMPS}


def alter(proc: MQSCProcessor, cmd: MQSCCommand, who: Requester) -> list[str]:
    objtype, name = str(cmd.objtype), str(cmd.name)
    obj = proc.existing(objtype, name)
    if obj is None:
        raise CommandFailed.of(CMQC.MQRC_UNKNOWN_OBJECT_NAME, "AMQ8147E", name)
    wanted = to_stored(cmd.params, cmd.flags)
    _check_sslpeer(wanted)
    if objtype == "CHANNEL" and wanted.get("CHLTYPE") != obj.attributes.get("CHLTYPE"):
        raise CommandFailed.of(CMQCFC.MQRCCF_OBJECT_WRONG_TYPE, "AMQ8151E")
    if objtype == "TOPIC" and admintopic.restricted_change(name, wanted):
        raise CommandFailed.in_hex(admintopic.restricted_change(name, wanted))
    before = dict(obj.attributes)
    proc.engine.alter(objtype, name, wanted)
    proc.cluster_changed(objtype, before, {**before, **wanted})
    return [message(_OUTCOMES[objtype][2])]


def delete(proc: MQSCProcessor, cmd: MQSCCommand, who: Requester) -> list[str]:
    objtype, name = str(cmd.objtype), str(cmd.name)
    existing = proc.existing(objtype, name)
    if existing is None:
        raise CommandFailed.of(CMQC.MQRC_UNKNOWN_OBJECT_NAME, "AMQ8147E", name)
    before = dict(existing.attributes)
    if objtype == "SERVICE" and services.runner_for(proc.engine).is_running(name):
        # IBM: a running server service cannot be deleted; stop it first
        raise CommandFailed.of(CMQCFC.MQRCCF_OBJECT_IN_USE, "AMQ8148E")
    try:
        proc.engine.delete(objtype, name, purge="PURGE" in cmd.flags)
    except MQMIError as err:
        raise from_mqi(err, name) from None
    proc.cluster_changed(objtype, before)
    return [message(_OUTCOMES[objtype][1])]


def display(proc: MQSCProcessor, cmd: MQSCCommand, who: Requester) -> list[str]:
    """DISPLAY of definitions: the name item (and TYPE or CHLTYPE), then what was asked."""
    objtype, name = str(cmd.objtype), str(cmd.name)
    if objtype == "QUEUE":
        qtype = str(cmd.params.get("TYPE", "ALL"))
        types: tuple[str, ...] = QUEUE_TYPES if qtype in ("ALL", "QCLUSTER") else (qtype,)
    else:
        types = (objtype,)
    objs = proc.matching(types, name, cmd.generic, who)
    if objtype == "CHANNEL" and "CHLTYPE" in cmd.params:
        objs = [o for o in objs if o.attributes.get("CHLTYPE") == cmd.params["CHLTYPE"]]
    if not objs:
        raise CommandFailed.of(CMQC.MQRC_UNKNOWN_OBJECT_NAME, "AMQ8147E", name)
    lines: list[str] = []
    for obj in objs:
        view = proc.stored_view(obj)
        chltype = str(view.get("CHLTYPE", ""))
        shown = display_keywords(obj.objtype, chltype)
        view = {k: v for k, v in view.items() if k in shown}
        if not where_passes(cmd.where, view):
            continue
        head = [(NAME_ITEM[obj.objtype], obj.name)]
        if obj.objtype in QUEUE_TYPES:
            head.append(("TYPE", obj.objtype))
        elif obj.objtype == "TOPIC":  # IBM shows TYPE(LOCAL) beside the name
            head.append(("TYPE", view.get("TYPE", "LOCAL")))
        elif obj.objtype == "CHANNEL":
            head.append(("CHLTYPE", chltype))
        rest = selected(cmd, view, exclude={"CHLTYPE", "TYPE"})
        lines.append(message(DISPLAY_HEADERS[obj.objtype]))
        lines.extend(format_attrs(head + display_items(rest)))
    return lines


#: (verb, object type) -> handler
COMMANDS: dict[tuple[str, str], Handler] = {
    (verb, objtype): handler
    for objtype in (*NAME_ITEM, "QUEUE")
    for verb, handler in (("DEFINE", define), ("ALTER", alter), ("DELETE", delete),
                          ("DISPLAY", display))
}
