"""The command server: an MQI application serving SYSTEM.ADMIN.COMMAND.QUEUE.

It gets each request under syncpoint (MQGMO_WAIT), carries it out, puts the replies to the
request's ReplyToQ/ReplyToQMgr in the same unit of work and commits, so a request is
answered exactly once even across a crash. It serves MQCMD_ESCAPE with MQET_MQSC (the MQSC
text run as runmqsc would; one response per block of output: an AMQ message and the
DISPLAY lines under it) and the PCF commands of :mod:`mqpy.command` (inquiries, changes,
object families, security records, connections, clusters), all on the MQSC processor.

Authority (:mod:`mqpy.command.authority`): each request is run for the MQMD UserIdentifier
it carries, which the queue manager fills from the putting connection's user unless that
connection had setid / setall authority on the command queue. With the security policy
installed, a user outside mqm needs the authorities the command table names: a refusal is
CompCode MQCC_FAILED, Reason MQRC_NOT_AUTHORIZED (2035) in PCF, the AMQ8135E "Not
authorized." line in an MQCMD_ESCAPE answer, and AMQ8077W in the error log; a generic
inquiry shows only the objects the user may display. The requester is passed with each
request: nothing about one request is kept on the server.

Events (:mod:`mqpy.mqsc.adminevents`): a request that worked is a Command event on
SYSTEM.ADMIN.COMMAND.EVENT while the queue manager's CMDEV wants it (its MQSC text as sent,
or its PCF parameters), reporting the request's MQMD context (MQEVO_MSG; runmqsc's requests
are the console's); its commands' configuration events report the same origin and share its
CorrelId; a refusal for authority is Not Authorized type 4 while AUTHOREV is ENABLED.

Replies follow IBM: MQCFH Type MQCFT_RESPONSE, the request's Command, MsgSeqNumber from 1,
Control MQCFC_LAST on the last, CompCode/Reason per message, one message per object;
MQMD MsgType MQMT_REPLY, Format MQADMIN, CorrelId = the request's MsgId (or its CorrelId
under MQRO_PASS_CORREL_ID), MsgId new unless MQRO_PASS_MSG_ID, persistence and priority
of the request. A request that is not valid PCF gets one error response with the MQRCCF_*
reason; nothing a request carries can stop the server.

:func:`start_command_server` runs the server in threads of the calling process (the
daemon's, or strmqcsv's for an embedded queue manager). Stopping it (endmqcsv, endmqm) wakes
the gets its threads wait in with wake messages (:mod:`mqpy.wake`), which a server takes and
does nothing with, so that it ends at once rather than when its WaitInterval has passed.
"""

from __future__ import annotations

import functools
import os
import threading
from collections.abc import Callable, Iterable

import attrs

from mqpy import CMQC, CMQCFC, config, errorlog, inprocess, pcf, wake
from mqpy.command import COMMAND_QUEUE
from mqpy.command.authority import RequestAuthority, authority_for
from mqpy.command.changes import CHANGES
from mqpy.command.clusters import CLUSTER, inquire_cluster_q, wants_cluster_queues
from mqpy.command.connections import CONNECTIONS
from mqpy.command.inquiries import INQUIRIES
from mqpy.command.objects import OBJECTS
from mqpy.command.parameters import check_parameters
from mqpy.command.requests import (
    PcfHandler,
    PcfRequest,
    Refused,
    Response,
    check_shapes,
    name_of,
)
from mqpy.command.runtime import RUNTIME
from mqpy.command.security import SECURITY
from mqpy.command.statistics import STATISTICS
from mqpy.command.subscriptions import SUBSCRIPTIONS
from mqpy.errors import MQMIError
from mqpy.events import EventOrigin
from mqpy.mqi import Queue, QueueManager, attach
from mqpy.mqsc import adminevents
from mqpy.mqsc.messages import MQSCError
from mqpy.mqsc.parser import MQSCCommand, parse_command
from mqpy.mqsc.processor import MQSCProcessor
from mqpy.mqsc.results import EVERYONE, Requester, Result
from mqpy.structs.fields import StructError
from mqpy.structs.tables import CFH, GMO, MD, OD, PMO

__all__ = [
    "COMMAND_QUEUE",
    "CommandServer",
    "CommandServerHandle",
    "command_server_status",
    "escape_blocks",
    "start_command_server",
    "stop_command_server",
]


