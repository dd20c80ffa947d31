"""The MQSC command processor: parsed commands carried out on a queue-manager engine.

What runmqsc (locally) and the command server (for MQCMD_ESCAPE) do with a command once the
parser has accepted it: look the object up, change the engine, and answer with IBM's
messages and DISPLAY layout. A failing command never raises: it is a :class:`Result` with
``ok=False``, the lines runmqsc prints and the PCF reason the command server answers with,
and the script goes on with the next command.

:func:`run_transcript` reproduces runmqsc's report around the commands (echo with command
numbers, continuation and comment lines under ``       :``, the closing summary, exit codes
0 / 10 / 20); :meth:`MQSCProcessor.run_script` runs it in-process, ``mqpy_cli.runmqsc`` runs
it through the command server.

Message ids (evidence: [C] seen in real runmqsc output or in IBM's catalogue, [M] IBM's id
from memory, not confirmed, [X] mqpy's own; z/OS-only objects have no Multiplatforms message).
Public runmqsc output read for the [C] marks: transcripts in public repositories (MQ 7 to
9.4), IBM MQ Appliance lab guides, tools that parse runmqsc output.

- [C] AMQ8005I 8006I 8007I 8008I 8010I 8014I 8016I 8022I 8147E 8150E 8227E 8405I 8409I
  8415I 8420I 8450I 8552I 8626I; AMQ8011I 8012I 8015I (process deleted/changed, channel
  deleted: ids, severity 0 and meaning in IBM's MQ 8.0 AMQ8xxx catalogue, zh-TW edition);
  AMQ8878I (runmqsc output in an IBM technote); AMQ8148E ("IBM MQ object in use.", MQ 9.1
  output), 8143 ("IBM MQ queue not empty.": the line has no queue name; letter [M]),
  8276I, 8551I, 8705I, 8441I, 8864I, 8623I (listener changed, MQ 8.0 output), 8563I 8567I
  (authentication information created / changed), 8101S ("IBM MQ error (80F) has
  occurred." in a zh runmqsc transcript, the letter in a public note)
- [M] AMQ8151E, 8553I (namelist deleted), 8627I (listener deleted), 8564I (authentication
  information deleted), and 8005I as the answer to RESET QMGR TYPE(STATISTICS)
- [X] AMQ8930I-8933I for storage classes (STGCLASS is a z/OS object in IBM MQ).
- services: [C] AMQ8733I ("Request to start Service accepted."), AMQ8632I (the DISPLAY
  SVSTATUS header a public monitoring script filters out); AMQ8625I for a new service and
  AMQ8732I for STOP SERVICE from public scripts run against MQ on Linux that grep runmqsc's
  answer for them (their texts [M]); [M] 8624I (service deleted), 8628I (service changed:
  a guess; IBM's AMQ8623 is "listener changed", not "service created" as mqpy had), 8629I
  (DISPLAY SERVICE); [X] AMQ8934E (a start or stop program that cannot be run). A refusal
  IBM gives only a PCF reason for (MQRCCF_NO_START_CMD, MQRCCF_NO_STOP_CMD,
  MQRCCF_SERVICE_RUNNING, MQRCCF_SERVICE_STOPPED, MQRCCF_SERV_STATUS_NOT_FOUND) is printed
  as AMQ8101S with the reason in hex.
- refusals: [M] AMQ9502E ("Type of channel not suitable for action requested.") for PING
  CHANNEL of a channel that does not send (IBM: only SDR, SVR and CLUSSDR can be pinged; PCF
  MQRCCF_CHANNEL_TYPE_ERROR); [C] AMQ7026E ("A principal or group name was invalid.", IBM's
  setmqaut line for an entity that does not exist) for SET AUTHREC of a principal or group
  the user file does not know (PCF reason MQRC_UNKNOWN_ENTITY); [X] AMQ8897E / AMQ8898E for
  a SET CHLAUTH address that is not an address pattern (MQRCCF_IPADDR_ERROR) or whose range
  runs backwards (MQRCCF_IPADDR_RANGE_ERROR), named in the line: IBM's Multiplatforms ids
  for these were not found (z/OS says CSQM192I "ADDRESS(...) IS INVALID").
- clusters: [M] AMQ8559I 8560I 8598I 8599I for SUSPEND / RESUME QMGR, REFRESH and RESET
  CLUSTER are known to be wrong and the right ids were not found: IBM's AMQ8560I is "IBM MQ
  security cache refreshed." (REFRESH SECURITY, confirmed), AMQ8598 is the JMQI message
  "Failed to load the IBM MQ native JNI library" and AMQ8599 a runmqras message.

Services (START/STOP SERVICE, DISPLAY SVSTATUS) run in this process: ``mqpy.services``
keeps the running instances of the queue manager this processor serves.

Channel START/STOP/PING/RESET/RESOLVE, START/STOP LISTENER and DISPLAY LSSTATUS are the
channel initiator's: sent to it (``mqpy.channelcommands``) while one serves SYSTEM.CHANNEL.INITQ,
else they fail with MQRCCF_NO_CHANNEL_INITIATOR (``AMQ8101S: IBM MQ error (C91) has
occurred.``). DISPLAY CHSTATUS with no channel initiator finds no current status: IBM's
``AMQ8420I: Channel Status not found.`` (SAVED status is the queue manager's sync records).
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Iterable, Mapping
from typing import Any

import attrs

from mqpy import CMQC, CMQCFC, channelcommands, syncrecord
from mqpy.engine.objects import QUEUE_TYPES
from mqpy.errors import MQMIError
from mqpy.mqsc import grammar as g
from mqpy.mqsc.display import format_attrs
from mqpy.mqsc.lexer import scan_lines
from mqpy.mqsc.mapping import (
    EXTRA_DEFAULTS,
    FLAG_ATTRS,
    STAMPS,
    channel_defaults,
    display_items,
    display_keywords,
    to_stored,
)
from mqpy.mqsc.messages import DISPLAY_HEADERS, MESSAGES, MQSCError, summary_lines
from mqpy.mqsc.parser import MQSCCommand, Where, parse_command

__all__ = [
    "BANNER",
    "EXIT_FAILED",
    "EXIT_OK",
    "EXIT_SOME_FAILED",
    "MQSCProcessor",
    "RESPONSES",
    "Result",
    "generic_match",
    "run_transcript",
    "transcript_head",
]

#: runmqsc's exit codes (IBM: 0 all processed, 10 some failed, 20 error, nothing run).
EXIT_OK = 0
EXIT_SOME_FAILED = 10
EXIT_FAILED = 20

#: The first line of runmqsc's report. IBM prints its product id and copyright here
#: ("5724-H72 (C) Copyright IBM Corp. ..."); mqpy is not IBM's product, so it names itself
#: in the same place and keeps the layout that follows.
BANNER = "mqpy runmqsc 0.1.0 (MQSC command processor)"

#: Response texts beyond those in :data:`mqpy.mqsc.messages.MESSAGES` (see the docstring).
RESPONSES: dict[str, str] = {
    **MESSAGES,
    "AMQ8005I": "IBM MQ queue manager changed.",
    "AMQ8007I": "IBM MQ queue deleted.",
    "AMQ8011I": "IBM MQ process deleted.",
    "AMQ8012I": "IBM MQ process changed.",
    "AMQ8015I": "IBM MQ channel deleted.",
    "AMQ8016I": "IBM MQ channel changed.",
    "AMQ8022I": "IBM MQ queue cleared.",
    "AMQ8101S": "IBM MQ error ({0}) has occurred.",
    "AMQ8135E": "Not authorized.",
    "AMQ8143E": "IBM MQ queue not empty.",
    "AMQ8146E": "IBM MQ queue manager not available.",
    "AMQ8148E": "IBM MQ object in use.",
    "AMQ8151E": "IBM MQ object has different type.",
    "AMQ8227E": "Channel {0} not found.",
    "AMQ8018I": "Start IBM MQ channel accepted.",
    "AMQ8878I": "Display channel authentication record details.",
    "AMQ8769E": "Cluster name and cluster namelist cannot both be specified.",
    "AMQ8884E": "Channel authentication record not found.",
    "AMQ8862I": "IBM MQ authority record set.",
    "AMQ8863I": "IBM MQ authority record deleted.",
    "AMQ8864I": "Display authority record details.",
    "AMQ8020I": "Ping IBM MQ channel complete.",
    "AMQ8023I": "IBM MQ channel reset.",
    "AMQ8019I": "Stop IBM MQ channel accepted.",
    "AMQ8021I": "Request to start IBM MQ Listener accepted.",
    "AMQ8706I": "Request to stop IBM MQ Listener accepted.",
    "AMQ8631I": "Display listener status details.",
    "AMQ8096I": "IBM MQ in-doubt message resolved for channel {0}.",
    "AMQ9528E": "Channel {0} is not in doubt.",
    "AMQ8276I": "Display Connection details.",
    "AMQ8415I": "Ping IBM MQ queue manager command complete.",
    "AMQ8416E": "MQSC timed out waiting for a response from the command server.",
    "AMQ8450I": "Display queue status details.",
    "AMQ8551I": "IBM MQ namelist changed.",
    "AMQ8552I": "IBM MQ namelist created.",
    "AMQ8553I": "IBM MQ namelist deleted.",
    "AMQ8626I": "IBM MQ listener created.",
    "AMQ8627I": "IBM MQ listener deleted.",
    "AMQ8623I": "IBM MQ listener changed.",
    "AMQ8930I": "IBM MQ storage class created.",
    "AMQ8931I": "IBM MQ storage class deleted.",
    "AMQ8932I": "IBM MQ storage class changed.",
    "AMQ8933I": "Display storage class details.",
    "AMQ8563I": "IBM MQ authentication information object created.",
    "AMQ8564I": "IBM MQ authentication information object deleted.",
    "AMQ8567I": "IBM MQ authentication information changed.",
    "AMQ8566I": "Display authentication information details.",
    # clusters ([M]: ids and texts from memory; see the module docstring)
    "AMQ8441I": "Display Cluster Queue Manager details.",
    "AMQ8559I": "Suspend Queue Manager Cluster accepted.",
    "AMQ8560I": "Resume Queue Manager Cluster accepted.",
    "AMQ8598I": "Refresh Cluster accepted.",
    "AMQ8599I": "Reset Cluster accepted.",
    # services (see the module docstring)
    "AMQ8625I": "IBM MQ service created.",
    "AMQ8624I": "IBM MQ service deleted.",
    "AMQ8628I": "IBM MQ service changed.",
    "AMQ8629I": "Display service information details.",
    "AMQ8632I": "Display service status details.",
    "AMQ8733I": "Request to start Service accepted.",
    "AMQ8732I": "Request to stop Service accepted.",
    "AMQ8934E": "A program of service '{0}' could not be run: {1}.",  # [X]
    # refusals (see the module docstring)
    "AMQ9502E": "Type of channel not suitable for action requested.",
    "AMQ7026E": "A principal or group name was invalid.",
    "AMQ8897E": "The IP address '{0}' is not valid.",  # [X]
    "AMQ8898E": "The IP address range '{0}' is not valid.",  # [X]
}

#: channel types PING CHANNEL can test (IBM: sender, server, cluster-sender)
_PING_TYPES = ("SDR", "SVR", "CLUSSDR")

#: security refusals that have a message of their own: reason -> message id (the address
#: errors name the address the command gave)
_SECURITY_MESSAGES = {CMQC.MQRC_UNKNOWN_ENTITY: "AMQ7026E",
                      CMQCFC.MQRCCF_CHLAUTH_NOT_FOUND: "AMQ8884E",
                      CMQCFC.MQRCCF_IPADDR_ERROR: "AMQ8897E",
                      CMQCFC.MQRCCF_IPADDR_RANGE_ERROR: "AMQ8898E"}

# objtype -> (created, deleted, changed) message ids
_OUTCOMES: dict[str, tuple[str, str, str]] = {
    **{q: ("AMQ8006I", "AMQ8007I", "AMQ8008I") for q in QUEUE_TYPES},
    "PROCESS": ("AMQ8010I", "AMQ8011I", "AMQ8012I"),
    "CHANNEL": ("AMQ8014I", "AMQ8015I", "AMQ8016I"),
    "NAMELIST": ("AMQ8552I", "AMQ8553I", "AMQ8551I"),
    "LISTENER": ("AMQ8626I", "AMQ8627I", "AMQ8623I"),
    "STGCLASS": ("AMQ8930I", "AMQ8931I", "AMQ8932I"),
    "AUTHINFO": ("AMQ8563I", "AMQ8564I", "AMQ8567I"),  # [C] 8563I 8567I; [M] 8564I
    "SERVICE": ("AMQ8625I", "AMQ8624I", "AMQ8628I"),  # see the module docstring
}

_HEADERS = {**DISPLAY_HEADERS, "STGCLASS": "AMQ8933I", "QSTATUS": "AMQ8450I",
            "CONN": "AMQ8276I", "AUTHINFO": "AMQ8566I", "SERVICE": "AMQ8629I",
            "SVSTATUS": "AMQ8632I"}

#: objtype -> the keyword of its name item in DISPLAY output.
_NAME_ITEM = {**{q: "QUEUE" for q in QUEUE_TYPES}, "PROCESS": "PROCESS", "CHANNEL": "CHANNEL",
              "NAMELIST": "NAMELIST", "STGCLASS": "STGCLASS", "LISTENER": "LISTENER",
              "AUTHINFO": "AUTHINFO", "SERVICE": "SERVICE"}

#: objtype -> the object DEFINE copies when no LIKE is given (IBM's default objects).
_DEFAULT_OBJECT = {"QLOCAL": "SYSTEM.DEFAULT.LOCAL.QUEUE", "QMODEL": "SYSTEM.DEFAULT.MODEL.QUEUE",
                   "QALIAS": "SYSTEM.DEFAULT.ALIAS.QUEUE",
                   "QREMOTE": "SYSTEM.DEFAULT.REMOTE.QUEUE", "PROCESS": "SYSTEM.DEFAULT.PROCESS",
                   "NAMELIST": "SYSTEM.DEFAULT.NAMELIST",
                   "LISTENER": "SYSTEM.DEFAULT.LISTENER.TCP",
                   "AUTHINFO": "SYSTEM.DEFAULT.AUTHINFO.IDPWOS",
                   "SERVICE": "SYSTEM.DEFAULT.SERVICE"}

_CONNAME_REQUIRED = ("SDR", "RQSTR", "CLNTCONN", "CLUSSDR", "CLUSRCVR")
_CHINIT_VERBS = ("START", "STOP", "PING", "RESET", "RESOLVE")
# DISPLAY CHSTATUS MONITOR: the fields channel monitoring (MONCHL) collects
_MONITOR_FIELDS = ["MONCHL", "XQTIME", "NETTIME", "XBATCHSZ", "EXITTIME", "COMPTIME",
                   "COMPRATE", "XQMSGSA"]
_CLUSTER_COMMANDS = {("DISPLAY", "CLUSQMGR"), ("DISPLAY", "QCLUSTER"), ("REFRESH", "CLUSTER"),
                     ("RESET", "CLUSTER")}

# engine reason -> (message id, PCF reason)
_REASONS: dict[int, tuple[str, int]] = {
    CMQC.MQRC_OBJECT_ALREADY_EXISTS: ("AMQ8150E", CMQCFC.MQRCCF_OBJECT_ALREADY_EXISTS),
    CMQC.MQRC_UNKNOWN_OBJECT_NAME: ("AMQ8147E", CMQC.MQRC_UNKNOWN_OBJECT_NAME),
    CMQC.MQRC_OBJECT_IN_USE: ("AMQ8148E", CMQCFC.MQRCCF_OBJECT_IN_USE),
    CMQC.MQRC_Q_NOT_EMPTY: ("AMQ8143E", CMQC.MQRC_Q_NOT_EMPTY),
}


#: REFRESH SECURITY's answer, IBM's id and text (RESPONSES gives AMQ8560I to RESUME QMGR).
AMQ8560I_SECURITY = "AMQ8560I: IBM MQ security cache refreshed."


def message(msgid: str, *inserts: object) -> str:
    """``AMQ8147E: IBM MQ object Q1 not found.``"""
    return f"{msgid}: {RESPONSES[msgid].format(*inserts)}"


@attrs.frozen(slots=True)
class Result:
    """What one command printed, whether it worked, and the PCF reason if it did not."""

    lines: list[str] = attrs.field(converter=list)
    ok: bool = True
    reason: int = 0  #: MQRC_* / MQRCCF_* for a PCF response (0 when ok)


class CommandFailed(Exception):
    """Internal: a command refused; carries runmqsc's lines and the PCF reason."""

    def __init__(self, lines: list[str], reason: int) -> None:
        super().__init__(lines[0] if lines else "")
        self.lines = lines
        self.reason = reason

    @classmethod
    def of(cls, reason: int, msgid: str, *inserts: object) -> CommandFailed:
        return cls([message(msgid, *inserts)], reason)


