"""The application side of a client connection: an Hconn's MQI over a SVRCONN channel.

A client connection is the bindings connection (``mqpy.bindings``) carried over a network
channel: the same MQI request and reply bodies (``mqpy.fap.mqiflows``) in the same segments,
on a channel instance (``mqpy.clientinstance``) found from a channel definition
(``mqpy.clientchannel``). :func:`connect` returns a :class:`ClientConnection`, which has the
engine ``Connection``'s methods, so ``mqpy.QueueManager`` and ``mqpy.Queue`` run over it
unchanged. Reason codes are IBM's (docs/client.md lists them).

A connection made with MQCNO_RECONNECT or MQCNO_RECONNECT_Q_MGR, or whose default says so
(mqclient.ini's CHANNELS DefRecon, the channel's DEFRECON: ``mqpy.reconnect``'s rules),
reconnects when its channel breaks, as IBM's client does: in the background as soon as the
channel instance is lost, after ReconDelay's waits, through its channel's connection names
and then a CCDT's other eligible entries, until MQReconnectTimeout; its object handles are
opened again and its subscriptions made again under the handles the application holds, its
calls wait meanwhile, the call in flight and the unit of work are answered as IBM documents,
and the MQCB event handler is told. Its calls take the general path (``_exchange``), never
the packed one, and its gets are not read ahead.
"""

from __future__ import annotations

import copy
import getpass
import os
import random
import sys
import threading
import time
from collections import deque
from typing import Any, NoReturn

import attrs

from mqpy import CMQC, asyncput, config, connstate, reconnect
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
from mqpy.fap.mqicalls import MQIVerbs, copy_fields
from mqpy.fap.statuscodes import ProtocolError
from mqpy.fap.tsh import ByteOrder, SegmentType
from mqpy.readahead import ReadAheadVerbs, stream_sink
from mqpy.reconnect import Mode, Outcome
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
                             ccdt_url: str | None = None, options: int = 0) -> ClientConnection:
    """MQCONN as a client, the channel found as IBM's client finds it: MQSERVER, else
    mqclient.ini's CHANNELS ServerConnectionParms; else the CCDT an MQCNO's CCDTUrl names
    (``ccdt_url``), else MQCCDTURL, else the one MQCHLLIB and MQCHLTAB (or the stanza's
    ChannelDefinitionDirectory and ChannelDefinitionFile) name (2058 when none is set).
    ``options``: the MQCNO's (its reconnect options: :func:`connect`); a reconnection tries
    the CCDT's eligible entries in the same order."""
    ini = config.client_channels()
    mqserver = os.environ.get("MQSERVER", "").strip() \
        or (ini.server_connection_parms or "").strip()
    if mqserver:
        return connect(qmgr, parse_mqserver(mqserver), user, password, options=options)
    url = (ccdt_url or os.environ.get("MQCCDTURL", "")).strip() or ini.ccdt_file(os.environ)
    if not url:
        raise _fail(CMQC.MQRC_Q_MGR_NAME_ERROR)
    candidates = select_from_ccdt(load_ccdt(url), qmgr)
    if not candidates:
        raise _fail(CMQC.MQRC_Q_MGR_NAME_ERROR)
    last: MQMIError | None = None
    for i, definition in enumerate(candidates):
        try:
            return connect(qmgr, definition, user, password, options=options,
                           alternatives=candidates[i + 1:] + candidates[:i])
        except MQMIError as e:
            last = e
    assert last is not None
    raise last


