"""What the sending and the receiving MCA share (trio): the initial-data negotiation, the
connection to the partner, LUWIDs and sequence-number wrap, the partner's STATUS as an AMQ
message, monitoring and keepalive, and the abnormal end of an MCA's MQI connection. The
assured-delivery cycle is described in docs/channels.md."""

from __future__ import annotations

import functools
import os
import socket
import time
from collections.abc import Callable
from typing import Any

import trio

import mqpy
from mqpy import CMQC
from mqpy.engine.mqinq import version_of
from mqpy.fap import channeldefs as D
from mqpy.fap.controlflows import Status
from mqpy.fap.initialdata import OUR_FAP_LEVEL, CapFlags1, CapFlags2, InitialData
from mqpy.fap.negotiation import negotiate, reproposal
from mqpy.fap.statuscodes import StatusCode
from mqpy.fap.tsh import ControlFlags1
from mqpy_chinit.conversation import MAX_TRANSMISSION_SIZE, ChannelEnded, Conversation
from mqpy_chinit.monitor import ChannelMonitor, effective_level
from mqpy_chinit.states import ChannelStatus
from mqpy_chinit.tlsstream import KeyRepository, open_channel_stream

CONNECT_TIMEOUT = 20.0
CONFIRM_TIMEOUT = 60.0  # when no heartbeat interval bounds the wait for a confirmation
CONFIRM_REQUEST = int(ControlFlags1.CONFIRM_REQUEST)

QmFactory = Callable[[], mqpy.QueueManager]


async def mqi(fn: Callable[..., Any], *args: Any, **kw: Any) -> Any:
    """Run one blocking MQI call in a worker thread."""
    return await trio.to_thread.run_sync(functools.partial(fn, *args, **kw))


_luw_counter = [0]


def keepalive(stream: Any, definition: dict[str, object], hbint: int) -> int:
    """KAINT: TCP keepalive on the channel's socket; AUTO is the negotiated HBINT + 60 s
    (seed 003 §2.8). Returns the value in force (0: off)."""
    raw = str(D.attr(definition, "KAINT")).upper()
    kaint = (hbint + 60 if hbint else 0) if raw == "AUTO" else int(raw or 0)
    sock = getattr(stream, "socket", None)
    if sock is not None and kaint > 0:
        try:
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_KEEPALIVE, 1)
            if hasattr(socket, "TCP_KEEPIDLE"):
                sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_KEEPIDLE, kaint)
        except OSError:
            pass
    return kaint


async def monitoring(qm: mqpy.QueueManager, definition: dict[str, object]) -> ChannelMonitor:
    """A fresh monitor for an instance starting now, at the channel's MONCHL level (or the
    queue manager's, asked by MQINQ, for MONCHL(QMGR))."""
    try:
        qmgr_level = await mqi(qm.inquire, CMQC.MQIA_MONITORING_CHANNEL)
    except mqpy.MQMIError:
        qmgr_level = None
    return ChannelMonitor(level=effective_level(definition.get("MONCHL"), qmgr_level))


def peer_address(stream: Any) -> str:
    """The partner's "host:port" ("" when the stream has no socket)."""
    stream = getattr(stream, "transport_stream", stream)  # under TLS, the TCP stream
    try:
        host, port = stream.socket.getpeername()[:2]
        return f"{host}:{port}"
    except (AttributeError, OSError):
        return ""


def local_address(stream: Any) -> str:
    """This end's address of the connection as DISPLAY CHSTATUS shows LOCLADDR,
    "host(port)" ("" when the stream has no socket)."""
    stream = getattr(stream, "transport_stream", stream)  # under TLS, the TCP stream
    try:
        host, port = stream.socket.getsockname()[:2]
    except (AttributeError, OSError):
        return ""
    return f"{host}({port})"


def peer_host(stream: Any) -> str:
    """The partner's address as DISPLAY CHSTATUS shows a receiver's CONNAME."""
    return peer_address(stream).rsplit(":", 1)[0]


def new_luwid() -> bytes:
    """An 8-byte LUWID: the time in milliseconds (6 bytes, wrapping) and a counter."""
    _luw_counter[0] = (_luw_counter[0] + 1) & 0xFFFF
    return (int(time.time() * 1000) & 0xFFFFFFFFFFFF).to_bytes(6, "big") + \
        _luw_counter[0].to_bytes(2, "big")


