"""The MQI for applications, shaped like pymqi so that pymqi programs run unchanged.

``QueueManager`` is a connection (Hconn) and ``Queue`` an open object (Hobj). Both delegate to a
*backend connection*: the engine's own :class:`~mqpy.engine.connection.Connection` in embedded mode;
the bindings socket and the client channel provide objects with the same methods. Every failure
is an :class:`~mqpy.errors.MQMIError` with IBM's completion and reason codes; so is every warning,
as in pymqi.
"""

from __future__ import annotations

import os
import sys
import threading
from typing import TYPE_CHECKING, Any

from mqpy import CMQC, asyncconsume, config, localqmgrs
from mqpy.collected import closed_by_finalizer, collecting, ended_later, ender_running
from mqpy.errors import MQMIError, PYIFError
from mqpy.mqobject import MQObject
from mqpy.properties import calls
from mqpy.rfh2 import RFH2
from mqpy.structs.fields import encode_text, text_field
from mqpy.structs.mqopts import ensure_not_unicode
from mqpy.structs.mqstruct import MQStruct
from mqpy.structs.tables import CD, GMO, MD, OD, OR, PMO, STS
from mqpy.trace import TRACER
from mqpy.tracedconn import TracedConnection

if TYPE_CHECKING:
    from mqpy.bindings import BindingsConnection
    from mqpy.client import ClientConnection
    from mqpy.engine.connection import Connection
    from mqpy.engine.qmgr import QueueManagerEngine

    #: what a QueueManager's MQI calls go to: the engine's connection (embedded), the
    #: bindings socket or a client channel
    Backend = Connection | BindingsConnection | ClientConnection


def _name_bytes(name: str | bytes) -> bytes:
    return encode_text(name)


#: The longest MQCSP user id (IBM: 1024 characters; longer fails MQRC_CSP_ERROR)
CSP_USER_ID_LENGTH = 1024


def _credential_texts(user: str | bytes | None, password: str | bytes | None
                      ) -> tuple[str | None, str | None]:
    """User id and password as text: pymqi programs pass them as bytes too (IBM's older
    mq-dev-patterns samples do), read as UTF-8 (bytes that are not UTF-8 stay undecodable,
    and :func:`_check_credentials` refuses them)."""
    def text(value: str | bytes | None) -> str | None:
        if isinstance(value, (bytes, bytearray)):
            return bytes(value).decode("utf-8", "surrogateescape")
        return value

    return text(user), text(password)


def _check_credentials(user: str | None, password: str | None) -> None:
    """An MQCSP IBM refuses before it authenticates anything: a password longer than
    MQ_CSP_PASSWORD_LENGTH fails MQRC_NOT_AUTHORIZED (2035), a user id longer than 1024
    characters MQRC_CSP_ERROR, whatever the connection's kind; so does either when it is
    not text (a lone surrogate, as os.fsdecode leaves for bytes it cannot decode)."""
    if user is not None and (len(user) > CSP_USER_ID_LENGTH or not _is_text(user)):
        raise MQMIError(CMQC.MQCC_FAILED, CMQC.MQRC_CSP_ERROR)
    if password is not None and (not _is_text(password) or len(password.encode("utf-8"))
                                 > CMQC.MQ_CSP_PASSWORD_LENGTH):
        raise MQMIError(CMQC.MQCC_FAILED, CMQC.MQRC_NOT_AUTHORIZED)


def _csp_credentials(csp: Any) -> tuple[str | None, str | None]:
    """The user id and password of an MQCSP (ibmmq's CSP: fields CSPUserId, CSPPassword; a
    UserId or Password field is a mistake ibmmq names, PYIFError)."""
    for wrong, right in (("UserId", "CSPUserId"), ("Password", "CSPPassword")):
        if hasattr(csp, wrong):
            raise PYIFError(f"{wrong} field in CSP class is called {right}")
    values = [getattr(csp, field, None) for field in ("CSPUserId", "CSPPassword")]
    values = [v if isinstance(v, (str, bytes)) else None for v in values]  # a pointer's 0
    user, password = (v.decode("utf-8") if isinstance(v, bytes) else v for v in values)
    return user or None, password


#: MQCNO's options that make a shared (thread-independent) connection handle
_HANDLE_SHARE = CMQC.MQCNO_HANDLE_SHARE_BLOCK | CMQC.MQCNO_HANDLE_SHARE_NO_BLOCK
#: the MQCNO options that make a connection reconnectable (a client one only)
_RECONNECT_OPTIONS = CMQC.MQCNO_RECONNECT | CMQC.MQCNO_RECONNECT_Q_MGR
_ACCOUNTING_OPTIONS = (CMQC.MQCNO_ACCOUNTING_MQI_ENABLED | CMQC.MQCNO_ACCOUNTING_MQI_DISABLED
                       | CMQC.MQCNO_ACCOUNTING_Q_ENABLED | CMQC.MQCNO_ACCOUNTING_Q_DISABLED)


def _is_text(value: str) -> bool:
    """Can ``value`` be encoded (UTF-8, as an MQCSP travels)?"""
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def _strip(b: bytes | str) -> str:
    if isinstance(b, bytes):
        b = b.decode("latin-1")
    return b.rstrip(" \x00")


