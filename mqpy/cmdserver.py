"""The command server: an MQI application serving SYSTEM.ADMIN.COMMAND.QUEUE.

It gets each request under syncpoint (MQGMO_WAIT), carries it out with the MQSC processor,
puts the replies to the request's ReplyToQ/ReplyToQMgr in the same unit of work and
commits, so a request is answered exactly once even across a crash. It serves:

- MQCMD_ESCAPE with MQIACF_ESCAPE_TYPE = MQET_MQSC: the MQSC text in MQCACF_ESCAPE_TEXT is
  run as runmqsc would; the answer is one MQCMD_ESCAPE response per block of output (an AMQ
  message and the DISPLAY lines under it), the text in MQCACF_ESCAPE_TEXT;
- PCF: INQUIRE_Q, INQUIRE_Q_NAMES, INQUIRE_Q_STATUS, CREATE_Q, CHANGE_Q, DELETE_Q,
  PING_Q_MGR, INQUIRE_Q_MGR, INQUIRE_CHANNEL, CREATE_CHANNEL, CHANGE_CHANNEL,
  DELETE_CHANNEL, with parameters translated by :mod:`mqpy.mqsc.pcfmap`; START_CHANNEL,
  STOP_CHANNEL, PING_CHANNEL, RESET_CHANNEL, RESOLVE_CHANNEL and INQUIRE_CHANNEL_STATUS
  (current or saved), run as their MQSC twins; INQUIRE_LISTENER_STATUS from the channel
  initiator's running listeners; CREATE_SERVICE, CHANGE_SERVICE, COPY_SERVICE,
  DELETE_SERVICE, INQUIRE_SERVICE, START_SERVICE, STOP_SERVICE (IgnoreState) and
  INQUIRE_SERVICE_STATUS, run as their MQSC twins (``pcfmap.SERVICE``).

Authority (IBM's command server checks, :mod:`mqpy.security.commands`): each request is
run for the MQMD UserIdentifier it carries, which the queue manager fills from the putting
connection's user unless that connection had setid / setall authority on the command queue.
With the security policy installed, a user outside mqm needs the authorities the command
table names: a refusal is CompCode MQCC_FAILED, Reason MQRC_NOT_AUTHORIZED (2035) in PCF, the
AMQ8135E "Not authorized." line in an MQCMD_ESCAPE answer, and AMQ8077W in the error log; a
generic inquiry shows only the objects the user may display. The owner and members of mqm
(runmqsc run by the operator) may do everything.

Replies follow IBM: MQCFH Type MQCFT_RESPONSE, the request's Command, MsgSeqNumber from 1,
Control MQCFC_LAST on the last, CompCode/Reason per message, one message per object;
MQMD MsgType MQMT_REPLY, Format MQADMIN, CorrelId = the request's MsgId (or its CorrelId
under MQRO_PASS_CORREL_ID), MsgId new unless MQRO_PASS_MSG_ID, persistence and priority
of the request. A request that is not valid PCF gets one error response with the MQRCCF_*
reason; nothing a request carries can stop the server.

``strmqcsv``/``endmqcsv`` need the queue-manager daemon that will own this thread; until it
exists :func:`start_command_server` runs the server in a thread of the calling process.
"""

from __future__ import annotations

import fnmatch
import os
import re
import threading
from collections.abc import Callable, Iterable, Mapping
from typing import Any

import attrs

from mqpy import CMQC, CMQCFC, CMQXC, local, pcf
from mqpy.engine.objects import QUEUE_TYPES
from mqpy.errors import MQMIError
from mqpy.mqi import Queue, QueueManager
from mqpy.mqsc import pcfmap
from mqpy.mqsc.display import parse_objects
from mqpy.mqsc.mapping import display_keywords
from mqpy.mqsc.parser import MQSCCommand
from mqpy.mqsc.processor import CommandFailed, MQSCProcessor, Result, message
from mqpy.mqsc.writer import command_text
from mqpy.security.commands import OBJECTS, Need, command_needs, oam_type
from mqpy.structs.fields import StructError
from mqpy.structs.tables import CFH, GMO, MD, OD, PMO

__all__ = [
    "COMMAND_QUEUE",
    "CommandServer",
    "CommandServerHandle",
    "Response",
    "command_server_status",
    "escape_blocks",
    "start_command_server",
    "stop_command_server",
]

COMMAND_QUEUE = "SYSTEM.ADMIN.COMMAND.QUEUE"

_QTYPE_TO_OBJ = {CMQC.MQQT_LOCAL: "QLOCAL", CMQC.MQQT_MODEL: "QMODEL",
                 CMQC.MQQT_ALIAS: "QALIAS", CMQC.MQQT_REMOTE: "QREMOTE"}
_OBJ_TO_QTYPE = {v: k for k, v in _QTYPE_TO_OBJ.items()}
_Q = pcfmap.by_parameter(pcfmap.QUEUE)
_CHL = pcfmap.by_parameter(pcfmap.CHANNEL)
_CHL_BY_KW = pcfmap.by_keyword(pcfmap.CHANNEL)
_QMGR_BY_KW = pcfmap.by_keyword(pcfmap.QMGR)
#: parameters that steer a command rather than set an attribute
_CONTROL = {CMQC.MQCA_Q_NAME, CMQC.MQIA_Q_TYPE, CMQCFC.MQIACF_REPLACE, CMQCFC.MQIACF_PURGE,
            CMQCFC.MQCACH_CHANNEL_NAME, CMQCFC.MQIACH_CHANNEL_TYPE, CMQCFC.MQCACF_FROM_Q_NAME,
            CMQCFC.MQCACF_FROM_CHANNEL_NAME}
_S, _I, _L = pcf.CFST, pcf.CFIN, pcf.CFIL
#: the structure each parameter the server reads itself must come in (a filter aside):
#: another is refused MQRCCF_<structure>_PARM_ID_ERROR, as IBM's command server refuses it
_SHAPES: dict[int, type] = {
    **dict.fromkeys((CMQC.MQIA_Q_TYPE, CMQCFC.MQIACH_CHANNEL_TYPE, CMQCFC.MQIACH_IN_DOUBT,
                     CMQCFC.MQIACH_DATA_COUNT, CMQCFC.MQIACF_MODE, CMQCFC.MQIACF_ACTION,
                     CMQCFC.MQIACH_MSG_SEQUENCE_NUMBER, CMQCFC.MQIACH_CHANNEL_STATUS,
                     CMQCFC.MQIACH_CHANNEL_INSTANCE_TYPE, CMQCFC.MQIACF_SECURITY_TYPE,
                     CMQCFC.MQIACF_REPLACE, CMQCFC.MQIACF_PURGE, CMQCFC.MQIACF_Q_STATUS_TYPE,
                     CMQCFC.MQIACF_ESCAPE_TYPE, CMQCFC.MQIACF_REMOVE_QUEUES,
                     CMQCFC.MQIACF_REFRESH_REPOSITORY, CMQCFC.MQIACF_IGNORE_STATE,
                     CMQCFC.MQIACF_CLUSTER_INFO), _I),
    **dict.fromkeys((CMQCFC.MQIACF_Q_ATTRS, CMQCFC.MQIACF_Q_MGR_ATTRS,
                     CMQCFC.MQIACF_Q_MGR_STATUS_ATTRS, CMQCFC.MQIACF_CHANNEL_ATTRS,
                     CMQCFC.MQIACF_LISTENER_STATUS_ATTRS, CMQCFC.MQIACF_SERVICE_ATTRS,
                     CMQCFC.MQIACF_SERVICE_STATUS_ATTRS, CMQCFC.MQIACF_CLUSTER_Q_MGR_ATTRS), _L),
    **dict.fromkeys((CMQC.MQCA_Q_NAME, CMQCFC.MQCACH_CHANNEL_NAME, CMQC.MQCA_SERVICE_NAME,
                     CMQCFC.MQCACH_LISTENER_NAME, CMQCFC.MQCACF_ESCAPE_TEXT,
                     CMQC.MQCA_Q_MGR_NAME, CMQC.MQCA_Q_MGR_IDENTIFIER,
                     CMQCFC.MQCACH_CONNECTION_NAME, CMQCFC.MQCACH_XMIT_Q_NAME,
                     CMQC.MQCA_CLUSTER_NAME, CMQC.MQCA_CLUSTER_NAMELIST,
                     CMQC.MQCA_CLUSTER_Q_MGR_NAME, CMQCFC.MQCACF_FROM_Q_NAME,
                     CMQCFC.MQCACF_TO_Q_NAME, CMQCFC.MQCACF_FROM_CHANNEL_NAME,
                     CMQCFC.MQCACF_TO_CHANNEL_NAME, CMQCFC.MQCACF_FROM_SERVICE_NAME,
                     CMQCFC.MQCACF_TO_SERVICE_NAME), _S),
}
_FILTER_TYPES = (pcf.CFIF, pcf.CFSF, pcf.CFBF)
#: the reasons that end the command server's loop: its queue manager (or connection) ends
_ENDING = frozenset({CMQC.MQRC_CONNECTION_BROKEN, CMQC.MQRC_Q_MGR_QUIESCING,
                     CMQC.MQRC_Q_MGR_STOPPING, CMQC.MQRC_CONNECTION_QUIESCING,
                     CMQC.MQRC_CONNECTION_STOPPING, CMQC.MQRC_HCONN_ERROR,
                     CMQC.MQRC_Q_MGR_NOT_AVAILABLE})


def _check_shapes(msg: pcf.PCFMessage) -> None:
    """Refuse a parameter the server reads itself in a structure it cannot be in (a list
    where one integer belongs, a string for an attribute list...)."""
    for p in msg.params:
        shape = _SHAPES.get(p.Parameter)
        if shape is not None and type(p) is not shape and not isinstance(p, _FILTER_TYPES):
            raise _Refused(pcfmap.parm_id_error(p))


