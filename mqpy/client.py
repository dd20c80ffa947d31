"""The application side of a client connection: an Hconn's MQI over a SVRCONN channel.

A client connection is the bindings connection (``mqpy.bindings``) carried over a network
channel: the same MQI request and reply bodies (``mqpy.fap.mqiflows``) in the same segments,
on a channel instance (``mqpy.clientinstance``) found from a channel definition
(``mqpy.clientchannel``). :func:`connect` returns a :class:`ClientConnection`, which has the
engine ``Connection``'s methods, so ``mqpy.QueueManager`` and ``mqpy.Queue`` run over it
unchanged. Reason codes are IBM's (docs/client.md lists them).
"""

from __future__ import annotations

import getpass
import os
import sys
import threading
from collections import deque
from typing import Any

import attrs

from mqpy import CMQC, asyncput, connstate
from mqpy.bindings_templates import Templates
from mqpy.clientcalls import PackedClientCalls
from mqpy.clientchannel import (
    ChannelDefinition,
    load_ccdt,
    parse_mqserver,
    select_from_ccdt,
    text_value,
)
from mqpy.clientinstance import ChannelInstance, Conversation, InstanceLost, conversation_on
from mqpy.collected import ClosedLater
from mqpy.errors import MQMIError
from mqpy.fap import fopa, mqiflows, userid
from mqpy.fap.apiheader import MQIReply
from mqpy.fap.mqicalls import copy_fields
from mqpy.fap.statuscodes import ProtocolError
from mqpy.fap.tsh import ByteOrder, SegmentType
from mqpy.readahead import ReadAheadVerbs, stream_sink
from mqpy.structs.fields import text_field

__all__ = [
    "ClientConnection",
    "connect",
    "connect_from_environment",
]

_FAILED = CMQC.MQCC_FAILED
_T = SegmentType


def _fail(reason: int) -> MQMIError:
    return MQMIError(_FAILED, reason)


def _os_user() -> str:
    try:
        return getpass.getuser()
    except Exception:  # noqa: BLE001 - no user name in this environment
        return ""


def _appl_name() -> str:
    return (os.path.basename(sys.argv[0] or "python") or "python")[-28:]


def connect_from_environment(qmgr: str = "", user: str | None = None,
                             password: str | None = None, *,
                             ccdt_url: str | None = None) -> ClientConnection:
    """MQCONN as a client from MQSERVER, else the CCDT an MQCNO's CCDTUrl names
    (``ccdt_url``), else MQCCDTURL (2058 when none is set)."""
    mqserver = os.environ.get("MQSERVER", "").strip()
    if mqserver:
        return connect(qmgr, parse_mqserver(mqserver), user, password)
    url = (ccdt_url or os.environ.get("MQCCDTURL", "")).strip()
    if not url:
        raise _fail(CMQC.MQRC_Q_MGR_NAME_ERROR)
    candidates = select_from_ccdt(load_ccdt(url), qmgr)
    if not candidates:
        raise _fail(CMQC.MQRC_Q_MGR_NAME_ERROR)
    last: MQMIError | None = None
    for definition in candidates:
        try:
            return connect(qmgr, definition, user, password)
        except MQMIError as e:
            last = e
    assert last is not None
    raise last


def connect(qmgr: str, definition: ChannelDefinition, user: str | None = None,
            password: str | None = None) -> ClientConnection:
    """MQCONN to ``qmgr`` through the client channel ``definition``.

    Before the MQCONN the conversation flows USERID_DATA with this process's user id
    (CHLAUTH's CLNTUSER) and, when ``user`` is given, CONAUTH_INFO with the MQCSP user id
    and ``password`` (the queue manager's CONNAUTH checks them; ``mqpy.fap.userid``)."""
    if not definition.channel:
        raise _fail(CMQC.MQRC_CHANNEL_CONFIG_ERROR)
    qmgr = text_field(text_value(qmgr), CMQC.MQ_Q_MGR_NAME_LENGTH, CMQC.MQRC_Q_MGR_NAME_ERROR)
    instance, conv = conversation_on(definition, qmgr)
    conn = ClientConnection(instance, conv, qmgr)
    try:
        tshm = {"conv_id": conv.conv_id, "request_id": 0} if instance.tshm else {}
        try:
            instance.send(userid.userid_event(_os_user(), **tshm))
            if user is not None:
                instance.send(userid.conauth_event(
                    userid.Credentials(user, password or ""), **tshm))
        except OSError:
            conn._lost()
            raise _fail(CMQC.MQRC_CONNECTION_BROKEN) from None
        reply = conn._call(_T.MQCONN, [(qmgr, _appl_name())])
    except MQMIError:
        conn._forget()
        raise
    conn.hconn = reply.hobj
    conn.qmgr_name = reply.values[0][0] if reply.values else qmgr
    return conn