def connect(qmgr: str, definition: ChannelDefinition, user: str | None = None,
            password: str | None = None, *, options: int = 0,
            alternatives: list[ChannelDefinition] | None = None) -> ClientConnection:
    """MQCONN to ``qmgr`` through the client channel ``definition``.

    Before the MQCONN the conversation flows USERID_DATA with this process's user id
    (CHLAUTH's CLNTUSER) and, when ``user`` is given, CONAUTH_INFO with the MQCSP user id
    and ``password`` (the queue manager's CONNAUTH checks them; ``mqpy.fap.userid``).

    ``options`` are the MQCNO's: with mqclient.ini's CHANNELS DefRecon and the channel's
    DEFRECON they say whether the connection reconnects when it breaks
    (``mqpy.reconnect.resolve_mode``); a reconnection tries ``definition``'s connection
    names in order, then those of ``alternatives`` (a CCDT's other eligible entries)."""
    if not definition.channel:
        raise _fail(CMQC.MQRC_CHANNEL_CONFIG_ERROR)
    qmgr = text_field(text_value(qmgr), CMQC.MQ_Q_MGR_NAME_LENGTH, CMQC.MQRC_Q_MGR_NAME_ERROR)
    ini = config.client_channels()
    mode = reconnect.resolve_mode(options, reconnect.mode_of_defrecon(ini.def_recon),
                                  reconnect.mode_of_defrecon(definition.def_reconnect))
    instance, conv = conversation_on(definition, qmgr)
    conn = ClientConnection(instance, conv, qmgr)
    _start_conversation(conn, qmgr, user, password, options)
    if mode.reconnects:
        conn._recon = _Reconnection(mode, [definition, *(alternatives or ())], qmgr, user,
                                    password, _timeout_of(ini.reconnect_timeout),
                                    reconnect.parse_recon_delay(ini.recon_delay),
                                    conn.qmgr_name, instance.qmid, options=options)
    return conn


def _start_conversation(conn: ClientConnection, qmgr: str, user: str | None,
                        password: str | None, options: int = 0) -> None:
    """The user-id flows and the MQCONN on ``conn``'s new conversation; its Hconn and the
    queue manager's name set. MQMIError (the conversation forgotten) when it fails.

    The MQCONN carries the MQCNO ``options`` in its Options field, as IBM's client sends
    them; the queue manager acts on the accounting ones only."""
    instance, conv = conn._instance, conn._conv
    assert instance is not None
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
        reply = conn._exchange_once(_T.MQCONN, [(qmgr, _appl_name(), options)], 0, ())
    except MQMIError:
        conn._forget()
        raise
    conn.hconn = reply.hobj
    conn.qmgr_name = reply.values[0][0] if reply.values else qmgr


def _timeout_of(text: str | None) -> float:
    """MQReconnectTimeout (seconds); the default when unset or not a number."""
    try:
        value = float(text) if text is not None and text.strip() else reconnect.DEFAULT_TIMEOUT
    except ValueError:
        return reconnect.DEFAULT_TIMEOUT
    return max(value, 0.0)


# ---------------------------------------------------------------------------- reconnection

_CONNECTED, _RECONNECTING, _FAILED_STATE = "CONNECTED", "RECONNECTING", "FAILED"
#: the queue manager ended without asking its clients to reconnect (a plain endmqm)
_ENDED_STATE = "ENDED"
_OO_GETS = CMQC.MQOO_INPUT_AS_Q_DEF | CMQC.MQOO_INPUT_SHARED | CMQC.MQOO_INPUT_EXCLUSIVE \
    | CMQC.MQOO_BROWSE


@attrs.define
class _OpenObject:
    """An object handle of a reconnectable connection: what re-opens it, and the queue
    manager's handle for it now."""

    od: Any  #: None: a subscription's handle, or its managed destination's (MQSUB's)
    options: int
    server: int


@attrs.define
class _Subscription:
    """A subscription of a reconnectable connection: the MQSD it was made with, the
    destination handle the application gave (MQHO_NONE: managed), and the application's
    handles for its managed destination and for the subscription."""

    sd: Any
    given: int
    destination: int


