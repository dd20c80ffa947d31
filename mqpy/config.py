"""Where queue managers live, and their configuration files (mqs.ini, qm.ini).

The data root is ``--data-path`` on a command, else ``$MQPY_DATA_PATH``, else a per-user
directory (``$XDG_DATA_HOME/mqpy`` or ``~/.local/share/mqpy``). Below it, as in IBM MQ:
``mqs.ini`` lists the queue managers and names the default one, ``qmgrs/<dir>/`` holds one queue
manager (``qm.ini``, ``pageset00``..., ``log/``, ``errors/``), and ``errors/`` is the
"@SYSTEM" error directory used when no queue manager is known.

The ini files use IBM's stanza format::

    Log:
       LogPrimaryFiles=3
       LogFilePages=4096
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping

import attrs

from mqpy import filemodes, qmerrorlog
from mqpy.qmerrorlog import QMErrorLogConfig
from mqpy.qmstanzas import LogConfig, Tuning

ENV_DATA_PATH = "MQPY_DATA_PATH"
_QM_NAME = re.compile(r"^[A-Za-z0-9._%/]{1,48}$")


def data_root(explicit: str | None = None) -> str:
    if explicit:
        return os.path.abspath(explicit)
    env = os.environ.get(ENV_DATA_PATH)
    if env:
        return os.path.abspath(env)
    base = os.environ.get("XDG_DATA_HOME") or os.path.join(os.path.expanduser("~"), ".local",
                                                           "share")
    return os.path.join(base, "mqpy")


def valid_qmgr_name(name: str) -> bool:
    """IBM: up to 48 characters from A-Z a-z 0-9 . / _ %."""
    return bool(_QM_NAME.match(name))


def qmgr_dirname(name: str) -> str:
    """IBM's directory-name transformation: '.' becomes '!', '/' becomes '&'."""
    return name.replace(".", "!").replace("/", "&")


def qmgr_dir(name: str, root: str | None = None) -> str:
    return os.path.join(data_root(root), "qmgrs", qmgr_dirname(name))


def system_errors_dir(root: str | None = None) -> str:
    return os.path.join(data_root(root), "errors")


# ---------------------------------------------------------------- stanza files


def read_stanzas(path: str) -> list[tuple[str, dict[str, str]]]:
    """Parse an IBM stanza file into (stanza name, {key: value}) in file order. The file
    is read as bytes are, as MQ reads its ini files: a byte that is not UTF-8 (a comment or
    a path in another code page) is kept as it is (``surrogateescape``, which os functions
    take back to the same bytes) instead of making the file unreadable."""
    out: list[tuple[str, dict[str, str]]] = []
    if not os.path.exists(path):
        return out
    with open(path, encoding="utf-8", errors="surrogateescape") as f:
        for raw in f:
            line = raw.split("#", 1)[0].split(";", 1)[0].rstrip()
            if not line.strip():
                continue
            if not raw[:1].isspace() and line.endswith(":"):
                out.append((line[:-1].strip(), {}))
            elif "=" in line and out:
                k, v = line.split("=", 1)
                _set(out[-1][1], k.strip(), v.strip())
    return out


def _set(values: dict[str, str], key: str, value: str) -> None:
    """``values[key] = value``, replacing the key in any other case (IBM reads keys so)."""
    for old in [k for k in values if k.lower() == key.lower() and k != key]:
        del values[old]
    values[key] = value


def _get(values: dict[str, str], key: str) -> str | None:
    """``values[key]``, the key matched whatever its case, as IBM reads qm.ini."""
    return next((v for k, v in values.items() if k.lower() == key.lower()), None)


def write_stanzas(path: str, stanzas: list[tuple[str, dict[str, str]]]) -> None:
    lines = []
    for name, values in stanzas:
        lines.append(f"{name}:")
        lines += [f"   {k}={v}" for k, v in values.items()]
    tmp = path + ".tmp"
    with filemodes.open_file(tmp, "w", encoding="utf-8", errors="surrogateescape") as f:
        f.write("\n".join(lines) + "\n")
        f.flush()
        os.fsync(f.fileno())
    os.replace(tmp, path)