@attrs.frozen(slots=True)
class Response:
    """One response message's parameters and outcome, before it gets its MQCFH."""

    params: list[pcf.Parameter] = attrs.field(factory=list)
    comp: int = CMQC.MQCC_OK
    reason: int = CMQC.MQRC_NONE


_MODE = {CMQCFC.MQMODE_QUIESCE: "QUIESCE", CMQCFC.MQMODE_FORCE: "FORCE",
         CMQCFC.MQMODE_TERMINATE: "TERMINATE"}
#: a listener's status as Inquire Listener Status answers it (cmqcfc.h MQSVC_STATUS_*).
_SVC_STATUS = pcfmap.SVC_STATUS
_QMGR_STATUS = {"STARTING": CMQCFC.MQQMSTA_STARTING, "RUNNING": CMQCFC.MQQMSTA_RUNNING,
                "QUIESCING": CMQCFC.MQQMSTA_QUIESCING, "STANDBY": CMQCFC.MQQMSTA_STANDBY}
#: Inquire Queue Manager Status's parameters: (parameter, DISPLAY QMSTATUS keyword, string
#: length; None for an MQCFIN)
_QMGR_STATUS_FIELDS = (
    (CMQCFC.MQIACF_CHINIT_STATUS, "CHINIT", None),
    (CMQCFC.MQIACF_CMD_SERVER_STATUS, "CMDSERV", None),
    (CMQCFC.MQIACF_CONNECTION_COUNT, "CONNS", None),
    (CMQCFC.MQCACF_Q_MGR_START_DATE, "STARTDA", CMQC.MQ_DATE_LENGTH),
    (CMQCFC.MQCACF_Q_MGR_START_TIME, "STARTTI", CMQC.MQ_TIME_LENGTH),
    (CMQCFC.MQCACF_CURRENT_LOG_EXTENT_NAME, "CURRLOG", CMQCFC.MQ_LOG_EXTENT_NAME_LENGTH),
    (CMQCFC.MQCACF_RESTART_LOG_EXTENT_NAME, "RECLOG", CMQCFC.MQ_LOG_EXTENT_NAME_LENGTH),
    (CMQCFC.MQCACF_MEDIA_LOG_EXTENT_NAME, "MEDIALOG", CMQCFC.MQ_LOG_EXTENT_NAME_LENGTH),
    (CMQCFC.MQCACF_LOG_PATH, "LOGPATH", CMQCFC.MQ_LOG_PATH_LENGTH),
    (CMQCFC.MQIACF_LOG_IN_USE, "LOGINUSE", None),
    (CMQCFC.MQIACF_LOG_UTILIZATION, "LOGUTIL", None),
    (CMQC.MQCA_INSTALLATION_NAME, "INSTNAME", CMQC.MQ_INSTALLATION_NAME_LENGTH),
    (CMQC.MQCA_INSTALLATION_PATH, "INSTPATH", CMQC.MQ_INSTALLATION_PATH_LENGTH),
)
_TRPTYPE = {"LU62": CMQC.MQXPT_LU62, "TCP": CMQC.MQXPT_TCP, "NETBIOS": CMQC.MQXPT_NETBIOS,
            "SPX": CMQC.MQXPT_SPX}
_STOP_STATUS = {CMQCFC.MQCHS_STOPPED: "STOPPED", CMQCFC.MQCHS_INACTIVE: "INACTIVE"}
_CHS = {"BINDING": CMQCFC.MQCHS_BINDING, "STARTING": CMQCFC.MQCHS_STARTING,
        "RUNNING": CMQCFC.MQCHS_RUNNING, "PAUSED": CMQCFC.MQCHS_PAUSED,
        "STOPPING": CMQCFC.MQCHS_STOPPING, "RETRYING": CMQCFC.MQCHS_RETRYING,
        "STOPPED": CMQCFC.MQCHS_STOPPED, "REQUESTING": CMQCFC.MQCHS_REQUESTING,
        "INACTIVE": CMQCFC.MQCHS_INACTIVE}
# DISPLAY CHSTATUS keyword -> (Inquire Channel Status parameter, string length or 0 integer)
_CHSTATUS_PCF: dict[str, tuple[int, int]] = {
    "CHANNEL": (CMQCFC.MQCACH_CHANNEL_NAME, CMQC.MQ_CHANNEL_NAME_LENGTH),
    "CONNAME": (CMQCFC.MQCACH_CONNECTION_NAME, CMQC.MQ_CONN_NAME_LENGTH),
    "XMITQ": (CMQCFC.MQCACH_XMIT_Q_NAME, CMQC.MQ_Q_NAME_LENGTH),
    "RQMNAME": (CMQC.MQCA_REMOTE_Q_MGR_NAME, CMQC.MQ_Q_MGR_NAME_LENGTH),
    "CURLUWID": (CMQCFC.MQCACH_CURRENT_LUWID, 16), "LSTLUWID": (CMQCFC.MQCACH_LAST_LUWID, 16),
    "CURSEQNO": (CMQCFC.MQIACH_CURRENT_SEQ_NUMBER, 0),
    "LSTSEQNO": (CMQCFC.MQIACH_LAST_SEQ_NUMBER, 0), "CURMSGS": (CMQCFC.MQIACH_CURRENT_MSGS, 0),
    "MSGS": (CMQCFC.MQIACH_MSGS, 0), "BATCHES": (CMQCFC.MQIACH_BATCHES, 0),
    "BYTSSENT": (CMQCFC.MQIACH_BYTES_SENT, 0), "BYTSRCVD": (CMQCFC.MQIACH_BYTES_RECEIVED, 0),
    "BUFSSENT": (CMQCFC.MQIACH_BUFFERS_SENT, 0), "BUFSRCVD": (CMQCFC.MQIACH_BUFFERS_RECEIVED, 0),
    "SHORTRTS": (CMQCFC.MQIACH_SHORT_RETRIES_LEFT, 0),
    "LONGRTS": (CMQCFC.MQIACH_LONG_RETRIES_LEFT, 0), "HBINT": (CMQCFC.MQIACH_HB_INTERVAL, 0),
    "BATCHSZ": (CMQCFC.MQIACH_BATCH_SIZE, 0), "MAXMSGL": (CMQCFC.MQIACH_MAX_MSG_LENGTH, 0),
    "KAINT": (CMQCFC.MQIACH_KEEP_ALIVE_INTERVAL, 0),
    "LSTMSGDA": (CMQCFC.MQCACH_LAST_MSG_DATE, 12), "LSTMSGTI": (CMQCFC.MQCACH_LAST_MSG_TIME, 8),
    "CHSTADA": (CMQCFC.MQCACH_CHANNEL_START_DATE, 12),
    "CHSTATI": (CMQCFC.MQCACH_CHANNEL_START_TIME, 8),
}
# monitoring pairs (short term, long term) -> MQCFIL
_CHSTATUS_PAIRS = {"NETTIME": CMQCFC.MQIACH_NETWORK_TIME_INDICATOR,
                   "XQTIME": CMQCFC.MQIACH_XMITQ_TIME_INDICATOR,
                   "XBATCHSZ": CMQCFC.MQIACH_BATCH_SIZE_INDICATOR,
                   "EXITTIME": CMQCFC.MQIACH_EXIT_TIME_INDICATOR,
                   "COMPTIME": CMQCFC.MQIACH_COMPRESSION_TIME,
                   "COMPRATE": CMQCFC.MQIACH_COMPRESSION_RATE}
# DISPLAY CHSTATUS words -> Inquire Channel Status values
_CHSTATUS_ENUMS: dict[str, tuple[int, dict[str, int]]] = {
    "SUBSTATE": (CMQCFC.MQIACH_CHANNEL_SUBSTATE, {
        "RECEIVE": CMQCFC.MQCHSSTATE_RECEIVING, "MQGET": CMQCFC.MQCHSSTATE_IN_MQGET,
        "HEARTBEAT": CMQCFC.MQCHSSTATE_HEARTBEATING, "SEND": CMQCFC.MQCHSSTATE_SENDING,
        "MQPUT": CMQCFC.MQCHSSTATE_IN_MQPUT, "ENDBATCH": CMQCFC.MQCHSSTATE_END_OF_BATCH}),
    "STOPREQ": (CMQCFC.MQIACH_STOP_REQUESTED, {"NO": CMQCFC.MQCHSR_STOP_NOT_REQUESTED,
                                                "YES": CMQCFC.MQCHSR_STOP_REQUESTED}),
    "NPMSPEED": (CMQCFC.MQIACH_NPM_SPEED, {"FAST": CMQXC.MQNPMS_FAST,
                                           "NORMAL": CMQXC.MQNPMS_NORMAL}),
    "MONCHL": (CMQC.MQIA_MONITORING_CHANNEL, {
        "OFF": CMQC.MQMON_OFF, "LOW": CMQC.MQMON_LOW, "MEDIUM": CMQC.MQMON_MEDIUM,
        "HIGH": CMQC.MQMON_HIGH}),
}


