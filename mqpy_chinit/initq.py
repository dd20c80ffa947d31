"""SYSTEM.CHANNEL.INITQ, as the channel initiator serves it: a trigger message starts the
channel it names (or, with blank TriggerData, the first sending channel of its transmission
queue), and a channel command from the command server (``mqpy.channelcommands``: START, STOP,
PING, STATUS, listeners, REFRESH SECURITY TYPE(SSL), cluster commands) is carried out and
answered on its reply-to queue.

A part of :class:`~mqpy_chinit.chinit.ChannelInitiator`, which holds the state it uses.
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable
from typing import Any

import trio

import mqpy
from mqpy import CMQC, CMQCFC, wake
from mqpy.channelcommands import COMMAND_FORMAT, verified
from mqpy.fap import channeldefs as D
from mqpy.structs.fields import StructError
from mqpy_chinit import handoff, lsrcontrol, sslrefresh, wakes
from mqpy_chinit.conversation import ChannelEnded
from mqpy_chinit.mca import mqi
from mqpy_chinit.sender_mca import SenderMCA
from mqpy_chinit.states import ChannelState, ChannelStatus
from mqpy_chinit.supervision import QMGR_GONE

Reply = dict[str, Any]

#: the Format of the message that ends the initiation queue's waiting get when the channel
#: initiator ends (``_serve_initq``, :mod:`mqpy.wake`): nothing else is done with it
WAKE_FORMAT = wake.WAKE_FORMAT
#: how long one get of the initiation queue waits (milliseconds) before it is made again.
#: The channel initiator's end wakes it (``wakes``): this is only for a wake message that
#: could not be put (the queue full)
INITQ_WAIT_MS = 30_000


class InitiationQueue:
    """The initiation queue's messages: trigger messages and channel commands."""

    #: the queue-manager directory whose runmqlsr processes are asked with each STATUS,
    #: STOP and START (``lsrcontrol``); None asks none. runmqchi sets it
    serves_listeners: str | None = None

    async def _serve_initq(self) -> None:
        """Get the initiation queue's messages, one at a time, until cancelled. The gets
        wait in a worker thread, which a cancel cannot interrupt: cancelled (the channel
        initiator ending) while one waits, a wake message (``wakes``), put by a connection of
        its own, ends that wait at once rather than when its WaitInterval has passed."""
        qm = await mqi(self.connect_qm)
        q = await mqi(mqpy.Queue, qm, self.initq, CMQC.MQOO_INPUT_SHARED)
        try:
            await wakes.run_woken(lambda: self._get_initq_messages(qm, q), self._put_wake)
        finally:
            with trio.CancelScope(shield=True):
                await mqi(_close_quietly, qm, q)

    async def _get_initq_messages(self, qm: mqpy.QueueManager, q: mqpy.Queue) -> None:
        while True:
            md = mqpy.MD()
            gmo = mqpy.GMO(Options=CMQC.MQGMO_WAIT | CMQC.MQGMO_NO_SYNCPOINT
                           | CMQC.MQGMO_FAIL_IF_QUIESCING, WaitInterval=INITQ_WAIT_MS)
            try:
                data = await mqi(q.get, None, md, gmo)
            except mqpy.MQMIError as e:
                if e.reason == CMQC.MQRC_NO_MSG_AVAILABLE:
                    continue
                raise  # the queue manager going ends the channel initiator
            if not wake.is_wake(md):
                await self._initq_message(qm, md, data)

    def _put_wake(self) -> None:
        """The wake message (:mod:`mqpy.wake`: not persistent, expiring), if the queue
        manager takes it: one that is ending may not, and its get then ends anyway
        (FAIL_IF_QUIESCING)."""
        wake.put_wakes_through(self.connect_qm, self.initq)

    async def _initq_message(self, qm: mqpy.QueueManager, md: mqpy.MD, data: bytes) -> None:
        """A trigger message starts its channel; a channel command is carried out."""
        if md.Format == CMQC.MQFMT_TRIGGER:
            try:
                tm = mqpy.TM().unpack(data)
            except StructError as exc:  # any application may put here: not a trigger
                self.log("AMQ9999E", f"A message on {self.initq} in the trigger message "
                         f"format is no MQTM ({exc.args[0] if exc.args else exc}): ignored.")
                return
            name = tm.TriggerData.rstrip(b" \x00").decode("latin-1")
            xmitq = tm.QName.rstrip(b" \x00").decode("latin-1")
            if not name:
                # blank TriggerData: the first channel whose XMITQ is this queue (spec 9.49)
                for cname, d in sorted((await trio.to_thread.run_sync(
                    self.admin.channels)).items()):
                    if D.str_attr(d, "XMITQ") == xmitq and D.str_attr(d, "CHLTYPE") in \
                            D.SENDING_TYPES:
                        name = cname
                        break
            st = self.statuses.get(name) if name else None
            if st is not None and st.state is ChannelState.STOPPED:
                self.log("AMQ9531I", f"Channel '{name}' is STOPPED: a trigger does not start "
                         f"it; use START CHANNEL.")
                return
            if name:
                definition = await trio.to_thread.run_sync(self.admin.channel, name)
                err = self.start_channel(name, definition) if definition else \
                    f"AMQ9519E: Channel '{name}' named by a trigger message not found."
                if err:
                    self.log("AMQ9999E", err)
            return
        if md.Format == COMMAND_FORMAT:
            await self._command(qm, md, data)

    async def _command(self, qm: mqpy.QueueManager, md: mqpy.MD, data: bytes) -> None:
        """A channel command: carried out when the command server made it (its MAC is
        right: ``mqpy.channelcommands``), and answered when it names a reply-to queue."""
        try:
            req = json.loads(data)
            if not (isinstance(req, dict) and verified(req, self.channel_command_key())):
                user = md.UserIdentifier.decode("latin-1").strip(" \x00")
                appl = md.PutApplName.decode("latin-1").strip(" \x00")
                self.log("AMQ9999E", f"A channel command on {self.initq} was not made by the "
                         f"queue manager's command server (put by user {user!r}, application "
                         f"{appl!r}): refused.")
                reply: Reply = {"ok": False, "message": "AMQ8135E: Not authorized."}
            else:
                reply = await self._verified_command(_request(req))
        except (ValueError, KeyError) as exc:
            reply = {"ok": False, "message": f"AMQ8405E: bad channel command: {exc}"}
        await self._answer_command(qm, md, reply)

    def channel_command_key(self) -> bytes | None:
        """The key of the channel commands this channel initiator carries out: given at its
        start, else its admin's (a queue manager in this process), else none (every
        command refused)."""
        if self.command_key is None:
            of_admin = getattr(self.admin, "command_key", None)
            self.command_key = of_admin() if of_admin is not None else None
        return self.command_key

    async def _verified_command(self, req: dict[str, Any]) -> Reply:
        try:
            verb, name = req["command"], req.get("channel", "")
            if req.get("auto") and (self.cluster is None or
                                    self.cluster.definition(name) is None):
                # not a queue-manager object: an auto-defined cluster sender, or nothing
                reply: Reply = {"ok": False, "message": f"AMQ8227E: Channel {name} not found."}
            else:
                handler = _COMMANDS.get(verb)
                if handler is None and verb.startswith("CLUSTER_"):
                    handler = InitiationQueue._cluster_command
                if handler is None:
                    reply = {"ok": False, "message": f"AMQ8405E: unknown channel command {verb}"}
                else:
                    reply = await handler(self, req, name)
        except (ValueError, KeyError) as exc:
            reply = {"ok": False, "message": f"AMQ8405E: bad channel command: {exc}"}
        return reply

    async def _answer_command(self, qm: mqpy.QueueManager, md: mqpy.MD, reply: Reply) -> None:
        if md.ReplyToQ.strip(b" \x00"):
            rmd = mqpy.MD(CorrelId=md.MsgId, MsgType=CMQC.MQMT_REPLY, Format=COMMAND_FORMAT)
            od = mqpy.OD(ObjectName=md.ReplyToQ, ObjectQMgrName=md.ReplyToQMgr)
            try:
                await mqi(qm.put1, od, json.dumps(reply).encode(), rmd)
            except mqpy.MQMIError as e:
                if e.reason in QMGR_GONE:
                    raise
                self.log("AMQ9999E", f"Reply to a channel command failed: reason {e.reason}.")

    async def _start(self, req: dict[str, Any], name: str) -> Reply:
        """START CHANNEL (a STOPPED mark a runmqlsr keeps is enabled too)."""
        err = self.start_channel(name, req.get("definition"), operator=True,
                                 ignstate=req.get("ignstate", "YES") != "NO")
        if err is None:
            await self._ask_listeners({"command": "START", "channel": name})
        return _answer(err)

    async def _stop(self, req: dict[str, Any], name: str) -> Reply:
        """STOP CHANNEL (FASTPATH: the client host's SVRCONN instances too)."""
        err = self.stop_channel(name, req.get("mode", "QUIESCE"), req.get("status", "STOPPED"),
                                req.get("qmname", ""), req.get("conname", ""),
                                req.get("chltype", ""), req.get("ignstate", "YES") != "NO")
        if err is None and req.get("chltype") == "SVRCONN":
            await self._ask_client_host(req)
        # the runmqlsr processes' instances too (``lsrcontrol``)
        return _answer(lsrcontrol.merged_stop(err, await self._ask_listeners(req)))

    async def _ping(self, req: dict[str, Any], name: str) -> Reply:
        """PING CHANNEL: a sending channel's partner answers a data exchange."""
        status = self.statuses.get(name)
        if name in self.running and (status is None or
                                     status.state is not ChannelState.RETRYING):
            # IBM: "not valid if the channel is running; valid if it is stopped or in retry"
            # (a start under way counts as running, from START CHANNEL on)
            return _answer(f"AMQ9514E: Channel '{name}' is in use.")
        definition = req.get("definition") or await trio.to_thread.run_sync(
            self.admin.channel, name)
        try:
            mca = SenderMCA(name, definition, self.qmgr_name, self.connect_qm,
                            ChannelStatus(name, "SDR"), key_repository=self._key_repository)
            try:
                await mca.ping(ping_data(int(req.get("datalen") or 16)))
            except ValueError as exc:  # its CONNAME: blank, or not host(port)
                raise ChannelEnded("AMQ9203E", f"A configuration error for TCP/IP "
                                   f"occurred: {exc}.", False) from None
            return {"ok": True, "message": ""}
        except ChannelEnded as exc:
            # as for a channel run: the operator finds why in the error log too
            self.log(exc.msgid, f"PING CHANNEL({name}): {exc.text}")
            return {"ok": False, "message": str(exc)}

    async def _refresh_ssl(self, req: dict[str, Any], name: str) -> Reply:
        """REFRESH SECURITY TYPE(SSL)."""
        return await sslrefresh.refresh_ssl(self)

    async def _start_listener(self, req: dict[str, Any], name: str) -> Reply:
        """START LISTENER."""
        err = await self.start_listener(name, req.get("definition"))
        return {"ok": err is None, "message": err or ""}

    async def _stop_listener(self, req: dict[str, Any], name: str) -> Reply:
        """STOP LISTENER."""
        err = self.stop_listener(name)
        return {"ok": err is None, "message": err or ""}

    async def _listener_status(self, req: dict[str, Any], name: str) -> Reply:
        """DISPLAY LSSTATUS."""
        return {"ok": True, "status": [
            {"LISTENER": n, "STATUS": "RUNNING", "PORT": p, "TRPTYPE": "TCP"}
            for n, p in self.listener_ports.items()
            if _generic_match(req.get("channel", "*"), n)]}

    async def _cluster_command(self, req: dict[str, Any], name: str) -> Reply:
        """The repository manager's commands (DISPLAY CLUSQMGR, SUSPEND QMGR, ...)."""
        if self.cluster is None:
            return {"ok": False, "reason": CMQC.MQRC_CLUSTER_RESOLUTION_ERROR,
                    "message": "AMQ9456E: The repository manager is not running."}
        return await self.cluster.command(req)

    async def _reset_statistics(self, req: dict[str, Any], name: str) -> Reply:
        """RESET QMGR TYPE(STATISTICS): the channel statistics interval ends now."""
        self.reset_channel_statistics()
        return _answer(None)

    async def _statistics_changed(self, req: dict[str, Any], name: str) -> Reply:
        """ALTER QMGR STATINT: the channel statistics task reads it again."""
        self.statistics_changed()
        return _answer(None)

    async def _status(self, req: dict[str, Any], name: str) -> Reply:
        """DISPLAY CHSTATUS (FASTPATH: with the client host's SVRCONN instances; and the
        instances of every runmqlsr, ``lsrcontrol``)."""
        hosted = await self._ask_client_host(req)
        listeners = await self._ask_listeners(req)
        return {"ok": True, "status": lsrcontrol.merged_status(
            self.status_list(req.get("channel", "*")) + list(hosted.get("status") or []),
            listeners)}

    def status_list(self, pattern: str) -> list[dict[str, object]]:
        """DISPLAY CHSTATUS: the statuses of the channels ``pattern`` names, MQSC's way."""
        return [s.as_mqsc() for s in self.statuses.values()
                if _generic_match(pattern, s.channel)]

    async def _ask_listeners(self, request: dict[str, Any]) -> list[dict[str, Any]]:
        """A STATUS, STOP or START for the instances the queue manager's runmqlsr processes
        serve: their replies (none from a channel initiator that is itself a runmqlsr's, or
        the client host's)."""
        if self.serves_listeners is None:
            return []
        return await lsrcontrol.ask_listeners(self.serves_listeners, request, self.log)

    async def _ask_client_host(self, request: dict[str, Any]) -> dict[str, Any]:
        """FASTPATH: a STATUS or STOP for the SVRCONN instances the queue manager's client
        host serves; its reply ({} with STANDARD, or when it cannot be asked: logged)."""
        if self.fastpath is None:
            return {}
        try:
            return await handoff.ask(self.fastpath, request)
        except handoff.HandOffFailed as exc:
            self.log("AMQ9999E", f"Channel command {request.get('command')} for "
                     f"'{request.get('channel', '')}' did not reach the queue manager's "
                     f"client connections: {exc}.")
            return {}