def stanza(stanzas: list[tuple[str, dict[str, str]]], name: str) -> dict[str, str]:
    """Every stanza ``name`` (whatever its case: IBM's sample qm.ini writes CHANNELS:) merged
    in file order, a key given again taking the later value. IBM MQ reads a stanza written
    twice so since APAR IT34389 (a second Channels, SSL, TCP ... stanza had been ignored);
    for the stanzas that name one thing each (QueueManager in mqs.ini) read the list."""
    merged: dict[str, str] = {}
    for n, values in stanzas:
        if n.lower() == name.lower():
            for key, value in values.items():
                _set(merged, key, value)
    return merged


#: qm.ini Channels: MQIBindType's values (IBM's: FASTPATH|STANDARD, STANDARD the default).
BIND_TYPES = ("FASTPATH", "STANDARD")
#: qm.ini Channels: PipeLineLength: 1 (the default) no pipelining; any value above 1 is 2.
PIPELINE_DEFAULT = 1


@attrs.frozen
class PeerLimits:
    """What a peer that has not authenticated yet may hold of a queue manager: qm.ini's
    Channels stanza keys (IBM has none for this; named in its style), mqpy's defaults.

    A TCP connection is *unauthenticated* from its accept until its channel is admitted (a
    message channel once CHLAUTH accepted its INITIAL_DATA, a SVRCONN once its first MQCONN
    arrived); a bindings connection until its MQCONN arrived. Each limit, when it acts,
    writes an AMQ message to the error log and closes that connection only."""

    #: MaxUnauthChannels: unauthenticated TCP connections of the listener process in all
    max_unauth_channels: int = 100
    #: MaxUnauthChannelsPerAddress: of them, from one peer address
    max_unauth_channels_per_address: int = 20
    #: MaxUnauthBytes: bytes of unfinished flows one connection may have us hold before it
    #: authenticated (before its INITIAL_DATA is agreed only an ID's segment is taken at all)
    max_unauth_bytes: int = 65536
    #: UnauthTimeout: seconds a TCP connection may take from its accept to its admission
    unauth_timeout: int = 60
    #: MaxUnauthBindings: bindings connections without their MQCONN, in all
    max_unauth_bindings: int = 100
    #: BindingsConnectTimeout: seconds a bindings connection may take to send its MQCONN
    bindings_connect_timeout: int = 60

    @classmethod
    def parse(cls, values: dict[str, str], path: str = "qm.ini") -> PeerLimits:
        """The stanza's values for these keys (a value out of range: :class:`ConfigError`)."""
        default = cls()
        return cls(**{
            field.name: _number(path, "Channels", values, key, getattr(default, field.name))
            for field, key in zip(attrs.fields(cls), _PEER_KEYS, strict=True)})


#: PeerLimits' qm.ini keys, field by field
_PEER_KEYS = ("MaxUnauthChannels", "MaxUnauthChannelsPerAddress", "MaxUnauthBytes",
              "UnauthTimeout", "MaxUnauthBindings", "BindingsConnectTimeout")