# ---------------------------------------------------------------------------- an Hconn


def _decode_reply(reply: MQIReply, byte_order: ByteOrder,
                  targets: tuple[Any, ...] = ()) -> mqiflows.Decoded:
    """``mqiflows.decode_reply``, allowing the open options MQ echoes after the MQOD of an
    MQOPEN reply (the SVRCONN sends them so that the flow is MQ's; see svrconn.py). A reply
    that did not fail is decoded into ``targets`` (mqicalls.Request)."""
    if reply.comp == _FAILED:
        targets = ()
    try:
        return mqiflows.decode_reply(reply, byte_order, into=targets)
    except ProtocolError:
        if reply.segment_type != _T.MQOPEN_REPLY or len(reply.body) < 4:
            raise
        return mqiflows.decode_reply(attrs.evolve(reply, body=reply.body[:-4]), byte_order,
                                     into=targets)


class ClientConnection(ClosedLater, ReadAheadVerbs, PackedClientCalls):
    """An Hconn held through a SVRCONN channel; the engine Connection's methods (MQGET with
    read ahead: ``mqpy.readahead``; a collected Queue's MQCLOSE: ``mqpy.collected``; the
    usual MQPUT and MQGET packed: ``mqpy.clientcalls``)."""

    #: a client's connection (MQBEGIN is not available to it)
    is_client = True

    def __init__(self, instance: ChannelInstance, conv: Conversation, qmgr_name: str) -> None:
        self._instance: ChannelInstance | None = instance
        self._conv = conv
        conv.streamed = stream_sink(self)
        self._lock = threading.Lock()
        self._collected = deque()
        self._templates = Templates()  # (mqpy.clientcalls: the usual calls' kept requests)
        self.qmgr_name = qmgr_name
        self.hconn = 0
        self.connected = True
        self.broken = False

    @property
    def channel(self) -> str:
        return self._instance.definition.channel if self._instance else ""

    @property
    def heartbeat_interval(self) -> int:
        """The negotiated HBINT of the channel instance (seconds)."""
        return self._instance.hbint if self._instance else 0

    @property
    def sharing_conversations(self) -> int:
        """The negotiated SHARECNV of the channel instance."""
        return self._instance.sharing if self._instance else 0

    @property
    def local_address(self) -> tuple[str, int] | None:
        """The local address of the channel instance's socket (None once it is gone): the
        conversations that share an instance (SHARECNV) have the same."""
        instance = self._instance
        if instance is None:
            return None
        try:
            return instance.sock.getsockname()[:2]  # type: ignore[no-any-return]
        except OSError:
            return None

    # -- one call -------------------------------------------------------------------------

    def _usable_instance(self) -> ChannelInstance:
        """The channel instance, lock held; MQRC_CONNECTION_BROKEN once it was lost,
        MQRC_HCONN_ERROR after MQDISC."""
        if self._instance is None:
            raise _fail(CMQC.MQRC_CONNECTION_BROKEN if self.broken else CMQC.MQRC_HCONN_ERROR)
        return self._instance

    def _exchange(self, verb: SegmentType, values: Any, hobj: int,
                  into: tuple[Any, ...], targets: tuple[Any, ...] = ()) -> mqiflows.Decoded:
        """Send one request, wait for its reply; raise MQMIError on MQCC_FAILED (after
        copying a failed reply's structures, if it has any, ``into`` the caller's)."""
        if self._collected and verb is not _T.MQCLOSE:
            self._close_collected()
        with self._lock:
            instance = self._usable_instance()
            conv = self._conv
            conv_id = conv.conv_id  # with its ConvId and RequestId (TSHM), else None
            body = mqiflows.request_body(verb, values)
            if verb is _T.MQOPEN and instance.fap_level >= fopa.FAP_LEVEL:
                body += fopa.request_tail()  # as IBM's client: the FOPA after the options
            request = instance.frame(verb, body, hobj, conv_id,
                                     None if conv_id is None else next(conv.request_ids))
            try:
                reply = instance.call(conv, request)
                decoded = _decode_reply(reply, reply.byte_order, targets)
            except (OSError, ValueError, ProtocolError, InstanceLost):
                self._lost()
                raise _fail(CMQC.MQRC_CONNECTION_BROKEN) from None
        if decoded.comp == _FAILED:
            for dst, src in zip(into, decoded.values or (), strict=False):
                copy_fields(dst, src)
            raise MQMIError(decoded.comp, decoded.reason)
        return decoded

    def _send_only(self, verb: SegmentType, values: Any, hobj: int) -> None:
        """Send one request without waiting for its reply (an asynchronous put): the
        channel instance drops the reply when it comes (``ChannelInstance.send_only``)."""
        if self._collected:
            self._close_collected()
        with self._lock:
            instance = self._usable_instance()
            conv = self._conv
            conv_id = conv.conv_id
            request = instance.frame(verb, mqiflows.request_body(verb, values), hobj, conv_id,
                                     None if conv_id is None else next(conv.request_ids))
            try:
                instance.send_only(conv, request)
            except (OSError, ValueError, InstanceLost):
                self._lost()
                raise _fail(CMQC.MQRC_CONNECTION_BROKEN) from None

    def stat(self, status_type: int, sts: Any = None) -> Any:
        """MQSTAT: the reconnection types answered here, as by IBM's client for a connection
        that is connected and not reconnecting (mqpy's client connections do not reconnect);
        MQSTAT_TYPE_ASYNC_ERROR by the queue manager."""
        if status_type in asyncput.RECONNECTION_TYPES:
            return asyncput.connected_status(sts)
        return super().stat(status_type, sts)

    def wake_waiting_get(self) -> None:
        """MQCTL STOP / SUSPEND or MQDISC from another thread while the dispatcher's get
        waits: the CONN_STATE flow (``mqpy.connstate``) of this conversation, written beside
        that call, not under its lock (which the waiting get holds); the instance never
        interleaves two threads' flows (``ChannelInstance._write``). On TLS too: the waiting
        get's thread waits in select, not in the session, so the flow takes its turn at
        once (``ChannelInstance._write``: a TLS session's reads and writes go in turn)."""
        instance = self._instance
        if instance is not None:
            try:
                instance._write(connstate.flow(self._conv.conv_id))
            except (OSError, ValueError):
                pass  # broken: the waiting get finds that out

    def _stream_conv_id(self) -> int | None:
        return self._conv.conv_id

    def _stream_send(self, data: bytes) -> None:
        """Read ahead's request, written without waiting for its answer."""
        self._stream_io(lambda instance: instance._write(data))

    def _stream_pump(self) -> None:
        """Wait for read ahead's answers (``ChannelInstance.pump``)."""
        self._stream_io(lambda instance: instance.pump(self._conv))

    def _stream_io(self, io: Any) -> None:
        if self._collected:
            self._close_collected()
        with self._lock:
            instance = self._usable_instance()
            try:
                io(instance)
            except (OSError, ValueError, ProtocolError, InstanceLost):
                self._lost()
                raise _fail(CMQC.MQRC_CONNECTION_BROKEN) from None

    def _lost(self) -> None:
        self._ra_forget()
        instance, self._instance = self._instance, None
        self.broken = True
        self.connected = False
        if instance is None:
            return
        if self._conv.ended:  # the queue manager ended this conversation alone (END_CONV)
            if instance.end_conversation(self._conv):
                instance.close()
            return
        instance.end_conversation(self._conv)
        instance._lost()

    def _forget(self, disconnected: bool = False) -> None:
        """End this conversation (``disconnected``: its MQDISC done, END_CONV follows);
        close the socket if it was the last."""
        self._ra_forget()  # what read ahead had buffered is lost
        instance, self._instance = self._instance, None
        self.connected = False
        if instance is None:
            return
        last = instance.end_conversation(self._conv)
        if disconnected:
            instance.end_conv(self._conv, last)
        if last:
            instance.close()

    def _check_length(self, data: bytes) -> None:
        instance = self._instance
        if instance is not None and len(data) > instance.max_msg_size:
            raise _fail(CMQC.MQRC_DATA_LENGTH_ERROR)

    # -- the MQI: mqpy.fap.mqicalls ----------------------------------------------------------------

    def disconnect(self) -> None:
        """MQDISC: the queue manager commits an open unit of work, as on a normal end."""
        if self._instance is None:
            return
        self._forget_collected()
        disconnected = False
        try:
            self._call(_T.MQDISC)
            disconnected = True
        finally:
            self._forget(disconnected)

    def abend(self) -> None:
        """Drop the channel instance without MQDISC: the queue manager backs out."""
        self._ra_forget()
        instance, self._instance = self._instance, None
        self.connected = False
        if instance is not None:
            instance.end_conversation(self._conv)
            instance.close()