#: the text fields of a channel command (each a string when given)
_TEXT_FIELDS = ("command", "channel", "mode", "status", "qmname", "conname", "chltype",
                "cluster", "name", "qmid")
#: the fields that hold an object's definition (a JSON object when given)
_DEFINITION_FIELDS = ("definition",)
#: the integer fields (an integer when given)
_INTEGER_FIELDS = ("datalen",)


def _request(req: object) -> dict[str, Any]:
    """A channel command's JSON as its handlers read it, or ValueError naming what is not:
    the command server writes every request so, but any application that may put to the
    initiation queue can put any JSON there (a list, a number for a name, a definition
    that is a string), which must not end the channel initiator."""
    if not isinstance(req, dict):
        raise ValueError(f"a request is a JSON object, not {type(req).__name__}")
    if "command" not in req:
        raise KeyError("command")
    for key in _TEXT_FIELDS:
        if key in req and not isinstance(req[key], str):
            raise ValueError(f"{key} is not a string")
    for key in _DEFINITION_FIELDS:
        value = req.get(key)
        if value is not None and not (isinstance(value, dict)
                                      and all(isinstance(k, str) for k in value)):
            raise ValueError(f"{key} is not a JSON object")
    for key in _INTEGER_FIELDS:
        value = req.get(key)
        if value is not None and (not isinstance(value, int) or isinstance(value, bool)):
            raise ValueError(f"{key} is not an integer")
    return req


