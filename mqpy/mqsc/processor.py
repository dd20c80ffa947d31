"""The MQSC command processor: parsed commands carried out on a queue-manager engine.

What runmqsc (through the command server) and the command server (for MQCMD_ESCAPE and the
PCF commands) do with a command once the parser has accepted it: look the object up, change
the engine, and answer with IBM's messages and DISPLAY layout. A failing command never
raises: it is a :class:`~mqpy.mqsc.results.Result` with ``ok=False``, the lines runmqsc
prints and the PCF reason the command server answers with.

Each command runs for a :class:`~mqpy.mqsc.results.Requester` passed with it (its authority
guard and display filter); the processor keeps no per-request state. Every command passes
:meth:`MQSCProcessor.execute`, where a DEFINE, ALTER or DELETE that worked is a
configuration event while CONFIGEV is ENABLED (:mod:`~mqpy.mqsc.adminevents`). The handlers are in one
module per object family, each with its table of (verb, object type) -> handler:
:mod:`~mqpy.mqsc.definitions` (DEFINE, ALTER, DELETE, DISPLAY of every object with a
definition), :mod:`~mqpy.mqsc.queues`, :mod:`~mqpy.mqsc.channels`,
:mod:`~mqpy.mqsc.listeners_services`, :mod:`~mqpy.mqsc.security_records`,
:mod:`~mqpy.mqsc.clusters` and :mod:`~mqpy.mqsc.queue_manager`. This module keeps the
dispatcher and what the families share: object look-up, the view DISPLAY shows, generic
names seen by the requester, and the channel initiator's command queue.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterable, Iterator, Mapping
from typing import Any

from mqpy import CMQCFC, channelcommands
from mqpy.engine import cluster
from mqpy.errors import MQMIError
from mqpy.mqi import QueueManager, attach
from mqpy.mqsc import (
    adminevents,
    channels,
    clusters,
    definitions,
    listeners_services,
    queue_manager,
    queues,
    security_records,
    subscriptions,
)
from mqpy.mqsc import grammar as g
from mqpy.mqsc.mapping import EXTRA_DEFAULTS, channel_defaults
from mqpy.mqsc.messages import MQSCError
from mqpy.mqsc.parser import MQSCCommand, parse_command
from mqpy.mqsc.results import (
    EVERYONE,
    CommandFailed,
    Handler,
    Requester,
    Result,
    from_mqi,
    not_supported,
)
from mqpy.mqsc.selection import generic_match
from mqpy.mqsc.transcript import END_VERBS, run_transcript, transcript_head
from mqpy.structs.tables import MD

__all__ = ["MQSCProcessor"]

_RowSource = Callable[["MQSCProcessor", MQSCCommand], list[dict[str, object]]]


class MQSCProcessor:
    """Carries out MQSC commands on one queue-manager engine (thread-safe: engine locks)."""

    def __init__(self, engine: Any) -> None:
        self.engine = engine

    # ------------------------------------------------------------------ entry points

    def execute(self, cmd: MQSCCommand, who: Requester = EVERYONE) -> Result:
        """Run one parsed command for ``who``; failures come back as ``Result(ok=False)``."""
        try:
            who.check(cmd)
            watched = adminevents.watch(self, cmd)  # configuration events (CONFIGEV)
            lines = self._dispatch(cmd, who)
            if watched is not None:
                watched.done(who)
            return Result(lines)
        except CommandFailed as failed:
            return Result(failed.lines, False, failed.reason)
        except MQMIError as err:
            failed = from_mqi(err, cmd.name or "")
            return Result(failed.lines, False, failed.reason)

    def execute_text(self, text: str, who: Requester = EVERYONE) -> Result:
        """Parse and run one command (the text of an MQCMD_ESCAPE request)."""
        parsed = parse_command(text.strip())
        if isinstance(parsed, MQSCError):
            return Result(parsed.lines(), False, CMQCFC.MQRCCF_COMMAND_FAILED)
        return self.execute(parsed, who)

    def rows(self, cmd: MQSCCommand, who: Requester = EVERYONE) -> list[dict[str, object]]:
        """A DISPLAY's rows as MQSC keywords and values, before any layout (what the PCF
        inquiries answer from); the DISPLAY itself formats the same rows. Refusals raise
        :class:`CommandFailed`."""
        source = _ROWS.get(cmd.objtype or "")
        if cmd.verb != "DISPLAY" or source is None:
            raise not_supported()
        who.check(cmd)
        try:
            return source(self, cmd)
        except MQMIError as err:
            raise from_mqi(err, cmd.name or "") from None

    def run_script(self, text: str | Iterable[str], *, verify_only: bool = False,
                   echo: bool = True) -> tuple[list[str], int]:
        """runmqsc's whole report for a script run in this process, and its exit code."""
        lines = transcript_head(self.engine.name)
        body, code = run_transcript(text, self.execute, verify_only=verify_only, echo=echo)
        return lines + body, code

    def _dispatch(self, cmd: MQSCCommand, who: Requester) -> list[str]:
        """Run ``cmd`` by its verb and object type (:data:`_COMMANDS`, then the object's
        family in :data:`_FAMILIES`); AMQ8101S for a pair mqpy does not run."""
        if cmd.verb in END_VERBS:
            return []
        handler = _COMMANDS.get((cmd.verb, cmd.objtype)) or _FAMILIES.get(cmd.objtype or "")
        if handler is None:
            raise not_supported()
        return handler(self, cmd, who)

    # ------------------------------------------------------------------ objects

    def existing(self, objtype: str, name: str) -> Any:
        """The object of this name in ``objtype``'s namespace, checked for its type."""
        obj = self.engine.lookup(objtype, name)
        if obj is not None and obj.objtype != objtype:
            raise CommandFailed.of(CMQCFC.MQRCCF_OBJECT_WRONG_TYPE, "AMQ8151E")
        return obj

    def matching(self, objtypes: Iterable[str], name: str, generic: bool,
                 who: Requester = EVERYONE) -> list[Any]:
        """Defined objects of these types whose names match and that ``who`` may see, sorted
        by name."""
        types = set(objtypes)
        with self.engine.lock:
            found = [o for o in self.engine.catalog.objects.values() if o.objtype in types
                     and (generic_match(name, o.name) if generic else o.name == name)]
        found = [o for o in found if who.sees(o.objtype, o.name, o.attributes)]
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

    @staticmethod
    def visible_rows(objtype: str, rows: list[dict[str, object]], who: Requester
                     ) -> list[dict[str, object]]:
        """The status rows of the objects ``who`` may display: each row is judged as its
        channel, listener or service, as a generic DISPLAY of definitions is."""
        return [r for r in rows if who.sees(objtype, str(r.get(objtype, "")), r)]

    @contextlib.contextmanager
    def connection(self) -> Iterator[QueueManager]:
        """An MQI connection of the queue manager's own, for the length of a command."""
        qm = attach(self.engine)
        try:
            yield qm
        finally:
            qm.disconnect()

    def cluster_changed(self, objtype: str, *views: Mapping[str, object] | None) -> None:
        """Tell the repository manager that a definition it reads changed (IBM's queue
        manager does the same through SYSTEM.CLUSTER.COMMAND.QUEUE)."""
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

    # ------------------------------------------------------------------ channel initiator

    def chinit(self, request: dict) -> dict:
        """Send a channel command to the channel initiator; no answer -> no channel initiator."""
        if not self.engine.queue_status(channelcommands.INITQ)["IPPROCS"]:
            raise self.no_chinit()  # nobody serves the initiation queue: no chinit runs
        with self.connection() as qm:
            key = channelcommands.command_key(self.engine.qmdir)
            reply = channelcommands.send(qm, request, key)
        if reply is None:
            raise self.no_chinit()
        return reply

    @staticmethod
    def no_chinit() -> CommandFailed:
        return CommandFailed.in_hex(CMQCFC.MQRCCF_NO_CHANNEL_INITIATOR)


#: (verb, object type) -> the handler that runs it, from each family's table (a family later
#: in the list overrides an earlier one: DISPLAY QUEUE is the queues' own)
_COMMANDS: dict[tuple[str, str], Handler] = {
    **definitions.COMMANDS, **queues.COMMANDS, **channels.COMMANDS,
    **listeners_services.COMMANDS, **security_records.COMMANDS, **clusters.COMMANDS,
    **queue_manager.COMMANDS, **subscriptions.COMMANDS, **adminevents.COMMANDS,
}
#: object type -> the handler of any verb on it (the security records)
_FAMILIES: dict[str, Handler] = security_records.BY_OBJECT
#: object type -> its DISPLAY rows before layout (:meth:`MQSCProcessor.rows`)
_ROWS: dict[str, _RowSource] = clusters.ROWS
