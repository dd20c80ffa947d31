"""Command events, configuration events and Not Authorized type 4: whether the queue manager
wants them, what they say, and putting them (``mqpy.events`` builds the messages).

Theory of operation. Every command runs through :meth:`MQSCProcessor.execute`, whatever sent
it (runmqsc, an MQCMD_ESCAPE, a PCF command of the command server, the queue manager's own
MQSC): there :func:`watch` looks at a DEFINE, ALTER or DELETE of an object before it runs
(the object's attributes as its Inquire answers them, :mod:`mqpy.mqsc.pcfattrs`) and, when it
worked, :meth:`ConfigWatch.done` puts Create Object, Change Object (two messages, before and
after, one CorrelId) or Delete Object on SYSTEM.ADMIN.CONFIG.EVENT while the queue manager's
CONFIGEV is ENABLED. REFRESH QMGR TYPE(CONFIGEV) puts one Refresh Object per object it
selects, as does an ALTER QMGR that turns CONFIGEV from DISABLED to ENABLED (IBM: "a Refresh
Queue Manager command ... is generated automatically"). The command server puts the Command
event of each request that worked (:func:`command_done`) and Not Authorized type 4 for one it
refused (:func:`command_refused`).

SET CHLAUTH and SET / DELETE AUTHREC are watched as a whole (:class:`RecordWatch`): each
security record the command made, changed or removed is Create, Change or Delete Object of
MQOT_CHLAUTH (the record as Inquire Channel Authentication Records answers it) or
MQOT_AUTH_REC (IBM's authority record attributes). Two MQI calls change objects too: the
engine calls its ``object_changed`` hook, which :func:`install` sets, after an MQSET (Change
Object, EventOrigin MQEVO_MQSET) and after an MQCLOSE that deleted a permanent dynamic queue
(Delete Object); the engine never imports this layer.

IBM's rules kept here: no configuration event for a temporary dynamic queue, nor for the
configuration event queue itself except by a refresh; ALTER QMGR is an event (command and
configuration) while the switch is on before or after the change; a DISPLAY (MQSC) or Inquire
(PCF) is a command event only under CMDEV(ENABLED), not NODISPLAY. The events of one command
share its CorrelId. With the switches off (IBM's default) a command pays one dictionary
look-up. An event that cannot be put is lost, and the command is not failed for it.
"""

from __future__ import annotations

import functools
import getpass
import time
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from mqpy import CMQC, CMQCFC, events
from mqpy.engine.mqmd import _put_timestamp
from mqpy.engine.objects import ObjectDef
from mqpy.events import EventOrigin
from mqpy.mqsc import pcfattrs
from mqpy.mqsc.messages import message
from mqpy.mqsc.parser import MQSCCommand
from mqpy.mqsc.results import CommandFailed, Handler, Requester, not_supported
from mqpy.mqsc.selection import generic_match
from mqpy.pcf import PCFMessage, build
from mqpy.security.authority import AuthRecord
from mqpy.security.chlauth import ChlauthRecord
from mqpy.structs.tables import MD

if TYPE_CHECKING:
    from mqpy.mqsc.processor import MQSCProcessor

__all__ = ["COMMANDS", "CONFIG_OBJECTS", "ConfigWatch", "RequestEvents", "command_done",
           "command_refused", "command_wanted", "console_origin", "install", "object_changed",
           "put", "request_origin", "watch"]

#: object types whose DEFINE, ALTER and DELETE are configuration events -> their ObjectType
CONFIG_OBJECTS: dict[str, int] = {
    "QLOCAL": CMQC.MQOT_Q, "QMODEL": CMQC.MQOT_Q, "QALIAS": CMQC.MQOT_Q,
    "QREMOTE": CMQC.MQOT_Q, "CHANNEL": CMQC.MQOT_CHANNEL, "NAMELIST": CMQC.MQOT_NAMELIST,
    "PROCESS": CMQC.MQOT_PROCESS, "AUTHINFO": CMQC.MQOT_AUTH_INFO, "TOPIC": CMQC.MQOT_TOPIC,
    "LISTENER": CMQC.MQOT_LISTENER, "SERVICE": CMQC.MQOT_SERVICE, "QMGR": CMQC.MQOT_Q_MGR}