def _from_mqi(err: MQMIError, name: str = "") -> CommandFailed:
    msgid, reason = _REASONS.get(err.reason, ("AMQ8101S", err.reason))
    if msgid == "AMQ8101S":
        return CommandFailed.of(reason, msgid, f"{err.reason:X}")
    return CommandFailed.of(reason, msgid, name)


def _check_sslpeer(wanted: dict[str, object]) -> None:
    """A channel's SSLPEER is checked when it is entered (IBM, distributed platforms): a
    malformed DN pattern is refused with MQRCCF_SSL_PEER_NAME_ERROR (4093)."""
    from mqpy.security.chlauth import valid_dn_pattern

    sslpeer = str(wanted.get("SSLPEER") or "").strip()
    if sslpeer and not valid_dn_pattern(sslpeer):
        raise CommandFailed([message("AMQ8101S", f"{CMQCFC.MQRCCF_SSL_PEER_NAME_ERROR:X}")],
                            CMQCFC.MQRCCF_SSL_PEER_NAME_ERROR)


def generic_match(pattern: str, value: str) -> bool:
    """MQSC generic names: ``*`` matches all, ``ABC*`` every name starting ABC."""
    if pattern.endswith("*"):
        return value.startswith(pattern[:-1])
    return value == pattern


def where_passes(where: Where | None, row: Mapping[str, object]) -> bool:
    """The WHERE filter of every DISPLAY: no WHERE passes all; a row without the filter's
    keyword fails it (IBM: an object or status the keyword does not apply to is not
    shown); otherwise the keyword's value is compared."""
    if where is None:
        return True
    return where.keyword in row and _where_holds(where, row[where.keyword])


def _where_holds(where: Where, value: object) -> bool:
    op, want = where.operator, where.value
    if op in ("CT", "EX", "CTG", "EXG"):
        items = list(value) if isinstance(value, (list, tuple)) else [value]
        if op in ("CT", "EX"):
            hit = any(str(i) == str(want) for i in items)
            return hit if op == "CT" else not hit
        hit = any(generic_match(str(want), str(i)) for i in items)
        return hit if op == "CTG" else not hit
    if op in ("LK", "NL"):
        text = ",".join(map(str, value)) if isinstance(value, (list, tuple)) else str(value)
        hit = generic_match(str(want), text)
        return hit if op == "LK" else not hit
    left: Any = value
    right: Any = want
    if not (isinstance(left, int) and isinstance(right, int)):
        left, right = str(left), str(right)
    return {"EQ": left == right, "NE": left != right, "LT": left < right, "GT": left > right,
            "LE": left <= right, "GE": left >= right}[op]