#: how long one get of the command queue waits (milliseconds) before the server looks again
#: whether it is to stop. Stopping it wakes the get (:meth:`CommandServerHandle.stop`): this
#: is only for a wake message that could not be put (the queue full or put-inhibited)
REQUEST_WAIT_MS = 30_000
#: after a request backed out (a full log at commit ...), the pause before it is served again
RETRY_DELAY_S = 0.2

#: the reasons that end the command server's loop: its queue manager (or connection) ends
_ENDING = frozenset({CMQC.MQRC_CONNECTION_BROKEN, CMQC.MQRC_Q_MGR_QUIESCING,
                     CMQC.MQRC_Q_MGR_STOPPING, CMQC.MQRC_CONNECTION_QUIESCING,
                     CMQC.MQRC_CONNECTION_STOPPING, CMQC.MQRC_HCONN_ERROR,
                     CMQC.MQRC_Q_MGR_NOT_AVAILABLE})


def escape_blocks(lines: list[str]) -> list[str]:
    """runmqsc output cut into one text per AMQ message with the lines under it."""
    blocks: list[list[str]] = []
    for line in lines:
        if line.startswith("AMQ") or not blocks:
            blocks.append([line])
        else:
            blocks[-1].append(line)
    return ["\n".join(b) for b in blocks] or [""]


def _escape(req: PcfRequest, msg: pcf.PCFMessage) -> list[Response]:
    """MQCMD_ESCAPE: the MQSC text run for the request's requester (the command it parsed
    to is kept in ``req.ran``)."""
    if msg.get(CMQCFC.MQIACF_ESCAPE_TYPE) != CMQCFC.MQET_MQSC:
        raise Refused(CMQCFC.MQRCCF_ESCAPE_TYPE_ERROR)
    text = msg.get(CMQCFC.MQCACF_ESCAPE_TEXT)
    if text is None:
        raise Refused(CMQCFC.MQRCCF_PARM_COUNT_TOO_SMALL)
    parsed = parse_command(name_of(text).strip())
    if isinstance(parsed, MQSCError):
        result = Result(parsed.lines(), False, CMQCFC.MQRCCF_COMMAND_FAILED)
    else:
        req.ran.append(parsed)
        result = req.processor.execute(parsed, req.who)
    comp = CMQC.MQCC_OK if result.ok else CMQC.MQCC_FAILED
    reason = CMQC.MQRC_NONE if result.ok else CMQCFC.MQRCCF_COMMAND_FAILED
    return [Response([pcf.CFIN(CMQCFC.MQIACF_ESCAPE_TYPE, CMQCFC.MQET_MQSC),
                      pcf.CFST(CMQCFC.MQCACF_ESCAPE_TEXT, block.encode("latin-1", "replace"))],
                     comp, reason) for block in escape_blocks(result.lines)]


#: command -> handler
_HANDLERS: dict[int, PcfHandler] = {
    CMQCFC.MQCMD_ESCAPE: _escape,
    CMQCFC.MQCMD_PING_Q_MGR: lambda req, msg: [Response()],
    **INQUIRIES, **CHANGES, **CLUSTER, **OBJECTS, **SECURITY,
    **CONNECTIONS, **RUNTIME, **STATISTICS, **SUBSCRIPTIONS,
}


#: the PCF commands that only inquire (IBM's CMDEV(NODISPLAY) puts no event for them)
_INQUIRIES = frozenset(value for name, value in vars(CMQCFC).items()
                       if name.startswith("MQCMD_INQUIRE"))
_DISPLAY_VERBS = frozenset({"DISPLAY"})
_DISABLED = "DISABLED"


def _command_of(md: MD, data: bytes) -> int:
    """The Command of a request that is not valid PCF, as far as its MQCFH can be read."""
    if len(data) < 16:
        return 0
    try:
        return CFH.from_bytes(data[:36].ljust(36, b"\0"), md.Encoding).Command
    except (StructError, ValueError):
        return 0


def _unparsable(err: StructError, data: bytes) -> int:
    """The MQRCCF_* reason of a request that is not valid PCF."""
    if 3000 <= err.reason < 5000:
        return err.reason
    # an MQRC from the MQCFH itself
    return (CMQCFC.MQRCCF_MSG_LENGTH_ERROR if len(data) < CFH.length()
            else CMQCFC.MQRCCF_CFH_TYPE_ERROR)