def _chstatus_params(row: dict[str, object]) -> list[pcf.Parameter]:
    """A DISPLAY CHSTATUS row as Inquire Channel Status response parameters."""
    out: list[pcf.Parameter] = []
    chltype = _CHL_BY_KW["CHLTYPE"].to_pcf(str(row.get("CHLTYPE", "")))
    out.append(pcf.CFIN(CMQCFC.MQIACH_CHANNEL_TYPE, int(chltype)))  # type: ignore[arg-type]
    out.append(pcf.CFIN(CMQCFC.MQIACH_CHANNEL_STATUS,
                        _CHS.get(str(row.get("STATUS", "")), CMQCFC.MQCHS_INACTIVE)))
    if "INDOUBT" in row:
        out.append(pcf.CFIN(CMQCFC.MQIACH_INDOUBT_STATUS,
                            CMQCFC.MQCHIDS_INDOUBT if row["INDOUBT"] == "YES"
                            else CMQCFC.MQCHIDS_NOT_INDOUBT))
    for keyword, (parameter, length) in _CHSTATUS_PCF.items():
        value = row.get(keyword)
        if value is None or value == "" and length == 0:
            continue
        out.append(pcf.CFST(parameter, str(value).encode("latin-1").ljust(length)[:length])
                   if length else pcf.CFIN(parameter, int(value)))  # type: ignore[arg-type]
    for keyword, (parameter, words) in _CHSTATUS_ENUMS.items():
        if keyword in row:  # (a current status; SAVED rows carry no substate)
            word = str(row[keyword])
            out.append(pcf.CFIN(parameter, words.get(word, 0 if keyword != "MONCHL"
                                                     else CMQC.MQMON_OFF)))
    if row.get("XQMSGSA") not in (None, ""):
        out.append(pcf.CFIN(CMQCFC.MQIACH_XMITQ_MSGS_AVAILABLE, int(row["XQMSGSA"])))  # type: ignore[arg-type]
    for keyword, parameter in _CHSTATUS_PAIRS.items():
        value = str(row.get(keyword) or "")
        if "," in value:
            out.append(pcf.CFIL(parameter, [int(v) for v in value.split(",")]))
    return out


# PCF inquiries answered without the MQSC processor -> (MQSC verb, object type, name parameter)
_PCF_INQUIRIES: dict[int, tuple[str, str, int]] = {
    CMQCFC.MQCMD_PING_Q_MGR: ("PING", "QMGR", 0),
    CMQCFC.MQCMD_INQUIRE_Q_MGR: ("DISPLAY", "QMGR", 0),
    CMQCFC.MQCMD_INQUIRE_Q: ("DISPLAY", "QUEUE", CMQC.MQCA_Q_NAME),
    CMQCFC.MQCMD_INQUIRE_Q_NAMES: ("DISPLAY", "QUEUE", CMQC.MQCA_Q_NAME),
    CMQCFC.MQCMD_INQUIRE_Q_STATUS: ("DISPLAY", "QSTATUS", CMQC.MQCA_Q_NAME),
    CMQCFC.MQCMD_INQUIRE_CHANNEL: ("DISPLAY", "CHANNEL", CMQCFC.MQCACH_CHANNEL_NAME),
    CMQCFC.MQCMD_INQUIRE_CHANNEL_STATUS: ("DISPLAY", "CHSTATUS", CMQCFC.MQCACH_CHANNEL_NAME),
    CMQCFC.MQCMD_INQUIRE_LISTENER_STATUS: ("DISPLAY", "LSSTATUS", CMQCFC.MQCACH_LISTENER_NAME),
    CMQCFC.MQCMD_INQUIRE_SERVICE: ("DISPLAY", "SERVICE", CMQC.MQCA_SERVICE_NAME),
    CMQCFC.MQCMD_INQUIRE_SERVICE_STATUS: ("DISPLAY", "SVSTATUS", CMQC.MQCA_SERVICE_NAME),
}

_SERVICE = pcfmap.by_parameter(pcfmap.SERVICE)
#: what a service command's parameters name rather than set
_SERVICE_CONTROL = {CMQC.MQCA_SERVICE_NAME, CMQCFC.MQCACF_FROM_SERVICE_NAME,
                    CMQCFC.MQCACF_TO_SERVICE_NAME, CMQCFC.MQIACF_REPLACE}
#: attributes a request may not set (the queue manager keeps them)
_READ_ONLY = frozenset({"CURDEPTH", "IPPROCS", "OPPROCS", "CRDATE", "CRTIME", "ALTDATE",
                        "ALTTIME"})


def _chltype_of(obj: Any) -> str | None:
    """A defined channel's CHLTYPE (None: no object, or not a channel)."""
    if obj is None or obj.objtype != "CHANNEL":
        return None
    return str(obj.attributes.get("CHLTYPE") or "")


class _Refused(Exception):
    def __init__(self, reason: int) -> None:
        super().__init__(reason)
        self.reason = reason


def escape_blocks(lines: list[str]) -> list[str]:
    """runmqsc output cut into one text per AMQ message with the lines under it."""
    blocks: list[list[str]] = []
    for line in lines:
        if line.startswith("AMQ") or not blocks:
            blocks.append([line])
        else:
            blocks[-1].append(line)
    return ["\n".join(b) for b in blocks] or [""]


def _name(value: Any) -> str:
    if isinstance(value, bytes):
        return value.decode("latin-1").rstrip(" \x00")
    return str(value or "").rstrip()


def _param(attr: pcfmap.PcfAttr, value: object) -> pcf.Parameter | None:
    try:
        converted = attr.to_pcf(value)
    except (TypeError, ValueError):
        return None
    if isinstance(converted, list):
        return pcf.CFSL(attr.parameter, converted)
    if isinstance(converted, bytes):
        return pcf.CFST(attr.parameter, converted)
    return pcf.CFIN(attr.parameter, converted)