def next_seq(seq: int, wrap: int) -> int:
    """The sequence number after ``seq``: SEQWRAP ``wrap`` is followed by 1."""
    return 1 if seq >= wrap else seq + 1


#: the STATUS codes of a partner that found a protocol error in what we sent
_PROTOCOL_ERRORS = frozenset(range(StatusCode.PROTOCOL_SEGMENT_TYPE,
                                   StatusCode.PROTOCOL_GENERAL + 1))


def status_error(ev: Status) -> ChannelEnded:
    texts = {
        StatusCode.NO_CHANNEL: ("AMQ9520E", "Channel not defined remotely.", True),
        StatusCode.CHANNEL_WRONG_TYPE: ("AMQ9502E",
                                        "Type of channel not suitable for action requested.",
                                        False),
        StatusCode.MSG_SEQUENCE_ERROR: ("AMQ9526E", "Message sequence number error for "
                                        "channel.", False),
        StatusCode.WRAP_VALUE_ERROR: ("AMQ9527E", "Cannot send message through channel: "
                                      "sequence number wrap values differ.", False),
        StatusCode.QM_TERMINATING: ("AMQ9228E", "The remote queue manager is ending.", True),
        StatusCode.USER_CLOSED: ("AMQ9528I", "User requested closure of channel.", True),
        StatusCode.CHANNEL_UNAVAILABLE: ("AMQ9558E", "Remote Channel is not currently "
                                         "available.", True),
    }
    if ev.code in _PROTOCOL_ERRORS:  # the partner's AMQ9504E: IBM's words for it here
        texts[ev.code] = ("AMQ9523E", f"Remote host detected a protocol error (remote status "
                          f"{int(ev.code)}, {StatusCode(ev.code).name}).", True)
    msgid, text, retry = texts.get(ev.code, ("AMQ9999E", f"Channel program ended abnormally "
                                    f"(remote status {int(ev.code)}).", True))
    return ChannelEnded(msgid, text, retry, ev.code if isinstance(ev.code, StatusCode) else None)


def agreed_fast(agreed: Any) -> bool:
    """Does the channel run fast for non-persistent messages: NPMSPEED(FAST) at both ends?"""
    return bool(agreed.cap_flags2 & CapFlags2.FAST_MESSAGES_REQUIRED)


#: what a mqpy MCA announces in its initial data's ProductId (a partner's RPRODUCT and
#: RVERSION): "MQPY" where IBM's queue managers say MQMM, and the version mqpy reports as
#: its MQCA_VERSION (VVRRMMFF)
PRODUCT_ID = "MQPY" + version_of(CMQC.MQCMDL_CURRENT_LEVEL)


#: a TLS session's protocol (``ssl`` names) as DISPLAY CHSTATUS SECPROT shows it
_SECPROT = {"TLSv1.3": "TLSV13", "TLSv1.2": "TLSV12", "TLSv1": "TLSV1", "SSLv3": "SSLV3"}


def security_protocol(stream: Any) -> str:
    """SECPROT of a channel's connection: NONE when plain, else its TLS version (a
    responder's ChannelTLSStream or a caller's trio.SSLStream, handshake done)."""
    try:
        cipher = stream.cipher()
    except (AttributeError, ValueError, trio.NeedHandshakeError):  # plain, or no session yet
        return "NONE"
    return _SECPROT.get(str(cipher[1]), "NONE") if cipher else "NONE"


def partner_announced(status: ChannelStatus, product_id: str, stream: Any) -> None:
    """RPRODUCT, RVERSION, LOCLADDR and SECPROT of an instance whose partner's initial data
    said ``product_id``, over ``stream``."""
    status.partner_announced(product_id, local_address(stream), security_protocol(stream))


def _partner_announced(conv: Conversation, ev: InitialData) -> None:
    partner_announced(conv.status, ev.product_id, conv.stream)