class QueueManager(MQObject):
    """pymqi.QueueManager: ``QueueManager(name)`` connects at once; ``QueueManager(None)`` later."""

    def __init__(self, name: str | bytes | None = "", disconnect_on_exit: bool = True,
                 bytes_encoding: str = "utf8", default_ccsid: int = 1208) -> None:
        self._conn: Backend | None = None
        self._name = ""
        #: the thread whose nonshared connection this is (None: none, or a shared one)
        self._nonshared_thread: int | None = None
        #: an application's connection to a queue manager of this process, traced here when
        #: strmqtrc asks (the queue manager's own, made by attach, are not)
        self._embedded = False
        #: pymqi's: a QueueManager freed while connected by its own connect call
        #: disconnects (``__del__``); one given a connection by mqpy's code never does
        self.disconnect_on_exit = disconnect_on_exit
        self._connected_here = False
        self.bytes_encoding = bytes_encoding
        self.default_ccsid = default_ccsid
        if name is not None:
            self.connect(name)

    # -- connecting -------------------------------------------------------------------
    def connect(self, name: str | bytes, *, data_path: str | None = None,
                user: str | None = None, password: str | None = None) -> QueueManager:
        """MQCONN (a nonshared connection: see :meth:`_check_already_connected`), made by
        :meth:`_connect_bindings`; the QueueManager is answered, for a ``with`` block."""
        self._check_already_connected(CMQC.MQCNO_NONE)
        self._connect_bindings(name, data_path=data_path, user=user, password=password)
        self._connected_with(CMQC.MQCNO_NONE)
        return self

    def _check_already_connected(self, opts: int) -> None:
        """IBM's MQRC_ALREADY_CONNECTED (2002, MQCC_WARNING) on Multiplatforms: a thread
        has at most one nonshared connection handle, so an MQCONN, or an MQCONNX without an
        MQCNO_HANDLE_SHARE_* option, from the thread whose nonshared connection this
        QueueManager holds is answered with that same connection (kept) and the warning,
        raised as pymqi raises it. With MQCNO_HANDLE_SHARE_BLOCK or _NO_BLOCK each call
        makes a new shared connection."""
        if opts & _HANDLE_SHARE or not self.is_connected:
            return
        if self._nonshared_thread == threading.get_ident():
            raise MQMIError(CMQC.MQCC_WARNING, CMQC.MQRC_ALREADY_CONNECTED)

    def _connected_with(self, opts: int) -> None:
        self._nonshared_thread = None if opts & _HANDLE_SHARE else threading.get_ident()
        self._connected_here = True

    def __del__(self) -> None:
        """pymqi's: a QueueManager freed while connected, by a connect call of its own and
        with ``disconnect_on_exit``, disconnects (MQDISC, which commits its unit of work)
        when its last reference goes. Freed by the cycle collector, it makes no call there:
        the connection goes to mqpy's ender thread when one runs (``mqpy.collected``), else
        it is left as it is; nor while the interpreter finalizes (the process's end ends
        it). A QueueManager mqpy's own code gave a connection (``attach``, ``embedded``)
        never disconnects here."""
        if not getattr(self, "_connected_here", False) or not self.disconnect_on_exit \
                or self.__dict__.get("_conn") is None or sys.is_finalizing():
            return
        try:
            if not collecting():
                self.disconnect()
            elif ender_running():
                conn, self._conn = self._conn, None
                ended_later(conn)
        except Exception:  # noqa: BLE001 - a finaliser must not raise
            pass

    def _connect_bindings(self, name: str | bytes, *, data_path: str | None = None,
                          user: str | None = None, password: str | None = None,
                          options: int = 0) -> None:
        """MQCONN in bindings mode: the queue manager running in this process, else the one
        serving its socket (``strmqm``); MQRC_Q_MGR_NOT_AVAILABLE when neither answers.

        As MQ's client library does, MQSERVER (``CHANNEL/TCP/host(port)``) or a JSON CCDT
        named by MQCCDTURL make this a client connection: always when MQ_CONNECT_TYPE is
        CLIENT, otherwise when no queue manager of that name answers locally.

        ``user`` / ``password`` are an MQCSP: checked by the queue manager's CONNAUTH
        (CHCKLOCL for bindings), and the connection runs as that user. ``options``: an
        MQCONNX's; its reconnect options go to a client connection, and make a bindings
        one MQRC_OPTIONS_ERROR (only client connections are reconnectable)."""
        qm = text_field(_strip(name), CMQC.MQ_Q_MGR_NAME_LENGTH, CMQC.MQRC_Q_MGR_NAME_ERROR)
        user, password = _credential_texts(user, password)
        _check_credentials(user, password)
        if os.environ.get("MQ_CONNECT_TYPE", "").strip().upper() == "CLIENT":
            self._connect_client(qm, user, password, options=options)
            return
        reconnectable = options & _RECONNECT_OPTIONS
        if reconnectable and not _client_environment():  # bindings it would be
            raise MQMIError(CMQC.MQCC_FAILED, CMQC.MQRC_OPTIONS_ERROR)
        eng = localqmgrs.running(qm, data_path) if qm else _default_running()
        if eng is None:
            # lazy: the bindings socket and its flows load only when no engine runs here
            from mqpy import bindings
            from mqpy.fap import mqiparams
            from mqpy.fap.userid import Credentials

            security = None
            if user is not None:
                security = mqiparams.ConnSecurity(Credentials(user, password or ""))
            try:
                conn = bindings.connect(qm, data_path, security=security, options=options)
            except MQMIError as e:
                if e.reason not in (CMQC.MQRC_Q_MGR_NOT_AVAILABLE, CMQC.MQRC_Q_MGR_NAME_ERROR) \
                        or not _client_environment():
                    raise
                self._connect_client(qm, user, password, options=options)
                return
            if reconnectable:  # a bindings connection it is: not reconnectable
                conn.disconnect()
                raise MQMIError(CMQC.MQCC_FAILED, CMQC.MQRC_OPTIONS_ERROR)
            self._conn = conn
            self._name = self._conn.qmgr_name
            return
        if reconnectable:
            raise MQMIError(CMQC.MQCC_FAILED, CMQC.MQRC_OPTIONS_ERROR)
        self._conn = _connect_engine(eng, user, password)
        if options & _ACCOUNTING_OPTIONS:  # the connection's accounting records (MQCNO)
            self._conn.account_as_asked(options)
        self._name = eng.name
        self._embedded = True

    def _connect_client(self, qm: str, user: str | None, password: str | None,
                        sco: Any = None, ccdt_url: str | None = None, *,
                        options: int = 0) -> None:
        """A client connection through MQSERVER or MQCCDTURL (``ccdt_url`` for ibmmq's
        MQCNO CCDTUrl). The client channel (ssl, the TLS tables, the channel's security)
        is imported here, by the programs that connect as clients, not by every MQCONN."""
        from mqpy import client

        _check_client_tls(sco)
        self._conn = client.connect_from_environment(qm, user, password, ccdt_url=ccdt_url,
                                                     options=options)
        self._name = self._conn.qmgr_name

    def connect_with_options(self, name: str | bytes, *args: Any, user: str | None = None,
                             password: str | None = None, cd: Any = None, sco: Any = None,
                             opts: int = 0, csp: Any = None, cno: Any = None,
                             bno: Any = None) -> QueueManager:
        """MQCONNX. An MQCD with a ConnectionName makes a client connection through its
        channel; MQCNO_CLIENT_BINDING one from MQSERVER / MQCCDTURL; otherwise bindings.
        pymqi's positional form ``(name, cd[, sco])`` is accepted too (and ``(name, cd,
        opts)``, an MQCNO's options where the MQSCO would be); so are
        ibmmq's ``csp`` (an MQCSP: its CSPUserId and CSPPassword are the credentials),
        ``cno`` (an MQCNO: its Options, and its CCDTUrl for a client binding) and ``bno``
        (an MQBNO: no application balancing here, as outside a uniform cluster).

        The QueueManager is answered, so that ``with qmgr.connect_with_options(...):`` (as
        pymqi's documentation writes it) disconnects at the block's end; a second
        connection from the same thread without MQCNO_HANDLE_SHARE_* is MQCC_WARNING
        MQRC_ALREADY_CONNECTED (:meth:`_check_already_connected`)."""
        if csp is not None:
            user, password = _csp_credentials(csp)
        elif user:  # pymqi's checks of user= and password=, before anything is sent
            if password is None:
                raise ValueError("Password must not be None if user is provided")
            if not (isinstance(user, (str, bytes)) and isinstance(password, (str, bytes))):
                raise ValueError("Both user and password must be instances of str or bytes")
        else:  # pymqi's: no user (None or empty) is no MQCSP, whatever the password
            user = password = None
        if cno is not None:
            opts |= getattr(cno, "Options", 0)
        user, password = _credential_texts(user, password)
        _check_credentials(user, password)
        if len(args) > 2:
            raise TypeError(f"Invalid options: {args!r}")
        if args:
            cd = args[0] if cd is None else cd
        if len(args) > 1:  # pymqi's (name, cd, sco); an int there: an older (name, cd, opts)
            if isinstance(args[1], int):
                opts = opts or args[1]
            elif sco is None:
                sco = args[1]
        self._check_already_connected(opts)
        self._connect_with_options(name, user, password, cd, sco, opts, cno)
        self._connected_with(opts)
        return self

    def _connect_with_options(self, name: str | bytes, user: str | None,
                              password: str | None, cd: Any, sco: Any, opts: int,
                              cno: Any) -> None:
        """MQCONNX's connection: a client one through ``cd``'s channel, or MQSERVER /
        MQCCDTURL's for MQCNO_CLIENT_BINDING, else bindings."""
        for struc in (cd, sco):  # an MQCD's or MQSCO's StrucId and Version: 2277, 2380
            reason = struc.header_error() if isinstance(struc, MQStruct) else 0
            if reason:
                raise MQMIError(CMQC.MQCC_FAILED, reason)
        if cd is not None and _strip(getattr(cd, "ConnectionName", b"")):
            from mqpy import client  # (see _connect_client)

            _check_client_tls(sco)
            self._conn = client.connect(_strip(name),
                                        client.ChannelDefinition.from_cd(cd, sco),
                                        user, password, options=opts)
            self._name = self._conn.qmgr_name
            return
        if opts & CMQC.MQCNO_CLIENT_BINDING:
            url = getattr(cno, "CCDTUrl", None)  # ibmmq's MQCNO CCDTUrl: the CCDT's URL
            self._connect_client(_strip(name), user, password, sco,
                                 _strip(url) if isinstance(url, (str, bytes)) else None,
                                 options=opts)
            return
        self._connect_bindings(name, user=user, password=password, options=opts)

    def connect_tcp_client(self, name: str | bytes, cd: Any, channel: str | bytes,
                           conn_name: str | bytes, user: str | None = None,
                           password: str | None = None, sco: Any = None, *, cno: Any = None,
                           csp: Any = None, bno: Any = None) -> QueueManager:
        """A client connection through a SVRCONN channel (pymqi's signature; ``sco``: an
        MQSCO whose KeyRepository serves a TLS channel; ibmmq's ``cno``, ``csp``, ``bno``
        as :meth:`connect_with_options` takes them). The QueueManager is answered, for
        pymqi's documented ``with qmgr.connect_tcp_client(...):``."""
        cd.ChannelName = _name_bytes(channel)
        cd.ConnectionName = _name_bytes(conn_name)
        return self.connect_with_options(name, user=user, password=password, cd=cd, sco=sco,
                                         cno=cno, csp=csp, bno=bno)

    def disconnect(self) -> None:
        """MQDISC: a unit of work still open is committed, as MQ does on a normal end."""
        if self._conn is None:
            raise PYIFError("not connected")
        consumers = self.__dict__.get("_consumers")
        if consumers is not None:
            consumers.stop_for_disconnect()  # MQDISC stops asynchronous consumption first
        conn = self._backend()
        self._conn = None
        calls.disconnected(self)  # its message handles go (IBM's implicit MQDLTMH)
        conn.disconnect()

    # -- asynchronous consume (mqpy.asyncconsume): IBM's ibmmq package's shape -------------
    def cb(self, operation: int = CMQC.MQOP_REGISTER, cbd: Any = None, **kw: Any) -> None:
        """MQCB of the connection: its event handler (``cbd.CallbackType`` MQCBT_EVENT_HANDLER)."""
        asyncconsume.consumers_of(self).cb(operation, cbd, CMQC.MQHO_NONE, None,
                                           kw.get("md"), kw.get("gmo"))

    def ctl(self, operation: int, ctlo: Any = None) -> None:
        """MQCTL: start, start and wait, suspend, resume or stop the connection's consumers."""
        asyncconsume.consumers_of(self).ctl(operation, ctlo)

    @property
    def is_connected(self) -> bool:
        return self._conn is not None and getattr(self._conn, "connected", True)

    def connection(self) -> Backend:
        """The connection itself (an embedded one is the engine's, never a trace wrapper):
        what mqpy's own code calls beyond the MQI (prepare, resolve, put1, abend...)."""
        if self._conn is None:
            raise MQMIError(CMQC.MQCC_FAILED, CMQC.MQRC_HCONN_ERROR)
        return self._conn

    def get_handle(self) -> int:
        """pymqi's: the connection handle (Hconn) as an integer; PYIFError when not
        connected."""
        if self._conn is None:
            raise PYIFError("not connected")
        return int(getattr(self._conn, "hconn", 0) or 0)

    def get_name(self) -> str:
        return self._name

    def _backend(self) -> Backend | TracedConnection:
        """What an MQI call goes to: the connection, or, while strmqtrc traces an embedded
        connection's queue manager, the connection wrapped to record its calls (bindings
        and client connections record their own, in mqpy.fap.mqicalls)."""
        conn = self._conn
        if conn is None:
            raise MQMIError(CMQC.MQCC_FAILED, CMQC.MQRC_HCONN_ERROR)
        consumers = self.__dict__.get("_consumers")
        if consumers is not None:  # started asynchronous consumption: 2500 for other threads
            consumers.check_caller()
        if getattr(conn, "_collected", None):  # handles the collector freed: closed first
            conn._close_collected()  # (mqpy.collected)
        if self._embedded and TRACER.active and TRACER.spec_for(self._name) is not None:
            return TracedConnection(conn, self._name)
        return conn

    def _filled(self, *structs: Any, kept: dict[str, Any] | None = None) -> None:
        """The structures a call filled in, their character fields at their MQ lengths, as
        a client connection (and pymqi) unpacks them from the reply: a connection to the
        queue manager of this process (embedded, or bindings finding it here) has the
        queue manager's names as it keeps them, unpadded; one over the bindings socket
        unpacks them as a client's does. ``kept``: the first structure's fields beyond its
        Version as they were before the call (an MQOD version 1's ResolvedQName), given
        back."""
        if self._embedded:
            for struct in structs:
                if struct is not None:
                    struct.pad_fields()
            if kept:
                structs[0].__dict__.update(kept)

    # -- units of work ----------------------------------------------------------------
    def begin(self) -> None:
        """MQBEGIN. No external resource manager takes part here, so a local connection
        gets MQCC_WARNING MQRC_NO_EXTERNAL_PARTICIPANTS (raised, as ibmmq raises it) and its
        unit of work is the queue manager's own, begun by the first call under syncpoint;
        a client connection cannot issue MQBEGIN: MQRC_ENVIRONMENT_ERROR."""
        if getattr(self._backend(), "is_client", False):
            raise MQMIError(CMQC.MQCC_FAILED, CMQC.MQRC_ENVIRONMENT_ERROR)
        raise MQMIError(CMQC.MQCC_WARNING, CMQC.MQRC_NO_EXTERNAL_PARTICIPANTS)

    def commit(self) -> None:
        self._backend().commit()

    def backout(self) -> None:
        self._backend().backout()

    # -- MQPUT1 / MQINQ -----------------------------------------------------------------
    def put1(self, qDesc: OD | str | bytes, msg: bytes | str, *opts: Any, **kw: Any) -> None:
        md, pmo = _md_and_options(opts, kw, "putOpts", "pmo")
        md = md if md is not None else MD()
        pmo = pmo if pmo is not None else PMO()
        if pmo.Version >= 3 and (pmo.OriginalMsgHandle or pmo.NewMsgHandle):
            return calls.put_with_properties(lambda *a: self.put1(qDesc, *a), self, msg, md,
                                             pmo)
        od = _as_od(qDesc)
        data = self._message_bytes(msg, md)
        saved = _ask_for_responses(od, pmo)
        kept = od.beyond_version()
        try:
            warning = self._backend().put1(od, md, pmo, data)
        finally:
            _restore(pmo, saved)
            self._filled(od, md, pmo, kept=kept)
        if warning:
            raise MQMIError(CMQC.MQCC_WARNING, warning)

    def inquire(self, attribute: Any) -> Any:
        """MQINQ on the queue manager: one selector's value, or (ibmmq) a list of
        selectors' values as a dict."""
        if isinstance(attribute, (list, tuple)):
            return {selector: self.inquire(selector) for selector in attribute}
        return self._backend().inquire_qmgr(attribute)

    def stat(self, status_type: int = CMQC.MQSTAT_TYPE_ASYNC_ERROR, sts: STS | None = None
             ) -> STS:
        """MQSTAT, as IBM's ``ibmmq`` has it: the MQSTS of ``status_type`` (for
        MQSTAT_TYPE_ASYNC_ERROR the asynchronous puts since the last MQSTAT, whose counts it
        starts again); MQMIError when the call fails."""
        return self._backend().stat(status_type, STS() if sts is None else sts)

    inq = inquire  # ibmmq's name

    def _message_bytes(self, msg: bytes | str, md: MD) -> bytes:
        """A message to put as bytes. A str is text, as pymqi has it: encoded with
        ``bytes_encoding``, and the MQMD says so (Format MQFMT_STRING, CodedCharSetId
        ``default_ccsid``), so that a receiver converting with MQGMO_CONVERT can."""
        if isinstance(msg, str):
            md.Format = CMQC.MQFMT_STRING
            md.CodedCharSetId = self.default_ccsid
        return _as_bytes(msg, self.bytes_encoding)

    def __enter__(self) -> QueueManager:
        return self

    def __exit__(self, *exc: Any) -> None:
        if self._conn is not None:
            if exc[0] is not None:
                self._conn.backout()
            self.disconnect()

    # pymqi's older (camelCase) names of the same methods
    getHandle = get_handle  # noqa: N815
    connectWithOptions = connect_with_options  # noqa: N815
    connectTCPClient = connect_tcp_client  # noqa: N815