def _attr_params(view: Mapping[str, object], table: Iterable[pcfmap.PcfAttr],
                 wanted: set[int] | None) -> list[pcf.Parameter]:
    """The attributes of ``table`` that ``view`` has (all, or those ``wanted`` names) as
    response parameters; a value PCF cannot carry is left out."""
    out: list[pcf.Parameter] = []
    for attr in table:
        if attr.keyword in view and (wanted is None or attr.parameter in wanted):
            p = _param(attr, view[attr.keyword])
            if p is not None:
                out.append(p)
    return out


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
        self._user = ""  # the current request's UserIdentifier, when it is checked
        self._policy: Any = None  # the security policy, when the current request is checked

    # ------------------------------------------------------------------ the MQI loop

    def serve(self, stop: threading.Event, *, poll_ms: int = 200) -> None:
        """Get, answer and commit requests until ``stop`` is set or the queue manager ends."""
        queue = Queue(self.qm, self.command_queue, CMQC.MQOO_INPUT_SHARED)
        try:
            while not stop.is_set():
                md = MD()
                gmo = GMO(Options=CMQC.MQGMO_WAIT | CMQC.MQGMO_SYNCPOINT
                          | CMQC.MQGMO_FAIL_IF_QUIESCING, WaitInterval=poll_ms)
                try:
                    data = queue.get(None, md, gmo)
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
                    stop.wait(poll_ms / 1000)
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
        reply_q = _name(request.ReplyToQ)
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
                raise _Refused(CMQCFC.MQRCCF_MD_FORMAT_ERROR)
            try:
                msg = pcf.parse(data, md.Encoding)
            except StructError as err:
                if len(data) >= 16:
                    try:
                        command = CFH.from_bytes(data[:36].ljust(36, b"\0"),
                                                 md.Encoding).Command
                    except (StructError, ValueError):
                        command = 0
                reason = err.reason
                if not 3000 <= reason < 5000:  # an MQRC from the MQCFH itself
                    reason = (CMQCFC.MQRCCF_MSG_LENGTH_ERROR if len(data) < CFH.length()
                              else CMQCFC.MQRCCF_CFH_TYPE_ERROR)
                raise _Refused(reason) from None
            command = msg.header.Command
            if msg.header.Type not in (CMQCFC.MQCFT_COMMAND, CMQCFC.MQCFT_COMMAND_XR):
                raise _Refused(CMQCFC.MQRCCF_CFH_TYPE_ERROR)
            self._arm(md)
            responses = self.dispatch(msg)
        except _Refused as refused:
            responses = [Response([], CMQC.MQCC_FAILED, refused.reason)]
        except Exception as exc:  # noqa: BLE001 - a request must never stop the command server
            self.on_unexpected(exc)
            responses = [Response([], CMQC.MQCC_FAILED, CMQCFC.MQRCCF_COMMAND_FAILED)]
        finally:
            self._disarm()
        return [(self._reply_md(md), data) for data in self._pack(command, responses)]

    def _write_fdc(self, exc: BaseException) -> None:
        from mqpy import errorlog

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

    # ------------------------------------------------------------------ authority

    def _arm(self, md: MD) -> None:
        """Check this request's user: the processor's guard and display filter are set
        unless no security policy is installed or the user is privileged (mqm)."""
        user = _name(md.UserIdentifier)
        policy = getattr(self.processor.engine, "authority", None)
        if not hasattr(policy, "admin_privileged") or policy.admin_privileged(user):
            return
        self._user, self._policy = user, policy
        self.processor.guard = self._guard
        self.processor.visible = self._visible

    def _disarm(self) -> None:
        self._user, self._policy = "", None
        self.processor.guard = self.processor.visible = None

    def _missing(self, needs: list[Need] | None) -> tuple[str, list[str]] | None:
        """The first need the user lacks (object name, authorities); None if all held."""
        if needs is None:
            return self.processor.engine.name, ["mqm"]
        for need in needs:
            if not self._policy.admin_holds(self._user, need.objtype, need.name, need.auths):
                return need.name, sorted(need.auths)
        return None

    def _check(self, needs: list[Need] | None) -> bool:
        """True if the current request may proceed; else AMQ8077W is logged."""
        if self._policy is None:
            return True
        missing = self._missing(needs)
        if missing is None:
            return True
        self._policy.admin_refused(self._user, *missing)
        return False

    def _guard(self, cmd: MQSCCommand) -> None:
        """The processor's guard: every MQSC command (escape or PCF twin) passes here."""
        defined = self._defined(cmd.objtype, cmd.name, cmd.generic)
        needs = command_needs(cmd.verb, cmd.objtype, cmd.name, cmd.params, cmd.flags,
                              generic=cmd.generic, qmgr=self.processor.engine.name,
                              chltype=_chltype_of(defined), exists=defined is not None)
        if not self._check(needs):
            raise CommandFailed([message("AMQ8135E")], CMQC.MQRC_NOT_AUTHORIZED)

    def _defined(self, objtype: str | None, name: str | None, generic: bool) -> Any:
        """The object a command names, if defined (in its type's namespace); None for a
        generic name or a command on no object."""
        if (objtype or "").upper() not in OBJECTS or not name or generic:
            return None
        return self.processor.engine.lookup(str(objtype).upper(), name)

    def _visible(self, objtype: str, name: str, attributes: Mapping[str, object]) -> bool:
        """A generic inquiry shows an object, or a channel's or listener's status row, only
        to a user with dsp on that object (a CLNTCONN channel: dsp as type clntconn)."""
        try:
            otype = oam_type(objtype, attributes.get("CHLTYPE"))
        except ValueError:
            return False
        return bool(self._policy.admin_holds(self._user, otype, name, {"dsp"}))

    def _check_inquiry(self, msg: pcf.PCFMessage) -> None:
        """The PCF inquiries answered without the MQSC processor, checked as their MQSC
        twins: 2035 when refused."""
        twin = _PCF_INQUIRIES.get(msg.header.Command)
        if twin is None or self._policy is None:
            return
        verb, objtype, parameter = twin
        name = _name(msg.get(parameter) or b"") if parameter else ""
        if parameter and not name:
            return  # the handler answers the missing name
        generic = name.endswith("*")
        needs = command_needs(verb, objtype, name, {}, frozenset(), generic=generic,
                              qmgr=self.processor.engine.name,
                              chltype=_chltype_of(self._defined(objtype, name, generic)))
        if not self._check(needs):
            raise _Refused(CMQC.MQRC_NOT_AUTHORIZED)

    # ------------------------------------------------------------------ commands

    def dispatch(self, msg: pcf.PCFMessage) -> list[Response]:
        handler = {
            CMQCFC.MQCMD_ESCAPE: self._escape,
            CMQCFC.MQCMD_PING_Q_MGR: lambda m: [Response()],
            CMQCFC.MQCMD_INQUIRE_Q: self._inquire_q,
            CMQCFC.MQCMD_INQUIRE_Q_NAMES: self._inquire_q_names,
            CMQCFC.MQCMD_INQUIRE_Q_STATUS: self._inquire_q_status,
            CMQCFC.MQCMD_CREATE_Q: lambda m: self._change_q(m, "DEFINE"),
            CMQCFC.MQCMD_CHANGE_Q: lambda m: self._change_q(m, "ALTER"),
            CMQCFC.MQCMD_DELETE_Q: lambda m: self._change_q(m, "DELETE"),
            CMQCFC.MQCMD_INQUIRE_Q_MGR: self._inquire_q_mgr,
            CMQCFC.MQCMD_INQUIRE_Q_MGR_STATUS: self._inquire_q_mgr_status,
            CMQCFC.MQCMD_RESET_Q_MGR: self._reset_q_mgr,
            CMQCFC.MQCMD_INQUIRE_CHANNEL: self._inquire_channel,
            CMQCFC.MQCMD_CREATE_CHANNEL: lambda m: self._change_channel(m, "DEFINE"),
            CMQCFC.MQCMD_CHANGE_CHANNEL: lambda m: self._change_channel(m, "ALTER"),
            CMQCFC.MQCMD_DELETE_CHANNEL: lambda m: self._change_channel(m, "DELETE"),
            CMQCFC.MQCMD_START_CHANNEL: lambda m: self._channel_control(m, "START"),
            CMQCFC.MQCMD_STOP_CHANNEL: lambda m: self._channel_control(m, "STOP"),
            CMQCFC.MQCMD_PING_CHANNEL: lambda m: self._channel_control(m, "PING"),
            CMQCFC.MQCMD_RESET_CHANNEL: lambda m: self._channel_control(m, "RESET"),
            CMQCFC.MQCMD_RESOLVE_CHANNEL: lambda m: self._channel_control(m, "RESOLVE"),
            CMQCFC.MQCMD_INQUIRE_CHANNEL_STATUS: self._inquire_channel_status,
            CMQCFC.MQCMD_INQUIRE_LISTENER_STATUS: self._inquire_listener_status,
            CMQCFC.MQCMD_CREATE_SERVICE: lambda m: self._change_service(m, "DEFINE"),
            CMQCFC.MQCMD_CHANGE_SERVICE: lambda m: self._change_service(m, "ALTER"),
            CMQCFC.MQCMD_COPY_SERVICE: lambda m: self._change_service(m, "COPY"),
            CMQCFC.MQCMD_DELETE_SERVICE: lambda m: self._change_service(m, "DELETE"),
            CMQCFC.MQCMD_INQUIRE_SERVICE: self._inquire_service,
            CMQCFC.MQCMD_START_SERVICE: lambda m: self._service_control(m, "START"),
            CMQCFC.MQCMD_STOP_SERVICE: lambda m: self._service_control(m, "STOP"),
            CMQCFC.MQCMD_INQUIRE_SERVICE_STATUS: self._inquire_service_status,
            CMQCFC.MQCMD_REFRESH_SECURITY: self._refresh_security,
            CMQCFC.MQCMD_INQUIRE_CLUSTER_Q_MGR: self._inquire_cluster_q_mgr,
            CMQCFC.MQCMD_SUSPEND_Q_MGR_CLUSTER: lambda m: self._suspend_resume(m, "SUSPEND"),
            CMQCFC.MQCMD_RESUME_Q_MGR_CLUSTER: lambda m: self._suspend_resume(m, "RESUME"),
            CMQCFC.MQCMD_REFRESH_CLUSTER: self._refresh_cluster,
            CMQCFC.MQCMD_RESET_CLUSTER: self._reset_cluster,
        }.get(msg.header.Command)
        if msg.header.Command == CMQCFC.MQCMD_INQUIRE_Q and _wants_cluster_queues(msg):
            handler = self._inquire_cluster_q
        if handler is None:
            raise _Refused(CMQCFC.MQRCCF_CFH_COMMAND_ERROR)
        _check_shapes(msg)
        self._check_inquiry(msg)
        filters = [p for p in msg.params if isinstance(p, pcf.FILTERS)]
        if not filters:
            return handler(msg)
        # a filter command: the inquiry without its filter, then only the objects that pass
        (condition,) = filters if len(filters) == 1 else (None,)
        if condition is None:
            raise _Refused(CMQCFC.MQRCCF_TOO_MANY_FILTERS)
        if reason := pcf.filter_error(condition):
            raise _Refused(reason)
        responses = handler(pcf.PCFMessage(msg.header,
                                           [p for p in msg.params if p is not condition]))
        kept = [r for r in responses
                if r.comp != CMQC.MQCC_OK or pcf.filter_matches(condition, r.params)]
        return kept or [Response()]

    def _escape(self, msg: pcf.PCFMessage) -> list[Response]:
        if msg.get(CMQCFC.MQIACF_ESCAPE_TYPE) != CMQCFC.MQET_MQSC:
            raise _Refused(CMQCFC.MQRCCF_ESCAPE_TYPE_ERROR)
        text = msg.get(CMQCFC.MQCACF_ESCAPE_TEXT)
        if text is None:
            raise _Refused(CMQCFC.MQRCCF_PARM_COUNT_TOO_SMALL)
        result = self.processor.execute_text(_name(text))
        comp = CMQC.MQCC_OK if result.ok else CMQC.MQCC_FAILED
        reason = CMQC.MQRC_NONE if result.ok else CMQCFC.MQRCCF_COMMAND_FAILED
        return [Response([pcf.CFIN(CMQCFC.MQIACF_ESCAPE_TYPE, CMQCFC.MQET_MQSC),
                          pcf.CFST(CMQCFC.MQCACF_ESCAPE_TEXT, block.encode("latin-1",
                                                                           "replace"))],
                         comp, reason) for block in escape_blocks(result.lines)]

    @staticmethod
    def _required_name(msg: pcf.PCFMessage, parameter: int) -> str:
        value = msg.get(parameter)
        if value is None:
            raise _Refused(CMQCFC.MQRCCF_PARM_COUNT_TOO_SMALL)
        name = _name(value)
        if not name:
            raise _Refused(CMQCFC.MQRCCF_OBJECT_NAME_ERROR)
        return name

    @staticmethod
    def _queue_types(msg: pcf.PCFMessage) -> tuple[str, ...]:
        qtype = msg.get(CMQC.MQIA_Q_TYPE, CMQC.MQQT_ALL)
        if qtype == CMQC.MQQT_ALL:
            return QUEUE_TYPES
        if qtype not in _QTYPE_TO_OBJ:
            raise _Refused(CMQCFC.MQRCCF_Q_TYPE_ERROR)
        return (_QTYPE_TO_OBJ[qtype],)

    def _objects(self, objtypes: Iterable[str], name: str) -> list[Any]:
        return self.processor.matching(objtypes, name, name.endswith("*"))

    @staticmethod
    def _wanted(msg: pcf.PCFMessage, attrs_parameter: int) -> set[int] | None:
        asked = msg.get(attrs_parameter)
        if asked is None or CMQCFC.MQIACF_ALL in asked:
            return None
        return set(asked)

    def _inquire_q(self, msg: pcf.PCFMessage) -> list[Response]:
        name = self._required_name(msg, CMQC.MQCA_Q_NAME)
        objs = self._objects(self._queue_types(msg), name)
        if not objs:
            return [Response([], CMQC.MQCC_FAILED, CMQC.MQRC_UNKNOWN_OBJECT_NAME)]
        wanted = self._wanted(msg, CMQCFC.MQIACF_Q_ATTRS)
        out = []
        for obj in objs:
            view = self.processor.stored_view(obj)
            shown = display_keywords(obj.objtype)
            params: list[pcf.Parameter] = [
                pcf.CFST(CMQC.MQCA_Q_NAME, obj.name.ljust(CMQC.MQ_Q_NAME_LENGTH)),
                pcf.CFIN(CMQC.MQIA_Q_TYPE, _OBJ_TO_QTYPE[obj.objtype]),
            ]
            for attr in pcfmap.QUEUE[2:]:
                if attr.keyword in view and attr.keyword in shown and (
                        wanted is None or attr.parameter in wanted):
                    p = _param(attr, view[attr.keyword])
                    if p is not None:
                        params.append(p)
            out.append(Response(params))
        return out

    def _inquire_q_names(self, msg: pcf.PCFMessage) -> list[Response]:
        name = self._required_name(msg, CMQC.MQCA_Q_NAME)
        names = [o.name.ljust(CMQC.MQ_Q_NAME_LENGTH)
                 for o in self._objects(self._queue_types(msg), name)]
        return [Response([pcf.CFSL(CMQCFC.MQCACF_Q_NAMES, names)])]

    def _inquire_q_status(self, msg: pcf.PCFMessage) -> list[Response]:
        name = self._required_name(msg, CMQC.MQCA_Q_NAME)
        objs = self._objects(("QLOCAL",), name)
        if not objs:
            return [Response([], CMQC.MQCC_FAILED, CMQC.MQRC_UNKNOWN_OBJECT_NAME)]
        stype = msg.get(CMQCFC.MQIACF_Q_STATUS_TYPE, CMQCFC.MQIACF_Q_STATUS)
        out = []
        for obj in objs:
            qname = pcf.CFST(CMQC.MQCA_Q_NAME, obj.name.ljust(CMQC.MQ_Q_NAME_LENGTH))
            if stype == CMQCFC.MQIACF_Q_HANDLE:
                for row in self.processor.handle_status(obj):
                    out.append(Response([qname, pcf.CFIN(CMQCFC.MQIACF_Q_STATUS_TYPE, stype),
                                         pcf.CFST(CMQCFC.MQCACF_APPL_TAG,
                                                  str(row["APPLTAG"]).ljust(28)),
                                         pcf.CFST(CMQCFC.MQCACF_USER_IDENTIFIER,
                                                  str(row["USERID"]).ljust(12))]))
                continue
            view = self.processor.queue_status_view(obj)
            uncom = view["UNCOM"]
            out.append(Response([
                qname, pcf.CFIN(CMQCFC.MQIACF_Q_STATUS_TYPE, CMQCFC.MQIACF_Q_STATUS),
                pcf.CFIN(CMQC.MQIA_CURRENT_Q_DEPTH, int(view["CURDEPTH"])),  # type: ignore
                pcf.CFIN(CMQC.MQIA_OPEN_INPUT_COUNT, int(view["IPPROCS"])),  # type: ignore
                pcf.CFIN(CMQC.MQIA_OPEN_OUTPUT_COUNT, int(view["OPPROCS"])),  # type: ignore
                pcf.CFIN(CMQCFC.MQIACF_UNCOMMITTED_MSGS, 0 if uncom == "NO" else int(uncom)),  # type: ignore
                pcf.CFIN(CMQCFC.MQIACF_OLDEST_MSG_AGE, int(view["MSGAGE"])),  # type: ignore
                pcf.CFST(CMQCFC.MQCACF_LAST_PUT_DATE, str(view["LPUTDATE"]).ljust(12)),
                pcf.CFST(CMQCFC.MQCACF_LAST_PUT_TIME, str(view["LPUTTIME"]).ljust(8)),
                pcf.CFST(CMQCFC.MQCACF_LAST_GET_DATE, str(view["LGETDATE"]).ljust(12)),
                pcf.CFST(CMQCFC.MQCACF_LAST_GET_TIME, str(view["LGETTIME"]).ljust(8)),
            ]))  # fmt: skip
        return out

    def _inquire_q_mgr(self, msg: pcf.PCFMessage) -> list[Response]:
        view = self.processor.qmgr_view()
        view["QMNAME"] = self.processor.engine.name
        wanted = self._wanted(msg, CMQCFC.MQIACF_Q_MGR_ATTRS)
        params = []
        for attr in pcfmap.QMGR:
            if attr.keyword in view and (wanted is None or attr.parameter in wanted
                                         or attr.keyword == "QMNAME"):
                p = _param(attr, view[attr.keyword])
                if p is not None:
                    params.append(p)
        return [Response(params)]

    def _inquire_q_mgr_status(self, msg: pcf.PCFMessage) -> list[Response]:
        """Inquire Queue Manager Status: DISPLAY QMSTATUS's values; QMgrName and
        QMgrStatus always, the rest as QMStatusAttrs asks (default all)."""
        view = self.processor.qmgr_status_view()
        wanted = self._wanted(msg, CMQCFC.MQIACF_Q_MGR_STATUS_ATTRS)
        params: list[pcf.Parameter] = [
            pcf.CFST(CMQC.MQCA_Q_MGR_NAME,
                     self.processor.engine.name.ljust(CMQC.MQ_Q_MGR_NAME_LENGTH)),
            pcf.CFIN(CMQCFC.MQIACF_Q_MGR_STATUS, _QMGR_STATUS[str(view["STATUS"])])]
        for parameter, keyword, length in _QMGR_STATUS_FIELDS:
            if wanted is not None and parameter not in wanted:
                continue
            value = view[keyword]
            if length is None:
                value = _SVC_STATUS.get(str(value), value)
                params.append(pcf.CFIN(parameter, int(value)))  # type: ignore[arg-type]
            else:
                params.append(pcf.CFST(parameter, str(value).ljust(length)))
        return [Response(params)]

    def _reset_q_mgr(self, msg: pcf.PCFMessage) -> list[Response]:
        """Reset Queue Manager, Action MQACT_COLLECT_STATISTICS: RESET QMGR
        TYPE(STATISTICS); the other actions are not supported (see the MQSC twin)."""
        action = msg.get(CMQCFC.MQIACF_ACTION)
        if action is None:
            raise _Refused(CMQCFC.MQRCCF_PARM_COUNT_TOO_SMALL)
        if action != CMQCFC.MQACT_COLLECT_STATISTICS:
            return [Response([], CMQC.MQCC_FAILED, CMQC.MQRC_FUNCTION_NOT_SUPPORTED)]
        result = self.processor.execute_text("RESET QMGR TYPE(STATISTICS)")
        if not result.ok:
            return [Response([], CMQC.MQCC_FAILED, result.reason or CMQCFC.MQRCCF_COMMAND_FAILED)]
        return [Response()]

    def _inquire_channel(self, msg: pcf.PCFMessage) -> list[Response]:
        name = self._required_name(msg, CMQCFC.MQCACH_CHANNEL_NAME)
        objs = self._objects(("CHANNEL",), name)
        chltype = msg.get(CMQCFC.MQIACH_CHANNEL_TYPE, CMQC.MQCHT_ALL)
        if chltype != CMQC.MQCHT_ALL:
            try:
                word = _CHL_BY_KW["CHLTYPE"].from_pcf(chltype)
            except ValueError:
                raise _Refused(CMQCFC.MQRCCF_CHANNEL_TYPE_ERROR) from None
            objs = [o for o in objs if o.attributes.get("CHLTYPE") == word]
        if not objs:
            return [Response([], CMQC.MQCC_FAILED, CMQCFC.MQRCCF_CHANNEL_NOT_FOUND)]
        wanted = self._wanted(msg, CMQCFC.MQIACF_CHANNEL_ATTRS)
        out = []
        for obj in objs:
            view = self.processor.stored_view(obj)
            shown = display_keywords("CHANNEL", str(view.get("CHLTYPE", "")))
            params: list[pcf.Parameter] = []
            for attr in pcfmap.CHANNEL:
                always = attr.keyword in ("CHANNEL", "CHLTYPE")
                value = obj.name if attr.keyword == "CHANNEL" else view.get(attr.keyword)
                if value is None or not (always or attr.keyword in shown):
                    continue
                if always or wanted is None or attr.parameter in wanted:
                    p = _param(attr, value)
                    if p is not None:
                        params.append(p)
            out.append(Response(params))
        return out

    # ------------------------------------------------------------------ changes

    @staticmethod
    def _attributes(msg: pcf.PCFMessage, table: Mapping[int, pcfmap.PcfAttr],
                    control: Iterable[int] = _CONTROL) -> dict[str, object]:
        """A create or change request's attributes as MQSC keywords and stored values. A
        parameter the object does not have, one the queue manager keeps, or one in the
        wrong structure (an MQCFIN for a string, an MQCFSL for one name) is refused with
        the reason naming the structure it came in (MQRCCF_CFIN_PARM_ID_ERROR...); a word
        with no meaning is MQRCCF_PARM_VALUE_ERROR."""
        out: dict[str, object] = {}
        skip = set(control)
        for p in msg.params:
            if p.Parameter in skip:
                continue
            attr = table.get(p.Parameter)
            if attr is None or attr.keyword in _READ_ONLY or not attr.accepts(p):
                raise _Refused(pcfmap.parm_id_error(p))
            try:
                out[attr.keyword] = attr.from_pcf(p.value)
            except (TypeError, ValueError):
                raise _Refused(CMQCFC.MQRCCF_PARM_VALUE_ERROR) from None
        return out

    def _run(self, cmd: MQSCCommand) -> list[Response]:
        result: Result = self.processor.execute(cmd)
        if result.ok:
            return [Response()]
        return [Response([], CMQC.MQCC_FAILED, result.reason or CMQCFC.MQRCCF_COMMAND_FAILED)]

    @staticmethod
    def _flags(msg: pcf.PCFMessage) -> frozenset[str]:
        flags = set()
        if msg.get(CMQCFC.MQIACF_REPLACE) == CMQCFC.MQRP_YES:
            flags.add("REPLACE")
        if msg.get(CMQCFC.MQIACF_PURGE) == CMQCFC.MQPO_YES:
            flags.add("PURGE")
        return frozenset(flags)

    def _change_q(self, msg: pcf.PCFMessage, verb: str) -> list[Response]:
        name = self._required_name(msg, CMQC.MQCA_Q_NAME)
        qtype = msg.get(CMQC.MQIA_Q_TYPE)
        if qtype is None:
            if verb != "DELETE":
                raise _Refused(CMQCFC.MQRCCF_OBJECT_TYPE_MISSING)
            existing = self.processor.engine.lookup("QLOCAL", name)
            if existing is None:
                return [Response([], CMQC.MQCC_FAILED, CMQC.MQRC_UNKNOWN_OBJECT_NAME)]
            objtype = existing.objtype
        elif qtype in _QTYPE_TO_OBJ:
            objtype = _QTYPE_TO_OBJ[qtype]
        else:
            raise _Refused(CMQCFC.MQRCCF_Q_TYPE_ERROR)
        params = {} if verb == "DELETE" else self._attributes(msg, _Q)
        return self._run(MQSCCommand(verb, objtype, name, params, self._flags(msg)))

    def _change_channel(self, msg: pcf.PCFMessage, verb: str) -> list[Response]:
        name = self._required_name(msg, CMQCFC.MQCACH_CHANNEL_NAME)
        params: dict[str, object] = {}
        if verb != "DELETE":
            chltype = msg.get(CMQCFC.MQIACH_CHANNEL_TYPE)
            if chltype is None:
                raise _Refused(CMQCFC.MQRCCF_PARM_COUNT_TOO_SMALL)
            try:
                params["CHLTYPE"] = _CHL_BY_KW["CHLTYPE"].from_pcf(chltype)
            except ValueError:
                raise _Refused(CMQCFC.MQRCCF_CHANNEL_TYPE_ERROR) from None
            params.update(self._attributes(msg, _CHL))
        return self._run(MQSCCommand(verb, "CHANNEL", name, params, self._flags(msg)))

    # ------------------------------------------------------------------ channel control

    def _channel_control(self, msg: pcf.PCFMessage, verb: str) -> list[Response]:
        name = self._required_name(msg, CMQCFC.MQCACH_CHANNEL_NAME)
        params: dict[str, object] = {}
        if verb == "STOP":
            params["MODE"] = _MODE.get(msg.get(CMQCFC.MQIACF_MODE, CMQCFC.MQMODE_QUIESCE))
            params["STATUS"] = _STOP_STATUS.get(
                msg.get(CMQCFC.MQIACH_CHANNEL_STATUS, CMQCFC.MQCHS_STOPPED))
            if params["MODE"] is None or params["STATUS"] is None:
                raise _Refused(CMQCFC.MQRCCF_CFIN_PARM_ID_ERROR)
            for parameter, keyword in ((CMQC.MQCA_Q_MGR_NAME, "QMNAME"),
                                       (CMQCFC.MQCACH_CONNECTION_NAME, "CONNAME")):
                if msg.get(parameter) is not None:
                    params[keyword] = _name(msg.get(parameter))
        elif verb == "PING" and msg.get(CMQCFC.MQIACH_DATA_COUNT) is not None:
            params["DATALEN"] = msg.get(CMQCFC.MQIACH_DATA_COUNT)
        elif verb == "RESET":
            params["SEQNUM"] = msg.get(CMQCFC.MQIACH_MSG_SEQUENCE_NUMBER, 1)
        elif verb == "RESOLVE":
            action = {CMQCFC.MQIDO_COMMIT: "COMMIT", CMQCFC.MQIDO_BACKOUT: "BACKOUT"}.get(
                msg.get(CMQCFC.MQIACH_IN_DOUBT))
            if action is None:
                raise _Refused(CMQCFC.MQRCCF_PARM_COUNT_TOO_SMALL
                               if msg.get(CMQCFC.MQIACH_IN_DOUBT) is None
                               else CMQCFC.MQRCCF_CFIN_PARM_ID_ERROR)
            params["ACTION"] = action
        return self._run(MQSCCommand(verb, "CHANNEL", name, params, frozenset()))

    def _refresh_security(self, msg: pcf.PCFMessage) -> list[Response]:
        """MQCMD_REFRESH_SECURITY: SecurityType AUTHSERV (default), SSL or CONNAUTH, as MQSC
        REFRESH SECURITY TYPE(...) runs it; MQSECTYPE_CLASSES is z/OS's (refused)."""
        kind = {CMQCFC.MQSECTYPE_AUTHSERV: "AUTHSERV", CMQCFC.MQSECTYPE_SSL: "SSL",
                CMQCFC.MQSECTYPE_CONNAUTH: "CONNAUTH"}.get(
            msg.get(CMQCFC.MQIACF_SECURITY_TYPE, CMQCFC.MQSECTYPE_AUTHSERV))
        if kind is None:
            raise _Refused(CMQCFC.MQRCCF_PARM_VALUE_ERROR)
        return self._run(MQSCCommand("REFRESH", "SECURITY", "", {"TYPE": kind}, frozenset()))

    def _inquire_channel_status(self, msg: pcf.PCFMessage) -> list[Response]:
        """One response per channel instance: current status from the channel initiator, or
        with MQOT_SAVED_CHANNEL each end's saved sync data."""
        name = self._required_name(msg, CMQCFC.MQCACH_CHANNEL_NAME)
        instance = msg.get(CMQCFC.MQIACH_CHANNEL_INSTANCE_TYPE, CMQC.MQOT_CURRENT_CHANNEL)
        if instance not in (CMQC.MQOT_CURRENT_CHANNEL, CMQC.MQOT_SAVED_CHANNEL):
            raise _Refused(CMQCFC.MQRCCF_CFIN_PARM_ID_ERROR)
        rows = self.processor.channel_status_rows(
            name, instance == CMQC.MQOT_SAVED_CHANNEL,
            _name(msg.get(CMQCFC.MQCACH_CONNECTION_NAME) or b""),
            _name(msg.get(CMQCFC.MQCACH_XMIT_Q_NAME) or b""))
        if not rows:
            return [Response([], CMQC.MQCC_FAILED, CMQCFC.MQRCCF_CHL_STATUS_NOT_FOUND)]
        return [Response([pcf.CFIN(CMQCFC.MQIACH_CHANNEL_INSTANCE_TYPE, instance),
                          *_chstatus_params(row)]) for row in rows]

    def _inquire_listener_status(self, msg: pcf.PCFMessage) -> list[Response]:
        """Inquire Listener Status: one response per running listener (the channel
        initiator's), its name always, then Status, Port and TransportType as
        ListenerStatusAttrs asks (default all)."""
        name = self._required_name(msg, CMQCFC.MQCACH_LISTENER_NAME)
        try:
            rows = self.processor.listener_status_rows(name)
        except CommandFailed as failed:
            return [Response([], CMQC.MQCC_FAILED, failed.reason)]
        if not rows:
            return [Response([], CMQC.MQCC_FAILED, CMQCFC.MQRCCF_LSTR_STATUS_NOT_FOUND)]
        wanted = self._wanted(msg, CMQCFC.MQIACF_LISTENER_STATUS_ATTRS)
        out = []
        for row in rows:
            params: list[pcf.Parameter] = [pcf.CFST(
                CMQCFC.MQCACH_LISTENER_NAME,
                str(row.get("LISTENER", "")).ljust(CMQC.MQ_LISTENER_NAME_LENGTH))]
            for parameter, value in (
                    (CMQCFC.MQIACH_LISTENER_STATUS, _SVC_STATUS.get(str(row.get("STATUS")))),
                    (CMQCFC.MQIACH_PORT, row.get("PORT")),
                    (CMQCFC.MQIACH_XMIT_PROTOCOL_TYPE,
                     _TRPTYPE.get(str(row.get("TRPTYPE"))))):
                if value is not None and (wanted is None or parameter in wanted):
                    params.append(pcf.CFIN(parameter, int(value)))  # type: ignore[arg-type]
            out.append(Response(params))
        return out


    # ------------------------------------------------------------------ services

    def _change_service(self, msg: pcf.PCFMessage, verb: str) -> list[Response]:
        """Create / Change / Copy / Delete Service: DEFINE (LIKE for a copy) / ALTER /
        DELETE SERVICE with the attributes translated by ``pcfmap.SERVICE``."""
        params: dict[str, object] = {}
        if verb == "COPY":
            params["LIKE"] = self._required_name(msg, CMQCFC.MQCACF_FROM_SERVICE_NAME)
            name = self._required_name(msg, CMQCFC.MQCACF_TO_SERVICE_NAME)
            verb = "DEFINE"
        else:
            name = self._required_name(msg, CMQC.MQCA_SERVICE_NAME)
        if verb != "DELETE":
            params.update(self._attributes(msg, _SERVICE, _SERVICE_CONTROL))
        return self._run(MQSCCommand(verb, "SERVICE", name, params, self._flags(msg)))

    def _inquire_service(self, msg: pcf.PCFMessage) -> list[Response]:
        """Inquire Service: ServiceName always, the rest as ServiceAttrs asks."""
        name = self._required_name(msg, CMQC.MQCA_SERVICE_NAME)
        objs = self._objects(("SERVICE",), name)
        if not objs:
            return [Response([], CMQC.MQCC_FAILED, CMQC.MQRC_UNKNOWN_OBJECT_NAME)]
        wanted = self._wanted(msg, CMQCFC.MQIACF_SERVICE_ATTRS)
        return [Response([_param(pcfmap.SERVICE[0], obj.name),  # type: ignore[list-item]
                          *_attr_params(self.processor.stored_view(obj),
                                        pcfmap.SERVICE[1:], wanted)])
                for obj in objs]

    def _service_control(self, msg: pcf.PCFMessage, verb: str) -> list[Response]:
        """Start / Stop Service; with IgnoreState MQIS_YES a service already running (or
        already stopped) is no failure."""
        name = self._required_name(msg, CMQC.MQCA_SERVICE_NAME)
        ignore = msg.get(CMQCFC.MQIACF_IGNORE_STATE, CMQCFC.MQIS_NO)
        if ignore not in (CMQCFC.MQIS_NO, CMQCFC.MQIS_YES):
            raise _Refused(CMQCFC.MQRCCF_PARM_VALUE_ERROR)
        return self._run(MQSCCommand(verb, "SERVICE", name,
                                     {"IGNSTATE": "YES" if ignore == CMQCFC.MQIS_YES else "NO"},
                                     frozenset()))

    def _inquire_service_status(self, msg: pcf.PCFMessage) -> list[Response]:
        """Inquire Service Status: one response per running server service, its name
        always, then Status, ProcessId, StartDate, StartTime and the definition's
        attributes as ServiceStatusAttrs asks (default all)."""
        name = self._required_name(msg, CMQC.MQCA_SERVICE_NAME)
        generic = name.endswith("*")
        if not generic and self.processor.engine.lookup("SERVICE", name) is None:
            return [Response([], CMQC.MQCC_FAILED, CMQC.MQRC_UNKNOWN_OBJECT_NAME)]
        rows = self.processor.service_status_rows(name, generic)
        if not rows:
            return [Response([], CMQC.MQCC_FAILED, CMQCFC.MQRCCF_SERV_STATUS_NOT_FOUND)]
        wanted = self._wanted(msg, CMQCFC.MQIACF_SERVICE_STATUS_ATTRS)
        fields = pcfmap.SERVICE_STATUS + tuple(a for a in pcfmap.SERVICE[1:]
                                               if a.keyword not in ("ALTDATE", "ALTTIME"))
        return [Response([_param(pcfmap.SERVICE[0], row["SERVICE"]),  # type: ignore[list-item]
                          *_attr_params(row, fields, wanted)])
                for row in rows]

    # ------------------------------------------------------------------ clusters
    #
    # The repository is the channel initiator's (mqpy_chinit.cluster.manager): these run
    # as their MQSC twins (DISPLAY CLUSQMGR / QCLUSTER, SUSPEND and RESUME QMGR, REFRESH
    # and RESET CLUSTER) and translate the answer, so both interfaces say the same.

    def _cluster_rows(self, text: str) -> list[dict[str, object]]:
        result = self.processor.execute_text(text)
        if not result.ok:
            raise _Refused(result.reason or CMQCFC.MQRCCF_COMMAND_FAILED)
        return parse_objects(result.lines)

    def _cluster_command(self, text: str) -> list[Response]:
        result = self.processor.execute_text(text)
        if result.ok:
            return [Response()]
        return [Response([], CMQC.MQCC_FAILED, result.reason or CMQCFC.MQRCCF_COMMAND_FAILED)]

    def _inquire_cluster_q_mgr(self, msg: pcf.PCFMessage) -> list[Response]:
        """Inquire Cluster Queue Manager: one response per member and cluster."""
        name = _mqsc_name(self._required_name(msg, CMQC.MQCA_CLUSTER_Q_MGR_NAME))
        cluster = _mqsc_name(_name(msg.get(CMQC.MQCA_CLUSTER_NAME) or b""), generic=False)
        channel = _name(msg.get(CMQCFC.MQCACH_CHANNEL_NAME) or b"") or "*"
        try:
            rows = self._cluster_rows(command_text(
                "DISPLAY", "CLUSQMGR", name, {"CLUSTER": cluster} if cluster else {}, ["ALL"]))
        except _Refused as refused:
            return [Response([], CMQC.MQCC_FAILED, refused.reason)]
        rows = [r for r in rows if fnmatch.fnmatchcase(str(r.get("CHANNEL", "")), channel)]
        if not rows:
            return [Response([], CMQC.MQCC_FAILED, CMQC.MQRC_UNKNOWN_OBJECT_NAME)]
        wanted = self._wanted(msg, CMQCFC.MQIACF_CLUSTER_Q_MGR_ATTRS)
        return [Response(_row_params(row, _CLUSQMGR_PCF, wanted, _CLUSQMGR_ALWAYS))
                for row in rows]

    def _inquire_cluster_q(self, msg: pcf.PCFMessage) -> list[Response]:
        """Inquire Queue for cluster queues (QType MQQT_CLUSTER, or MQQT_ALL with
        MQIACF_CLUSTER_INFO): one response per instance the repository knows."""
        name = _mqsc_name(self._required_name(msg, CMQC.MQCA_Q_NAME))
        cluster = _mqsc_name(_name(msg.get(CMQC.MQCA_CLUSTER_NAME) or b""), generic=False)
        local: list[Response] = []
        if msg.get(CMQC.MQIA_Q_TYPE) == CMQC.MQQT_ALL:
            local = [r for r in self._inquire_q(msg) if r.comp == CMQC.MQCC_OK]
        try:
            rows = self._cluster_rows(command_text(
                "DISPLAY", "QCLUSTER", name, {"CLUSTER": cluster} if cluster else {}, ["ALL"]))
        except _Refused as refused:
            if local:
                return local
            return [Response([], CMQC.MQCC_FAILED, refused.reason)]
        wanted = self._wanted(msg, CMQCFC.MQIACF_Q_ATTRS)
        return local + [Response([pcf.CFIN(CMQC.MQIA_Q_TYPE, CMQC.MQQT_CLUSTER),
                                  *_row_params(row, _QCLUSTER_PCF, wanted, _QCLUSTER_ALWAYS)])
                        for row in rows]

    def _suspend_resume(self, msg: pcf.PCFMessage, verb: str) -> list[Response]:
        """Suspend / Resume Queue Manager Cluster: ClusterName or ClusterNamelist, and for
        a suspension Mode (MQMODE_QUIESCE, the default, or MQMODE_FORCE)."""
        params = self._cluster_target(msg)
        if verb == "SUSPEND":
            word = {CMQCFC.MQMODE_QUIESCE: "QUIESCE", CMQCFC.MQMODE_FORCE: "FORCE"}.get(
                msg.get(CMQCFC.MQIACF_MODE, CMQCFC.MQMODE_QUIESCE))
            if word is None:
                raise _Refused(CMQCFC.MQRCCF_MODE_VALUE_ERROR)
            params["MODE"] = word
        return self._cluster_command(command_text(verb, "QMGR", None, params))

    def _cluster_target(self, msg: pcf.PCFMessage) -> dict[str, object]:
        cluster = _name(msg.get(CMQC.MQCA_CLUSTER_NAME) or b"")
        namelist = _name(msg.get(CMQC.MQCA_CLUSTER_NAMELIST) or b"")
        if bool(cluster) == bool(namelist):
            raise _Refused(CMQCFC.MQRCCF_PARM_COUNT_TOO_SMALL if not cluster
                           else CMQCFC.MQRCCF_PARM_CONFLICT)
        if cluster:
            return {"CLUSTER": _mqsc_name(cluster, generic=False)}
        return {"CLUSNL": _mqsc_name(namelist, generic=False)}

    def _refresh_cluster(self, msg: pcf.PCFMessage) -> list[Response]:
        """Refresh Cluster: ClusterName (generic allowed), RefreshRepository."""
        cluster = _mqsc_name(self._required_name(msg, CMQC.MQCA_CLUSTER_NAME))
        repos = msg.get(CMQCFC.MQIACF_REFRESH_REPOSITORY, CMQCFC.MQCFO_REFRESH_REPOSITORY_NO)
        if repos not in (CMQCFC.MQCFO_REFRESH_REPOSITORY_NO,
                         CMQCFC.MQCFO_REFRESH_REPOSITORY_YES):
            raise _Refused(CMQCFC.MQRCCF_PARM_VALUE_ERROR)
        yes = repos == CMQCFC.MQCFO_REFRESH_REPOSITORY_YES
        return self._cluster_command(command_text("REFRESH", "CLUSTER", cluster,
                                                  {"REPOS": "YES" if yes else "NO"}))

    def _reset_cluster(self, msg: pcf.PCFMessage) -> list[Response]:
        """Reset Cluster: ClusterName, Action MQACT_FORCE_REMOVE, QMgrName or
        QMgrIdentifier, RemoveQueues (full repositories only: the repository manager
        refuses it elsewhere)."""
        cluster = _mqsc_name(self._required_name(msg, CMQC.MQCA_CLUSTER_NAME), generic=False)
        action = msg.get(CMQCFC.MQIACF_ACTION)
        if action is None:
            raise _Refused(CMQCFC.MQRCCF_PARM_COUNT_TOO_SMALL)
        if action != CMQCFC.MQACT_FORCE_REMOVE:
            raise _Refused(CMQCFC.MQRCCF_ACTION_VALUE_ERROR)
        qmname = _name(msg.get(CMQC.MQCA_Q_MGR_NAME) or b"")
        qmid = _name(msg.get(CMQC.MQCA_Q_MGR_IDENTIFIER) or b"")
        if bool(qmname) == bool(qmid):
            raise _Refused(CMQCFC.MQRCCF_PARM_COUNT_TOO_SMALL if not qmname
                           else CMQCFC.MQRCCF_PARM_CONFLICT)
        queues = msg.get(CMQCFC.MQIACF_REMOVE_QUEUES, CMQCFC.MQCFO_REMOVE_QUEUES_NO)
        if queues not in (CMQCFC.MQCFO_REMOVE_QUEUES_NO, CMQCFC.MQCFO_REMOVE_QUEUES_YES):
            raise _Refused(CMQCFC.MQRCCF_PARM_VALUE_ERROR)
        if qmid and not _MQSC_NAME.fullmatch(qmid):  # a QMID is a name and a time stamp
            raise _Refused(CMQCFC.MQRCCF_PARM_VALUE_ERROR)
        who = {"QMNAME": _mqsc_name(qmname, generic=False)} if qmname else {"QMID": qmid}
        yes = queues == CMQCFC.MQCFO_REMOVE_QUEUES_YES
        return self._cluster_command(command_text("RESET", "CLUSTER", cluster, {
            "ACTION": "FORCEREMOVE", **who, "QUEUES": "YES" if yes else "NO"}))


