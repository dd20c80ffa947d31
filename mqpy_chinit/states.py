"""Channel states, the events that change them, and the live status DISPLAY CHSTATUS shows.

Rule 1 (after h11): everything that changes a channel's state lives in this file. The
transitions are one table, ``TRANSITIONS[state][event] -> new state``; code that moves a
channel tells its status what happened (:meth:`ChannelStatus.move` with a
:class:`ChannelEvent`), and an event the table does not allow in the current state raises
:class:`ChannelStateError` naming the channel, the event and the state. Nothing else assigns
a status's ``state`` or ``history``.

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
A responder (a receiver, a server its requester called, a requester) does not retry: it ends
INACTIVE and its partner starts it again.

    INACTIVE --START--> STARTING --BIND--> BINDING --NEGOTIATED--> RUNNING <--> PAUSED
                                     ^        |    (MESSAGE_RETRY, MESSAGE_RETRY_ENDED)
                                     |        +--REQUEST--> REQUESTING --NEGOTIATED--> RUNNING
                                     +--BIND-- RETRYING <--RETRY-- BINDING | RUNNING | ...
    RUNNING --STOP_REQUESTED--> STOPPING --STOP--> STOPPED --START--> STARTING
    any current state --STOP--> STOPPED;   STOPPED --ENABLED--> INACTIVE
    BINDING .. PAUSED --ENDED | STOPPED_INACTIVE | ADOPTED--> INACTIVE

The states and transitions are §3 of spec/dqm-intercommunication.md (IBM's Fig. 29/30 in
seed 000); the numbers in the comments are its acceptance behaviours (§9).
"""

from __future__ import annotations

import enum
import itertools
import os
import time
from collections.abc import Callable

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


#: the states in which a channel has a process or thread at work (IBM's "active"): only
#: these show a SUBSTATE
ACTIVE_STATES = frozenset({ChannelState.BINDING, ChannelState.REQUESTING,
                           ChannelState.RUNNING, ChannelState.PAUSED, ChannelState.STOPPING})


class ChannelEvent(enum.Enum):
    """What happened to a channel instance: the table says which state it leads to."""

    START = "START"  # START CHANNEL, a trigger, a partner's call, a restart's retry (23, 49)
    BIND = "BIND"  # an attempt: connect and exchange initial data (a slot was free: 41)
    REQUEST = "REQUEST"  # a requester asks its sender to call back (26)
    NEGOTIATED = "NEGOTIATED"  # initial data agreed (and in-doubt batch resolved) (23)
    MESSAGE_RETRY = "MESSAGE_RETRY"  # a put failed Q_FULL / PUT_INHIBITED: waits MRTMR (43)
    MESSAGE_RETRY_ENDED = "MESSAGE_RETRY_ENDED"  # the retried put went, or was given up (43)
    STOP_REQUESTED = "STOP_REQUESTED"  # STOP CHANNEL MODE(QUIESCE): the batch ends first (39)
    RETRY = "RETRY"  # a sending channel failed and has retries left (37)
    STOP = "STOP"  # STOP CHANNEL, an error no retry helps, retries exhausted (37, 38, 39, 41)
    ENDED = "ENDED"  # ended normally (DISCINT, partner closed: 34), or a responder's error end
    STOPPED_INACTIVE = "STOPPED_INACTIVE"  # STOP CHANNEL STATUS(INACTIVE); one receiving
    #                  instance stopped; REFRESH SECURITY; a cluster receiver withdrawn
    ADOPTED = "ADOPTED"  # a receiving instance replaced by a new start of its partner (51)
    RESTORED_STOPPED = "RESTORED_STOPPED"  # STOPPED, remembered across a restart (40)
    ENABLED = "ENABLED"  # START CHANNEL on a STOPPED receiver / SVRCONN: callers may start it


