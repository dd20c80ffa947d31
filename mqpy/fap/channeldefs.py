"""Channel definitions as both ends read them: IBM's defaults, names, CONNAME, CLUSSDR's.

Definitions live in the queue manager (objects of type CHANNEL, attributes keyed by their MQSC
names, stored on pageset 0). An attribute a definition does not carry takes IBM's default
(seed 000 §0 table and the IBM MQ documentation), so a channel defined with only CHLTYPE,
CONNAME and XMITQ behaves as MQ's would.
"""

from __future__ import annotations

import re

DEFAULTS: dict[str, object] = {
    "BATCHSZ": 50,
    "BATCHINT": 0,
    "BATCHHB": 0,
    "BATCHLIM": 5000,
    "DISCINT": 6000,
    "HBINT": 300,
    "KAINT": "AUTO",
    "SHORTRTY": 10,
    "SHORTTMR": 60,
    "LONGRTY": 999999999,
    "LONGTMR": 1200,
    "MAXMSGL": 4194304,
    "SEQWRAP": 999999999,
    "NPMSPEED": "FAST",
    "MRRTY": 10,
    "MRTMR": 1000,
    "MCAUSER": "",
    "PUTAUT": "DEF",
    "CONVERT": "NO",
    "MONCHL": "QMGR",
    "DESCR": "",
    "CONNAME": "",
    "XMITQ": "",
    "TRPTYPE": "TCP",
}

SENDING_TYPES = frozenset({"SDR", "SVR", "CLUSSDR"})
#: Every cluster-sender channel takes its messages from this queue, each message keyed by
#: CorrelId = the channel it goes on (:func:`cluster_correl_id`), as IBM MQ does.
CLUSTER_XMITQ = "SYSTEM.CLUSTER.TRANSMIT.QUEUE"
RECEIVING_TYPES = frozenset({"RCVR", "RQSTR", "CLUSRCVR"})
#: What an auto-defined CLUSSDR takes from its partner's CLUSRCVR (the rest, and anything
#: the CLUSRCVR does not say, from SYSTEM.DEF.CLUSSDR); CONNAME and the CLWL attributes
#: travel in the record's own fields.
CLUSRCVR_TO_CLUSSDR = ("BATCHHB", "BATCHINT", "BATCHLIM", "BATCHSZ", "COMPHDR", "COMPMSG",
                       "CONVERT", "DISCINT", "HBINT", "KAINT", "LONGRTY", "LONGTMR",
                       "MAXMSGL", "MONCHL", "NPMSPEED", "PROPCTL", "SEQWRAP", "SHORTRTY",
                       "SHORTTMR", "SSLCIPH", "SSLPEER", "STATCHL", "TRPTYPE", "USEDLQ")
_NAME = re.compile(r"^[A-Za-z0-9._/%]{1,20}$")
_CONNAME = re.compile(r"^\s*([^()\s]+)\s*(?:\(\s*(\d+)\s*\))?\s*$")
DEFAULT_PORT = 1414


def cluster_correl_id(channel: str) -> bytes:
    """The CorrelId of a message on SYSTEM.CLUSTER.TRANSMIT.QUEUE for cluster sender
    ``channel``: the name, blank-padded to 24 bytes."""
    return channel.encode("latin-1").ljust(24, b" ")[:24]


def channel_of_correl_id(correl_id: bytes) -> str:
    return correl_id.rstrip(b" \x00").decode("latin-1")


def transmission_queue(definition: dict[str, object]) -> tuple[str, bytes | None]:
    """(queue, CorrelId to get by) of a sending channel: a CLUSSDR shares the cluster
    transmission queue with every other cluster sender, so it gets only its own messages."""
    if str_attr(definition, "CHLTYPE") == "CLUSSDR":
        return CLUSTER_XMITQ, cluster_correl_id(str_attr(definition, "CHANNEL"))
    return str_attr(definition, "XMITQ"), None


def valid_channel_name(name: str) -> bool:
    """Up to 20 characters from A-Z a-z 0-9 . / _ %; case-sensitive (spec 9.17)."""
    return bool(_NAME.match(name))


def attr(definition: dict[str, object], key: str) -> object:
    value = definition.get(key)
    if value is None or value == "":
        return DEFAULTS.get(key, value)
    return value


def int_attr(definition: dict[str, object], key: str) -> int:
    return int(attr(definition, key))  # type: ignore[arg-type]


def str_attr(definition: dict[str, object], key: str) -> str:
    return str(attr(definition, key) or "").strip()


def parse_conname(conname: str) -> list[tuple[str, int]]:
    """CONNAME 'host(port)', or a comma-separated list of them, into (host, port) pairs."""
    out = []
    for part in conname.split(","):
        if not part.strip():
            continue
        m = _CONNAME.match(part)
        if m is None:
            raise ValueError(f"CONNAME {conname!r} is not host(port)")
        out.append((m.group(1), int(m.group(2) or DEFAULT_PORT)))
    if not out:
        raise ValueError("CONNAME is blank")
    return out


def receive_timeout(hbint: int) -> float | None:
    """How long a receiving end waits for anything before it ends the channel (seed 003):
    twice the negotiated heartbeat interval below 60 seconds, HBINT + 60 above; none for 0."""
    if hbint <= 0:
        return None
    return 2.0 * hbint if hbint < 60 else hbint + 60.0