def _wants_cluster_queues(msg: pcf.PCFMessage) -> bool:
    """Inquire Queue asks about cluster queues: QType MQQT_CLUSTER, or MQQT_ALL with
    ClusterInfo (IBM: cluster information is returned with the local queues)."""
    qtype = msg.get(CMQC.MQIA_Q_TYPE)
    return qtype == CMQC.MQQT_CLUSTER or (
        qtype == CMQC.MQQT_ALL and msg.get(CMQCFC.MQIACF_CLUSTER_INFO) is not None)


_MQSC_NAME = re.compile(r"[A-Za-z0-9._/%]{1,48}")


def _mqsc_name(name: str, *, generic: bool = True) -> str:
    """A name from a PCF request, checked as MQ checks names (MQ's name characters only, and
    a trailing * when generic); anything else is MQRCCF_OBJECT_NAME_ERROR. It goes into MQSC
    text quoted, as every value does (``command_text``)."""
    if not name:
        return name
    stem = name[:-1] if generic and name.endswith("*") else name
    if (stem or not generic) and not _MQSC_NAME.fullmatch(stem):
        raise _Refused(CMQCFC.MQRCCF_OBJECT_NAME_ERROR)
    return name


# DISPLAY CLUSQMGR / QCLUSTER keyword -> (parameter, string length, or 0 for an integer,
# with its words if it is an enumeration)
_PcfField = tuple[int, int, "dict[str, int] | None"]
_CLUSQMGR_PCF: dict[str, _PcfField] = {
    "CLUSQMGR": (CMQC.MQCA_CLUSTER_Q_MGR_NAME, CMQC.MQ_Q_MGR_NAME_LENGTH, None),
    "CLUSTER": (CMQC.MQCA_CLUSTER_NAME, CMQC.MQ_CLUSTER_NAME_LENGTH, None),
    "CHANNEL": (CMQCFC.MQCACH_CHANNEL_NAME, CMQC.MQ_CHANNEL_NAME_LENGTH, None),
    "CONNAME": (CMQCFC.MQCACH_CONNECTION_NAME, CMQC.MQ_CONN_NAME_LENGTH, None),
    "QMID": (CMQC.MQCA_Q_MGR_IDENTIFIER, CMQC.MQ_Q_MGR_IDENTIFIER_LENGTH, None),
    "DEFTYPE": (CMQCFC.MQIACF_Q_MGR_DEFINITION_TYPE, 0, {
        "CLUSSDR": CMQCFC.MQQMDT_EXPLICIT_CLUSTER_SENDER,
        "CLUSSDRA": CMQCFC.MQQMDT_AUTO_CLUSTER_SENDER,
        "CLUSSDRB": CMQCFC.MQQMDT_AUTO_EXP_CLUSTER_SENDER,
        "CLUSRCVR": CMQCFC.MQQMDT_CLUSTER_RECEIVER}),
    "QMTYPE": (CMQCFC.MQIACF_Q_MGR_TYPE, 0, {"REPOS": CMQCFC.MQQMT_REPOSITORY,
                                            "NORMAL": CMQCFC.MQQMT_NORMAL}),
    "STATUS": (CMQCFC.MQIACH_CHANNEL_STATUS, 0, _CHS),
    "SUSPEND": (CMQCFC.MQIACF_SUSPEND, 0, {"YES": CMQCFC.MQSUS_YES, "NO": CMQCFC.MQSUS_NO}),
    "CLWLPRTY": (CMQCFC.MQIACH_CLWL_CHANNEL_PRIORITY, 0, None),
    "CLWLRANK": (CMQCFC.MQIACH_CLWL_CHANNEL_RANK, 0, None),
    "CLWLWGHT": (CMQCFC.MQIACH_CLWL_CHANNEL_WEIGHT, 0, None),
    "NETPRTY": (CMQCFC.MQIACH_NETWORK_PRIORITY, 0, None),
}
_CLUSQMGR_ALWAYS = ("CLUSQMGR", "CLUSTER", "CHANNEL")
_QCLUSTER_PCF: dict[str, _PcfField] = {
    "QUEUE": (CMQC.MQCA_Q_NAME, CMQC.MQ_Q_NAME_LENGTH, None),
    "CLUSTER": (CMQC.MQCA_CLUSTER_NAME, CMQC.MQ_CLUSTER_NAME_LENGTH, None),
    "CLUSQMGR": (CMQC.MQCA_CLUSTER_Q_MGR_NAME, CMQC.MQ_Q_MGR_NAME_LENGTH, None),
    "QMID": (CMQC.MQCA_Q_MGR_IDENTIFIER, CMQC.MQ_Q_MGR_IDENTIFIER_LENGTH, None),
    "CLUSQT": (CMQC.MQIA_CLUSTER_Q_TYPE, 0, {
        "QLOCAL": CMQC.MQCQT_LOCAL_Q, "QALIAS": CMQC.MQCQT_ALIAS_Q,
        "QREMOTE": CMQC.MQCQT_REMOTE_Q, "QMGR": CMQC.MQCQT_Q_MGR_ALIAS}),
    "DEFBIND": (CMQC.MQIA_DEF_BIND, 0, {"OPEN": CMQC.MQBND_BIND_ON_OPEN,
                                        "NOTFIXED": CMQC.MQBND_BIND_NOT_FIXED,
                                        "GROUP": CMQC.MQBND_BIND_ON_GROUP}),
    "DEFPRTY": (CMQC.MQIA_DEF_PRIORITY, 0, None),
    "DEFPSIST": (CMQC.MQIA_DEF_PERSISTENCE, 0, {"YES": CMQC.MQPER_PERSISTENT,
                                                "NO": CMQC.MQPER_NOT_PERSISTENT}),
    "PUT": (CMQC.MQIA_INHIBIT_PUT, 0, {"ENABLED": CMQC.MQQA_PUT_ALLOWED,
                                       "DISABLED": CMQC.MQQA_PUT_INHIBITED}),
    "CLWLPRTY": (CMQC.MQIA_CLWL_Q_PRIORITY, 0, None),
    "CLWLRANK": (CMQC.MQIA_CLWL_Q_RANK, 0, None),
}
_QCLUSTER_ALWAYS = ("QUEUE", "CLUSTER", "CLUSQMGR")