#: the security records whose changes are configuration events -> their ObjectType (IBM:
#: SET CHLAUTH creates, changes or removes channel authentication records; SET and DELETE
#: AUTHREC are Create, Change and Delete Authority Record)
RECORD_OBJECTS: dict[str, int] = {"CHLAUTH": CMQC.MQOT_CHLAUTH, "AUTHREC": CMQC.MQOT_AUTH_REC}
_RECORD_VERBS = frozenset({("SET", "CHLAUTH"), ("SET", "AUTHREC"), ("DELETE", "AUTHREC")})
_VERBS = frozenset({"DEFINE", "ALTER", "DELETE"})
#: REFRESH QMGR's OBJECT -> the object types it selects (IBM: Refresh Authority Record
#: for the authority records, Refresh Object for the rest)
_REFRESH_TYPES: dict[str, tuple[str, ...]] = {
    **{t: (t,) for t in (*CONFIG_OBJECTS, *RECORD_OBJECTS)},
    "QUEUE": ("QLOCAL", "QMODEL", "QALIAS", "QREMOTE"),
    "ALL": (*CONFIG_OBJECTS, *RECORD_OBJECTS)}
#: every object type a configuration event reports -> its ObjectType
_OBJECT_TYPES = {**CONFIG_OBJECTS, **RECORD_OBJECTS}
#: a security record's attribute its REFRESH QMGR NAME is matched with (its profile)
_RECORD_NAMES = {"CHLAUTH": "CHLAUTH", "AUTHREC": "PROFILE"}
#: the applications whose MQSC requests are console commands (IBM: runmqsc is the console)
CONSOLE_APPLS = frozenset({"runmqsc"})


def _on(qmgr_attributes: dict, switch: str) -> bool:
    return str(qmgr_attributes.get(switch) or "").upper() == "ENABLED"


def _text(value: bytes | str) -> str:
    if isinstance(value, bytes):
        value = value.decode("latin-1")
    return value.rstrip(" \x00")


# ------------------------------------------------------------------ origin and putting


def console_origin(qmgr: str, user: str | None = None) -> EventOrigin:
    """A command entered at this queue manager's console (runmqsc, or MQSC run in its
    process): MQEVO_CONSOLE, the user who ran it, no message context."""
    if user is None:
        try:
            user = getpass.getuser()
        except (KeyError, OSError):  # no name for this uid
            user = ""
    return EventOrigin(user=user[:CMQC.MQ_USER_ID_LENGTH], origin=CMQCFC.MQEVO_CONSOLE,
                       qmgr=qmgr)


def request_origin(qmgr: str, md: MD) -> EventOrigin:
    """The origin of a command message: MQEVO_MSG with its MQMD's context, its user being the
    one the request runs for; runmqsc's requests are the console's (MQEVO_CONSOLE)."""
    user = _text(md.UserIdentifier)
    appl = _text(md.PutApplName)
    if appl.rsplit("/", 1)[-1] in CONSOLE_APPLS:
        return console_origin(qmgr, user)
    return EventOrigin(user=user, origin=CMQCFC.MQEVO_MSG,
                       qmgr=_text(md.ReplyToQMgr) or qmgr,
                       accounting_token=bytes(md.AccountingToken),
                       appl_identity=_text(md.ApplIdentityData), appl_type=md.PutApplType,
                       appl_name=appl, appl_origin=_text(md.ApplOriginData))


def put(eng: Any, queue: str, msg: PCFMessage, correl_id: bytes = CMQC.MQCI_NONE) -> bool:
    """Put one event message as the queue manager (IBM's event MQMD: a datagram in format
    MQEVENT, its persistence and priority the event queue's DEFPSIST and DEFPRTY) with
    ``correl_id``; False if it could not be put (lost, as IBM's are)."""
    date, tod = _put_timestamp(time.time())
    with eng.lock:
        found = eng.catalog.queue_def(queue)
        a = found.attributes if found is not None else {}
        md = MD(Format=CMQC.MQFMT_EVENT, MsgType=CMQC.MQMT_DATAGRAM, CorrelId=correl_id,
                Persistence=CMQC.MQPER_PERSISTENT if a.get("DEFPSIST") == "YES"
                else CMQC.MQPER_NOT_PERSISTENT,
                Priority=int(a.get("DEFPRTY", 0) or 0), PutApplType=CMQC.MQAT_QMGR,
                PutApplName=eng.name[:28].encode("latin-1", "replace"), PutDate=date,
                PutTime=tod)
        return bool(eng._system_put(queue, "", md, build(msg), dead_letter=False))


class RequestEvents:
    """What the events of one command server request report, its origin and CorrelId (made
    when its first event is put: a request that makes none pays nothing for them)."""

    __slots__ = ("_eng", "_made", "_md")

    def __init__(self, eng: Any, md: MD) -> None:
        self._eng = eng
        self._md = md
        self._made: tuple[EventOrigin, bytes] | None = None

    def __call__(self) -> tuple[EventOrigin, bytes]:
        if self._made is None:
            with self._eng.lock:
                correl = self._eng.new_msgid()
            self._made = (request_origin(self._eng.name, self._md), correl)
        return self._made