@attrs.frozen
class ChannelsConfig:
    """qm.ini's Channels stanza as the channel initiator uses it, checked once (by
    :meth:`parse`, which :meth:`QMgrConfig.load` calls: strmqm and runmqchi refuse a value
    that is not valid, so nothing downstream has a fallback for one). IBM's defaults."""

    max_channels: int = 100
    max_active_channels: int = 100  #: MaxActiveChannels, default MaxChannels
    max_initiators: int = 3
    adopt_timeout: int = 60  #: AdoptNewMCATimeout, seconds
    #: PipeLineLength: batches a sending MCA may have in flight, 1 or 2 (IBM: "any value
    #: greater than 1 is treated as 2")
    pipeline_length: int = PIPELINE_DEFAULT
    #: MQIBindType: FASTPATH ("there is no agent process": a plain SVRCONN's socket is handed
    #: by the listener to the queue-manager process, ``mqpy_chinit.clienthost``) or STANDARD
    mqi_bind_type: str = "STANDARD"
    #: what an unauthenticated peer may hold (:class:`PeerLimits`)
    peer: PeerLimits = PeerLimits()

    @property
    def fastpath(self) -> bool:
        return self.mqi_bind_type == "FASTPATH"

    @classmethod
    def parse(cls, values: dict[str, str] | None, path: str = "qm.ini") -> ChannelsConfig:
        """The stanza's numbers (keys matched whatever their case); a value that is not a
        number in its range is a :class:`ConfigError` naming it."""
        values = values or {}

        def number(key: str, default: int) -> int:
            return _number(path, "Channels", values, key, default)

        default = cls()
        max_channels = number("MaxChannels", default.max_channels)
        return cls(max_channels=max_channels,
                   max_active_channels=number("MaxActiveChannels", max_channels),
                   max_initiators=number("MaxInitiators", default.max_initiators),
                   adopt_timeout=number("AdoptNewMCATimeout", default.adopt_timeout),
                   pipeline_length=min(number("PipeLineLength", PIPELINE_DEFAULT), 2),
                   mqi_bind_type=_choice(path, "Channels", values, "MQIBindType",
                                         BIND_TYPES, default.mqi_bind_type),
                   peer=PeerLimits.parse(values, path))


#: The Channels stanza crtmqm writes. MQIBindType=FASTPATH, where IBM's crtmqm leaves IBM's
#: STANDARD: STANDARD keeps user-written channel exits (C code) out of the queue manager's
#: processes, and mqpy runs none, so a plain client is served by the queue manager itself
#: rather than relayed through the channel initiator (docs/channels.md). A qm.ini without the
#: key, or with STANDARD, keeps the relay.
NEW_QMGR_CHANNELS = {"MaxChannels": "100", "MaxActiveChannels": "100", "AdoptNewMCA": "NO",
                     "MQIBindType": "FASTPATH"}


@attrs.define
class QMgrConfig:
    """What qm.ini says about one queue manager."""

    name: str
    directory: str
    log: LogConfig = attrs.Factory(LogConfig)
    log_path: str = ""
    tuning: Tuning = attrs.Factory(Tuning)
    channels: dict[str, str] = attrs.Factory(dict)  #: the Channels stanza as written
    raw: list = attrs.Factory(list)
    #: the Channels stanza's numbers, as load checked them
    channel_limits: ChannelsConfig = attrs.Factory(ChannelsConfig)
    #: the QMErrorLog stanza, as load checked it
    error_log: QMErrorLogConfig = attrs.Factory(QMErrorLogConfig)

    @property
    def log_dir(self) -> str:
        return self.log_path or os.path.join(self.directory, "log")

    @classmethod
    def load(cls, name: str, root: str | None = None) -> QMgrConfig:
        """qm.ini read and checked: a number that is not one, or is out of its range, is a
        :class:`ConfigError` naming the stanza, key and value (strmqm refuses to start, as
        IBM's strmqm checks its Channels stanza first)."""
        directory = qmgr_dir(name, root)
        path = os.path.join(directory, "qm.ini")
        st = read_stanzas(path)
        log = stanza(st, "Log")
        tun = stanza(st, "TuningParameters")
        cfg = cls(name, directory, raw=st)

        def number(where: str, values: dict[str, str], key: str, default: int) -> int:
            return _number(path, where, values, key, default)

        cfg.log = LogConfig(
            LogFilePages=number("Log", log, "LogFilePages", cfg.log.LogFilePages),
            LogPrimaryFiles=number("Log", log, "LogPrimaryFiles", cfg.log.LogPrimaryFiles),
            LogSecondaryFiles=number("Log", log, "LogSecondaryFiles",
                                     cfg.log.LogSecondaryFiles),
        )
        cfg.log_path = _get(log, "LogPath") or ""
        cfg.tuning = Tuning(
            LogLoad=number("TuningParameters", tun, "LogLoad", cfg.tuning.LogLoad),
            BufferPoolBytes=number("TuningParameters", tun, "BufferPoolBytes",
                                   cfg.tuning.BufferPoolBytes),
        )
        cfg.channels = stanza(st, "Channels")
        cfg.channel_limits = ChannelsConfig.parse(cfg.channels, path)
        cfg.error_log = parse_qmerrorlog(stanza(st, "QMErrorLog"), path)
        return cfg

    def save(self) -> None:
        st = [
            ("QueueManager", {"Name": self.name, "Directory": qmgr_dirname(self.name)}),
            ("Log", {"LogPrimaryFiles": str(self.log.LogPrimaryFiles),
                     "LogSecondaryFiles": str(self.log.LogSecondaryFiles),
                     "LogFilePages": str(self.log.LogFilePages),
                     "LogType": "CIRCULAR",
                     **({"LogPath": self.log_path} if self.log_path else {})}),
            ("TuningParameters", {"LogLoad": str(self.tuning.LogLoad),
                                  "BufferPoolBytes": str(self.tuning.BufferPoolBytes)}),
            ("Channels", self.channels or NEW_QMGR_CHANNELS),
        ]
        filemodes.makedirs(self.directory)
        write_stanzas(os.path.join(self.directory, "qm.ini"), st)