def _stamp(when: float) -> tuple[str, str]:
    if not when:
        return "", ""
    lt = time.localtime(when)
    return time.strftime("%Y-%m-%d", lt), time.strftime("%H.%M.%S", lt)


def qmid_of(name: str, qmgr_attributes: Mapping[str, object]) -> str:
    """IBM's QMID: the name and the creation time (``QM1_2026-11-22_17.36.32``). It must not
    change while the queue manager exists: cluster repositories know a member by it."""
    date = str(qmgr_attributes.get("CRDATE") or "")
    tod = str(qmgr_attributes.get("CRTIME") or "")
    return f"{name}_{date}_{tod}" if date else name


def _text(value: bytes | str) -> str:
    return value.decode("latin-1").rstrip(" \x00") if isinstance(value, bytes) else value


class MQSCProcessor:
    """Carries out MQSC commands on one queue-manager engine (thread-safe: engine locks)."""

    def __init__(self, engine: Any) -> None:
        self.engine = engine
        #: the command server's authority checks for the current request: ``guard`` may
        #: refuse a command (CommandFailed), ``visible(objtype, name, attributes)`` hides
        #: the objects, and the channel and listener status rows, that a generic DISPLAY
        #: would show. None (runmqsc -v, tests): everything is allowed.
        self.guard: Callable[[MQSCCommand], None] | None = None
        self.visible: Callable[[str, str, Mapping[str, object]], bool] | None = None

    # ------------------------------------------------------------------ entry points

    def execute(self, cmd: MQSCCommand) -> Result:
        """Run one parsed command; failures come back as ``Result(ok=False)``."""
        try:
            if self.guard is not None:
                self.guard(cmd)
            return Result(self._dispatch(cmd))
        except CommandFailed as failed:
            return Result(failed.lines, False, failed.reason)
        except MQMIError as err:
            failed = _from_mqi(err, cmd.name or "")
            return Result(failed.lines, False, failed.reason)

    def execute_text(self, text: str) -> Result:
        """Parse and run one command (the text of an MQCMD_ESCAPE request)."""
        parsed = parse_command(text.strip())
        if isinstance(parsed, MQSCError):
            return Result(parsed.lines(), False, CMQCFC.MQRCCF_COMMAND_FAILED)
        return self.execute(parsed)

    def run_script(self, text: str | Iterable[str], *, verify_only: bool = False,
                   echo: bool = True) -> tuple[list[str], int]:
        """runmqsc's whole report for a script run in this process, and its exit code."""
        lines = transcript_head(self.engine.name)
        body, code = run_transcript(text, self.execute, verify_only=verify_only, echo=echo)
        return lines + body, code

    # ------------------------------------------------------------------ dispatch

    def _dispatch(self, cmd: MQSCCommand) -> list[str]:
        """Run ``cmd`` by its verb and object type (:data:`_COMMANDS`, then the object's
        family in :data:`_FAMILIES`); AMQ8101S for a pair mqpy does not run."""
        if cmd.verb in _END_VERBS:
            return []
        handler = _COMMANDS.get((cmd.verb, cmd.objtype)) or _FAMILIES.get(cmd.objtype)
        if handler is None:
            raise CommandFailed.of(CMQC.MQRC_FUNCTION_NOT_SUPPORTED, "AMQ8101S",
                                   f"{CMQC.MQRC_FUNCTION_NOT_SUPPORTED:X}")
        return handler(self, cmd)

    def _alter_qmgr(self, cmd: MQSCCommand) -> list[str]:
        changes = to_stored(cmd.params, cmd.flags)
        self.engine.alter_qmgr(changes)
        if {"REPOS", "REPOSNL", "CLWLUSEQ", "CLWLMRUC"} & set(changes):
            self._cluster_changed("QMGR")
        return [message("AMQ8005I")]

    def _ping_qmgr(self, cmd: MQSCCommand) -> list[str]:
        return [message("AMQ8415I")]

    def _display_queue(self, cmd: MQSCCommand) -> list[str]:
        """DISPLAY QUEUE: TYPE(QCLUSTER) asks the cluster, as DISPLAY QCLUSTER does."""
        if cmd.params.get("TYPE") == "QCLUSTER":
            return self._cluster(attrs.evolve(cmd, objtype="QCLUSTER"))
        return self._display(cmd)

    def _channel_command(self, cmd: MQSCCommand) -> list[str]:
        """START, STOP, PING, RESET, RESOLVE CHANNEL: the channel initiator's."""
        if self.engine.lookup("CHANNEL", cmd.name) is None:
            if cmd.verb in ("START", "STOP"):  # perhaps an auto-defined cluster sender
                return self._auto_channel_control(cmd)
            raise CommandFailed.of(CMQCFC.MQRCCF_CHANNEL_NOT_FOUND, "AMQ8227E", cmd.name)
        return self._channel_control(cmd)

    def _listener_control(self, cmd: MQSCCommand) -> list[str]:
        """START / STOP LISTENER, run by the channel initiator."""
        lst = self.engine.lookup("LISTENER", cmd.name)
        if lst is None:
            raise CommandFailed.of(CMQCFC.MQRCCF_OBJECT_NAME_ERROR, "AMQ8147E", cmd.name)
        reply = self._chinit({"command": f"{cmd.verb}_LISTENER", "channel": cmd.name,
                              "definition": {"LISTENER": cmd.name, **lst.attributes}})
        if not reply.get("ok"):
            raise CommandFailed([str(reply.get("message"))], CMQCFC.MQRCCF_LISTENER_NOT_STARTED)
        return [message("AMQ8021I" if cmd.verb == "START" else "AMQ8706I")]

    def _chinit_control(self, cmd: MQSCCommand) -> list[str]:
        raise self._no_chinit()

    # ------------------------------------------------------------------ channel initiator

    def _chinit(self, request: dict) -> dict:
        """Send a channel command to the channel initiator; no answer -> no channel initiator."""
        from mqpy import local

        if not self.engine.queue_status(channelcommands.INITQ)["IPPROCS"]:
            raise self._no_chinit()  # nobody serves the initiation queue: no chinit runs
        qm = local.attach(self.engine)
        try:
            reply = channelcommands.send(qm, request)
        finally:
            qm.disconnect()
        if reply is None:
            raise self._no_chinit()
        return reply

    def _channel_control(self, cmd: MQSCCommand) -> list[str]:
        verb, name, params = cmd.verb, cmd.name, cmd.params
        if verb == "RESOLVE":
            return self._resolve(name, str(params.get("ACTION", "")))
        if verb == "START":
            definition = dict(self.engine.lookup("CHANNEL", name).attributes)
            reply = self._chinit({"command": "START", "channel": name,
                                  "definition": definition})
            if not reply.get("ok"):
                raise CommandFailed([str(reply.get("message"))],
                                    CMQCFC.MQRCCF_CHANNEL_NOT_ACTIVE)
            return [message("AMQ8018I", name)]
        if verb == "STOP":
            if (params.get("QMNAME") or params.get("CONNAME")) and \
                    params.get("STATUS") == "STOPPED":
                # a channel cannot be stopped for one partner only (IBM's usage note)
                raise CommandFailed.of(CMQCFC.MQRCCF_PARM_CONFLICT, "AMQ8101S",
                                       f"{CMQCFC.MQRCCF_PARM_CONFLICT:X}")
            found = self.engine.lookup("CHANNEL", name)
            reply = self._chinit({"command": "STOP", "channel": name,
                                  "mode": str(params.get("MODE", "QUIESCE")),
                                  "status": str(params.get("STATUS", "STOPPED")),
                                  "qmname": str(params.get("QMNAME", "")),
                                  "conname": str(params.get("CONNAME", "")),
                                  "chltype": found.attributes.get("CHLTYPE", "")
                                  if found is not None else ""})
            if not reply.get("ok"):
                raise CommandFailed([str(reply.get("message"))],
                                    CMQCFC.MQRCCF_CHANNEL_NOT_ACTIVE)
            return [message("AMQ8019I", name)]
        if verb == "PING":
            definition = dict(self.engine.lookup("CHANNEL", name).attributes)
            if definition.get("CHLTYPE") not in _PING_TYPES:
                raise CommandFailed.of(CMQCFC.MQRCCF_CHANNEL_TYPE_ERROR, "AMQ9502E")
            reply = self._chinit({"command": "PING", "channel": name, "definition": definition})
            if not reply.get("ok"):
                raise CommandFailed([str(reply.get("message"))], CMQCFC.MQRCCF_PING_ERROR)
            return [message("AMQ8020I", name)]
        if verb == "RESET":
            return self._reset(name, int(params.get("SEQNUM", 1)))
        raise CommandFailed.of(CMQC.MQRC_FUNCTION_NOT_SUPPORTED, "AMQ8101S",
                               f"{CMQC.MQRC_FUNCTION_NOT_SUPPORTED:X}")

    def _auto_channel_control(self, cmd: MQSCCommand) -> list[str]:
        """START/STOP CHANNEL of an auto-defined cluster sender: the repository manager
        holds its definition (it is not a queue-manager object, as in IBM MQ)."""
        try:
            reply = self._chinit({"command": cmd.verb, "channel": cmd.name, "auto": True,
                                  "mode": str(cmd.params.get("MODE", "QUIESCE")),
                                  "status": str(cmd.params.get("STATUS", "STOPPED"))})
        except CommandFailed:
            raise CommandFailed.of(CMQCFC.MQRCCF_CHANNEL_NOT_FOUND, "AMQ8227E",
                                   cmd.name) from None
        if not reply.get("ok"):
            text = str(reply.get("message"))
            reason = CMQCFC.MQRCCF_CHANNEL_NOT_FOUND if text.startswith("AMQ8227E") else \
                CMQCFC.MQRCCF_CHANNEL_NOT_ACTIVE
            raise CommandFailed([text], reason)
        return [message("AMQ8018I" if cmd.verb == "START" else "AMQ8019I", cmd.name)]

    def _reset(self, name: str, seqnum: int) -> list[str]:
        """RESET CHANNEL SEQNUM(n): this end's next message is number n (its sync record now
        says n - 1). A sender must not be in doubt; reset the partner end the same way."""
        from mqpy import local

        definition = self.engine.lookup("CHANNEL", name).attributes
        role = "S" if definition.get("CHLTYPE") in ("SDR", "SVR", "CLUSSDR") else "R"
        if role == "S" and any(
                getattr(syncrecord.parse_prepare_key(k), "channel", None) == name
                for k in self.engine.indoubt()):
            raise CommandFailed([message("AMQ9528E", name)], CMQCFC.MQRCCF_INDOUBT_VALUE_ERROR)
        qm = local.attach(self.engine)
        try:
            if role == "S":
                old = syncrecord.read(qm, name, role)
                partners = [old.partner_qm if old else ""]
            else:  # a generic receiver: every partner's record, or one for the first partner
                partners = [r.partner_qm for r in syncrecord.read_all(qm)
                            if r.role == "R" and r.channel == name] or [""]
            for partner in partners:
                syncrecord.replace_in_uow(
                    qm, syncrecord.SyncRecord(name, role, max(0, seqnum - 1), bytes(8),
                                              partner, reset=role == "S"))
            qm.commit()
        finally:
            qm.disconnect()
        return [message("AMQ8023I", name)]

    def _resolve(self, name: str, action: str) -> list[str]:
        """RESOLVE CHANNEL ACTION(COMMIT|BACKOUT): finish the channel's in-doubt batch."""
        for key in self.engine.indoubt():
            parsed = syncrecord.parse_prepare_key(key)
            if parsed is not None and parsed.channel == name:
                self.engine.resolve(key, action == "COMMIT")
                self._enable_xmitq_get(name)
                return [message("AMQ8096I", name)]
        raise CommandFailed([message("AMQ9528E", name)], CMQCFC.MQRCCF_INDOUBT_VALUE_ERROR)

    def _enable_xmitq_get(self, name: str) -> None:
        """A resolved channel's transmission queue is GET(ENABLED) again, if the error stop
        that left the batch in doubt disabled it (seed 000 ch. 8, in-doubt channels): its
        messages can move, by this channel once started or by another. Triggering is START
        CHANNEL's to restore."""
        definition = self.engine.lookup("CHANNEL", name)
        xmitq = str(definition.attributes.get("XMITQ") or "") if definition else ""
        queue = self.engine.lookup("QLOCAL", xmitq) if xmitq else None
        if queue is not None and queue.attributes.get("GET") == "DISABLED":
            self.engine.alter("QLOCAL", xmitq, {"GET": "ENABLED"})

    def channel_status_rows(self, pattern: str, saved: bool = False, conname: str = "",
                            xmitq: str = "") -> list[dict[str, object]]:
        """Channel instances' status (the channel initiator's), or their saved status (the
        queue manager's sync records), as MQSC keywords; DISPLAY CHSTATUS and PCF's
        Inquire Channel Status both show these."""
        if saved:
            rows = self._saved_chstatus(pattern)
        else:
            try:
                reply = self._chinit({"command": "STATUS", "channel": pattern})
            except CommandFailed:
                reply = {}  # no channel initiator: no channel has a status
            rows = reply.get("status") or []
        for key, want in (("CONNAME", conname), ("XMITQ", xmitq)):
            if want:
                rows = [r for r in rows if str(r.get(key, "")) == want]
        return self._visible_rows("CHANNEL", rows)

    def listener_status_rows(self, pattern: str) -> list[dict[str, object]]:
        """The running listeners' status (the channel initiator's), as MQSC keywords;
        DISPLAY LSSTATUS and PCF's Inquire Listener Status both show these."""
        reply = self._chinit({"command": "LSSTATUS", "channel": pattern})
        return self._visible_rows("LISTENER", reply.get("status") or [])

    def _visible_rows(self, objtype: str, rows: list[dict[str, object]]
                      ) -> list[dict[str, object]]:
        """The status rows of the objects the requester may display (``visible``): each row
        is judged as its channel or listener, as a generic DISPLAY of definitions is."""
        if self.visible is None:
            return rows
        return [r for r in rows if self.visible(objtype, str(r.get(objtype, "")), r)]

    def _display_chstatus(self, cmd: MQSCCommand) -> list[str]:
        saved = "SAVED" in cmd.flags
        rows = self.channel_status_rows(cmd.name or "*", saved,
                                        str(cmd.params.get("CONNAME") or ""),
                                        str(cmd.params.get("XMITQ") or ""))
        if not rows:
            raise CommandFailed.of(CMQCFC.MQRCCF_CHL_STATUS_NOT_FOUND, "AMQ8420I")
        wanted = [a for a in (cmd.display_attrs or ())]
        if cmd.where is not None:
            wanted.append(cmd.where.keyword)
        if "MONITOR" in cmd.flags or "MONITOR" in wanted:
            wanted += _MONITOR_FIELDS
        # the saved status is the few sync fields: shown whole
        everything = saved or "ALL" in wanted or "ALL" in cmd.flags
        kind = "SAVED" if saved else "CURRENT"
        head = ["CHANNEL", "CHLTYPE", "CONNAME", kind, "RQMNAME", "STATUS", "SUBSTATE",
                "XMITQ"]
        lines: list[str] = []
        for row in rows:
            if not where_passes(cmd.where, row):
                continue
            row = {**row, kind: None}
            keys = head + sorted(k for k in row if k not in head
                                 and (everything or k in wanted))
            lines.append(message("AMQ8417I"))
            lines.extend(format_attrs([(k, row.get(k, "")) for k in keys]))
        return lines

    def _saved_chstatus(self, pattern: str) -> list[dict[str, object]]:
        """DISPLAY CHSTATUS SAVED: what each end hardened at its last batch (its sync record)
        and, at a sender, the batch in doubt: the figures RESOLVE CHANNEL is decided by, read
        from the queue manager so they are there with no channel initiator running."""
        from mqpy import local
        indoubt = {p.channel: p for k in self.engine.indoubt()
                   if (p := syncrecord.parse_prepare_key(k)) is not None}
        qm = local.attach(self.engine)
        try:
            records, states = syncrecord.read_all(qm), syncrecord.read_states(qm)
        finally:
            qm.disconnect()
        # a sender's record is locked by its batch in doubt: the batch's key says what it holds
        records = [r for r in records if not (r.role == "S" and r.channel in indoubt)]
        records += [syncrecord.SyncRecord(p.channel, "S", p.prev_seq, p.prev_luwid,
                                          p.partner)
                    for p in indoubt.values()]
        rows: list[dict[str, object]] = []
        for rec in records:
            if not generic_match(pattern, rec.channel):
                continue
            obj = self.engine.lookup("CHANNEL", rec.channel)
            definition = obj.attributes if obj is not None else {}
            doubt = indoubt.get(rec.channel) if rec.role == "S" else None
            cur_seq, cur_luwid = (doubt.seq, doubt.luwid) if doubt else (rec.seq, rec.luwid)
            rows.append({
                "CHANNEL": rec.channel,
                "CHLTYPE": definition.get("CHLTYPE") or ("SDR" if rec.role == "S" else "RCVR"),
                "CONNAME": definition.get("CONNAME", "") if rec.role == "S" else rec.conname,
                "RQMNAME": rec.partner_qm, "STATUS": states.get(rec.channel, "INACTIVE"),
                "SUBSTATE": "", "XMITQ": definition.get("XMITQ", "") if rec.role == "S" else "",
                "CURLUWID": cur_luwid.hex().upper(), "LSTLUWID": rec.luwid.hex().upper(),
                "CURSEQNO": cur_seq, "LSTSEQNO": rec.seq,
                "CURMSGS": (doubt.seq - doubt.prev_seq) % 999999999 if doubt else 0,
                "INDOUBT": "YES" if doubt else "NO"})
        return rows

    def qmgr_status_view(self) -> dict[str, object]:
        """DISPLAY QMSTATUS values (PCF's Inquire Queue Manager Status shows the same).

        CHINIT and CMDSERV are RUNNING while something serves SYSTEM.CHANNEL.INITQ and
        SYSTEM.ADMIN.COMMAND.QUEUE. CURRLOG is the log extent being written and RECLOG the
        oldest one restart still needs; LOGINUSE is the log between them as a percentage of
        the primary log space (above 100: secondary extents are in use). LOGUTIL is IBM's
        estimate of how well the workload fits the primary log; here, the most log restart
        needed now or just before any of the last ten checkpoints, as the same percentage.
        MEDIALOG is blank: there are no media images (rcdmqimg) to recover from."""
        import mqpy
        from mqpy.errorlog import DEFAULT_INSTALLATION

        eng = self.engine
        log = eng.data.log
        seg = log.segment_size
        with eng.lock:
            conns = len(eng.connections)
            quiescing = eng.quiescing
        in_use = log.end_lsn - log.release_lsn
        peak = max([in_use, *eng.data.restart_log_history])
        primary = log.config.LogPrimaryFiles * seg
        startda, startti = _stamp(eng.started_at)

        def served(queue: str) -> str:
            try:
                return "RUNNING" if eng.queue_status(queue)["IPPROCS"] else "STOPPED"
            except MQMIError:
                return "STOPPED"

        return {
            "STATUS": "QUIESCING" if quiescing else "RUNNING",
            "CHINIT": served(channelcommands.INITQ),
            "CMDSERV": served("SYSTEM.ADMIN.COMMAND.QUEUE"),
            "CONNS": conns, "STARTDA": startda, "STARTTI": startti,
            "CURRLOG": f"S{log.end_lsn // seg:07d}.LOG",
            "RECLOG": f"S{log.release_lsn // seg:07d}.LOG", "MEDIALOG": "",
            "LOGPATH": log.directory + "/",
            "LOGINUSE": (100 * in_use + primary - 1) // primary if primary else 0,
            "LOGUTIL": (100 * peak + primary - 1) // primary if primary else 0,
            "INSTNAME": DEFAULT_INSTALLATION,
            "INSTPATH": os.path.dirname(os.path.abspath(mqpy.__file__)),
        }  # fmt: skip

    def _display_qmstatus(self, cmd: MQSCCommand) -> list[str]:
        """DISPLAY QMSTATUS: QMNAME and STATUS always, the rest as ALL or a list asks."""
        view = self.qmgr_status_view()
        rest = self._selected(cmd, view, exclude=("STATUS",))
        lines = [message(_HEADERS["QMSTATUS"])]
        lines.extend(format_attrs([("QMNAME", self.engine.name), ("STATUS", view["STATUS"]),
                                   *display_items(rest)]))
        return lines

    def _reset_qmgr(self, cmd: MQSCCommand) -> list[str]:
        """RESET QMGR TYPE(STATISTICS): the statistics interval ends now, its records are
        written (those STATMQI and STATQ ask for) and a new one begins, as at STATINT. The
        other types (ADVANCELOG and REDUCELOG for linear logs, PUBSUB) have nothing to act
        on here: MQRC_FUNCTION_NOT_SUPPORTED."""
        from mqpy import local
        from mqpy.stats.collector import emit_statistics_now

        if cmd.params.get("TYPE") != "STATISTICS":
            raise CommandFailed.of(CMQC.MQRC_FUNCTION_NOT_SUPPORTED, "AMQ8101S",
                                   f"{CMQC.MQRC_FUNCTION_NOT_SUPPORTED:X}")
        qm = local.attach(self.engine)
        try:
            emit_statistics_now(self.engine, qm)
        except MQMIError as err:
            raise CommandFailed([message("AMQ8101S", f"{err.reason:X}")], err.reason) from None
        finally:
            qm.disconnect()
        return [message("AMQ8005I")]

    def _display_lsstatus(self, cmd: MQSCCommand) -> list[str]:
        rows = self.listener_status_rows(cmd.name or "*")
        if not rows:
            raise CommandFailed.of(CMQCFC.MQRCCF_NONE_FOUND, "AMQ8147E", cmd.name)
        lines: list[str] = []
        for row in rows:
            if not where_passes(cmd.where, row):
                continue
            lines.append(message("AMQ8631I"))
            lines.extend(format_attrs(list(row.items())))
        return lines

    def _security(self, cmd: MQSCCommand) -> list[str]:
        """SET/DISPLAY CHLAUTH, SET/DELETE AUTHREC (mqpy.security keeps the records)."""
        from mqpy import security

        try:
            if cmd.objtype == "CHLAUTH" and cmd.verb == "SET":
                return [security.set_chlauth(self.engine, cmd.name, cmd.params)]
            if cmd.objtype == "CHLAUTH" and cmd.verb == "DISPLAY":
                found = security.display_chlauth(self.engine, cmd.name or "*", cmd.params)
                if isinstance(found, str):
                    return [found]
                if not found:
                    raise CommandFailed.of(CMQCFC.MQRCCF_CHLAUTH_NOT_FOUND, "AMQ8884E")
                lines: list[str] = []
                for record in found:
                    lines.append(message("AMQ8878I"))
                    lines.extend(format_attrs(list(record.items())))
                return lines
            if cmd.objtype == "AUTHREC" and cmd.verb == "SET":
                security.set_authrec(self.engine, cmd.params)
                return [message("AMQ8862I")]
            if cmd.objtype == "AUTHREC" and cmd.verb == "DISPLAY":
                return self._display_authrec(cmd)
            if cmd.objtype == "AUTHREC" and cmd.verb == "DELETE":
                if not security.delete_authrec(self.engine, cmd.params):
                    raise CommandFailed.of(CMQCFC.MQRCCF_OBJECT_NAME_ERROR, "AMQ8147E",
                                           cmd.params.get("PROFILE", ""))
                return [message("AMQ8863I")]
        except MQMIError as err:
            msgid = _SECURITY_MESSAGES.get(err.reason)
            if msgid is not None:
                raise CommandFailed.of(err.reason, msgid, getattr(err, "address", "")) \
                    from None
            raise CommandFailed([message("AMQ8101S", f"{err.reason:X}")], err.reason) from None
        raise CommandFailed.of(CMQC.MQRC_FUNCTION_NOT_SUPPORTED, "AMQ8101S",
                               f"{CMQC.MQRC_FUNCTION_NOT_SUPPORTED:X}")

    def _display_authrec(self, cmd: MQSCCommand) -> list[str]:
        """DISPLAY AUTHREC [PROFILE()] [OBJTYPE()] [PRINCIPAL()|GROUP()]: the stored records,
        PROFILE compared exactly (MATCH(PROFILE), IBM's default)."""
        from mqpy import security

        p = cmd.params
        want_type = str(p.get("OBJTYPE") or "").lower()
        lines: list[str] = []
        for r in sorted(security.authority_records(self.engine),
                        key=lambda r: (r.objtype, r.profile, r.entity_type, r.entity)):
            if want_type and r.objtype != want_type:
                continue
            if p.get("PROFILE") and r.objtype != "qmgr" and r.profile != p["PROFILE"]:
                continue
            if p.get("PRINCIPAL") and (r.entity_type, r.entity) != ("principal",
                                                                   p["PRINCIPAL"]):
                continue
            if p.get("GROUP") and (r.entity_type, r.entity) != ("group", p["GROUP"]):
                continue
            lines.append(message("AMQ8864I"))
            lines.extend(format_attrs([
                ("PROFILE", r.profile), ("ENTITY", r.entity),
                ("ENTTYPE", r.entity_type.upper()), ("OBJTYPE", r.objtype.upper()),
                ("AUTHLIST", ",".join(r.attributes()["AUTHLIST"]) or "NONE")]))
        if not lines:
            # no PROFILE: the records asked for were "all", as DISPLAY QUEUE(*) names them
            raise CommandFailed.of(CMQCFC.MQRCCF_OBJECT_NAME_ERROR, "AMQ8147E",
                                   str(p.get("PROFILE") or "*"))
        return lines

    # ------------------------------------------------------------------ services

    def _services(self) -> Any:
        from mqpy import services

        return services.runner_for(self.engine)

    def _service_control(self, cmd: MQSCCommand) -> list[str]:
        """START / STOP SERVICE [IGNSTATE(YES)]: the service's start or stop program, run by
        this process (``mqpy.services``); IBM's PCF reasons for what cannot be done."""
        from mqpy.services import ServiceError

        name = str(cmd.name)
        obj = self._existing("SERVICE", name)
        if obj is None:
            raise CommandFailed.of(CMQC.MQRC_UNKNOWN_OBJECT_NAME, "AMQ8147E", name)
        definition = dict(obj.attributes)
        runner = self._services()
        try:
            if cmd.verb == "START":
                runner.start(name, definition)
            else:
                runner.stop(name, definition)
        except ServiceError as err:
            already = (CMQCFC.MQRCCF_SERVICE_RUNNING if cmd.verb == "START"
                       else CMQCFC.MQRCCF_SERVICE_STOPPED)
            if err.reason == already and cmd.params.get("IGNSTATE") == "YES":
                return [message("AMQ8733I" if cmd.verb == "START" else "AMQ8732I")]
            if err.detail:
                raise CommandFailed([message("AMQ8934E", name, err.detail)],
                                    err.reason) from None
            raise CommandFailed.of(err.reason, "AMQ8101S", f"{err.reason:X}") from None
        return [message("AMQ8733I" if cmd.verb == "START" else "AMQ8732I")]

    def service_status_rows(self, pattern: str, generic: bool) -> list[dict[str, object]]:
        """The running server services whose names match, each as DISPLAY SVSTATUS sees it:
        SERVICE, STATUS, PID, STARTDA, STARTTI and the definition's attributes."""
        from mqpy.services import start_stamp

        rows: list[dict[str, object]] = []
        for running in self._services().status():
            if not (generic_match(pattern, running.name) if generic
                    else running.name == pattern):
                continue
            obj = self.engine.lookup("SERVICE", running.name)
            definition = {k: v for k, v in (obj.attributes if obj is not None else {}).items()
                          if k not in STAMPS}
            date, tod = start_stamp(running.started)
            rows.append({"SERVICE": running.name, "STATUS": running.status,
                         "PID": running.pid, "STARTDA": date, "STARTTI": tod, **definition})
        return self._visible_rows("SERVICE", rows)

    def _display_svstatus(self, cmd: MQSCCommand) -> list[str]:
        """DISPLAY SVSTATUS: SERVICE, STATUS and PID always, the rest as asked (ALL, a list,
        the WHERE keyword); only running SERVTYPE(SERVER) services have a status."""
        name = str(cmd.name)
        if not cmd.generic and self._existing("SERVICE", name) is None:
            raise CommandFailed.of(CMQC.MQRC_UNKNOWN_OBJECT_NAME, "AMQ8147E", name)
        rows = self.service_status_rows(name, cmd.generic)
        if not rows:
            reason = CMQCFC.MQRCCF_SERV_STATUS_NOT_FOUND
            raise CommandFailed.of(reason, "AMQ8101S", f"{reason:X}")
        lines: list[str] = []
        head = ("SERVICE", "STATUS", "PID")
        for row in rows:  # a WHERE that excludes every row shows nothing, as DISPLAY does
            if not where_passes(cmd.where, row):
                continue
            rest = self._selected(cmd, row, exclude=head)
            lines.append(message(_HEADERS["SVSTATUS"]))
            lines.extend(format_attrs([(k, row[k]) for k in head]
                                      + sorted(rest.items())))
        return lines

    # ------------------------------------------------------------------ clusters

    def _cluster(self, cmd: MQSCCommand) -> list[str]:
        """Cluster commands are the repository manager's, in the channel initiator."""
        verb, obj, params = cmd.verb, cmd.objtype, cmd.params
        if verb == "DISPLAY":
            return self._display_cluster(cmd)
        cluster = str(params.get("CLUSTER") or cmd.name or "")
        if obj == "QMGR" and not cluster and params.get("CLUSNL"):
            nl = self.engine.lookup("NAMELIST", str(params["CLUSNL"]))
            names = list(nl.attributes.get("NAMES") or []) if nl is not None else []
            lines: list[str] = []
            for name in names:
                lines = self._cluster(attrs.evolve(cmd, params={**params, "CLUSNL": "",
                                                               "CLUSTER": name}))
            return lines or [message("AMQ8559I" if verb == "SUSPEND" else "AMQ8560I")]
        request: dict[str, object] = {"cluster": cluster}
        if verb == "SUSPEND":
            request.update(command="CLUSTER_SUSPEND", force=params.get("MODE") == "FORCE")
            done = "AMQ8559I"
        elif verb == "RESUME":
            request.update(command="CLUSTER_RESUME")
            done = "AMQ8560I"
        elif verb == "REFRESH":
            request.update(command="CLUSTER_REFRESH", repos=params.get("REPOS") == "YES")
            done = "AMQ8598I"
        else:
            request.update(command="CLUSTER_RESET", qmname=str(params.get("QMNAME") or ""),
                           qmid=str(params.get("QMID") or ""),
                           queues=params.get("QUEUES") == "YES")
            done = "AMQ8599I"
        reply = self._chinit(request)
        if not reply.get("ok"):
            reason = int(reply.get("reason") or CMQCFC.MQRCCF_COMMAND_FAILED)
            raise CommandFailed([message("AMQ8101S", f"{reason:X}"),
                                 str(reply.get("message") or "")], reason)
        return [message(done)]

    def _display_cluster(self, cmd: MQSCCommand) -> list[str]:
        """DISPLAY CLUSQMGR / QCLUSTER in IBM's layout: the name items, then what was asked."""
        clusqmgr = cmd.objtype == "CLUSQMGR"
        reply = self._chinit({"command": "CLUSTER_CLUSQMGR" if clusqmgr else
                              "CLUSTER_QCLUSTER", "name": cmd.name or "*",
                              "cluster": str(cmd.params.get("CLUSTER") or "")})
        if not reply.get("ok"):
            reason = int(reply.get("reason") or CMQCFC.MQRCCF_COMMAND_FAILED)
            raise CommandFailed([message("AMQ8101S", f"{reason:X}"),
                                 str(reply.get("message") or "")], reason)
        rows = reply.get("rows") or []
        head = ["CLUSQMGR", "CHANNEL", "CLUSTER"] if clusqmgr else \
            ["QUEUE", "TYPE", "CLUSQMGR", "CLUSTER"]
        everything = "ALL" in cmd.flags
        wanted = list(cmd.display_attrs)
        if cmd.where is not None:
            wanted.append(cmd.where.keyword)
        lines: list[str] = []
        for row in rows:
            row = {**row, "TYPE": "QCLUSTER"} if not clusqmgr else dict(row)
            if not where_passes(cmd.where, row):
                continue
            rest = sorted(k for k in row if k not in head and k != "EXPIRES"
                          and (everything or k in wanted))
            lines.append(message("AMQ8441I" if clusqmgr else "AMQ8409I"))
            lines.extend(format_attrs([(k, row.get(k, "")) for k in head + rest]))
        if not lines:
            raise CommandFailed.of(CMQC.MQRC_UNKNOWN_OBJECT_NAME, "AMQ8147E", cmd.name)
        return lines

    def _cluster_changed(self, objtype: str, *views: Mapping[str, object] | None) -> None:
        """Tell the repository manager that a definition it reads changed (IBM's queue
        manager does the same through SYSTEM.CLUSTER.COMMAND.QUEUE)."""
        from mqpy.engine import cluster
        from mqpy.structs.tables import MD

        relevant = objtype in ("NAMELIST", "QMGR") or any(
            v is not None and (str(v.get("CLUSTER") or "").strip()
                               or str(v.get("CLUSNL") or "").strip()
                               or v.get("CHLTYPE") in ("CLUSSDR", "CLUSRCVR"))
            for v in views)
        if not relevant:
            return
        self.engine._system_put(cluster.COMMAND_QUEUE, "",
                                MD(Format=cluster.REQUEST_FORMAT.encode()),
                                b'{"request": "CONFIG"}', dead_letter=False)

    def _refresh_security(self, cmd: MQSCCommand) -> list[str]:
        """REFRESH SECURITY [TYPE(AUTHSERV|CONNAUTH|SSL|ALL)] (default AUTHSERV).

        mqpy's authority records, AUTHINFO objects and user file are read when they are
        used (the user file again whenever it changes), so AUTHSERV and CONNAUTH have no
        cache to drop: their changes already apply to the next check. SSL (and ALL) asks
        the channel initiator to drop its TLS contexts and restart its running TLS
        channels (``mqpy_chinit.sslrefresh``); with no channel initiator running nothing
        holds a key repository, and the command succeeds as it is."""
        kind = str(cmd.params.get("TYPE") or "AUTHSERV")
        if kind in ("SSL", "ALL"):
            try:
                reply = self._chinit({"command": "REFRESH_SSL"})
            except CommandFailed as failed:
                if failed.reason != CMQCFC.MQRCCF_NO_CHANNEL_INITIATOR:
                    raise
                reply = {"ok": True}
            if not reply.get("ok"):
                raise CommandFailed([str(reply.get("message") or "")],
                                    CMQCFC.MQRCCF_COMMAND_FAILED)
        return [AMQ8560I_SECURITY]

    @staticmethod
    def _no_chinit() -> CommandFailed:
        reason = CMQCFC.MQRCCF_NO_CHANNEL_INITIATOR
        return CommandFailed.of(reason, "AMQ8101S", f"{reason:X}")

    # ------------------------------------------------------------------ DEFINE / ALTER

    def _existing(self, objtype: str, name: str) -> Any:
        """The object of this name in ``objtype``'s namespace, checked for its type."""
        obj = self.engine.lookup(objtype, name)
        if obj is not None and obj.objtype != objtype:
            raise CommandFailed.of(CMQCFC.MQRCCF_OBJECT_WRONG_TYPE, "AMQ8151E")
        return obj

    def _define(self, cmd: MQSCCommand) -> list[str]:
        objtype, name = str(cmd.objtype), str(cmd.name)
        existing = self.engine.lookup(objtype, name)
        replace = "REPLACE" in cmd.flags
        if existing is not None and not replace:
            raise CommandFailed.of(CMQCFC.MQRCCF_OBJECT_ALREADY_EXISTS, "AMQ8150E")
        if existing is not None and existing.objtype != objtype:
            raise CommandFailed.of(CMQCFC.MQRCCF_OBJECT_WRONG_TYPE, "AMQ8151E")
        wanted = to_stored(cmd.params, cmd.flags)
        _check_sslpeer(wanted)
        base = self._base_attributes(cmd, existing)
        if objtype == "CHANNEL":
            chltype = str(wanted.get("CHLTYPE") or base.get("CHLTYPE"))
            allowed = g.CHLTYPE_ATTRS[chltype]
            base = {**channel_defaults(chltype),
                    **{k: v for k, v in base.items() if k in allowed}}
            # IBM: the parameter must be *present* (CONNAME(' ') is), unless the channel
            # already has one (so that dmpmqcfg's dump of SYSTEM.DEF.SENDER replays)
            if chltype in _CONNAME_REQUIRED and "CONNAME" not in wanted \
                    and not base.get("CONNAME"):
                raise CommandFailed.of(CMQCFC.MQRCCF_CONN_NAME_ERROR, "AMQ8214E")
        attributes = {**EXTRA_DEFAULTS.get(objtype, {}), **base, **wanted}
        if str(attributes.get("CLUSTER") or "").strip() and \
                str(attributes.get("CLUSNL") or "").strip():
            # a cluster object belongs to one cluster or to a namelist of them, not both
            raise CommandFailed.of(CMQCFC.MQRCCF_CLUSTER_NAME_CONFLICT, "AMQ8769E")
        self.engine.define(objtype, name, attributes, replace=existing is not None)
        self._cluster_changed(objtype, attributes, existing.attributes if existing else None)
        return [message(_OUTCOMES[objtype][0])]

    def _base_attributes(self, cmd: MQSCCommand, existing: Any) -> dict[str, object]:
        """LIKE's attributes, else the default object's (IBM: SYSTEM.DEFAULT.*), no stamps."""
        objtype = str(cmd.objtype)
        like = cmd.params.get("LIKE")
        source = None
        if like:
            source = self.engine.lookup(objtype, str(like))
            if source is None or source.objtype != objtype:
                raise CommandFailed.of(CMQC.MQRC_UNKNOWN_OBJECT_NAME, "AMQ8147E", like)
        elif objtype in _DEFAULT_OBJECT:
            source = self.engine.lookup(objtype, _DEFAULT_OBJECT[objtype])
        elif objtype == "CHANNEL" and existing is not None:
            source = None
        if source is None:
            return {}
        return {k: (list(v) if isinstance(v, list) else v)
                for k, v in source.attributes.items() if k not in STAMPS}

    def _alter(self, cmd: MQSCCommand) -> list[str]:
        objtype, name = str(cmd.objtype), str(cmd.name)
        obj = self._existing(objtype, name)
        if obj is None:
            raise CommandFailed.of(CMQC.MQRC_UNKNOWN_OBJECT_NAME, "AMQ8147E", name)
        wanted = to_stored(cmd.params, cmd.flags)
        _check_sslpeer(wanted)
        if objtype == "CHANNEL" and wanted.get("CHLTYPE") != obj.attributes.get("CHLTYPE"):
            raise CommandFailed.of(CMQCFC.MQRCCF_OBJECT_WRONG_TYPE, "AMQ8151E")
        before = dict(obj.attributes)
        self.engine.alter(objtype, name, wanted)
        self._cluster_changed(objtype, before, {**before, **wanted})
        return [message(_OUTCOMES[objtype][2])]

    def _delete(self, cmd: MQSCCommand) -> list[str]:
        objtype, name = str(cmd.objtype), str(cmd.name)
        existing = self._existing(objtype, name)
        if existing is None:
            raise CommandFailed.of(CMQC.MQRC_UNKNOWN_OBJECT_NAME, "AMQ8147E", name)
        before = dict(existing.attributes)
        if objtype == "SERVICE" and self._services().is_running(name):
            # IBM: a running server service cannot be deleted; stop it first [M]
            raise CommandFailed.of(CMQCFC.MQRCCF_OBJECT_IN_USE, "AMQ8148E")
        try:
            self.engine.delete(objtype, name, purge="PURGE" in cmd.flags)
        except MQMIError as err:
            raise _from_mqi(err, name) from None
        self._cluster_changed(objtype, before)
        return [message(_OUTCOMES[objtype][1])]

    def _clear(self, cmd: MQSCCommand) -> list[str]:
        name = str(cmd.name)
        if self._existing("QLOCAL", name) is None:
            raise CommandFailed.of(CMQC.MQRC_UNKNOWN_OBJECT_NAME, "AMQ8147E", name)
        try:
            self.engine.clear(name)
        except MQMIError as err:
            raise _from_mqi(err, name) from None
        return [message("AMQ8022I")]

    # ------------------------------------------------------------------ DISPLAY objects

    def matching(self, objtypes: Iterable[str], name: str, generic: bool) -> list[Any]:
        """Defined objects of these types whose names match, sorted by name."""
        types = set(objtypes)
        with self.engine.lock:
            found = [o for o in self.engine.catalog.objects.values() if o.objtype in types
                     and (generic_match(name, o.name) if generic else o.name == name)]
        if self.visible is not None:
            found = [o for o in found if self.visible(o.objtype, o.name, o.attributes)]
        return sorted(found, key=lambda o: (o.name, o.objtype))

    def stored_view(self, obj: Any) -> dict[str, object]:
        """An object's attributes as DISPLAY sees them: defaults, stored values, live status."""
        view: dict[str, object] = {**EXTRA_DEFAULTS.get(obj.objtype, {}), **obj.attributes}
        chltype = obj.attributes.get("CHLTYPE") if obj.objtype == "CHANNEL" else None
        if chltype in g.CHLTYPE_ATTRS:
            # a channel crtmqm made (SYSTEM.DEF.*) stores only its type: IBM's defaults show
            view = {**channel_defaults(str(chltype)), **view}
        if obj.objtype == "QLOCAL":
            try:
                status = self.engine.queue_status(obj.name)
            except MQMIError:
                status = {}
            view.update({k: status[k] for k in ("CURDEPTH", "IPPROCS", "OPPROCS")
                         if k in status})
        if obj.objtype == "NAMELIST":
            view["NAMCOUNT"] = len(view.get("NAMES") or [])
        return view

    def _display(self, cmd: MQSCCommand) -> list[str]:
        objtype, name = str(cmd.objtype), str(cmd.name)
        if objtype == "QUEUE":
            qtype = str(cmd.params.get("TYPE", "ALL"))
            types: tuple[str, ...] = QUEUE_TYPES if qtype in ("ALL", "QCLUSTER") else (qtype,)
        else:
            types = (objtype,)
        objs = self.matching(types, name, cmd.generic)
        if objtype == "CHANNEL" and "CHLTYPE" in cmd.params:
            objs = [o for o in objs if o.attributes.get("CHLTYPE") == cmd.params["CHLTYPE"]]
        if not objs:
            raise CommandFailed.of(CMQC.MQRC_UNKNOWN_OBJECT_NAME, "AMQ8147E", name)
        lines: list[str] = []
        for obj in objs:
            view = self.stored_view(obj)
            chltype = str(view.get("CHLTYPE", ""))
            shown = display_keywords(obj.objtype, chltype)
            view = {k: v for k, v in view.items() if k in shown}
            if not where_passes(cmd.where, view):
                continue
            head = [(_NAME_ITEM[obj.objtype], obj.name)]
            if obj.objtype in QUEUE_TYPES:
                head.append(("TYPE", obj.objtype))
            elif obj.objtype == "CHANNEL":
                head.append(("CHLTYPE", chltype))
            rest = self._selected(cmd, view, exclude={"CHLTYPE", "TYPE"})
            lines.append(message(_HEADERS[obj.objtype]))
            lines.extend(format_attrs(head + display_items(rest)))
        return lines

    @staticmethod
    def _selected(cmd: MQSCCommand, view: Mapping[str, object], *, exclude: Iterable[str] = (),
                  everything: bool = False) -> dict[str, object]:
        """The attributes a DISPLAY asked for (ALL, a list, and the WHERE keyword)."""
        if everything or "ALL" in cmd.flags:
            wanted = set(view)
        else:
            wanted = {FLAG_ATTRS.get(k, (k, ""))[0] for k in cmd.display_attrs}
            if cmd.where is not None:
                wanted.add(cmd.where.keyword)
        skip = set(exclude)
        return {k: v for k, v in view.items() if k in wanted and k not in skip}

    def qmgr_view(self) -> dict[str, object]:
        """The queue manager's attributes as DISPLAY QMGR shows them (QMNAME apart)."""
        eng = self.engine
        with eng.lock:
            view = {**EXTRA_DEFAULTS["QMGR"], **eng.catalog.qmgr}
        view["QMID"] = view.get("QMID") or qmid_of(eng.name, view)
        if view.get("CERTLABL") == "ibmwebspheremq":
            view["CERTLABL"] = "ibmwebspheremq" + eng.name.lower()
        shown = display_keywords("QMGR")
        return {k: v for k, v in view.items() if k in shown and k != "QMNAME"}

    def _display_qmgr(self, cmd: MQSCCommand) -> list[str]:
        eng = self.engine
        view = self.qmgr_view()
        rest = self._selected(cmd, view, everything=not cmd.display_attrs)
        return [message(_HEADERS["QMGR"]), *format_attrs([("QMNAME", eng.name),
                                                         *display_items(rest)])]

    # ------------------------------------------------------------------ status

    def _display_qstatus(self, cmd: MQSCCommand) -> list[str]:
        name = str(cmd.name)
        objs = self.matching(("QLOCAL",), name, cmd.generic)
        if not objs:
            raise CommandFailed.of(CMQC.MQRC_UNKNOWN_OBJECT_NAME, "AMQ8147E", name)
        handles = cmd.params.get("TYPE") == "HANDLE"
        opentype = str(cmd.params.get("OPENTYPE", "ALL"))
        lines: list[str] = []
        for obj in objs:
            rows = self.handle_status(obj) if handles else [self.queue_status_view(obj)]
            for view in rows:
                if opentype == "INPUT" and not (view.get("IPPROCS") or view.get("INPUT",
                                                                                 "NO") != "NO"):
                    continue
                if opentype == "OUTPUT" and not (view.get("OPPROCS") or view.get("OUTPUT")
                                                 == "YES"):
                    continue
                if not where_passes(cmd.where, view):
                    continue
                default = not cmd.display_attrs and "ALL" not in cmd.flags
                if handles:
                    rest = self._selected(cmd, view, everything=default)
                else:
                    rest = self._selected(cmd, view)
                    if default:
                        rest["CURDEPTH"] = view["CURDEPTH"]
                head = [("QUEUE", obj.name), ("TYPE", "HANDLE" if handles else "QUEUE")]
                lines.append(message(_HEADERS["QSTATUS"]))
                lines.extend(format_attrs(head + display_items(rest)))
        return lines

    def queue_status_view(self, obj: Any) -> dict[str, object]:
        """DISPLAY QSTATUS TYPE(QUEUE) values of one local queue."""
        eng = self.engine
        with eng.lock:
            status = eng.queue_status(obj.name)
            mq = eng.catalog.queues.get(obj.qid)
            oldest = mq.oldest_put_time() if mq else 0.0
            last_put = getattr(mq, "last_put", 0.0)
            last_get = getattr(mq, "last_get", 0.0)
            monq = obj.attributes.get("MONQ", "QMGR")
            if monq == "QMGR":
                monq = eng.catalog.qmgr.get("MONQ", "OFF")
        lgetdate, lgettime = _stamp(last_get)
        lputdate, lputtime = _stamp(last_put)
        uncom = int(status.get("UNCOM", 0))  # type: ignore[call-overload]
        return {
            "CURDEPTH": status["CURDEPTH"], "IPPROCS": status["IPPROCS"],
            "OPPROCS": status["OPPROCS"], "UNCOM": uncom or "NO",
            "LGETDATE": lgetdate, "LGETTIME": lgettime, "LPUTDATE": lputdate,
            "LPUTTIME": lputtime, "MEDIALOG": "", "MONQ": monq,
            "MSGAGE": int(time.time() - oldest) if oldest else 0, "QTIME": ("", ""),
        }  # fmt: skip

    def handle_status(self, obj: Any) -> list[dict[str, object]]:
        """DISPLAY QSTATUS TYPE(HANDLE): one row per open handle on the queue."""
        eng = self.engine
        rows = []
        with eng.lock:
            mq = eng.catalog.queues.get(obj.qid)
            for conn in eng.connections.values():
                for h in conn.handles.values():
                    if h.mq is not mq:
                        continue
                    opts = h.options
                    inputs = opts & (CMQC.MQOO_INPUT_AS_Q_DEF | CMQC.MQOO_INPUT_SHARED
                                     | CMQC.MQOO_INPUT_EXCLUSIVE)
                    rows.append({
                        "APPLTAG": _text(conn.appl_name), "APPLTYPE": "USER",
                        "ASTATE": "NONE", "BROWSE": "YES" if opts & CMQC.MQOO_BROWSE else "NO",
                        "CHANNEL": "", "CONNAME": "",
                        "INPUT": ("EXCL" if h.exclusive else "SHARED") if inputs else "NO",
                        "INQUIRE": "YES" if opts & CMQC.MQOO_INQUIRE else "NO",
                        "OUTPUT": "YES" if opts & CMQC.MQOO_OUTPUT else "NO",
                        "SET": "YES" if opts & CMQC.MQOO_SET else "NO",
                        "PID": 0, "TID": conn.hconn, "URID": "", "URTYPE": "QMGR",
                        "USERID": _text(conn.user),
                    })  # fmt: skip
        return rows

    def _display_conn(self, cmd: MQSCCommand) -> list[str]:
        eng = self.engine
        name = str(cmd.name)
        with eng.lock:
            conns = [c for c in eng.connections.values()
                     if generic_match(name, self.conn_id(c)) or not cmd.generic
                     and self.conn_id(c) == name]
            rows = []
            for c in sorted(conns, key=lambda c: c.hconn):
                date, tod = _stamp(c.connected_at)
                uow = c.uow is not None
                handles = [(h.obj.name, "QUEUE") for h in c.handles.values()]
                rows.append((c, {
                    "APPLTAG": _text(c.appl_name), "APPLTYPE": "USER", "ASTATE": "NONE",
                    "CHANNEL": c.channel, "CONNAME": c.conname,
                    "CONNOPTS": ("MQCNO_SHARED_BINDING",),
                    "USERID": _text(c.user), "UOWLOGDA": "", "UOWLOGTI": "",
                    "UOWSTDA": date if uow else "", "UOWSTTI": tod if uow else "",
                    "UOWSTATE": "ACTIVE" if uow else "NONE", "QMURID": "", "EXTURID": "",
                    "PID": 0, "TID": c.hconn, "CONNTAG": "NO",
                }, handles))  # fmt: skip
        if not rows:
            raise CommandFailed.of(CMQC.MQRC_UNKNOWN_OBJECT_NAME, "AMQ8147E", name)
        ctype = str(cmd.params.get("TYPE", "CONN"))
        lines: list[str] = []
        for conn, view, handles in rows:
            if not where_passes(cmd.where, view):
                continue
            cid = self.conn_id(conn)
            items: list[tuple[str, object]] = [("CONN", cid),
                                               ("EXTCONN", (b"AMQC" + eng.name[:12].ljust(12).encode(
                                                   "latin-1")).hex().upper()),
                                               ("TYPE", ctype)]
            if ctype in ("CONN", "ALL"):
                items += display_items(self._selected(cmd, view))
            if ctype in ("HANDLE", "ALL"):
                for objname, objtype in handles:
                    items += [("OBJNAME", objname), ("OBJTYPE", objtype)]
            lines.append(message(_HEADERS["CONN"]))
            lines.extend(format_attrs(items))
        return lines

    @staticmethod
    def conn_id(conn: Any) -> str:
        """The CONN(...) identifier: 16 hex digits (IBM shows the low half of the 24-byte
        connection id)."""
        return f"{int(conn.connected_at * 1000) & 0xFFFFFFFF:08X}{conn.hconn:08X}"


