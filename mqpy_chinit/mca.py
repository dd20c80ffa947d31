"""Message channel agents: the sending and the receiving end of a message channel (trio).

This module only moves bytes, runs timers and calls the MQI: segments go through
``framing.py``, the initial-data negotiation through ``negotiation.py``, channel states through
``states.py``, sync records and in-doubt keys through ``mqpy/syncrecord.py`` (an MCA's own
record on its open handle through ``syncq.py``). MQI calls block, so they run
in worker threads -- except a batch's runs of calls over a bindings connection (the receiver's
puts with its sync record and commit, the sender's gets, record and prepare), made from the
event loop without a thread once nothing but the run itself is left to call
(``xmitgets.call_in_loop``); a channel's MQI connection is used by one task at a time.

The assured-delivery cycle (seed 000 ch. 3 and seed 003 §2.9):

1. The sender gets up to BATCHSZ messages from its transmission queue in one unit of work,
   sending each as it gets the next (so it knows which is the last one).
2. Before the last, it replaces its sync record in that unit of work and *prepares* it under a
   key naming the channel, the batch's last sequence number and a fresh LUWID. From here it is
   in doubt. The last message carries CONFIRM_REQUEST.
3. The receiver puts every message (persistent ones, and all ones on an NPMSPEED(NORMAL)
   channel, in one unit of work), replaces its own sync record (sequence number, LUWID) in the
   same unit of work, commits, and answers STATUS 0.
4. The sender commits its prepared unit of work: the messages leave the transmission queue.

A batch of nothing but non-persistent messages on a fast channel (NPMSPEED(FAST) at both ends:
the ID flows' FAST_MESSAGES_REQUIRED; "if the other end of the channel does not support the
option, the channel runs at normal speed", seed 000) is not a unit of work at either end
(IBM: such messages "are not transferred within transactions", and FAST "can minimize the
SYSTEM.CHANNEL.SYNCQ updates"). The sender commits its gets before the confirm request
instead of preparing them, the receiver has put them outside syncpoint, and neither end
replaces its sync record: the records stay those of the last batch that had a persistent
message, the same at both ends, and the sequence numbers carry on in memory. A restart of
either end starts both from the records again, as after any batch. A channel that fails
with such a batch in flight is never in doubt over it: once the sender has committed the
gets its messages may be lost (seed 000, "Fast, nonpersistent messages": they "may be
lost"); a failure the sender sees before that backs the gets out, and a message the
receiver had already put is then sent again.
A sender's in-doubt key names the last *hardened* batch (its record's number and LUWID),
which is what the receiver's record holds if it did not commit the batch in doubt.

If anything breaks between 2 and 4, the next start resynchronises: the sender sends RESYNC with
its in-doubt sequence number and LUWID, the receiver answers with its record, and the sender
commits if the receiver has that LUWID, backs out if the receiver is still at the previous
sequence number, and stops the channel otherwise. Nothing is lost and nothing is delivered
twice.

Pipelining (qm.ini ``Channels: PipeLineLength``; IBM: "the maximum number of concurrent
threads a channel will use. The default is 1. Any value greater than 1 is treated as 2",
and "Each MCA is limited to a maximum of two threads", Channels stanza of the qm.ini file
and "Multiple thread support - pipelining" in IBM MQ's documentation). With 1 the cycle is
as above, step after step. With 2 the sending MCA does not wait at step 3: once batch N's
confirm request has gone it gets and sends batch N+1's messages while the partner puts and
commits N. Before N+1 goes in doubt it reads N's STATUS; N's commit then goes in the same
round trip as N+1's sync-record replacement, and N+1's prepare forces both to the log. So:

- Two units of work at the sender, one connection: a prepared unit of work belongs to the
  queue manager, not to the connection that prepared it (``Connection.prepare``), so N stays
  in doubt under its key while the connection's next unit of work holds N+1's gets; N is
  committed (or backed out) by its key. No second MQI connection is needed, and the
  transmission queue stays open once, for exclusive input.
- At most one batch in doubt (spec dqm-intercommunication 9.33): N+1 is prepared only after
  N is committed. A crash leaves N in doubt and N+1's gets merely uncommitted (backed out at
  restart); the receiver never saw N+1's confirm request, so N+1 is not committed there
  either. The resynchronisation at the next start, RESOLVE CHANNEL and DISPLAY CHSTATUS
  SAVED are those of an unpipelined channel. For the same reason one sync record per
  channel still serves: N+1 replaces the record N's commit made visible.
- Sequence numbers and LUWIDs stay per batch and in order: N+1's numbers follow N's last.
- A STATUS error for N (the receiver backed N out) backs out N and the unit of work holding
  N+1's gets: every message is back on the transmission queue, in order, and the channel
  ends as it would have. A failure while N+1 is being sent (the partner closed the
  connection after refusing N) first reads N's STATUS if it came, so that N is backed out
  rather than left in doubt.
- The channel never waits with a batch in flight: when the transmission queue is empty
  (before the waiting MQGET, BATCHINT's wait, the disconnect interval, heartbeats) and
  before a stop, the batch in flight is confirmed and committed with its log force.
- The receiver needs no change: it reads the stream in order, so N+1's messages wait in
  the socket buffers while it commits N (the sender only writes; the STATUS it sends is
  small), and a batch's sequence numbers check against the one before as always.
"""

from __future__ import annotations

import functools
import os
import time
from collections.abc import Callable
from typing import Any

import trio

import mqpy
from mqpy import CMQC
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
NO_LUWID = bytes(8)
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
        import socket

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


def peer_host(stream: Any) -> str:
    """The partner's address as DISPLAY CHSTATUS shows a receiver's CONNAME."""
    return peer_address(stream).rsplit(":", 1)[0]


def new_luwid() -> bytes:
    """An 8-byte LUWID: the time in milliseconds (6 bytes, wrapping) and a counter."""
    _luw_counter[0] = (_luw_counter[0] + 1) & 0xFFFF
    return (int(time.time() * 1000) & 0xFFFFFFFFFFFF).to_bytes(6, "big") + \
        _luw_counter[0].to_bytes(2, "big")


def next_seq(seq: int, wrap: int) -> int:
    return 1 if seq >= wrap else seq + 1


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
    }
    msgid, text, retry = texts.get(ev.code, ("AMQ9999E", f"Channel program ended abnormally "
                                    f"(remote status {int(ev.code)}).", True))
    return ChannelEnded(msgid, text, retry, ev.code if isinstance(ev.code, StatusCode) else None)


def agreed_fast(agreed: Any) -> bool:
    """Does the channel run fast for non-persistent messages: NPMSPEED(FAST) at both ends?"""
    return bool(agreed.cap_flags2 & CapFlags2.FAST_MESSAGES_REQUIRED)


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
        process_id=os.getpid(), product_id="MQPY0100")


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
        qm.get_handle().abend()
    except (mqpy.MQMIError, mqpy.PYIFError, AttributeError):
        try:
            qm.backout()
            qm.disconnect()
        except (mqpy.MQMIError, mqpy.PYIFError):
            pass