def _default_running() -> QueueManagerEngine | None:
    name = config.default_qmgr()
    return localqmgrs.running(name) if name else None


def _md_and_options(opts: tuple, kw: dict[str, Any], options_key: str, short_key: str
                    ) -> tuple[Any, Any]:
    """put/get's optional MQMD and MQPMO / MQGMO: positional, or by pymqi's keywords
    (``mDesc``/``md``, and ``putOpts``/``pmo`` or ``getOpts``/``gmo``)."""
    md = kw.get("mDesc", kw.get("md", opts[0] if opts else None))
    options = kw.get(options_key, kw.get(short_key, opts[1] if len(opts) > 1 else None))
    return md, options


def _as_od(qDesc: OD | str | bytes | list) -> OD:
    if isinstance(qDesc, OD):
        return qDesc
    if isinstance(qDesc, (list, tuple)):
        return _list_od(qDesc)
    if isinstance(qDesc, (str, bytes)):
        name = _name_bytes(qDesc)
        if len(name.rstrip(b" \x00")) > 48:
            raise MQMIError(CMQC.MQCC_FAILED, CMQC.MQRC_OBJECT_NAME_ERROR)
        return OD(ObjectName=name)
    raise PYIFError(f"object descriptor must be a name or an OD, not {type(qDesc).__name__}")