class CommandServer:
    """Serves one queue manager's command queue through an MQI connection."""

    def __init__(self, qm: QueueManager, processor_factory: Callable[[], MQSCProcessor], *,
                 command_queue: str = COMMAND_QUEUE) -> None:
        self.qm = qm
        self.processor = processor_factory()
        self.command_queue = command_queue
        self.requests = 0
        #: an internal fault answering a request (answered 3008): an FDC, as IBM's writes
        self.on_unexpected: Callable[[BaseException], None] = self._write_fdc

    # ------------------------------------------------------------------ the MQI loop

    def serve(self, stop: threading.Event, *, poll_ms: int | None = None) -> None:
        """Get, answer and commit requests until ``stop`` is set or the queue manager ends.
        A get waits ``poll_ms`` (default :data:`REQUEST_WAIT_MS`) at a time; a wake message
        (put when ``stop`` is set) is taken, committed away and nothing else."""
        if poll_ms is None:
            poll_ms = REQUEST_WAIT_MS
        queue = Queue(self.qm, self.command_queue, CMQC.MQOO_INPUT_SHARED)
        try:
            while not stop.is_set():
                md = MD()
                gmo = GMO(Options=CMQC.MQGMO_WAIT | CMQC.MQGMO_SYNCPOINT
                          | CMQC.MQGMO_FAIL_IF_QUIESCING, WaitInterval=poll_ms)
                try:
                    data = queue.get(None, md, gmo)
                    if wake.is_wake(md):
                        self.qm.commit()
                        continue
                    self.requests += 1
                    for reply_md, reply in self.handle(md, data):
                        self._reply(md, reply_md, reply)
                    self.qm.commit()
                except MQMIError as err:
                    if err.reason == CMQC.MQRC_NO_MSG_AVAILABLE:
                        continue
                    if err.reason in _ENDING:
                        return  # quiescing, connection broken: the server ends with its qmgr
                    # anything else (a full log at commit...): the request and its replies
                    # are backed out, to be served again a moment later
                    self._backout()
                    stop.wait(RETRY_DELAY_S)
        finally:
            try:
                queue.close()
            except MQMIError:
                pass

    def _backout(self) -> None:
        try:
            self.qm.backout()
        except MQMIError:
            pass  # the next get says whether the queue manager is still there

    def _reply(self, request: MD, md: MD, data: bytes) -> None:
        reply_q = name_of(request.ReplyToQ)
        if not reply_q:
            return
        od = OD(ObjectName=reply_q.encode(), ObjectQMgrName=request.ReplyToQMgr)
        try:
            self.qm.put1(od, data, md, PMO(Options=CMQC.MQPMO_SYNCPOINT
                                          | CMQC.MQPMO_FAIL_IF_QUIESCING))
        except MQMIError:
            pass  # an unknown or full reply queue loses the reply, as IBM's without a DLQ

    # ------------------------------------------------------------------ one request

    def handle(self, md: MD, data: bytes) -> list[tuple[MD, bytes]]:
        """The reply messages (MQMD, PCF bytes) for one request; never raises."""
        command = 0
        try:
            if md.Format.rstrip(b" \x00") != CMQC.MQFMT_ADMIN.rstrip():
                raise Refused(CMQCFC.MQRCCF_MD_FORMAT_ERROR)
            try:
                msg = pcf.parse(data, md.Encoding)
            except StructError as err:
                command = _command_of(md, data)
                raise Refused(_unparsable(err, data)) from None
            command = msg.header.Command
            if msg.header.Type not in (CMQCFC.MQCFT_COMMAND, CMQCFC.MQCFT_COMMAND_XR):
                raise Refused(CMQCFC.MQRCCF_CFH_TYPE_ERROR)
            engine = self.processor.engine
            authority = authority_for(engine, name_of(md.UserIdentifier), command)
            source = adminevents.RequestEvents(engine, md)
            cmdev_before = adminevents.cmdev_of(engine)
            ran: list[MQSCCommand] = []
            responses = self.dispatch(msg, authority, events=source, ran=ran)
            if all(r.comp == CMQC.MQCC_OK for r in responses):
                self._command_event(msg, source, cmdev_before, ran)
        except Refused as refused:
            responses = [refused.response()]
        except Exception as exc:  # noqa: BLE001 - a request must never stop the command server
            self.on_unexpected(exc)
            responses = [Response([], CMQC.MQCC_FAILED, CMQCFC.MQRCCF_COMMAND_FAILED)]
        return [(self._reply_md(md), data) for data in self._pack(command, responses)]

    def _command_event(self, msg: pcf.PCFMessage, source: adminevents.RequestEvents,
                       cmdev_before: str, ran: list[MQSCCommand]) -> None:
        """The Command event of a request that worked, if CMDEV wants it: its MQSC text as
        sent (an MQCMD_ESCAPE), else its PCF parameters."""
        engine = self.processor.engine
        if cmdev_before == _DISABLED == adminevents.cmdev_of(engine):
            return  # (IBM's default: one look-up)
        command = msg.header.Command
        if command != CMQCFC.MQCMD_ESCAPE:
            if adminevents.command_wanted(engine, cmdev_before, display=command in _INQUIRIES,
                                          alter_qmgr=command == CMQCFC.MQCMD_CHANGE_Q_MGR):
                adminevents.command_done(engine, source, command, params=msg.params)
            return
        if not adminevents.command_wanted(
                engine, cmdev_before, display=any(c.verb in _DISPLAY_VERBS for c in ran),
                alter_qmgr=any((c.verb, c.objtype) == ("ALTER", "QMGR") for c in ran)):
            return
        text = msg.get(CMQCFC.MQCACF_ESCAPE_TEXT)
        mqsc = bytes(text) if isinstance(text, (bytes, bytearray)) else str(text).encode(
            "latin-1", "replace")
        adminevents.command_done(engine, source, command, mqsc=mqsc.rstrip(b" \x00"))

    def _write_fdc(self, exc: BaseException) -> None:
        engine = self.processor.engine
        try:
            errorlog.write_fdc(os.path.join(engine.qmdir, "errors"), "XC320010",
                               "mqpy.cmdserver", exc, qmgr=engine.name)
        except Exception:  # noqa: BLE001 - no FDC (a full disk): the answer is still 3008
            pass

    @staticmethod
    def _pack(command: int, responses: list[Response]) -> Iterable[bytes]:
        last = len(responses)
        for seq, r in enumerate(responses, start=1):
            header = CFH(Type=CMQCFC.MQCFT_RESPONSE, Command=command, MsgSeqNumber=seq,
                         Control=CMQCFC.MQCFC_LAST if seq == last else CMQCFC.MQCFC_NOT_LAST,
                         CompCode=r.comp, Reason=r.reason)
            yield pcf.build(pcf.PCFMessage(header, r.params))

    @staticmethod
    def _reply_md(request: MD) -> MD:
        report = request.Report
        return MD(MsgType=CMQC.MQMT_REPLY, Format=CMQC.MQFMT_ADMIN,
                  MsgId=request.MsgId if report & CMQC.MQRO_PASS_MSG_ID else CMQC.MQMI_NONE,
                  CorrelId=request.CorrelId if report & CMQC.MQRO_PASS_CORREL_ID
                  else request.MsgId,
                  Persistence=request.Persistence, Priority=request.Priority)

    # ------------------------------------------------------------------ commands

    def dispatch(self, msg: pcf.PCFMessage, authority: RequestAuthority | None = None, *,
                 events: Callable[[], tuple[EventOrigin, bytes]] | None = None,
                 ran: list[MQSCCommand] | None = None) -> list[Response]:
        """The responses to one PCF command, run for ``authority``'s user (None: a request
        nothing is checked for). ``events``: the origin and CorrelId its commands' events
        report; ``ran``: filled with the MQSC command an MQCMD_ESCAPE parsed to."""
        handler = _HANDLERS.get(msg.header.Command)
        if msg.header.Command == CMQCFC.MQCMD_INQUIRE_Q and wants_cluster_queues(msg):
            handler = inquire_cluster_q
        if handler is None:
            raise Refused(CMQCFC.MQRCCF_CFH_COMMAND_ERROR)
        check_shapes(msg)
        check_parameters(msg)
        if authority is not None:
            authority.check_inquiry(msg)
        who = authority.requester() if authority is not None else EVERYONE
        if events is not None:  # (made, not attrs.evolve'd: a tenth of a DISPLAY's CPU)
            who = Requester(who.guard, who.visible, events)
        req = PcfRequest(self.processor, who, ran if ran is not None else [])
        filters = [p for p in msg.params if isinstance(p, pcf.FILTERS)]
        if not filters:
            return handler(req, msg)
        # a filter command: the inquiry without its filter (asking for the filtered
        # attribute too), then only the objects that pass
        (condition,) = filters if len(filters) == 1 else (None,)
        if condition is None:
            raise Refused(CMQCFC.MQRCCF_TOO_MANY_FILTERS)
        if reason := pcf.filter_error(condition):
            raise Refused(reason)
        unfiltered = pcf.PCFMessage(msg.header, [p for p in msg.params if p is not condition])
        responses = handler(req, pcf.asking_for(unfiltered, condition.Parameter))
        kept = [r for r in responses
                if r.comp != CMQC.MQCC_OK or pcf.filter_matches(condition, r.params)]
        return kept or [Response()]


