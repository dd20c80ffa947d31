"""Channel states and their transitions, and the live status DISPLAY CHSTATUS shows.

Rule 1 (after h11): every channel state transition is in the table below; code that moves a
channel calls :meth:`ChannelStatus.move`, which refuses a move the table does not allow.

Theory of operation
-------------------
A channel that is not running is INACTIVE (never started, or ended normally: disconnect
interval, partner closed) or STOPPED (an operator stopped it, or retries ran out; it needs a
START CHANNEL). A start (operator, trigger, or a partner's inbound call) makes it STARTING; it
waits there for a free slot (MaxActiveChannels). BINDING covers the TCP connection and the
negotiation of the initial data; a requester that asks a sender to call back is REQUESTING.
RUNNING moves batches; PAUSED waits between message retries. STOPPING is an orderly end in
progress. A sending channel that loses its partner goes to RETRYING, counting the short retries
then the long ones, and back to BINDING for each attempt; when none are left it is STOPPED.

    INACTIVE -> STARTING -> BINDING -> RUNNING <-> PAUSED
                   |          |   \\-> REQUESTING -> (ended: the partner calls back)
                   |          v         RUNNING -> STOPPING -> INACTIVE | STOPPED
                   +-----> RETRYING <---+ (sending channels, on any failure)
"""

from __future__ import annotations

import enum
import time

import attrs

from mqpy_chinit.monitor import ChannelMonitor


class ChannelState(enum.Enum):
    INACTIVE = "INACTIVE"
    STARTING = "STARTING"
    BINDING = "BINDING"
    REQUESTING = "REQUESTING"
    RUNNING = "RUNNING"
    PAUSED = "PAUSED"
    STOPPING = "STOPPING"
    RETRYING = "RETRYING"
    STOPPED = "STOPPED"


S = ChannelState
TRANSITIONS: dict[ChannelState, frozenset[ChannelState]] = {
    S.INACTIVE: frozenset({S.STARTING, S.STOPPED}),
    S.STARTING: frozenset({S.BINDING, S.RETRYING, S.STOPPED, S.INACTIVE}),
    S.BINDING: frozenset({S.RUNNING, S.REQUESTING, S.RETRYING, S.STOPPING, S.STOPPED,
                          S.INACTIVE}),
    S.REQUESTING: frozenset({S.RUNNING, S.INACTIVE, S.RETRYING, S.STOPPED}),
    S.RUNNING: frozenset({S.PAUSED, S.STOPPING, S.RETRYING, S.STOPPED, S.INACTIVE}),
    S.PAUSED: frozenset({S.RUNNING, S.STOPPING, S.RETRYING, S.STOPPED, S.INACTIVE}),
    S.STOPPING: frozenset({S.INACTIVE, S.STOPPED, S.RETRYING}),
    S.RETRYING: frozenset({S.BINDING, S.STARTING, S.STOPPED, S.INACTIVE}),
    S.STOPPED: frozenset({S.STARTING, S.INACTIVE}),
}


class ChannelStateError(Exception):
    """A transition the table does not allow: a bug in the caller, never silently ignored."""

    def __init__(self, channel: str, current: ChannelState, wanted: ChannelState) -> None:
        super().__init__(f"channel {channel}: {current.value} -> {wanted.value} is not allowed")


_stamp: list = [-1, ("", "")]  # the second last formatted, and its (date, time)


def _now_date_time() -> tuple[str, str]:
    """Local date and time as DISPLAY CHSTATUS shows them; formatted once a second, since
    every message moved stamps LSTMSGDA/LSTMSGTI."""
    sec = int(time.time())
    if sec != _stamp[0]:
        t = time.localtime(sec)
        _stamp[:] = [sec, (time.strftime("%Y-%m-%d", t), time.strftime("%H.%M.%S", t))]
    return _stamp[1]