# ---------------------------------------------------------------------- transcripts


_Handler = Callable[[MQSCProcessor, MQSCCommand], list[str]]
_END_VERBS = ("END", "EXIT", "QUIT")


def _command_table() -> dict[tuple[str, str], _Handler]:
    """(verb, object type) -> the processor's method that runs it."""
    p = MQSCProcessor
    table: dict[tuple[str, str], _Handler] = {}
    for objtype in (*_NAME_ITEM, "QUEUE"):  # the objects with definitions
        table.update({("DEFINE", objtype): p._define, ("ALTER", objtype): p._alter,
                      ("DELETE", objtype): p._delete, ("DISPLAY", objtype): p._display})
    table.update({
        ("DISPLAY", "QUEUE"): p._display_queue,
        ("DISPLAY", "QMGR"): p._display_qmgr, ("ALTER", "QMGR"): p._alter_qmgr,
        ("PING", "QMGR"): p._ping_qmgr, ("RESET", "QMGR"): p._reset_qmgr,
        ("DISPLAY", "QSTATUS"): p._display_qstatus, ("DISPLAY", "CONN"): p._display_conn,
        ("DISPLAY", "CHSTATUS"): p._display_chstatus,
        ("DISPLAY", "LSSTATUS"): p._display_lsstatus,
        ("DISPLAY", "QMSTATUS"): p._display_qmstatus,
        ("DISPLAY", "SVSTATUS"): p._display_svstatus,
        ("START", "LISTENER"): p._listener_control, ("STOP", "LISTENER"): p._listener_control,
        ("START", "SERVICE"): p._service_control, ("STOP", "SERVICE"): p._service_control,
        ("START", "CHINIT"): p._chinit_control, ("STOP", "CHINIT"): p._chinit_control,
        ("SUSPEND", "QMGR"): p._cluster, ("RESUME", "QMGR"): p._cluster,
        ("REFRESH", "SECURITY"): p._refresh_security, ("CLEAR", "QLOCAL"): p._clear,
    })
    table.update({pair: p._cluster for pair in _CLUSTER_COMMANDS})
    table.update({(verb, "CHANNEL"): p._channel_command for verb in _CHINIT_VERBS})
    return table