# ---------------------------------------------------------------------- in-process running


@attrs.define
class CommandServerHandle:
    """A command server running in a thread of this process."""

    qmgr_name: str
    thread: threading.Thread
    stop_event: threading.Event
    qm: QueueManager
    server: CommandServer
    # further workers: (thread, connection); a command that waits (for the channel
    # initiator, say) then never holds up the others
    workers: list = attrs.Factory(list)
    #: puts the wake messages that end the gets the servers wait in (their count given)
    wake: Callable[[int], None] | None = None

    @property
    def running(self) -> bool:
        return self.thread.is_alive()

    def stop(self, timeout: float = 10.0) -> None:
        """endmqcsv's work: the servers finish their requests and end: those waiting for a
        request are woken (a wake message each)."""
        self.stop_event.set()
        waiting = sum(thread.is_alive() for thread, _ in [(self.thread, self.qm), *self.workers])
        if self.wake is not None and waiting:
            self.wake(waiting)
        for thread, _ in [(self.thread, self.qm), *self.workers]:
            thread.join(timeout)
        for _, qm in [(self.thread, self.qm), *self.workers]:
            try:
                qm.disconnect()
            except Exception:  # noqa: BLE001 - the queue manager may have ended first
                pass


#: Command-server threads per queue manager (IBM's command server is multi-threaded too).
WORKERS = 3
_servers: dict[str, CommandServerHandle] = {}
_servers_lock = threading.Lock()