@attrs.define
class ChannelStatus:
    """One channel instance's status (DISPLAY CHSTATUS), counters and sync state."""

    channel: str
    chltype: str
    state: ChannelState = ChannelState.INACTIVE
    substate: str = ""
    conname: str = ""
    xmitq: str = ""
    rqmname: str = ""
    msgs: int = 0
    batches: int = 0
    full_batches: int = 0
    bytes_sent: int = 0
    bytes_received: int = 0
    buffers_sent: int = 0
    buffers_received: int = 0
    cur_seqno: int = 0
    last_seqno: int = 0
    cur_luwid: bytes = bytes(8)
    last_luwid: bytes = bytes(8)
    indoubt: bool = False
    short_retries_left: int = 0
    long_retries_left: int = 0
    hbint: int = 0
    batchsz: int = 0
    maxmsgl: int = 0
    last_msg_date: str = ""
    last_msg_time: str = ""
    start_date: str = ""
    start_time: str = ""
    net_time_us: int = 0
    kaint: int = 0
    npmspeed: str = ""  # a message channel's, as the ID flows agreed it: FAST or NORMAL
    batch_heartbeats: int = 0
    stop_requested: str = ""  # "", QUIESCE, FORCE, TERMINATE
    mcauser: str = ""  # a receiving channel's MCA user (PUTAUT): blank is the chinit's own
    monitor: ChannelMonitor = attrs.Factory(ChannelMonitor)
    history: list[ChannelState] = attrs.Factory(list)

    def move(self, new: ChannelState) -> None:
        if new is self.state:
            return
        if new not in TRANSITIONS[self.state]:
            raise ChannelStateError(self.channel, self.state, new)
        self.state = new
        self.history.append(new)
        if new is ChannelState.STARTING:
            self.start_date, self.start_time = _now_date_time()

    def message_moved(self, nbytes: int, sent: bool, *, counted: bool = True) -> None:
        """A message of ``nbytes`` sent or received, counted in MSGS unless ``counted`` is
        False (a SVRCONN counts MQI calls in MSGS, each once, whatever it moved)."""
        if counted:
            self.msgs += 1
        if sent:
            self.bytes_sent += nbytes
        else:
            self.bytes_received += nbytes
        self.last_msg_date, self.last_msg_time = _now_date_time()

    def messages_moved(self, count: int, nbytes: int, sent: bool) -> None:
        """``count`` messages of ``nbytes`` in all sent or received together (a run of an
        MCA's puts, or of its sends): :meth:`message_moved` once for them all."""
        self.msgs += count
        if sent:
            self.bytes_sent += nbytes
        else:
            self.bytes_received += nbytes
        self.last_msg_date, self.last_msg_time = _now_date_time()

    def batch_done(self, size: int, batchsz: int) -> None:
        self.batches += 1
        if size >= batchsz:
            self.full_batches += 1
        self.monitor.batch_done(size)

    def round_trip(self, micros: int) -> None:
        """A batch confirmation or heartbeat answered after ``micros`` (NETTIME)."""
        self.net_time_us = micros
        self.monitor.round_trip(micros)

    @property
    def xbatchsz(self) -> float:
        return self.msgs / self.batches if self.batches else 0.0

    def as_mqsc(self) -> dict[str, object]:
        """The CHSTATUS attributes, MQSC names and formats."""
        return {
            "CHANNEL": self.channel, "CHLTYPE": self.chltype, "STATUS": self.state.value,
            "SUBSTATE": self.substate, "CONNAME": self.conname, "XMITQ": self.xmitq,
            "RQMNAME": self.rqmname, "MSGS": self.msgs, "BATCHES": self.batches,
            "BYTSSENT": self.bytes_sent, "BYTSRCVD": self.bytes_received,
            "BUFSSENT": self.buffers_sent, "BUFSRCVD": self.buffers_received,
            "CURSEQNO": self.cur_seqno, "LSTSEQNO": self.last_seqno,
            "CURLUWID": self.cur_luwid.hex().upper(), "LSTLUWID": self.last_luwid.hex().upper(),
            "INDOUBT": "YES" if self.indoubt else "NO", "SHORTRTS": self.short_retries_left,
            "LONGRTS": self.long_retries_left, "HBINT": self.hbint, "BATCHSZ": self.batchsz,
            "MAXMSGL": self.maxmsgl, "LSTMSGDA": self.last_msg_date,
            "LSTMSGTI": self.last_msg_time, "CHSTADA": self.start_date,
            "CHSTATI": self.start_time, "KAINT": self.kaint,
            "STOPREQ": "YES" if self.stop_requested else "NO", "MCAUSER": self.mcauser,
            **({"NPMSPEED": self.npmspeed} if self.npmspeed else {}),
            **self.monitor.as_mqsc(),
        }