class ConfigError(ValueError):
    """A qm.ini value the queue manager cannot start with: a number out of ``low``..``high``,
    or, with ``choices``, a word that is none of them."""

    def __init__(self, path: str, stanza_name: str, key: str, value: str, low: int = 0,
                 high: int = 0, choices: tuple[str, ...] = ()) -> None:
        self.path, self.stanza, self.key, self.value = path, stanza_name, key, value
        self.low, self.high, self.choices = low, high, choices
        self.wanted = " or ".join(choices) if choices else f"a number from {low} to {high}"
        super().__init__(f"{path}: {stanza_name}: {key}={value} is not {self.wanted}")

    @property
    def inserts(self) -> dict[str, object]:
        """The inserts of AMQ8940E (mqpy.amqmsgs), which says this to the operator."""
        return {"path": self.path, "setting": f"{self.stanza}: {self.key}={self.value}",
                "low": self.low, "high": self.high, "wanted": self.wanted}


def log_dir_of(name: str, root: str | None = None) -> str:
    """Where a queue manager's log is (qm.ini ``Log: LogPath``), read without checking the
    numbers: dltmqm deletes a queue manager whose qm.ini strmqm would refuse."""
    directory = qmgr_dir(name, root)
    st = read_stanzas(os.path.join(directory, "qm.ini"))
    return _get(stanza(st, "Log"), "LogPath") or os.path.join(directory, "log")


#: qm.ini numbers: key -> (lowest, highest). Log: IBM's ranges (the lower LogFilePages lets
#: tests and crtmqm -lf keep logs small); Channels: IBM's ranges where documented.
_RANGES: dict[str, tuple[int, int]] = {
    "LogFilePages": (4, 65535), "LogPrimaryFiles": (1, 510), "LogSecondaryFiles": (0, 509),
    "LogLoad": (1, 999_999_999), "BufferPoolBytes": (0, 2**62),
    "MaxChannels": (1, 999_999_999), "MaxActiveChannels": (1, 999_999_999),
    "MaxInitiators": (1, 3), "AdoptNewMCATimeout": (1, 3600),
    "PipeLineLength": (1, 999_999_999),
    "MaxUnauthChannels": (1, 999_999_999), "MaxUnauthChannelsPerAddress": (1, 999_999_999),
    "MaxUnauthBytes": (4096, 104_857_600 + 65536), "UnauthTimeout": (1, 3600),
    "MaxUnauthBindings": (1, 999_999_999), "BindingsConnectTimeout": (1, 3600),
    "ErrorLogSize": qmerrorlog.ERROR_LOG_SIZE_RANGE,
    "SuppressInterval": qmerrorlog.SUPPRESS_INTERVAL_RANGE,
}