def _context(proc: MQSCProcessor, who: Requester) -> tuple[EventOrigin, bytes]:
    """The origin and CorrelId of ``who``'s command: the command server request's, else the
    console's with a CorrelId of its own."""
    if who.events is not None:
        return who.events()
    eng = proc.engine
    with eng.lock:
        return console_origin(eng.name), eng.new_msgid()


# ------------------------------------------------------------------ configuration events


def _attributes(proc: MQSCProcessor, obj: Any) -> list | None:
    """The object's attributes as its Inquire answers them; None when it raises no
    configuration event (a temporary dynamic queue, the configuration event queue)."""
    if obj is None:
        return None
    if obj.objtype == "CHLAUTH":
        return pcfattrs.chlauth_params(ChlauthRecord.from_attributes(obj.attributes).attributes())
    if obj.objtype == "AUTHREC":
        return pcfattrs.authrec_params(AuthRecord.from_attributes(obj.attributes))
    if obj.objtype not in CONFIG_OBJECTS:
        return None
    if obj.attributes.get("DEFTYPE") == "TEMPDYN" and obj.objtype == "QLOCAL":
        return None
    return pcfattrs.object_params(proc, obj)


class ConfigWatch:
    """One DEFINE, ALTER or DELETE watched: the object as it was before the command."""

    __slots__ = ("before", "cmd", "proc", "was_on")

    def __init__(self, proc: MQSCProcessor, cmd: MQSCCommand, before: list | None,
                 was_on: bool) -> None:
        self.proc = proc
        self.cmd = cmd
        self.before = before
        self.was_on = was_on

    def done(self, who: Requester) -> None:
        """The command worked: its configuration events (never raising into it)."""
        proc, cmd = self.proc, self.cmd
        eng = proc.engine
        if cmd.objtype == "QMGR":
            now_on = _on(eng.catalog.qmgr, "CONFIGEV")
            if not (self.was_on or now_on):
                return
            origin, correl = _context(proc, who)
            after = pcfattrs.qmgr_params(proc)
            for msg in events.change_object(origin, CMQC.MQOT_Q_MGR, self.before or after,
                                            after):
                put(eng, events.CONFIG_EVENT_QUEUE, msg, correl)
            if now_on and not self.was_on:
                _refresh(proc, origin, correl, _REFRESH_TYPES["ALL"], "*", 0)
            return
        if cmd.name == events.CONFIG_EVENT_QUEUE:
            return
        object_type = CONFIG_OBJECTS[str(cmd.objtype)]
        if cmd.verb == "DELETE":
            if self.before is not None:
                origin, correl = _context(proc, who)
                put(eng, events.CONFIG_EVENT_QUEUE,
                    events.delete_object(origin, object_type, self.before), correl)
            return
        after = _attributes(proc, eng.lookup(str(cmd.objtype), str(cmd.name)))
        if after is None:
            return
        origin, correl = _context(proc, who)
        if self.before is None:
            put(eng, events.CONFIG_EVENT_QUEUE,
                events.create_object(origin, object_type, after), correl)
            return
        for msg in events.change_object(origin, object_type, self.before, after):
            put(eng, events.CONFIG_EVENT_QUEUE, msg, correl)


class RecordWatch:
    """One SET CHLAUTH, SET AUTHREC or DELETE AUTHREC watched: the records of its type as
    they were (engine object name -> attributes). When it worked each record it made is
    Create Object, each it changed a Change Object pair, each it removed Delete Object, all
    with one CorrelId, the object type MQOT_CHLAUTH or MQOT_AUTH_REC."""

    __slots__ = ("before", "objtype", "proc")

    def __init__(self, proc: MQSCProcessor, objtype: str) -> None:
        self.proc = proc
        self.objtype = objtype
        self.before = self._records()

    def _records(self) -> dict[str, Any]:
        eng = self.proc.engine
        with eng.lock:
            return {o.name: ObjectDef(o.objtype, o.name, dict(o.attributes), o.qid)
                    for o in eng.catalog.by_type(self.objtype)}

    def done(self, who: Requester) -> None:
        proc, eng = self.proc, self.proc.engine
        after = self._records()
        object_type = RECORD_OBJECTS[self.objtype]
        changed = [(was, now) for name in sorted(self.before.keys() | after.keys())
                   if (was := _attributes(proc, self.before.get(name)))
                   != (now := _attributes(proc, after.get(name)))]
        if not changed:
            return
        origin, correl = _context(proc, who)
        for was, now in changed:
            if was is None:
                msgs: tuple[PCFMessage, ...] = (
                    events.create_object(origin, object_type, now or []),)
            elif now is None:
                msgs = (events.delete_object(origin, object_type, was),)
            else:
                msgs = events.change_object(origin, object_type, was, now)
            for msg in msgs:
                put(eng, events.CONFIG_EVENT_QUEUE, msg, correl)