def _key(qmgr_name: str, data_path: str | None) -> str:
    return config.qmgr_dir(qmgr_name, data_path)


def start_command_server(qmgr_name: str, data_path: str | None = None) -> CommandServerHandle:
    """Start the command server of a queue manager running in this process (strmqcsv)."""
    key = _key(qmgr_name, data_path)
    with _servers_lock:
        running = _servers.get(key)
        if running is not None and running.running:
            return running
        engine = inprocess.running(qmgr_name, data_path)
        if engine is None:
            raise MQMIError(CMQC.MQCC_FAILED, CMQC.MQRC_Q_MGR_NOT_AVAILABLE)
        adminevents.install(MQSCProcessor(engine))  # MQSET's and MQCLOSE's CONFIGEV events
        qm = attach(engine)  # the queue manager's own: not in an application's trace
        server = CommandServer(qm, lambda: MQSCProcessor(engine))
        stop = threading.Event()
        thread = threading.Thread(target=server.serve, args=(stop,),
                                  name=f"amqpcsea-{qmgr_name}", daemon=True)
        handle = CommandServerHandle(qmgr_name, thread, stop, qm, server,
                                     wake=functools.partial(
                                         wake.put_wakes_through,
                                         functools.partial(attach, engine), COMMAND_QUEUE))
        thread.start()
        for n in range(1, WORKERS):
            wqm = attach(engine)
            worker = CommandServer(wqm, lambda: MQSCProcessor(engine))
            wthread = threading.Thread(target=worker.serve, args=(stop,),
                                       name=f"amqpcsea-{qmgr_name}-{n}", daemon=True)
            wthread.start()
            handle.workers.append((wthread, wqm))
        _servers[key] = handle
        return handle


def stop_command_server(qmgr_name: str, data_path: str | None = None) -> bool:
    """End the command server started by :func:`start_command_server`; False if none ran."""
    with _servers_lock:
        handle = _servers.pop(_key(qmgr_name, data_path), None)
    if handle is None:
        return False
    handle.stop()
    return True


def command_server_status(qmgr_name: str, data_path: str | None = None) -> str:
    """``Running`` or ``Stopped``, as dspmqcsv words it."""
    handle = _servers.get(_key(qmgr_name, data_path))
    return "Running" if handle is not None and handle.running else "Stopped"