def ping_data(length: int) -> bytes:
    """PING CHANNEL's test data: ``length`` bytes (DATALEN, 16 to 32768; IBM's MQSC default
    16, PCF's DataCount 64)."""
    pattern = b"mqpy PING CHANNEL test data. "
    return (pattern * (length // len(pattern) + 1))[:max(16, min(length, 32768))]


#: each channel command's handler, by its verb (``CLUSTER_*``: ``_cluster_command``)
_COMMANDS: dict[str, Callable[[Any, dict[str, Any], str], Awaitable[Reply]]] = {
    "START": InitiationQueue._start,
    "STOP": InitiationQueue._stop,
    "PING": InitiationQueue._ping,
    "REFRESH_SSL": InitiationQueue._refresh_ssl,
    "START_LISTENER": InitiationQueue._start_listener,
    "STOP_LISTENER": InitiationQueue._stop_listener,
    "LSSTATUS": InitiationQueue._listener_status,
    "STATUS": InitiationQueue._status,
    "RESET_STATISTICS": InitiationQueue._reset_statistics,
    "STATISTICS_CHANGED": InitiationQueue._statistics_changed,
}


#: the PCF reason of a channel command refused with one of these messages (else
#: MQRCCF_COMMAND_FAILED)
_REASONS = {"AMQ9514E": CMQCFC.MQRCCF_CHANNEL_IN_USE,
            "AMQ9533E": CMQCFC.MQRCCF_CHANNEL_NOT_ACTIVE,
            "AMQ9502E": CMQCFC.MQRCCF_CHANNEL_TYPE_ERROR}


def _answer(err: str | None) -> Reply:
    """A channel command's reply: done (``err`` None), or refused with ``err`` and its
    reason."""
    if err is None:
        return {"ok": True, "message": ""}
    reply: Reply = {"ok": False, "message": err}
    if err[:8] in _REASONS:
        reply["reason"] = _REASONS[err[:8]]
    return reply


def _generic_match(pattern: str, name: str) -> bool:
    if pattern.endswith("*"):
        return name.startswith(pattern[:-1])
    return pattern == name


def _close_quietly(qm: mqpy.QueueManager, q: mqpy.Queue) -> None:
    try:
        q.close()
        qm.disconnect()
    except (mqpy.MQMIError, mqpy.PYIFError):
        pass