def watch(proc: MQSCProcessor, cmd: MQSCCommand) -> ConfigWatch | RecordWatch | None:
    """A command that may be a configuration event, looked at before it runs; None when it
    is none (the queue manager's CONFIGEV DISABLED: one look-up). ALTER QMGR is watched
    whatever the switch, since it may turn it on."""
    if (cmd.verb, cmd.objtype) in _RECORD_VERBS:
        if not _on(proc.engine.catalog.qmgr, "CONFIGEV"):
            return None
        return RecordWatch(proc, str(cmd.objtype))
    if cmd.verb not in _VERBS or cmd.objtype not in CONFIG_OBJECTS:
        return None
    eng = proc.engine
    on = _on(eng.catalog.qmgr, "CONFIGEV")
    if cmd.objtype == "QMGR":
        return ConfigWatch(proc, cmd, pcfattrs.qmgr_params(proc), on)
    if not on:
        return None
    existing = eng.lookup(str(cmd.objtype), str(cmd.name or ""))
    before = _attributes(proc, existing) if existing is not None \
        and existing.objtype == cmd.objtype else None
    if before is None and cmd.verb != "DEFINE":
        return None  # (an ALTER or DELETE of nothing fails; a TEMPDYN queue raises none)
    return ConfigWatch(proc, cmd, before, on)


def _altered_within(attributes: dict, minutes: int, now: float) -> bool:
    """Whether ALTDATE / ALTTIME fall within the last ``minutes`` (0: no limit)."""
    if not minutes:
        return True
    try:
        stamp = time.mktime(time.strptime(
            f"{attributes.get('ALTDATE')} {attributes.get('ALTTIME')}", "%Y-%m-%d %H.%M.%S"))
    except (TypeError, ValueError, OverflowError):
        return True
    return now - stamp <= minutes * 60


def _refresh(proc: MQSCProcessor, origin: EventOrigin, correl: bytes,
             objtypes: Iterable[str], name: str, inclint: int) -> int:
    """Refresh Object for every object of ``objtypes`` whose name matches ``name`` (generic
    with ``*``) altered within ``inclint`` minutes; how many were put."""
    eng = proc.engine
    wanted = set(objtypes)
    now = time.time()
    with eng.lock:
        objs = sorted((o for o in eng.catalog.objects.values() if o.objtype in wanted
                       and generic_match(name, _refresh_name(o))
                       and _altered_within(o.attributes, inclint, now)),
                      key=lambda o: (_OBJECT_TYPES[o.objtype], _refresh_name(o), o.name))
    put_count = 0
    for obj in objs:
        attributes = _attributes(proc, obj)
        if attributes is not None and put(
                eng, events.CONFIG_EVENT_QUEUE,
                events.refresh_object(origin, _OBJECT_TYPES[obj.objtype], attributes), correl):
            put_count += 1
    return put_count


def _refresh_name(obj: Any) -> str:
    """The name REFRESH QMGR's NAME selects ``obj`` by: a security record's profile."""
    field = _RECORD_NAMES.get(obj.objtype)
    return obj.name if field is None else str(obj.attributes.get(field) or "")


def refresh_qmgr(proc: MQSCProcessor, cmd: MQSCCommand, who: Requester) -> list[str]:
    """REFRESH QMGR TYPE(CONFIGEV) [OBJECT(type)] [NAME(generic)] [INCLINT(minutes)]: a
    Refresh Object event for each object selected (IBM's defaults ALL, ``*``, 0: no time
    limit); MQRCCF_EVENTS_DISABLED while CONFIGEV is DISABLED. The other types are not
    supported here (EXPIRY and EARLY are z/OS's; PROXYSUB needs IBM's pub/sub engine)."""
    if cmd.params.get("TYPE") != "CONFIGEV":
        raise not_supported()
    eng = proc.engine
    if not _on(eng.catalog.qmgr, "CONFIGEV"):
        raise CommandFailed.in_hex(CMQCFC.MQRCCF_EVENTS_DISABLED)
    origin, correl = _context(proc, who)
    objtypes = _REFRESH_TYPES.get(str(cmd.params.get("OBJECT") or "ALL"), ())
    _refresh(proc, origin, correl, objtypes, str(cmd.params.get("NAME") or "*"),
             int(cmd.params.get("INCLINT") or 0))  # type: ignore[call-overload]
    return [message("AMQ8005I")]


