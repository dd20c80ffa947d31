"""The INITIAL_DATA exchange as arithmetic: proposals in, agreed values (or objections) out.

At channel start the caller MCA sends its ID; the responder answers with an ID carrying the
values it accepts, or, in InitErrorFlags1, the values it rejects together with its own
counter-proposal, after which the caller may send a new ID. IBM's rule (seed 000, spec
dqm-intercommunication §3): "the two ends ... agree to operate with the attributes needing
the fewer resources". Value by value:

=====================  ==================================================================
FAP level              the lower; a partner above ours is told our level (FAP_LEVEL flag)
batch size             the lower (1-9999, else MAX_MSG_PER_BATCH)
max transmission size  the lower (>= MIN_TRANSMISSION_SIZE, else MAX_TRANSMISSION_SIZE)
max message size       the lower; 0 at one end means "no limit of mine", so the other wins
heartbeat interval     the *larger* ("least frequent interval of the two"); 0 at either
                       end, or a partner whose ID predates the field (FAP < 4), gives 0
sequence wrap          must be equal, else SEQ_WRAP_VALUE and STATUS WRAP_VALUE_ERROR
                       (an auto-defined channel adopts the partner's value instead)
CCSID                  a partner in an EBCDIC CCSID must be able to convert, since mqpy
                       cannot (CCSID flag, STATUS CCSID_NOT_SUPPORTED)
capabilities           what both ends have (split messages, distribution lists, ...)
shared conversations   the lower ConvPerSocket ("lower end wins"); 0 before FAP 9
=====================  ==================================================================

Everything here is a pure function of two ``InitialData`` events. [inf] marks in the code are
choices the public sources do not settle.
"""

from __future__ import annotations

import attrs

from mqpy.fap.initialdata import CapFlags1, CapFlags2, InitErrorFlags1, InitialData
from mqpy.fap.statuscodes import StatusCode

__all__ = [
    "MAX_BATCH_SIZE",
    "MAX_HEARTBEAT_INTERVAL",
    "MIN_TRANSMISSION_SIZE",
    "SEQ_WRAP_RANGE",
    "Agreed",
    "Negotiation",
    "negotiate",
    "reproposal",
]

MAX_BATCH_SIZE = 9999  #: BATCHSZ 1-9999
MAX_HEARTBEAT_INTERVAL = 999999  #: HBINT 0-999 999 seconds
SEQ_WRAP_RANGE = range(100, 999999999 + 1)  #: SEQWRAP 100-999 999 999
#: [inf] The smallest segment we accept to negotiate: a 240-byte ID, a STATUS, a PING buffer
#: and a useful share of a message must fit. IBM publishes no minimum.
MIN_TRANSMISSION_SIZE = 1024

#: EBCDIC CCSIDs (packet-mq.h's IS_EBCDIC knows 500 and 1047; the rest are IBM's EBCDIC
#: country pages and their euro variants). mqpy never converts channel headers.
EBCDIC_CCSIDS = frozenset(
    {37, 273, 277, 278, 280, 284, 285, 290, 297, 420, 424, 500, 833, 836, 838, 870, 871,
     875, 880, 930, 933, 935, 937, 939, 1025, 1026, 1047, 1112, 1122, 1123, 1140, 1141,
     1142, 1143, 1144, 1145, 1146, 1147, 1148, 1149, 1153, 1154, 1156, 1157, 1158, 1160,
     1364, 1388, 1390, 1399}
)


@attrs.frozen
class Agreed:
    """The values both ends run the channel with."""

    fap_level: int
    max_msg_batch: int
    max_transmission_size: int
    max_msg_size: int  #: 0: neither end limits it
    heartbeat_interval: int  #: seconds; 0: no heartbeats and no receive timeout
    seq_wrap_value: int
    cap_flags1: CapFlags1
    cap_flags2: CapFlags2
    conv_per_socket: int

    @property
    def split_messages(self) -> bool:
        """Seed 000: if one end cannot split messages, none are sent split."""
        return bool(self.cap_flags1 & CapFlags1.SPLIT_MESSAGE)