def _list_od(destinations: list | tuple) -> OD:
    """A distribution list's MQOD (version 2) from its destinations: each an ``OR``, a queue
    name, or a (queue, queue manager) pair."""
    records = []
    for dest in destinations:
        if isinstance(dest, OR):
            records.append(dest)
        elif isinstance(dest, (str, bytes)):
            records.append(OR(ObjectName=_name_bytes(dest)))
        elif isinstance(dest, (list, tuple)) and len(dest) == 2:
            records.append(OR(ObjectName=_name_bytes(dest[0]), ObjectQMgrName=_name_bytes(dest[1])))
        else:
            raise PYIFError(f"a distribution-list destination must be a name, a (queue, "
                            f"queue manager) pair or an OR, not {dest!r}")
    if not records:
        raise MQMIError(CMQC.MQCC_FAILED, CMQC.MQRC_RECS_PRESENT_ERROR)
    return OD(Version=CMQC.MQOD_VERSION_2, RecsPresent=len(records), ObjectRecPtr=records)


def _list_warning(od: OD) -> int:
    """MQOPEN of a distribution list where some destinations opened and some did not
    completes with MQRC_MULTIPLE_REASONS (2136), a warning (the counts say which)."""
    if od.Version >= CMQC.MQOD_VERSION_2 and od.RecsPresent and od.InvalidDestCount \
            and od.KnownDestCount + od.UnknownDestCount:
        return CMQC.MQRC_MULTIPLE_REASONS
    return 0