#: (verb, object type) -> handler
COMMANDS: dict[tuple[str, str], Handler] = {("REFRESH", "QMGR"): refresh_qmgr}


# ------------------------------------------------------------------ MQI calls that change
# objects (MQSET, an MQCLOSE that deletes a permanent dynamic queue)


def install(proc: MQSCProcessor) -> None:
    """Give ``proc``'s queue manager its MQI calls' configuration events: the engine's
    ``object_changed`` hook, answered by ``proc`` (the engine never imports this layer; with
    the hook None an MQSET pays one attribute check)."""
    proc.engine.object_changed = functools.partial(object_changed, proc)


def _caller_origin(eng: Any, conn: Any, origin: int) -> EventOrigin:
    return EventOrigin(user=_text(conn.user)[:CMQC.MQ_USER_ID_LENGTH], origin=origin,
                       qmgr=eng.name)


def object_changed(proc: MQSCProcessor, conn: Any, call: str, obj: Any, before: dict
                   ) -> None:
    """The engine's ``object_changed`` hook: ``call`` ("MQSET" or "MQCLOSE") changed or
    deleted ``obj``, whose attributes were ``before``. While CONFIGEV is ENABLED an MQSET is
    Change Object (EventOrigin MQEVO_MQSET), an MQCLOSE that deleted a permanent dynamic
    queue Delete Object (MQEVO_OTHER: IBM's list for it has no MQI origin); a temporary
    dynamic queue raises none. Never raises into the call."""
    eng = proc.engine
    if not _on(eng.catalog.qmgr, "CONFIGEV") or obj.name == events.CONFIG_EVENT_QUEUE:
        return
    if call == "MQCLOSE":  # the queue is gone: it was empty and closed
        gone = ObjectDef(obj.objtype, obj.name,
                         {**before, "CURDEPTH": 0, "IPPROCS": 0, "OPPROCS": 0}, obj.qid)
        attributes = _attributes(proc, gone)
        if attributes is not None:
            with eng.lock:
                correl = eng.new_msgid()
            put(eng, events.CONFIG_EVENT_QUEUE, events.delete_object(
                _caller_origin(eng, conn, CMQCFC.MQEVO_OTHER), CONFIG_OBJECTS[obj.objtype],
                attributes), correl)
        return
    was = _attributes(proc, ObjectDef(obj.objtype, obj.name, before, obj.qid))
    now = _attributes(proc, obj)
    if was is None or now is None:
        return
    with eng.lock:
        correl = eng.new_msgid()
    for msg in events.change_object(_caller_origin(eng, conn, CMQCFC.MQEVO_MQSET),
                                    CONFIG_OBJECTS[obj.objtype], was, now):
        put(eng, events.CONFIG_EVENT_QUEUE, msg, correl)


# ------------------------------------------------------------------ command events


def cmdev_of(eng: Any) -> str:
    """The queue manager's CMDEV (DISABLED, ENABLED or NODISPLAY)."""
    return str(eng.catalog.qmgr.get("CMDEV") or "DISABLED")


def command_wanted(eng: Any, cmdev_before: str, *, display: bool = False,
                   alter_qmgr: bool = False) -> bool:
    """Whether a command that worked is a Command event under CMDEV: ``display`` a DISPLAY
    or Inquire; ALTER QMGR (``alter_qmgr``) is one while CMDEV was on before the change or is
    after it."""
    cmdev = cmdev_of(eng)
    if alter_qmgr:
        return events.command_events_wanted(cmdev, display=False) \
            or events.command_events_wanted(cmdev_before, display=False)
    return events.command_events_wanted(cmdev, display=display)


def command_done(eng: Any, source: RequestEvents, command: int, *, mqsc: bytes | None = None,
                 params: list | None = None) -> None:
    """The Command event of a command the command server ran (``command``, its MQCMD_*
    code): ``mqsc`` the MQSC text as sent, else the PCF command's ``params``."""
    origin, correl = source()
    put(eng, events.COMMAND_EVENT_QUEUE,
        events.command_event(origin, command, mqsc=mqsc, params=params), correl)


def command_refused(eng: Any, command: int, user: str) -> None:
    """The command server refused ``command`` for ``user``'s authority: Not Authorized
    (type 4) on SYSTEM.ADMIN.QMGR.EVENT while AUTHOREV is ENABLED."""
    if _on(eng.catalog.qmgr, "AUTHOREV"):
        put(eng, events.QMGR_EVENT_QUEUE, events.not_authorized_command(eng.name, command, user))