def _number(path: str, where: str, values: dict[str, str], key: str, default: int) -> int:
    """``values[key]`` as a number in its range (:data:`_RANGES`), ``default`` if absent;
    the key is matched whatever its case, as IBM reads qm.ini."""
    raw = _get(values, key)
    if raw is None:
        return default
    low, high = _RANGES[key]
    try:
        value = int(raw.strip())
    except ValueError:
        value = low - 1
    if not low <= value <= high:
        raise ConfigError(path, where, key, raw, low, high)
    return value


def _choice(path: str, where: str, values: dict[str, str], key: str,
            choices: tuple[str, ...], default: str) -> str:
    """``values[key]`` as one of ``choices`` (whatever its case, as IBM reads qm.ini),
    ``default`` if absent; another word is a :class:`ConfigError`."""
    raw = _get(values, key)
    if raw is None:
        return default
    if raw.strip().upper() not in choices:
        raise ConfigError(path, where, key, raw, choices=choices)
    return raw.strip().upper()


#: what ExcludeMessage and SuppressMessage take, as AMQ8940E says it
_NUMBER_LIST = "a comma-separated list of message numbers (such as 9001,9202)"


def _message_numbers(path: str, values: dict[str, str], key: str) -> frozenset[str]:
    """``values[key]`` as a list of AMQ message numbers, empty if absent; anything else in
    the list is a :class:`ConfigError`."""
    raw = _get(values, key)
    if raw is None:
        return frozenset()
    numbers = qmerrorlog.parse_numbers(raw)
    if numbers is None:
        raise ConfigError(path, "QMErrorLog", key, raw, choices=(_NUMBER_LIST,))
    return numbers


def parse_qmerrorlog(values: dict[str, str], path: str = "qm.ini") -> QMErrorLogConfig:
    """The QMErrorLog stanza checked (keys whatever their case): a size or interval out of
    IBM's range, or a list item that is not a message number, is a :class:`ConfigError`."""
    default = QMErrorLogConfig()
    return QMErrorLogConfig(
        error_log_size=_number(path, "QMErrorLog", values, "ErrorLogSize",
                               default.error_log_size),
        exclude=_message_numbers(path, values, "ExcludeMessage"),
        suppress=_message_numbers(path, values, "SuppressMessage"),
        suppress_interval=_number(path, "QMErrorLog", values, "SuppressInterval",
                                  default.suppress_interval))


#: qm.ini path -> (its mtime, its QMErrorLog stanza), read once a change in this process
_qmerrorlog_read: dict[str, tuple[int, QMErrorLogConfig]] = {}


def qmerrorlog_of(qmdir: str) -> QMErrorLogConfig:
    """The QMErrorLog stanza of the queue manager in ``qmdir``, for its error log: IBM's
    defaults where there is no qm.ini, no stanza, or a value strmqm would refuse (strmqm
    said so)."""
    path = os.path.join(qmdir, "qm.ini")
    try:
        mtime = os.stat(path).st_mtime_ns
        known = _qmerrorlog_read.get(path)
        if known is None or known[0] != mtime:
            rules = parse_qmerrorlog(stanza(read_stanzas(path), "QMErrorLog"), path)
            known = _qmerrorlog_read[path] = (mtime, rules)
        return known[1]
    except (ConfigError, OSError):
        return QMErrorLogConfig()


def set_channels_value(name: str, key: str, value: str, root: str | None = None) -> None:
    """Set ``key=value`` in queue manager ``name``'s qm.ini Channels: stanza (added when
    absent), leaving every other stanza and value as it is; read at the next strmqm."""
    path = os.path.join(qmgr_dir(name, root), "qm.ini")
    stanzas = read_stanzas(path)
    if not any(n.lower() == "channels" for n, _ in stanzas):
        stanzas.append(("Channels", {}))
    for n, values in stanzas:  # (every Channels stanza: read merged, see stanza)
        if n.lower() == "channels":
            _set(values, key, value)
    write_stanzas(path, stanzas)


# ---------------------------------------------------------------- mqs.ini


def mqs_ini(root: str | None = None) -> str:
    return os.path.join(data_root(root), "mqs.ini")