def _ask_for_responses(od: OD | None, pmo: PMO) -> tuple[int, int] | None:
    """A put to a distribution list answers per destination in MQRRs, which the MQI returns
    only when the MQPMO has room for them (version 2, RecsPresent): make that room for the
    call; the PMO's own (Version, RecsPresent) to restore after it, or None."""
    if od is None or od.Version < CMQC.MQOD_VERSION_2 or od.RecsPresent <= 0 \
            or pmo.Version >= CMQC.MQPMO_VERSION_2 and pmo.RecsPresent:
        return None
    saved = pmo.Version, pmo.RecsPresent
    pmo.Version = max(pmo.Version, CMQC.MQPMO_VERSION_2)
    pmo.RecsPresent = od.RecsPresent
    return saved


def _restore(pmo: PMO, saved: tuple[int, int] | None) -> None:
    if saved is not None:
        pmo.Version, pmo.RecsPresent = saved


def _as_bytes(msg: bytes | str | bytearray | memoryview, encoding: str) -> bytes:
    """A message as bytes: a str encoded, a bytes-like copied; anything else is pymqi's
    TypeError, raised before any MQI call."""
    if isinstance(msg, str):
        return msg.encode(encoding)
    if isinstance(msg, (bytes, bytearray, memoryview)):
        return bytes(msg)
    raise TypeError(f"Message type is {type(msg)}. Convert to bytes.")


#: Queue.set's ``arg`` when only a dict of selectors is given (ibmmq's form)
_NO_VALUE: Any = object()


#: pymqi's PYIFError for a queue used with no descriptor (never given one, or closed)
_NO_DESCRIPTOR = "The Queue Descriptor has not been set."