@attrs.define(eq=False)
class _Reconnection:
    """A reconnectable connection's state (``mqpy.reconnect`` decides, this remembers)."""

    mode: Mode
    candidates: list[ChannelDefinition]
    qmgr: str  #: the name MQCONN asked for
    user: str | None
    password: str | None
    timeout: float
    table: tuple[tuple[int, int], ...]
    connected_to: str  #: the queue manager first connected to (MQCNO_RECONNECT_Q_MGR)
    #: its QMID, as its INITIAL_DATA said ("" from one that says none: then its name counts)
    connected_qmid: str
    state: str = _CONNECTED
    #: the application's object handles (by the handle it was given)
    objects: dict[int, _OpenObject] = attrs.Factory(dict)
    #: its subscriptions, by the application's subscription handle
    subscriptions: dict[int, _Subscription] = attrs.Factory(dict)
    broken_at: float | None = None
    #: a unit of work is open, and holds a put of a message that may be persistent
    in_uow: bool = False
    uow_persistent: bool = False
    #: a reconnection backed the open unit of work out: MQCMIT / MQBACK end it
    backed_out: bool = False
    #: MQDISC was made: a reconnection in progress stops
    closed: bool = False
    #: reconnecting in the background, started when the channel instance was lost
    background: Any = None
    #: the last reconnection's failure: (CompCode, Reason, object name) for MQSTAT
    last_error: tuple[int, int, str] = (CMQC.MQCC_OK, CMQC.MQRC_NONE, "")
    reconnector: int | None = None  #: the thread reconnecting
    lock: Any = attrs.Factory(threading.RLock)
    options: int = 0  #: the MQCONNX's MQCNO options, which each reconnection's MQCONN sends
    next_handle: int = 1 << 24  #: application handles made when the queue manager's clash

    def new_handle(self) -> int:
        while self.next_handle in self.objects:
            self.next_handle += 1
        self.next_handle += 1
        return self.next_handle - 1

    def handle_for(self, server: int, od: Any, options: int) -> int:
        """The application's handle for the queue manager's handle ``server`` (the same
        number unless the application already has it), noted."""
        app = server if server not in self.objects else self.new_handle()
        self.objects[app] = _OpenObject(od, options, server)
        return app

    def server_handle(self, hobj: int) -> int:
        obj = self.objects.get(hobj) if hobj else None
        return hobj if obj is None else obj.server


class _NotConnected(MQMIError):
    """A reconnectable connection found broken before its call was sent."""


class _ReopenFailed(MQMIError):
    """An object did not open again after a reconnection: the reconnection fails."""

    def __init__(self, comp: int, reason: int, object_name: str) -> None:
        super().__init__(comp, reason)
        self.object_name = object_name


def _copied(struct: Any) -> Any:
    """A copy of an MQOD or MQSD as the application gave it, its MQCHARV strings (kept
    beside the fields) too."""
    if not hasattr(struct, "copy"):
        return copy.copy(struct)
    new = struct.copy()
    for key, value in struct.__dict__.items():
        if key not in new.__dict__:
            new.__dict__[key] = copy.copy(value)
    return new


