"""Where a client connection goes: the client-connection channel definition and its sources.

Owns ``ChannelDefinition`` (a CLNTCONN: channel, CONNAME list, HBINT, SHARECNV, MAXMSGL,
TLS, DEFRECON), made from an application's MQCD and MQSCO, from the MQSERVER environment variable
(``CHANNEL/TCP/host(port)``), or from a JSON client channel definition table (MQ 9's CCDT,
named by MQCCDTURL), and the choice among a CCDT's entries for a queue manager name. A bad
definition is MQRC_CHANNEL_CONFIG_ERROR (2539).
"""

from __future__ import annotations

import json
import os
import urllib.parse
from collections.abc import Sequence
from typing import Any

import attrs

from mqpy import CMQC, CMQXC
from mqpy.errors import MQMIError
from mqpy.fap import channeldefs as D

__all__ = [
    "CONNECT_TIMEOUT",
    "ChannelDefinition",
    "load_ccdt",
    "parse_mqserver",
    "select_from_ccdt",
    "text_value",
]

CONNECT_TIMEOUT = 20.0  #: TCP connect and the INITIAL_DATA exchange (a CCDT's URL too)


def _fail(reason: int) -> MQMIError:
    return MQMIError(CMQC.MQCC_FAILED, reason)


def text_value(value: Any) -> str:
    """An MQCD or MQCNO text field as a name: ISO 8859-1, without blanks or NULs."""
    if isinstance(value, bytes):
        value = value.decode("latin-1")
    return str(value or "").strip(" \x00")


@attrs.frozen
class ChannelDefinition:
    """A client-connection channel (CLNTCONN): where to go and what to propose."""

    channel: str
    connections: tuple[tuple[str, int], ...]
    qmgr: str = ""
    heartbeat_interval: int = 300
    sharing_conversations: int = 10
    max_msg_length: int = 4194304
    ssl_cipher_spec: str = ""  #: SSLCIPH: TLS when set (``mqpy.fap.tls``)
    ssl_peer_name: str = ""  #: SSLPEER: the queue manager certificate's DN must match
    key_repository: str = ""  #: MQSCO.KeyRepository: a directory of PEM files
    #: DEFRECON (the MQCD's DefReconnect, a CCDT's defaultReconnect): NO, YES, QMGR or
    #: DISABLED; "" when not given (``mqpy.reconnect.resolve_mode``)
    def_reconnect: str = ""

    @classmethod
    def from_cd(cls, cd: Any, sco: Any = None) -> ChannelDefinition:
        """From an MQCD (pymqi's ``CD``): ChannelName, ConnectionName and the tunables; TLS
        from SSLCipherSpec / SSLPeerName and the MQSCO's KeyRepository (else MQSSLKEYR)."""
        conname = text_value(cd.ConnectionName)
        try:
            connections = tuple(D.parse_conname(conname))
        except ValueError:
            raise _fail(CMQC.MQRC_CHANNEL_CONFIG_ERROR) from None
        return cls(channel=text_value(cd.ChannelName), connections=connections,
                   qmgr=text_value(getattr(cd, "QMgrName", "")),
                   heartbeat_interval=int(getattr(cd, "HeartbeatInterval", 300)),
                   sharing_conversations=int(getattr(cd, "SharingConversations", 10)),
                   max_msg_length=int(getattr(cd, "MaxMsgLength", 4194304)),
                   ssl_cipher_spec=text_value(getattr(cd, "SSLCipherSpec", "")),
                   ssl_peer_name=text_value(getattr(cd, "SSLPeerName", "")),
                   key_repository=text_value(getattr(sco, "KeyRepository", "")) if sco is not None
                   else os.environ.get("MQSSLKEYR", ""),
                   def_reconnect=_DEF_RECONNECT.get(getattr(cd, "DefReconnect", None), ""))


#: the MQCD's DefReconnect (MQRCN_*) as DEFRECON's values
_DEF_RECONNECT = {CMQXC.MQRCN_NO: "NO", CMQXC.MQRCN_YES: "YES", CMQXC.MQRCN_Q_MGR: "QMGR",
                  CMQXC.MQRCN_DISABLED: "DISABLED"}