class Queue(MQObject):
    """pymqi.Queue: ``Queue(qmgr, name[, open_opts])``; without options the open is lazy.

    A list of destinations in place of the name -- queue names, (queue, queue manager) pairs
    or ``OR`` records -- or an ``OD`` of version 2 with RecsPresent and ObjectRecPtr opens a
    distribution list: one put reaches them all. ``response_records`` are then the MQRRs of
    the last MQOPEN or MQPUT (a put's PMO is given RecsPresent, so that they come back over
    a client or bindings connection too); MQPMRs go in ``PMO.PutMsgRecPtr``. An open where
    only some destinations opened raises MQMIError(MQCC_WARNING, MQRC_MULTIPLE_REASONS) with
    the list open, as pymqi raises every warning.
    """

    def __init__(self, qMgr: QueueManager, *opts: Any, **kw: Any) -> None:
        if len(opts) > 2:
            raise TypeError("Too many args")  # pymqi's, before any open
        self._qmgr = qMgr
        self._hobj: int | None = None
        self._responses: Any = 0  # a distribution list's last MQRRs
        self._od: OD | None = None
        self._open_opts: int | None = None
        qdesc = kw.get("qDesc", opts[0] if len(opts) > 0 else None)
        open_opts = kw.get("openOpts", kw.get("open_opts", opts[1] if len(opts) > 1 else None))
        if qdesc is not None:
            self._od = _as_od(qdesc)
        if open_opts is not None:
            self.open(self._od, open_opts)

    def open(self, qDesc: OD | str | bytes | None, openOpts: int | None = None) -> None:
        """MQOPEN of ``qDesc`` with ``openOpts``. Without them, pymqi's deferred open: the
        descriptor is kept and the queue opened by the first put (MQOO_OUTPUT), get
        (MQOO_INPUT_AS_Q_DEF), inquire (MQOO_INQUIRE) or set (MQOO_SET)."""
        if self._hobj is not None:
            raise PYIFError("the queue is already open")
        if qDesc is not None:
            self._od = _as_od(qDesc)
        if self._od is None:
            raise PYIFError(_NO_DESCRIPTOR)
        if openOpts is None:
            return
        self._open_opts = openOpts
        kept = self._od.beyond_version()
        try:
            self._hobj = self._qmgr._backend().open(self._od, self._open_opts)
        finally:
            self._responses = self._od.ResponseRecPtr
            self._qmgr._filled(self._od, kept=kept)
        warning = _list_warning(self._od)
        if warning:
            raise MQMIError(CMQC.MQCC_WARNING, warning)

    @property
    def od(self) -> OD | None:
        """The object descriptor of the open (its counts and records, for a list)."""
        return self._od

    @property
    def response_records(self) -> list:
        """The MQRRs of the last MQOPEN or MQPUT of a distribution list ([] otherwise)."""
        records = self._responses
        return records if isinstance(records, list) else []

    def _ensure_open(self, default_opts: int) -> int:
        if self._hobj is None:
            self.open(None, default_opts)
        assert self._hobj is not None
        return self._hobj

    def put(self, msg: bytes | str, *opts: Any, **kw: Any) -> None:
        if kw:
            md, pmo = _md_and_options(opts, kw, "putOpts", "pmo")
        else:  # the usual call, positional: no keyword lookups
            md = opts[0] if opts else None
            pmo = opts[1] if len(opts) > 1 else None
        if pmo is not None and pmo.Version >= 3 and (pmo.OriginalMsgHandle or pmo.NewMsgHandle):
            return calls.put_with_properties(self.put, self._qmgr, msg, md, pmo)
        hobj = self._hobj
        if hobj is None:
            hobj = self._ensure_open(CMQC.MQOO_OUTPUT)
        if type(msg) is not bytes:
            md = md if md is not None else MD()
            msg = self._qmgr._message_bytes(msg, md)
        data = msg
        if not self._responses:  # md or pmo None: the caller keeps none to be filled in
            try:
                warning = self._qmgr._backend().put(hobj, md, pmo, data)
            finally:
                if self._qmgr._embedded:
                    self._qmgr._filled(md, pmo)
        else:  # a distribution list
            md = md if md is not None else MD()
            pmo = pmo if pmo is not None else PMO()
            saved = _ask_for_responses(self._od, pmo)
            try:
                warning = self._qmgr._backend().put(hobj, md, pmo, data)
            finally:
                _restore(pmo, saved)
                self._qmgr._filled(md, pmo)
                if isinstance(pmo.ResponseRecPtr, list):
                    self._responses = pmo.ResponseRecPtr
        if warning:
            raise MQMIError(CMQC.MQCC_WARNING, warning)

    def put1(self, msg: bytes | str, *opts: Any, **kw: Any) -> None:
        if self._od is None:
            raise PYIFError(_NO_DESCRIPTOR)
        self._qmgr.put1(self._od, msg, *opts, **kw)

    def get(self, maxLength: int | None = None, *opts: Any, **kw: Any) -> bytes:
        """MQGET. ``maxLength=None`` returns the whole message, however long."""
        if kw:
            if "max_length" in kw:
                maxLength = kw.pop("max_length")
            md, gmo = _md_and_options(opts, kw, "getOpts", "gmo")
        else:  # the usual call, positional: no keyword lookups
            md = opts[0] if opts else None
            gmo = opts[1] if len(opts) > 1 else None
        hobj = self._hobj
        if hobj is None:
            hobj = self._ensure_open(CMQC.MQOO_INPUT_AS_Q_DEF)
        try:
            if gmo is not None and gmo.Version >= 4 and gmo.MsgHandle:
                return calls.get_with_handle(
                    self._qmgr, lambda m, g: self._qmgr._backend().get(hobj, m, g, maxLength),
                    md, gmo)
            # md or gmo None: the caller keeps none to be filled in
            return self._qmgr._backend().get(hobj, md, gmo, maxLength)
        finally:
            if self._qmgr._embedded:
                self._qmgr._filled(md, gmo)

    def get_no_jms(self, max_length: int | None = None, *opts: Any, **kw: Any) -> bytes:
        """MQGET asking for no message properties (MQGMO_NO_PROPERTIES, and
        MQGMO_FAIL_IF_QUIESCING), as pymqi's: the caller's MQGMO gets the two options."""
        md, gmo = _md_and_options(opts, kw, "getOpts", "gmo")
        gmo = gmo if gmo is not None else GMO()
        gmo.Options = gmo.Options | CMQC.MQGMO_NO_PROPERTIES | CMQC.MQGMO_FAIL_IF_QUIESCING
        return self.get(kw.get("maxLength", max_length), md, gmo)

    def close(self, options: int = CMQC.MQCO_NONE) -> None:
        if self._hobj is None:
            raise PYIFError("the queue is not open")
        try:
            self._qmgr._backend().close(self._hobj, options)
        except MQMIError as e:
            if e.comp != CMQC.MQCC_WARNING or e.reason == CMQC.MQRC_READ_AHEAD_MSGS:
                raise  # not closed: the handle stays (pymqi's; IBM's for MQCO_QUIESCE)
            self._closed()
            raise  # closed with a warning (MQRC_INCOMPLETE_GROUP), as IBM's MQCLOSE
        self._closed()

    def _closed(self) -> None:
        consumers = self._qmgr.__dict__.get("_consumers")
        if consumers is not None:
            consumers.closed(self._hobj)  # its consumer is deregistered (IBM)
        self._hobj = None  # only once MQCLOSE succeeded, as pymqi
        # pymqi's close forgets the descriptor: the next put, get or inquire without an
        # open of its own is PYIFError, not a new MQOPEN of the queue closed
        self._od = self._open_opts = None

    def cb(self, operation: int = CMQC.MQOP_REGISTER, cbd: Any = None, md: MD | None = None,
           gmo: GMO | None = None) -> None:
        """MQCB of this queue's handle: a message consumer (``mqpy.asyncconsume``), as IBM's
        ibmmq package's ``Queue.cb``."""
        hobj = self._ensure_open(CMQC.MQOO_INPUT_AS_Q_DEF)
        asyncconsume.consumers_of(self._qmgr).cb(operation, cbd, hobj, self, md, gmo)

    def inquire(self, attribute: Any) -> Any:
        """MQINQ: one selector's value, or (ibmmq) a list of selectors' values as a dict."""
        if isinstance(attribute, (list, tuple)):
            return {selector: self.inquire(selector) for selector in attribute}
        hobj = self._ensure_open(CMQC.MQOO_INQUIRE)
        return self._qmgr._backend().inquire(hobj, attribute)

    inq = inquire  # ibmmq's name

    def set(self, attribute: Any, arg: Any = _NO_VALUE) -> None:
        """MQSET: pymqi's ``set(attribute, arg)``, or ibmmq's ``set({selector: value,
        ...})``: one MQSET, which the queue manager makes all or none (a selector it cannot
        set, or a value its attribute does not take, fails the call with nothing set)."""
        if arg is _NO_VALUE and isinstance(attribute, dict):
            selectors = list(attribute.items())
        elif arg is not _NO_VALUE:
            selectors = [(attribute, arg)]
        else:
            raise TypeError("set() takes a selector and its value, or a dict of them")
        hobj = self._ensure_open(CMQC.MQOO_SET)
        self._qmgr._backend().set_many(hobj, selectors)

    def get_handle(self) -> int | None:
        return self._hobj

    def get_name(self) -> str:
        """ibmmq's: the queue's name, from its OD (the dynamic queue's own once a model
        queue is open), as a str without the padding."""
        name = self._od.ObjectName if self._od is not None else b""
        return str(self.to_string(name)).strip()

    def get_queue_manager(self) -> QueueManager:
        """ibmmq's: the QueueManager the queue was made with."""
        return self._qmgr

    def __del__(self) -> None:
        """pymqi's: a Queue collected while open closes its handle; a failure (the
        connection already ended, which closed it) is not the collector's to raise."""
        if getattr(self, "_hobj", None) is not None:
            try:
                if closed_by_finalizer(self._qmgr._conn, self._hobj):  # (mqpy.collected)
                    self._hobj = None
                    return
                self.close()
            except (MQMIError, PYIFError, OSError):
                pass

    def __enter__(self) -> Queue:
        return self

    def __exit__(self, *exc: Any) -> None:
        if self._hobj is not None:
            self.close()

    # -- pymqi's RFH2 helpers and handle setter ---------------------------------------------
    def put_rfh2(self, msg: bytes, *opts: Any) -> None:
        """pymqi's ``put_rfh2(msg[, md, pmo, [rfh2, ...]])``: MQPUT of the MQRFH2 headers
        in the list, then ``msg``. Each header is packed in the Encoding of what precedes it
        (the MQMD's for the first); MD.Format and each header's Format must already name
        what follows, as in pymqi."""
        ensure_not_unicode(msg)
        if len(opts) < 3:
            self.put(msg, *opts)
            return
        headers = opts[2]
        if headers is not None:
            if not isinstance(headers, list):
                raise TypeError("Third item of opts should be a list.")
            encoding = opts[0]["Encoding"] if opts[0] is not None else CMQC.MQENC_NATIVE
            packed = []
            for header in headers:
                if header is not None:
                    packed.append(header.pack(encoding))
                    encoding = header["Encoding"]
            msg = b"".join(packed) + msg
        self.put(msg, *opts[0:2])

    def get_rfh2(self, max_length: int | None = None, *opts: Any) -> bytes:
        """pymqi's ``get_rfh2([max_length[, md, gmo, headers]])``: MQGET, then every MQRFH2
        at the front of the message (while the Format before it is MQFMT_RF_HEADER_2) is
        unpacked, appended to the list ``headers`` and cut off; the rest is returned."""
        if len(opts) < 3:
            return self.get(max_length, *opts)
        headers = opts[2]
        if headers is None:
            raise AttributeError("get_opts cannot be None if passed.")
        if not isinstance(headers, list):
            raise TypeError("Third item of opts should be a list.")
        md = opts[0] if opts[0] is not None else MD()
        msg = self.get(max_length, md, opts[1])
        found = []
        fmt, encoding = md["Format"], md["Encoding"]
        while fmt.ljust(8) == CMQC.MQFMT_RF_HEADER_2:
            header = RFH2()
            header.unpack(msg, encoding)
            found.append(header)
            msg = msg[header["StrucLength"]:]
            fmt, encoding = header["Format"], header["Encoding"]
        headers.extend(found)
        return msg

    def get_no_rfh2(self, max_length: int | None = None, *opts: Any, **kw: Any) -> bytes:
        """pymqi's alias of ``get_no_jms``."""
        return self.get_no_jms(max_length, *opts, **kw)

    def set_handle(self, queue_handle: int | None) -> None:
        """Adopt an object handle from an earlier MQI call (pymqi's ``set_handle``)."""
        self._hobj = queue_handle