def our_id(name: str, definition: dict[str, object], qmgr: str) -> InitialData:
    return InitialData(
        fap_level=OUR_FAP_LEVEL, channel_name=name, qmgr_name=qmgr,
        max_msg_batch=D.int_attr(definition, "BATCHSZ"),
        max_transmission_size=MAX_TRANSMISSION_SIZE,
        max_msg_size=D.int_attr(definition, "MAXMSGL"),
        seq_wrap_value=D.int_attr(definition, "SEQWRAP"),
        heartbeat_interval=D.int_attr(definition, "HBINT"),
        cap_flags1=CapFlags1.MSG_SEQ | CapFlags1.SPLIT_MESSAGE,
        cap_flags2=CapFlags2.DIST_LIST_CAPABLE | (
            CapFlags2.FAST_MESSAGES_REQUIRED
            if D.str_attr(definition, "NPMSPEED") == "FAST" else CapFlags2.NONE),
        process_id=os.getpid(), product_id=PRODUCT_ID)


# ---------------------------------------------------------------------------- negotiation


async def call_id(conv: Conversation, ours: InitialData) -> tuple[Any, str]:
    """The caller's side of the initial-data exchange: (agreed values, partner qmgr)."""
    for _ in range(4):
        await conv.send(ours)
        ev = await conv.recv(CONFIRM_TIMEOUT)
        if isinstance(ev, Status):
            raise status_error(ev)
        if not isinstance(ev, InitialData):
            await conv.close(StatusCode.PROTOCOL_SEGMENT_TYPE)
            raise ChannelEnded("AMQ9504E", "Protocol error: initial data expected.")
        if ev.init_error_flags1:
            nxt = reproposal(ours, ev)
            if nxt is None:
                raise ChannelEnded("AMQ9503E", "Channel negotiation failed.", retry=False)
            ours = nxt
            continue
        n = negotiate(ours, ev)
        if n.agreed is None:
            raise ChannelEnded("AMQ9503E", "Channel negotiation failed.", retry=False)
        conv.agreed(n.agreed.max_transmission_size, n.agreed.max_msg_size)
        _partner_announced(conv, ev)
        return n.agreed, ev.qmgr_name.strip()
    raise ChannelEnded("AMQ9503E", "Channel negotiation failed.", retry=False)


async def respond_id(conv: Conversation, ev: InitialData, ours: InitialData, *,
                     adopt_seq_wrap: bool = False) -> tuple[Any, str]:
    """The responder's side: answer the caller's ID (counter-proposals included)."""
    for _ in range(4):
        n = negotiate(ours, ev, adopt_seq_wrap=adopt_seq_wrap)
        if n.status is not None:
            await conv.close(n.status)
            raise ChannelEnded("AMQ9503E", f"Channel negotiation failed for "
                               f"'{ours.channel_name}'.", False, n.status)
        await conv.send(n.reply)
        if n.agreed is not None:
            conv.agreed(n.agreed.max_transmission_size, n.agreed.max_msg_size)
            _partner_announced(conv, ev)
            return n.agreed, ev.qmgr_name.strip()
        nxt = await conv.recv(CONFIRM_TIMEOUT)
        if not isinstance(nxt, InitialData):
            raise ChannelEnded("AMQ9503E", "Channel negotiation failed.", False)
        ev = nxt
    raise ChannelEnded("AMQ9503E", "Channel negotiation failed.", False)


async def open_conversation(definition: dict[str, object], status: ChannelStatus,
                            key_repository: KeyRepository | None = None) -> Conversation:
    """Connect to the channel's CONNAME (the first address that answers); TLS with the
    certificate of ``key_repository`` when the channel has an SSLCIPH."""
    last: Exception | None = None
    for host, port in D.parse_conname(D.str_attr(definition, "CONNAME")):
        status.conname = f"{host}({port})"
        try:
            with trio.fail_after(CONNECT_TIMEOUT):
                stream = await open_channel_stream(host, port, definition, key_repository)
            return Conversation(stream, status)
        except (OSError, trio.TooSlowError) as exc:
            last = exc
    raise ChannelEnded("AMQ9202E", f"Remote host '{status.conname}' not available: {last}.")


# ---------------------------------------------------------------------------- sender



def disconnect_abnormally(qm: mqpy.QueueManager) -> None:
    """End an MCA's connection *abnormally*: whatever its unit of work holds is backed out,
    atomically with the disconnect. (A normal MQDISC commits; an MQGET the channel abandoned
    at a forced stop could otherwise slip a message into the unit of work and have it
    committed, and lost, on the way out.)"""
    try:
        qm.connection().abend()
    except (mqpy.MQMIError, mqpy.PYIFError, AttributeError):
        try:
            qm.backout()
            qm.disconnect()
        except (mqpy.MQMIError, mqpy.PYIFError):
            pass