def list_qmgrs(root: str | None = None) -> list[str]:
    """The queue managers mqs.ini lists: a QueueManager stanza each (the stanza kind that
    repeats, one per queue manager; its name and keys whatever their case)."""
    names = (_get(v, "Name") for n, v in read_stanzas(mqs_ini(root))
             if n.lower() == "queuemanager")
    return [name for name in names if name]


def default_qmgr(root: str | None = None) -> str | None:
    d = stanza(read_stanzas(mqs_ini(root)), "DefaultQueueManager")
    return _get(d, "Name")


def register_qmgr(name: str, root: str | None = None, *, make_default: bool = False) -> None:
    st = [s for s in read_stanzas(mqs_ini(root))
          if not (s[0] == "QueueManager" and s[1].get("Name") == name)]
    if make_default:
        st = [s for s in st if s[0] != "DefaultQueueManager"]
        st.append(("DefaultQueueManager", {"Name": name}))
    st.append(("QueueManager", {"Name": name, "Prefix": data_root(root),
                                "Directory": qmgr_dirname(name)}))
    filemodes.makedirs(data_root(root))
    write_stanzas(mqs_ini(root), st)


def unregister_qmgr(name: str, root: str | None = None) -> None:
    st = [s for s in read_stanzas(mqs_ini(root))
          if s[1].get("Name") != name or s[0] not in ("QueueManager", "DefaultQueueManager")]
    write_stanzas(mqs_ini(root), st)


# ---------------------------------------------------------------- mqclient.ini


#: the environment variable naming the client configuration file (IBM's)
ENV_CLIENT_CONFIG = "MQCLNTCF"


def client_ini_path() -> str | None:
    """The client configuration file IBM's client reads: the file MQCLNTCF names, else
    mqclient.ini in the working directory, else ``$HOME/.mqclient.ini``; None when none is
    there. (IBM's client also looks in /var/mqm, the installation's data directory, which
    mqpy does not have.)"""
    named = os.environ.get(ENV_CLIENT_CONFIG, "").strip()
    if named:
        return named if os.path.isfile(named) else None
    for path in ("mqclient.ini", os.path.join(os.path.expanduser("~"), ".mqclient.ini")):
        if os.path.isfile(path):
            return path
    return None


@attrs.frozen
class ClientChannels:
    """mqclient.ini's CHANNELS values (the strings as written; None: not set): about
    reconnection DefRecon, MQReconnectTimeout (seconds) and ReconDelay; about where the
    client channel is, ServerConnectionParms (as MQSERVER), ChannelDefinitionDirectory and
    ChannelDefinitionFile (as MQCHLLIB and MQCHLTAB)."""

    def_recon: str | None = None
    reconnect_timeout: str | None = None
    recon_delay: str | None = None
    server_connection_parms: str | None = None
    channel_definition_directory: str | None = None
    channel_definition_file: str | None = None

    def ccdt_file(self, environ: Mapping[str, str]) -> str:
        """The CCDT that MQCHLLIB and MQCHLTAB name, each else this stanza's
        ChannelDefinitionDirectory and ChannelDefinitionFile (IBM's file name AMQCLCHL.TAB
        when only a directory is named); "" when neither names anything."""
        directory = environ.get("MQCHLLIB", "").strip() \
            or (self.channel_definition_directory or "").strip()
        name = environ.get("MQCHLTAB", "").strip() \
            or (self.channel_definition_file or "").strip()
        if not directory and not name:
            return ""
        return os.path.join(directory or ".", name or "AMQCLCHL.TAB")


def client_channels() -> ClientChannels:
    """The CHANNELS stanza of the client configuration file (:func:`client_ini_path`),
    read at each connection as IBM's client reads it at MQCONN; an unreadable file is as
    none."""
    path = client_ini_path()
    if path is None:
        return ClientChannels()
    try:
        values = stanza(read_stanzas(path), "CHANNELS")
    except OSError:
        return ClientChannels()
    return ClientChannels(_get(values, "DefRecon"), _get(values, "MQReconnectTimeout"),
                          _get(values, "ReconDelay"), _get(values, "ServerConnectionParms"),
                          _get(values, "ChannelDefinitionDirectory"),
                          _get(values, "ChannelDefinitionFile"))