def _client_environment() -> bool:
    """True when MQSERVER, MQCCDTURL, MQCHLLIB or MQCHLTAB, or mqclient.ini's CHANNELS
    stanza, names somewhere a client connection can go: where an MQCONN that finds no queue
    manager here goes as a client, as IBM's client library does."""
    if any(os.environ.get(name, "").strip()
           for name in ("MQSERVER", "MQCCDTURL", "MQCHLLIB", "MQCHLTAB")):
        return True
    ini = config.client_channels()
    return bool((ini.server_connection_parms or "").strip() or ini.ccdt_file({}))


def _check_client_tls(sco: Any) -> None:
    """MQCONN(X) of a client: a secret key reset count (MQSCO.KeyResetCount, MQSSLRESET)
    outside 0..999 999 999 fails with MQRC_SSL_KEY_RESET_ERROR (2409), as IBM's client
    does. A valid count is accepted; mqpy never resets the key (``mqpy.fap.tls``)."""
    from mqpy.fap import tls  # lazy: the TLS tables load only for a client connection

    if tls.client_key_reset_count(sco, os.environ) is None:
        raise MQMIError(CMQC.MQCC_FAILED, CMQC.MQRC_SSL_KEY_RESET_ERROR)


def connect(queue_manager: str | bytes = "", channel: str | bytes | None = None,
            conn_info: str | bytes | None = None, user: str | None = None,
            password: str | None = None, disconnect_on_exit: bool = True,
            bytes_encoding: str = "utf8", default_ccsid: int = 1208, cd: Any = None,
            cno: Any = None, csp: Any = None, sco: Any = None, bno: Any = None
            ) -> QueueManager:
    """pymqi.connect: a client connection with a channel and a ``host(port)`` connection
    name, else MQCONN (bindings, or MQSERVER / MQCCDTURL as :meth:`QueueManager.connect`);
    ibmmq's ``cd``, ``cno``, ``csp``, ``sco``, ``bno`` go to MQCONNX. No queue manager name
    (None) and no channel is pymqi's TypeError."""
    if queue_manager is None and not (channel and conn_info):
        raise TypeError(f"Invalid arguments: {[queue_manager, channel, conn_info, user]!r}")
    qm = QueueManager(None, disconnect_on_exit, bytes_encoding=bytes_encoding,
                      default_ccsid=default_ccsid)
    if channel and conn_info:
        qm.connect_tcp_client(queue_manager or "", cd or CD(), channel, conn_info, user, password,
                              sco, cno=cno, csp=csp, bno=bno)
        return qm
    if any(s is not None for s in (cd, cno, csp, sco, bno)):
        qm.connect_with_options(queue_manager, user=user, password=password, cd=cd, sco=sco,
                                csp=csp, cno=cno, bno=bno)
        return qm
    if not user:  # pymqi's: no user (None or empty) is no credentials
        user = password = None
    qm.connect(queue_manager, user=user, password=password)
    return qm