#: a JSON CCDT's connectionManagement.defaultReconnect values
_CCDT_RECONNECT = {"no": "NO", "yes": "YES", "queuemanager": "QMGR", "disabled": "DISABLED"}


def parse_mqserver(value: str) -> ChannelDefinition:
    """MQSERVER: ``CHANNEL/TCP/host(port)[,host(port)...]``; 2539 when it is malformed."""
    parts = value.strip().split("/", 2)
    if len(parts) != 3 or not parts[0].strip() or parts[1].strip().upper() != "TCP":
        raise _fail(CMQC.MQRC_CHANNEL_CONFIG_ERROR)
    try:
        connections = tuple(D.parse_conname(parts[2]))
    except ValueError:
        raise _fail(CMQC.MQRC_CHANNEL_CONFIG_ERROR) from None
    return ChannelDefinition(channel=parts[0].strip(), connections=connections)


def load_ccdt(url: str) -> list[ChannelDefinition]:
    """The client-connection channels of an MQ 9 JSON CCDT (a path, file:// or http(s)://).

    An entry with ``transmissionSecurity`` is a TLS channel: its connection uses TLS with
    that CipherSpec and checks that peer name, and fails (never falls back to plaintext)
    when TLS cannot start."""
    parsed = urllib.parse.urlparse(url)
    try:
        if parsed.scheme in ("http", "https"):
            # imported here: urllib.request (http, email, ssl) is a tenth of a process's
            # start, and only a CCDT served over http needs it
            from urllib.request import urlopen

            with urlopen(url, timeout=CONNECT_TIMEOUT) as response:  # noqa: S310
                text = response.read().decode("utf-8")
        else:
            path = urllib.parse.unquote(parsed.path) if parsed.scheme == "file" else url
            with open(path, encoding="utf-8") as f:
                text = f.read()
        document = json.loads(text)
        out = []
        for entry in document.get("channel", []):
            if entry.get("type", "clientConnection") != "clientConnection":
                continue
            cc = entry.get("clientConnection", {})
            management = entry.get("connectionManagement", {})
            general = entry.get("general", {})
            connections = tuple((str(c["host"]), int(c.get("port", D.DEFAULT_PORT)))
                                for c in cc.get("connection", []))
            if not connections:
                continue
            # TLS of the entry (IBM: transmissionSecurity.cipherSpecification and
            # certificatePeerName); the key repository is MQSSLKEYR, as for any CCDT client
            security = entry.get("transmissionSecurity", {})
            out.append(ChannelDefinition(
                channel=str(entry["name"]), connections=connections,
                qmgr=str(cc.get("queueManager", "")),
                heartbeat_interval=int(management.get("heartbeatInterval", 300)),
                sharing_conversations=int(management.get("sharingConversations", 10)),
                max_msg_length=int(general.get("maximumMessageLength", 4194304)),
                ssl_cipher_spec=str(security.get("cipherSpecification", "") or "").strip(),
                ssl_peer_name=str(security.get("certificatePeerName", "") or "").strip(),
                key_repository=os.environ.get("MQSSLKEYR", ""),
                def_reconnect=_CCDT_RECONNECT.get(
                    str(management.get("defaultReconnect", "")).strip().lower(), "")))
        return out
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        raise _fail(CMQC.MQRC_CHANNEL_CONFIG_ERROR) from None


def select_from_ccdt(definitions: Sequence[ChannelDefinition], qmgr: str
                     ) -> list[ChannelDefinition]:
    """The CCDT entries eligible for MQCONN(``qmgr``), in the order MQ tries them
    (alphabetical by channel name). ``*NAME`` selects the queue-manager group NAME; a blank
    name any entry."""
    wanted = qmgr.strip().lstrip("*")
    eligible = [d for d in definitions if not wanted or d.qmgr.lstrip("*") == wanted]
    return sorted(eligible, key=lambda d: d.channel)