def _row_params(row: dict[str, object], fields: dict[str, _PcfField],
                wanted: set[int] | None, always: tuple[str, ...]) -> list[pcf.Parameter]:
    """A DISPLAY row as PCF response parameters (the identifying ones always, the others
    if ``wanted`` is None or names them)."""
    out: list[pcf.Parameter] = []
    for keyword, (parameter, length, words) in fields.items():
        if keyword not in row:
            continue
        if keyword not in always and wanted is not None and parameter not in wanted:
            continue
        value = row[keyword]
        if length:
            text = "" if value is True else str(value)
            out.append(pcf.CFST(parameter, text.encode("latin-1", "replace")
                                .ljust(length)[:length]))
        elif words is not None:
            if str(value) in words:
                out.append(pcf.CFIN(parameter, words[str(value)]))
        else:
            try:
                out.append(pcf.CFIN(parameter, int(value)))  # type: ignore[arg-type]
            except (TypeError, ValueError):
                continue
    return out


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

    @property
    def running(self) -> bool:
        return self.thread.is_alive()

    def stop(self, timeout: float = 10.0) -> None:
        """endmqcsv's work: the servers finish their requests and end."""
        self.stop_event.set()
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
    from mqpy import config

    return config.qmgr_dir(qmgr_name, data_path)


def start_command_server(qmgr_name: str, data_path: str | None = None) -> CommandServerHandle:
    """Start the command server of a queue manager running in this process (strmqcsv)."""
    key = _key(qmgr_name, data_path)
    with _servers_lock:
        running = _servers.get(key)
        if running is not None and running.running:
            return running
        engine = local.running(qmgr_name, data_path)
        if engine is None:
            raise MQMIError(CMQC.MQCC_FAILED, CMQC.MQRC_Q_MGR_NOT_AVAILABLE)
        qm = local.attach(engine)  # the queue manager's own: not in an application's trace
        server = CommandServer(qm, lambda: MQSCProcessor(engine))
        stop = threading.Event()
        thread = threading.Thread(target=server.serve, args=(stop,),
                                  name=f"amqpcsea-{qmgr_name}", daemon=True)
        handle = CommandServerHandle(qmgr_name, thread, stop, qm, server)
        thread.start()
        for n in range(1, WORKERS):
            wqm = local.attach(engine)
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