S, E = ChannelState, ChannelEvent
# Ended from this side while current: STOP CHANNEL (MODE FORCE, or while waiting for a slot)
# leaves the channel STOPPED (39, 41); with STATUS(INACTIVE) it is left INACTIVE, as is one
# instance of a receiver that is stopped while its channel keeps a STOPPED mark of its own.
_STOPS = {E.STOP: S.STOPPED, E.STOPPED_INACTIVE: S.INACTIVE}
# A running instance's end: normal or a responder's error (34), or a receiver adopted (51).
_ENDS = {E.ENDED: S.INACTIVE, E.ADOPTED: S.INACTIVE}
TRANSITIONS: dict[ChannelState, dict[ChannelEvent, ChannelState]] = {
    S.INACTIVE: {
        E.START: S.STARTING,
        # STOP CHANNEL on a channel that is not running disables it ("START/STOP enable and
        # disable the channel", §4); so does a server's or requester's stop after its end
        E.STOP: S.STOPPED,
        E.RESTORED_STOPPED: S.STOPPED,  # the channel initiator restarts: status remembered (40)
    },
    S.STARTING: {E.BIND: S.BINDING, **_STOPS},  # waits here for an active slot (41)
    S.BINDING: {
        E.NEGOTIATED: S.RUNNING, E.REQUEST: S.REQUESTING,
        E.RETRY: S.RETRYING,  # a failed attempt (37)
        E.STOP_REQUESTED: S.STOPPING,  # quiesced before a batch moved (39)
        **_STOPS, **_ENDS,  # a receiver's negotiation fails; adopted while negotiating (51)
    },
    S.REQUESTING: {E.NEGOTIATED: S.RUNNING, E.RETRY: S.RETRYING, **_STOPS, **_ENDS},
    S.RUNNING: {
        E.MESSAGE_RETRY: S.PAUSED,  # (43)
        E.STOP_REQUESTED: S.STOPPING,  # (39)
        E.RETRY: S.RETRYING,  # (37)
        **_STOPS, **_ENDS,
    },
    S.PAUSED: {
        E.MESSAGE_RETRY_ENDED: S.RUNNING,  # (43)
        E.STOP_REQUESTED: S.STOPPING, E.RETRY: S.RETRYING, **_STOPS, **_ENDS,
    },
    # "check limits if retrying" (Fig. 30): on to RETRYING, STOPPED or INACTIVE
    S.STOPPING: {E.RETRY: S.RETRYING, E.ENDED: S.INACTIVE, **_STOPS},
    S.RETRYING: {E.BIND: S.BINDING, **_STOPS},  # the next attempt (37); STOP while waiting
    S.STOPPED: {
        E.START: S.STARTING,  # START CHANNEL restarts a STOPPED channel (37, 38; §6)
        # START CHANNEL on a receiver, a server-connection channel or a server without
        # CONNAME: it takes starts from its partners (clients, its requester) again, and is
        # not itself started ("Started means enabled", §4)
        E.ENABLED: S.INACTIVE,
    },
}


class ChannelStateError(Exception):
    """An event the table does not allow in the channel's state: a bug in the caller, never
    silently ignored."""

    def __init__(self, channel: str, event: ChannelEvent, state: ChannelState) -> None:
        super().__init__(f"channel {channel}: event {event.value} is not allowed in state "
                         f"{state.value}")
        self.channel, self.event, self.state = channel, event, state


#: what is told of every channel state change (:meth:`ChannelStatus.move`), in the thread that
#: made it: the repository manager's watcher, which looks at its cluster channels then rather
#: than every fraction of a second (``add_state_observer``)
_STATE_OBSERVERS: list[Callable[[ChannelStatus], None]] = []


def add_state_observer(observer: Callable[[ChannelStatus], None]) -> Callable[[], None]:
    """Tell ``observer`` (which must neither block nor raise) of every channel state change
    from now on; what to call to stop."""
    _STATE_OBSERVERS.append(observer)

    def remove() -> None:
        if observer in _STATE_OBSERVERS:
            _STATE_OBSERVERS.remove(observer)
    return remove


#: what is told (status, activated) when a channel must wait for an active-channel slot
#: (False) and when, having waited, it gets one (True), in the thread that saw it
#: (``add_slot_observer``)
_SLOT_OBSERVERS: list[Callable[[ChannelStatus, bool], None]] = []


def add_slot_observer(observer: Callable[[ChannelStatus, bool], None]) -> Callable[[], None]:
    """Tell ``observer`` (which must neither block nor raise) of every channel that waits for
    an active-channel slot, and of its getting one; what to call to stop."""
    _SLOT_OBSERVERS.append(observer)

    def remove() -> None:
        if observer in _SLOT_OBSERVERS:
            _SLOT_OBSERVERS.remove(observer)
    return remove