@attrs.frozen
class Negotiation:
    """The outcome of weighing the partner's ID against ours.

    ``agreed`` is set only when nothing was rejected. ``reply`` is the ID to answer with (a
    responder sends it; a caller may ignore it). ``status``, when set, is fatal: send STATUS
    with that code and end the channel; error flags without a status invite a new proposal.
    """

    agreed: Agreed | None
    reply: InitialData
    error_flags: InitErrorFlags1 = InitErrorFlags1.NONE
    status: StatusCode | None = None

    @property
    def ok(self) -> bool:
        return self.agreed is not None


def _lower_limit(ours: int, theirs: int) -> int:
    """Max message size: 0 means "no limit at this end". [inf] for 0 against 0."""
    if ours == 0:
        return theirs
    if theirs == 0:
        return ours
    return min(ours, theirs)


def negotiate(
    ours: InitialData,
    theirs: InitialData,
    *,
    adopt_seq_wrap: bool = False,
) -> Negotiation:
    """Weigh ``theirs`` (the partner's ID) against ``ours`` (our channel definition).

    ``adopt_seq_wrap`` is for a channel auto-defined from this very start, which takes the
    partner's SEQWRAP (seed 000) instead of insisting on its own.
    """
    flags = InitErrorFlags1.NONE
    status: StatusCode | None = None

    # FAP level: the lower. A partner above ours is told ours and may try again. [inf] 0.
    if theirs.fap_level == 0:
        flags |= InitErrorFlags1.FAP_LEVEL
        status = StatusCode.FAP_LEVEL
    elif theirs.fap_level > ours.fap_level:
        flags |= InitErrorFlags1.FAP_LEVEL
    fap_level = min(ours.fap_level, theirs.fap_level) or ours.fap_level

    # Batch size: the lower of the two.
    if not 1 <= theirs.max_msg_batch <= MAX_BATCH_SIZE:
        flags |= InitErrorFlags1.MAX_MSG_PER_BATCH
    max_msg_batch = min(ours.max_msg_batch, theirs.max_msg_batch) or ours.max_msg_batch

    # Transmission size: the lower, but never below what the protocol needs.
    if theirs.max_transmission_size < MIN_TRANSMISSION_SIZE:
        flags |= InitErrorFlags1.MAX_TRANSMISSION_SIZE
    max_transmission_size = max(
        min(ours.max_transmission_size, theirs.max_transmission_size), MIN_TRANSMISSION_SIZE
    )

    # Message size: the lower, 0 deferring to the other end.
    max_msg_size = _lower_limit(ours.max_msg_size, theirs.max_msg_size)

    # Heartbeat interval: the larger; 0 at either end, or an ID without the field, is 0.
    if theirs.heartbeat_interval > MAX_HEARTBEAT_INTERVAL:
        flags |= InitErrorFlags1.HEARTBEAT_INTERVAL
    if fap_level < 4 or ours.heartbeat_interval == 0 or theirs.heartbeat_interval == 0:
        heartbeat_interval = 0
    else:
        heartbeat_interval = min(
            max(ours.heartbeat_interval, theirs.heartbeat_interval), MAX_HEARTBEAT_INTERVAL
        )

    # Sequence wrap: both ends must count the same way.
    seq_wrap_value = ours.seq_wrap_value
    if theirs.seq_wrap_value not in SEQ_WRAP_RANGE:
        flags |= InitErrorFlags1.SEQ_WRAP_VALUE
        status = status or StatusCode.WRAP_VALUE_ERROR
    elif theirs.seq_wrap_value != ours.seq_wrap_value:
        if adopt_seq_wrap:
            seq_wrap_value = theirs.seq_wrap_value
        else:
            flags |= InitErrorFlags1.SEQ_WRAP_VALUE
            status = status or StatusCode.WRAP_VALUE_ERROR

    # CCSID: an EBCDIC partner must do the converting, mqpy does none.
    if (
        theirs.fap_level >= 4
        and theirs.ccsid in EBCDIC_CCSIDS
        and not theirs.cap_flags1 & CapFlags1.CONVERSION_CAPABLE
    ):
        flags |= InitErrorFlags1.CCSID
        status = status or StatusCode.CCSID_NOT_SUPPORTED

    cap_flags1 = ours.cap_flags1 & theirs.cap_flags1
    cap_flags2 = ours.cap_flags2 & theirs.cap_flags2 if fap_level >= 4 else CapFlags2.NONE
    conv_per_socket = (
        min(ours.conv_per_socket, theirs.conv_per_socket) if fap_level >= 9 else 0
    )

    reply = attrs.evolve(
        ours,
        fap_level=fap_level,
        init_error_flags1=flags,
        echoed_cap_flags1=theirs.cap_flags1,
        echoed_cap_flags2=theirs.cap_flags2,
        echoed_cap_flags3=theirs.cap_flags3,
        max_msg_batch=max_msg_batch,
        max_transmission_size=max_transmission_size,
        max_msg_size=max_msg_size,
        heartbeat_interval=heartbeat_interval,
        seq_wrap_value=seq_wrap_value,
        conv_per_socket=conv_per_socket,
        channel_name=theirs.channel_name or ours.channel_name,
    )
    agreed = None
    if not flags:
        agreed = Agreed(
            fap_level=fap_level,
            max_msg_batch=max_msg_batch,
            max_transmission_size=max_transmission_size,
            max_msg_size=max_msg_size,
            heartbeat_interval=heartbeat_interval,
            seq_wrap_value=seq_wrap_value,
            cap_flags1=cap_flags1,
            cap_flags2=cap_flags2,
            conv_per_socket=conv_per_socket,
        )
    return Negotiation(agreed=agreed, reply=reply, error_flags=flags, status=status)