def _md_opts(verb: SegmentType, values: Any) -> tuple[Any, Any]:
    """The MQMD and MQPMO / MQGMO of an MQPUT, MQPUT1 or MQGET request's ``values``."""
    try:
        if verb is _T.MQPUT or verb is _T.MQGET:
            return values[0], values[1]
        if verb is _T.MQPUT1:
            return values[1], values[2]
    except (IndexError, TypeError):
        pass
    return None, None


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
        conv.on_lost = self._instance_lost
        conv.on_quiescing = self._qmgr_quiescing
        self._lock = threading.Lock()
        self._collected = deque()
        self._templates = Templates()  # (mqpy.clientcalls: the usual calls' kept requests)
        self.qmgr_name = qmgr_name
        self.hconn = 0
        self.connected = True
        self.broken = False
        #: a reconnectable connection's state (None: it does not reconnect)
        self._recon: _Reconnection | None = None
        self._losses = 0  #: how many times its channel instance was lost
        #: told ``(reason, comp)`` of reconnection events (the MQCB event handler's)
        self.event_handler: Any = None
        #: the event handler was told that the queue manager quiesces (once a connection)
        self._told_quiescing = False

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
        instance = self._instance
        if self._recon is not None:
            if instance is not None and instance.peer_closed():
                self._lost()  # lost between calls
                instance = None
            if instance is None and self.broken:
                raise _NotConnected(_FAILED, CMQC.MQRC_CONNECTION_BROKEN)
        if instance is None:
            raise _fail(CMQC.MQRC_CONNECTION_BROKEN if self.broken else CMQC.MQRC_HCONN_ERROR)
        return instance

    def _exchange(self, verb: SegmentType, values: Any, hobj: int,
                  into: tuple[Any, ...], targets: tuple[Any, ...] = ()) -> mqiflows.Decoded:
        """:meth:`_exchange_once`; on a reconnectable connection, through
        :meth:`_reconnecting_call`."""
        recon = self._recon
        if recon is None or recon.reconnector == threading.get_ident():
            return self._exchange_once(verb, values, hobj, into, targets)
        return self._reconnecting_call(verb, values, hobj, lambda server: self._exchange_once(
            verb, values, server, into, targets))

    def _exchange_once(self, verb: SegmentType, values: Any, hobj: int,
                       into: tuple[Any, ...], targets: tuple[Any, ...] = ()
                       ) -> mqiflows.Decoded:
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
        recon = self._recon
        if recon is None or recon.reconnector == threading.get_ident():
            self._send_only_once(verb, values, hobj)
            return
        self._reconnecting_call(verb, values, hobj, lambda server: self._send_only_once(
            verb, values, server))

    def _send_only_once(self, verb: SegmentType, values: Any, hobj: int) -> None:
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
        """MQSTAT: the reconnection types answered here, as by IBM's client (a connection
        that does not reconnect is connected: MQCC_OK); MQSTAT_TYPE_ASYNC_ERROR by the
        queue manager. MQSTAT_TYPE_RECONNECTION: MQRC_RECONNECTING (MQCC_WARNING) while the
        connection reconnects, MQRC_RECONNECT_FAILED once it gave up; _RECONNECTION_ERROR:
        the last failure of a reconnection attempt, with the object that did not re-open."""
        if status_type not in asyncput.RECONNECTION_TYPES:
            return super().stat(status_type, sts)
        sts = asyncput.connected_status(sts)
        recon = self._recon
        if recon is None:
            return sts
        if status_type == CMQC.MQSTAT_TYPE_RECONNECTION:
            if recon.state == _RECONNECTING:
                sts.set(CompCode=CMQC.MQCC_WARNING, Reason=CMQC.MQRC_RECONNECTING)
            elif recon.state == _FAILED_STATE:
                sts.set(CompCode=_FAILED, Reason=CMQC.MQRC_RECONNECT_FAILED)
            return sts
        comp, reason, name = recon.last_error
        sts.set(CompCode=comp, Reason=reason, ObjectName=name.encode("latin-1", "replace"))
        return sts

    # -- reconnection (mqpy.reconnect's rules) ----------------------------------------------

    def open(self, od: Any, options: int) -> int:
        """MQOPEN; a reconnectable connection remembers the MQOD and options to re-open the
        object after a reconnection, and gives the application a handle of its own when the
        queue manager's is one it already has. (Its gets are not read ahead: what a read
        ahead buffer held would be lost with the connection.)"""
        recon = self._recon
        if recon is None:
            return super().open(od, options)
        if options & _OO_GETS:
            options = (options & ~CMQC.MQOO_READ_AHEAD) | CMQC.MQOO_NO_READ_AHEAD
        given = _copied(od)
        return recon.handle_for(super().open(od, options), given, options)

    def close(self, hobj: int, options: int = CMQC.MQCO_NONE) -> None:
        super().close(hobj, options)
        recon = self._recon
        if recon is not None:
            recon.objects.pop(hobj, None)
            recon.subscriptions.pop(hobj, None)

    def sub(self, sd: Any, hobj: int = CMQC.MQHO_NONE) -> tuple[int, int]:
        """MQSUB; a reconnectable connection remembers the MQSD to make the subscription
        again after a reconnection (a durable one resumed), and gives handles of its own
        as :meth:`open` does."""
        recon = self._recon
        if recon is None:
            return super().sub(sd, hobj)
        given = _copied(sd)
        destination, hsub = super().sub(sd, recon.server_handle(hobj))
        if hobj == CMQC.MQHO_NONE:
            destination = recon.handle_for(destination, None, 0)
        else:
            destination = hobj
        app_hsub = recon.handle_for(hsub, None, 0)
        recon.subscriptions[app_hsub] = _Subscription(given, hobj, destination)
        return destination, app_hsub

    def _reconnecting_call(self, verb: SegmentType, values: Any, hobj: int,
                           once: Any) -> Any:
        """``once(server_hobj)`` -- the call ``verb`` with ``values`` on the application's
        handle ``hobj`` -- on a reconnectable connection: made after a reconnection when the
        connection is broken (a call waits while it reconnects), answered as
        ``mqpy.reconnect`` says when its unit of work was backed out or when the connection
        broke while it was in flight; its unit of work noted."""
        recon = self._recon
        assert recon is not None
        name = verb.name
        md, opts = _md_opts(verb, values)
        if verb is _T.MQDISC:
            try:
                return once(hobj)
            except MQMIError as e:
                if e.reason != CMQC.MQRC_CONNECTION_BROKEN:
                    raise
                return mqiflows.Decoded(verb, CMQC.MQCC_OK, CMQC.MQRC_NONE, 0, ())
        if reconnect.incompatible(name, opts):
            raise _fail(CMQC.MQRC_RECONNECT_INCOMPATIBLE)
        # the reconnection's lock held across the call: a reconnection (in the background)
        # never swaps the connection and its handles between the handle read here and the
        # request sent, which would send it to another object under a reused number
        with recon.lock:
            return self._reconnecting_call_locked(recon, verb, values, hobj, once, md, opts)

    def _reconnecting_call_locked(self, recon: _Reconnection, verb: SegmentType,
                                  values: Any, hobj: int, once: Any, md: Any,
                                  opts: Any) -> Any:
        name = verb.name
        while True:
            if recon.state != _CONNECTED or self._instance is None:
                self._reconnect()
            if recon.backed_out:
                answer = reconnect.after_backout(name, opts)
                if name in ("MQCMIT", "MQBACK"):
                    recon.backed_out = False
                if answer is not None:
                    raise MQMIError(*answer)
            obj = recon.objects.get(hobj) if hobj else None
            losses = self._losses
            try:
                result = once(hobj if obj is None else obj.server)
            except _NotConnected:
                continue
            except MQMIError as e:
                if e.reason != CMQC.MQRC_CONNECTION_BROKEN:
                    raise
                if self._losses == losses:  # the SVRCONN's: its queue manager is gone
                    with self._lock:
                        if self._losses == losses:
                            self._lost()
                outcome = reconnect.in_flight_outcome(name, md, opts, recon.uow_persistent)
                self._reconnect()
                if outcome is Outcome.RETRY:
                    continue
                self._answer_interrupted(verb, outcome)
                return mqiflows.Decoded(verb, CMQC.MQCC_OK, CMQC.MQRC_NONE, 0, ())
            self._note_unit_of_work(name, md, opts)
            return result

    def _answer_interrupted(self, verb: SegmentType, outcome: Outcome) -> None:
        """The answer to ``verb`` in flight when the connection broke, now reconnected
        (``reconnect.in_flight_outcome``): returns for DONE, else raises."""
        recon = self._recon
        assert recon is not None
        ends_unit = verb is _T.MQCMIT or verb is _T.MQBACK
        if ends_unit:
            recon.backed_out = False
        if outcome is Outcome.DONE:
            return
        if outcome is Outcome.INTERRUPTED:
            raise _fail(CMQC.MQRC_CALL_INTERRUPTED)
        raise MQMIError(CMQC.MQCC_WARNING if verb is _T.MQCMIT else _FAILED,
                        CMQC.MQRC_BACKED_OUT)

    def _note_unit_of_work(self, name: str, md: Any, opts: Any) -> None:
        recon = self._recon
        assert recon is not None
        if name in ("MQCMIT", "MQBACK"):
            recon.in_uow = recon.uow_persistent = False
        elif name in ("MQPUT", "MQPUT1") and reconnect.put_in_syncpoint(opts):
            recon.in_uow = True
            recon.uow_persistent = recon.uow_persistent or reconnect.may_be_persistent(md)
        elif name == "MQGET" and reconnect.get_in_syncpoint(opts):
            recon.in_uow = True

    def _instance_lost(self, instance: ChannelInstance) -> None:
        """The channel instance was lost (its reader saw it, or a call): a connection that
        reconnects starts at once, in the background, as IBM's client does (its event
        handler told then, MQSTAT saying so, its calls waiting); a call of the application
        finds the reconnection in progress and waits for it."""
        recon = self._recon
        if recon is None or recon.state != _CONNECTED or recon.closed \
                or self._instance is not instance or instance.qmgr_ending:
            return
        running = recon.background
        if running is not None and running.is_alive():
            return
        recon.background = threading.Thread(target=self._reconnect_in_background,
                                             args=(instance,), daemon=True,
                                             name="mqpy-client-reconnect")
        recon.background.start()

    def _qmgr_quiescing(self, instance: ChannelInstance, reconnect: bool) -> None:
        """The queue manager said, on ``instance``, that it quiesces (endmqm; IBM's STOP
        CHANNEL MODE(QUIESCE) for its client channels): the event handler is told
        MQRC_CONNECTION_QUIESCING, once. Asked to reconnect (endmqm -r,
        RECONNECT_CLIENTS), a connection that reconnects leaves the queue manager at once
        (its conversation ended, its unit of work backed out there) and reconnects in the
        background, as after a loss: to another queue manager of its channels, or to this
        one once it runs again; another is only told."""
        recon = self._recon
        if reconnect and recon is not None and recon.state == _CONNECTED \
                and not recon.closed and self._instance is instance:
            running = recon.background
            if running is None or not running.is_alive():
                recon.background = threading.Thread(
                    target=self._reconnect_in_background, args=(instance, True),
                    daemon=True, name="mqpy-client-reconnect")
                recon.background.start()
            return
        if not self._told_quiescing:
            self._told_quiescing = True
            # from a thread of its own, as the reconnection's events: this one may be a
            # call's, holding the connection the handler may call on
            threading.Thread(target=self._tell, args=(CMQC.MQRC_CONNECTION_QUIESCING, _FAILED),
                             daemon=True, name="mqpy-client-event").start()

    def _reconnect_in_background(self, instance: ChannelInstance, leave: bool = False
                                 ) -> None:
        with self._lock:
            if self._instance is not instance:
                return  # a call saw the loss first: it reconnects
            if leave:
                self._leave()
            else:
                self._lost()
        try:
            self._reconnect()
        except MQMIError:
            pass  # (the application's next call is told)

    def _leave(self) -> None:
        """Leave the channel instance for a reconnection the queue manager asked for
        (RECONNECT_CLIENTS): this conversation ended (END_CONV: the queue manager backs
        its unit of work out), the socket closed when it was the instance's last; the
        instance's other conversations go on."""
        self._ra_forget()
        self._losses += 1
        recon = self._recon
        if recon is not None and recon.broken_at is None:
            recon.broken_at = time.monotonic()
        instance, self._instance = self._instance, None
        self.broken = True
        self.connected = False
        if instance is None:
            return
        last = instance.end_conversation(self._conv)
        try:
            instance.end_conv(self._conv, last)
        except (OSError, ValueError):
            pass
        if last or not instance.tshm:
            instance.close()

    def _reconnect(self) -> None:
        """Reconnect (one thread at a time; the others wait for it): MQRC_RECONNECT_FAILED
        once it has failed."""
        recon = self._recon
        assert recon is not None
        with recon.lock:
            if recon.state == _FAILED_STATE:
                raise _fail(CMQC.MQRC_RECONNECT_FAILED)
            if recon.state == _ENDED_STATE:
                raise _fail(CMQC.MQRC_CONNECTION_BROKEN)
            if recon.state == _CONNECTED and self._instance is not None:
                return  # another thread reconnected meanwhile
            recon.reconnector = threading.get_ident()
            try:
                self._reconnect_now(recon)
            finally:
                recon.reconnector = None

    def _reconnect_now(self, recon: _Reconnection) -> None:
        """Attempts after IBM's delays (``reconnect.Schedule``) until one connects, or until
        MQReconnectTimeout has passed since the connection broke; the event handler told."""
        recon.state = _RECONNECTING
        self._tell(CMQC.MQRC_RECONNECTING, CMQC.MQCC_WARNING)
        started = recon.broken_at if recon.broken_at is not None else time.monotonic()
        schedule = reconnect.Schedule(started, recon.timeout, recon.table)
        while True:
            wait = schedule.next_wait(time.monotonic(), random.random)
            if wait is None:
                self._reconnect_failed(recon)
            time.sleep(wait)
            if recon.closed:
                raise _fail(CMQC.MQRC_HCONN_ERROR)
            if self._attempt(recon):
                break
        if recon.closed:  # MQDISC while the last attempt connected
            self._drop_new_connection()
            raise _fail(CMQC.MQRC_HCONN_ERROR)
        recon.state = _CONNECTED
        recon.broken_at = None
        recon.backed_out = recon.backed_out or recon.in_uow
        recon.in_uow = recon.uow_persistent = False
        self._tell(CMQC.MQRC_RECONNECTED, CMQC.MQCC_OK)

    def _reconnect_failed(self, recon: _Reconnection) -> NoReturn:
        recon.state = _FAILED_STATE
        if recon.last_error[0] == CMQC.MQCC_OK:
            recon.last_error = (_FAILED, CMQC.MQRC_RECONNECT_FAILED, "")
        self._tell(CMQC.MQRC_RECONNECT_FAILED, _FAILED)
        raise _fail(CMQC.MQRC_RECONNECT_FAILED)

    def _attempt(self, recon: _Reconnection) -> bool:
        """One round of the connection's channels and their connection names: True once one
        connected and its objects are open again."""
        for definition in recon.candidates:
            try:
                instance, conv = conversation_on(definition, recon.qmgr)
            except MQMIError as e:
                recon.last_error = (e.comp, e.reason, "")
                continue
            self._attach(instance, conv)
            try:
                _start_conversation(self, recon.qmgr, recon.user, recon.password, recon.options)
            except MQMIError as e:
                recon.last_error = (e.comp, e.reason, "")
                self.broken = True
                continue
            if recon.mode is Mode.QMGR and not self._same_qmgr(recon, instance):
                recon.last_error = (_FAILED, CMQC.MQRC_RECONNECT_QMID_MISMATCH, "")
                self._drop_new_connection()
                continue
            try:
                self._reopen(recon)
            except _ReopenFailed as e:
                recon.last_error = (e.comp, e.reason, e.object_name)
                self._drop_new_connection()
                self._reconnect_failed(recon)
            except MQMIError as e:
                recon.last_error = (e.comp, e.reason, "")
                self.broken = True
                continue
            return True
        return False

    def _same_qmgr(self, recon: _Reconnection, instance: ChannelInstance) -> bool:
        """MQCNO_RECONNECT_Q_MGR: whether the queue manager just reached is the one first
        connected to -- by QMID, as IBM's (a queue manager deleted and created again under
        the same name is another: MQRC_RECONNECT_QMID_MISMATCH); by name where either
        INITIAL_DATA said no QMID."""
        if recon.connected_qmid and instance.qmid:
            return instance.qmid == recon.connected_qmid
        return self.qmgr_name.strip() == recon.connected_to.strip()

    def _attach(self, instance: ChannelInstance, conv: Conversation) -> None:
        """Carry on over the conversation ``conv`` of ``instance``: what the old one had
        made for its calls (kept requests, read ahead, the objects' defaults) forgotten."""
        self._instance, self._conv = instance, conv
        conv.streamed = stream_sink(self)
        conv.on_lost = self._instance_lost
        conv.on_quiescing = self._qmgr_quiescing
        self._told_quiescing = False
        self._templates = Templates()
        self.__dict__.pop("opened_defaults", None)
        self.__dict__.pop("_async_default", None)
        self.connected = True
        self.broken = False

    def _drop_new_connection(self) -> None:
        try:
            self._exchange_once(_T.MQDISC, (), 0, ())
        except MQMIError:
            pass
        self._forget(disconnected=True)
        self.broken = True

    def _reopen(self, recon: _Reconnection) -> None:
        """MQOPEN again of every object handle the application holds, then MQSUB again of
        its subscriptions (a durable one with MQSO_RESUME: it kept its publications)."""
        for obj in list(recon.objects.values()):
            if obj.od is None:
                continue  # (a subscription's: made again below)
            try:
                obj.server = MQIVerbs.open(self, _copied(obj.od), obj.options)
            except MQMIError as e:
                if e.reason == CMQC.MQRC_CONNECTION_BROKEN:
                    raise
                raise _ReopenFailed(e.comp, e.reason, text_value(
                    getattr(obj.od, "ObjectName", ""))) from None
        for hsub, made in list(recon.subscriptions.items()):
            sd = _copied(made.sd)
            if sd.Options & CMQC.MQSO_DURABLE:
                sd.Options = (sd.Options & ~(CMQC.MQSO_CREATE | CMQC.MQSO_ALTER)) \
                    | CMQC.MQSO_RESUME
            try:
                destination, server_hsub = MQIVerbs.sub(self, sd, recon.server_handle(
                    made.given))
            except MQMIError as e:
                if e.reason == CMQC.MQRC_CONNECTION_BROKEN:
                    raise
                raise _ReopenFailed(e.comp, e.reason, text_value(
                    getattr(made.sd, "SubName", "") or "")) from None
            recon.objects[hsub].server = server_hsub
            if made.given == CMQC.MQHO_NONE and made.destination in recon.objects:
                recon.objects[made.destination].server = destination

    def _tell(self, reason: int, comp: int) -> None:
        """The event handler, told of a reconnection event (its error is its own)."""
        handler = self.event_handler
        if handler is not None:
            try:
                handler(reason, comp)
            except Exception:  # noqa: BLE001 - the application's handler: reported there
                pass

    def peer_closed(self) -> bool:
        """Whether the connection broke or its channel instance was closed by the queue
        manager (``ChannelInstance.peer_closed``) or its conversation ended there (END_CONV:
        STOP CONN), seen between calls: the event handler of
        a connection whose consumption is stopped or suspended is told
        (``mqpy.asyncconsume``). A connection that reconnects: False (its reconnection's
        events are told)."""
        if self._recon is not None:
            return False
        if self.broken:
            return True
        instance, conv = self._instance, self._conv
        if instance is None or not self.connected:
            return False
        # (the flows waiting are read first: an END_CONV among them ends the conversation)
        return instance.peer_closed() or bool(getattr(conv, "ended", False))

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
        self._losses += 1
        recon = self._recon
        if recon is not None and recon.broken_at is None:
            recon.broken_at = time.monotonic()
        if recon is not None and self._instance is not None and self._instance.qmgr_ending:
            recon.state = _ENDED_STATE
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
        """MQDISC: the queue manager commits an open unit of work, as on a normal end (on a
        connection that reconnects, a reconnection in progress stops)."""
        if self._recon is not None:
            self._recon.closed = True
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