#: each channel instance's number in this process: the second half of its JOBNAME
_instance_numbers = itertools.count(1)

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
    # every byte sent and received on the channel's connection, TSH headers and control
    # flows included (IBM's BYTSSENT, BYTSRCVD); bytes_sent/_received are message data only
    # (channel statistics' byte counts)
    net_bytes_sent: int = 0
    net_bytes_received: int = 0
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
    local_address: str = ""  # LOCLADDR: this end's address of the connection, host(port)
    remote_product: str = ""  # RPRODUCT: the partner's product, from its initial data
    remote_version: str = ""  # RVERSION: the partner's version (VVRRMMFF for IBM's)
    security_protocol: str = ""  # SECPROT: NONE, or the TLS version (TLSV12, TLSV13)
    instance_number: int = attrs.Factory(lambda: next(_instance_numbers))
    monitor: ChannelMonitor = attrs.Factory(ChannelMonitor)
    history: list[ChannelState] = attrs.Factory(list)
    #: STARTING, it waits for an active-channel slot (MaxActiveChannels):
    #: :meth:`waits_for_slot`, :meth:`got_slot`
    waiting_for_slot: bool = False

    def waits_for_slot(self) -> None:
        """This STARTING channel cannot become active: MaxActiveChannels channels are. Its
        slot observers are told (IBM's Channel Not Activated), once while it waits."""
        if not self.waiting_for_slot:
            self.waiting_for_slot = True
            for observer in list(_SLOT_OBSERVERS):
                observer(self, False)

    def got_slot(self) -> None:
        """This channel, having waited, got an active-channel slot: its slot observers are
        told (IBM's Channel Activated). Nothing is told of a channel that never waited."""
        if self.waiting_for_slot:
            self.waiting_for_slot = False
            for observer in list(_SLOT_OBSERVERS):
                observer(self, True)

    @property
    def jobname(self) -> str:
        """JOBNAME (MCAJobName): as IBM's Multiplatforms show it, the MCA's process id and
        thread number in 8 hex digits each; mqpy's MCAs are tasks of the channel initiator's
        process, numbered as they are made."""
        return f"{os.getpid():08X}{self.instance_number & 0xFFFFFFFF:08X}"

    def partner_announced(self, product_id: str, local_address: str,
                          security_protocol: str = "NONE") -> None:
        """The partner's initial data said ``product_id`` (IBM's ProductId: four letters of
        product, MQMM a queue manager, MQCC a C client ..., then its version), over a
        connection whose local end is ``local_address``, secured by ``security_protocol``:
        RPRODUCT, RVERSION, LOCLADDR and SECPROT."""
        product_id = product_id.strip()
        self.remote_product, self.remote_version = product_id[:4], product_id[4:12]
        self.local_address = local_address
        self.security_protocol = security_protocol

    def move(self, event: ChannelEvent) -> None:
        """``event`` happened to this channel: its state becomes what the table says, and is
        added to ``history``; ChannelStateError if the table does not allow ``event`` now."""
        new = TRANSITIONS[self.state].get(event)
        if new is None:
            raise ChannelStateError(self.channel, event, self.state)
        self.state = new
        self.history.append(new)
        if new not in ACTIVE_STATES:
            self.substate = ""
        if new is ChannelState.STARTING:
            self.start_date, self.start_time = _now_date_time()
        for observer in _STATE_OBSERVERS:
            observer(self)

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

    def _bytes_shown(self) -> dict[str, int]:
        """BYTSSENT and BYTSRCVD: every byte on the instance's connection, as IBM counts
        them ("control information included"), for a server-connection channel as for a
        message channel."""
        return {"BYTSSENT": self.net_bytes_sent, "BYTSRCVD": self.net_bytes_received}

    def as_mqsc(self) -> dict[str, object]:
        """The CHSTATUS attributes, MQSC names and formats."""
        return {
            "CHANNEL": self.channel, "CHLTYPE": self.chltype, "STATUS": self.state.value,
            "SUBSTATE": self.substate if self.state in ACTIVE_STATES else "",
            "CONNAME": self.conname, "XMITQ": self.xmitq,
            "RQMNAME": self.rqmname, "MSGS": self.msgs, "BATCHES": self.batches,
            **self._bytes_shown(),
            "BUFSSENT": self.buffers_sent, "BUFSRCVD": self.buffers_received,
            "CURSEQNO": self.cur_seqno, "LSTSEQNO": self.last_seqno,
            "CURLUWID": self.cur_luwid.hex().upper(), "LSTLUWID": self.last_luwid.hex().upper(),
            "INDOUBT": "YES" if self.indoubt else "NO", "SHORTRTS": self.short_retries_left,
            "LONGRTS": self.long_retries_left, "HBINT": self.hbint, "BATCHSZ": self.batchsz,
            "MAXMSGL": self.maxmsgl, "LSTMSGDA": self.last_msg_date,
            "LSTMSGTI": self.last_msg_time, "CHSTADA": self.start_date,
            "CHSTATI": self.start_time, "KAINT": self.kaint,
            "STOPREQ": "YES" if self.stop_requested else "NO", "MCAUSER": self.mcauser,
            "JOBNAME": self.jobname, "LOCLADDR": self.local_address,
            "RPRODUCT": self.remote_product, "RVERSION": self.remote_version,
            "SECPROT": self.security_protocol,
            "MCASTAT": "NOTRUNNING" if self.state in (ChannelState.STOPPED,
                                                      ChannelState.INACTIVE) else "RUNNING",
            # the messages of the batch in progress (a message channel's alone)
            **({} if self.chltype == "SVRCONN" else
               {"CURMSGS": (self.cur_seqno - self.last_seqno) % 999_999_999}),
            # mqpy compresses nothing and never resets a TLS secret key (docs/security.md)
            "COMPHDR": "NONE,NONE", "COMPMSG": "NONE,NONE",
            "SSLRKEYS": 0, "SSLKEYDA": "", "SSLKEYTI": "",
            **({"NPMSPEED": self.npmspeed} if self.npmspeed else {}),
            **self.monitor.as_mqsc(),
        }