def reproposal(ours: InitialData, rejection: InitialData) -> InitialData | None:
    """The caller's next ID after the responder rejected values (``rejection`` has flags).

    Each flagged value moves to the responder's counter-proposal when that is one we can live
    with by our own rules (a lower FAP level, batch or transmission size, a heartbeat
    interval); None when it is not (sequence wrap, CCSID, encoding): the start fails.
    """
    flags = rejection.init_error_flags1
    if not flags:
        return ours
    fatal = InitErrorFlags1.SEQ_WRAP_VALUE | InitErrorFlags1.CCSID | InitErrorFlags1.ENCODING
    if flags & fatal:
        return None
    changes: dict[str, int] = {}
    if flags & InitErrorFlags1.FAP_LEVEL:
        if not 1 <= rejection.fap_level < ours.fap_level:
            return None
        changes["fap_level"] = rejection.fap_level
    if flags & InitErrorFlags1.MAX_MSG_PER_BATCH:
        if not 1 <= rejection.max_msg_batch <= MAX_BATCH_SIZE:
            return None
        changes["max_msg_batch"] = min(ours.max_msg_batch, rejection.max_msg_batch)
    if flags & InitErrorFlags1.MAX_TRANSMISSION_SIZE:
        if rejection.max_transmission_size < MIN_TRANSMISSION_SIZE:
            return None
        changes["max_transmission_size"] = min(
            ours.max_transmission_size, rejection.max_transmission_size
        )
    if flags & InitErrorFlags1.MAX_MSG_SIZE:
        changes["max_msg_size"] = _lower_limit(ours.max_msg_size, rejection.max_msg_size)
    if flags & InitErrorFlags1.HEARTBEAT_INTERVAL:
        if rejection.heartbeat_interval > MAX_HEARTBEAT_INTERVAL:
            return None
        changes["heartbeat_interval"] = rejection.heartbeat_interval
    return attrs.evolve(ours, init_error_flags1=InitErrorFlags1.NONE, **changes)