#: (verb, object type) -> the method that runs it
_COMMANDS = _command_table()
#: object type -> the method that runs any verb on it (the security records)
_FAMILIES: dict[str, _Handler] = {"CHLAUTH": MQSCProcessor._security,
                                  "AUTHREC": MQSCProcessor._security}


def transcript_head(qmgr_name: str) -> list[str]:
    """The lines runmqsc prints before the first command."""
    return [BANNER, f"Starting MQSC for queue manager {qmgr_name}.", "", ""]


_ECHO_CONT = "       : "


def run_transcript(
    source: str | Iterable[str],
    run: Callable[[MQSCCommand], Result],
    *,
    verify_only: bool = False,
    echo: bool = True,
    emit: Callable[[str], None] | None = None,
) -> tuple[list[str], int]:
    """runmqsc's report for ``source`` after the heading, and the exit code.

    Each command is echoed as ``     1 : DEFINE QLOCAL(Q1)`` (continuation lines, comments and
    blank lines as ``       : ...``), then its response; END (or EXIT/QUIT) stops reading
    and is numbered but not counted; the summary says how many commands were read, how many
    had syntax errors and how many failed. ``verify_only`` (``runmqsc -v``) runs nothing and
    leaves the last summary line out. ``emit`` receives each line as it is produced.
    """
    out: list[str] = []

    def say(line: str) -> None:
        out.append(line)
        if emit is not None:
            emit(line)

    number = read = syntax = failed = 0
    for item in scan_lines(source):
        if item.kind != "command":
            if echo:
                say(_ECHO_CONT + item.text)
            continue
        number += 1
        if echo:
            say(f"{number:6d} : {item.raw_lines[0]}")
            for raw in item.raw_lines[1:]:
                say(_ECHO_CONT + raw)
        parsed = parse_command(item.text, item.line_no)
        if isinstance(parsed, MQSCCommand) and parsed.verb in ("END", "EXIT", "QUIT"):
            break
        read += 1
        if isinstance(parsed, MQSCError):
            syntax += 1
            for line in parsed.lines():
                say(line)
            continue
        if verify_only:
            continue
        result = run(parsed)
        for line in result.lines:
            say(line)
        if not result.ok:
            failed += 1
    summary = summary_lines(read, syntax, failed)
    if read == 0:
        summary[0] = "No MQSC commands read."
    for line in summary[:2] if verify_only else summary:
        say(line)
    return out, EXIT_OK if not (syntax or failed) else EXIT_SOME_FAILED