def attach(engine: QueueManagerEngine) -> QueueManager:
    """A pymqi-shaped QueueManager connected to an engine of this process (the queue
    manager's own connection: not in an application's trace)."""
    qm = QueueManager(None)
    qm._conn = engine.connect()
    qm._conn.account_as_asked(None)  # (the queue manager's own work writes no accounting)
    qm._conn.process_id = os.getpid()  # (DISPLAY CONN's PID: this process's own)
    qm._name = engine.name
    return qm


def _connect_engine(eng: QueueManagerEngine, user: str | None = None,
                    password: str | None = None) -> Connection:
    """MQCONN to a queue manager of this process (traced as a bindings MQCONN is)."""
    def connect() -> Connection:
        if user is not None:
            return eng.connect(user=user, password=password or "")
        return eng.connect()

    if TRACER.spec_for(eng.name) is None:
        conn = connect()
    else:
        conn = TRACER.call(eng.name, "MQCONN", 0, (), connect)
    conn.process_id = os.getpid()  # the application's process (DISPLAY CONN's PID)
    return conn


# -- pymqi's module-level helpers ---------------------------------------------------------


class default:  # noqa: N801 - pymqi's name
    """pymqi's defaults for text given as str: encoded as ``bytes_encoding``, announced
    as ``ccsid`` (QueueManager's bytes_encoding / default_ccsid); ibmmq's ``mqi_encoding``
    for str given for an MQCHAR field."""

    ccsid = 1208
    bytes_encoding = "utf8"
    mqi_encoding = "ascii"


def is_unicode(s: Any) -> bool:
    """True for a str (text that must be encoded before it travels)."""
    return isinstance(s, str)


def ensure_bytes(s: Any, encoding: str = "ascii") -> Any:
    """A str encoded as ``encoding``; anything else unchanged (pymqi's helper)."""
    return s.encode(encoding) if isinstance(s, str) else s


def make_q_desc(qDescOrString: OD | str | bytes) -> OD:  # noqa: N803 - pymqi's name
    """An MQOD for a queue name; an OD is returned as it is."""
    return _as_od(qDescOrString) if isinstance(qDescOrString, (str, bytes)) else qDescOrString


def common_q_args(*opts: Any) -> tuple[MD, Any]:
    """(md, options) from put/get's optional arguments: a fresh MD when none is given, the
    PMO / GMO or None. More than two is a TypeError, as in pymqi."""
    if len(opts) > 2:
        raise TypeError("Too many args")
    md = opts[0] if opts else None
    options = opts[1] if len(opts) == 2 else None
    return (md if md is not None else MD()), options


makeQDesc = make_q_desc  # noqa: N816 - pymqi's older names
commonQArgs = common_q_args  # noqa: N816
