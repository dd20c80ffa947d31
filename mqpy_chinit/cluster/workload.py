"""The cluster workload management algorithm: which instance of a cluster queue gets a message.

Pure functions. The caller (the engine's MQOPEN/MQPUT/MQPUT1 path, and the channel initiator
when a channel fails) passes in the instances the repository knows (``Repository.
resolve_queue``), the status of the cluster-sender channels and the round-robin state; it gets
back the chosen instance and the new round-robin state, or an MQMIError with IBM's reason.

Theory of operation
-------------------
IBM's algorithm builds the list of possible destinations and then *eliminates*; each step keeps
the best subset and never empties the list (except where a reason code is named). The steps, in
IBM's order (IBM MQ "The cluster workload management algorithm"; spec operations-dlq-clusters
§4; seed 001 2.1.3):

 1. Put-disabled instances are eliminated, unless all are put-disabled. Then: MQOPEN with
    BIND_ON_OPEN and no local instance fails MQRC_CLUSTER_PUT_INHIBITED (2268); with
    BIND_NOT_FIXED, or with a local instance, MQOPEN succeeds and MQPUT fails
    MQRC_PUT_INHIBITED (2051) (seed 001: this step first, in MQ 6/7's order).
 2. If the local instance remains, it is chosen when the message was put by a cluster channel,
    or CLWLUSEQ is LOCAL (queue), or QMGR with the queue manager's CLWLUSEQ LOCAL. With ANY it
    competes like any other instance from here on (spec aliases-channels-storage 1 use 5,
    test 4.9). IBM's MQ 6/7 order: this step comes before the rank steps, so a local
    instance is used whatever the ranks of the remote ones.
 3. Channels (queue managers) with a CLWLRANK below the highest are eliminated (the local
    instance has no channel and is not), then queues with a CLWLRANK below the highest.
    Rank is taken *before* channel status, so an unreachable high-ranked destination still
    wins and the message waits.
 5. Suspended queue managers are eliminated if any non-suspended remain (SUSPEND QMGR).
 6. Channel status, best group kept: {INACTIVE, RUNNING} (the local instance counts here),
    then {BINDING, INITIALIZING, STARTING, STOPPING}, then {RETRYING}, then the rest
    (REQUESTING, PAUSED, STOPPED ...). IBM puts INACTIVE and RUNNING in one group: an idle
    channel is as good as a running one, which is what lets the round robin start channels.
 7. For each queue manager reached by more than one channel, the highest NETPRTY is kept.
 8. Queues with a CLWLPRTY below the highest are eliminated, then channels likewise.
 9. If more than CLWLMRUC channels remain, only the CLWLMRUC most recently used are kept.
10. The least recently used remains: lowest destination sequence factor, then lowest
    destination sequence number (then channel name, so tests are deterministic). The
    choice's factor grows by 1000 // CLWLWGHT, so a weight-80 channel is chosen about four
    times as often as a weight-20 one, and equal weights give a plain round robin. All
    factors go back to zero when a new destination appears or a destination's workload
    attributes change.

Binding: BIND_ON_OPEN chooses once at MQOPEN and every put goes to that choice
(``previous_choice``); BIND_NOT_FIXED chooses at every MQPUT. A message that was neither bound
nor in doubt when its channel failed is re-routed (:func:`reroute`, seed 001 2.1.1).
Not done here: the cluster workload exit (CLWLEXIT), queue-manager-alias destinations (an
ObjectQMgrName that names a clustered QM alias), cluster PCF publication routing (IBM step
"already sent"), BIND_ON_GROUP (treated as BIND_ON_OPEN).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence

import attrs

from mqpy import CMQC
from mqpy.errors import MQMIError

__all__ = [
    "LOCAL_KEY",
    "QueueInstance",
    "RoundRobinState",
    "WorkloadChoice",
    "choose_destination",
    "effective_bind",
    "may_reroute",
    "reroute",
]

#: The round-robin key of the local instance (it has no channel).
LOCAL_KEY = "*LOCAL*"
#: Channel-status groups of step 6, best first; a status in none of them is in the last group.
STATUS_GROUPS: tuple[frozenset[str], ...] = (
    frozenset({"INACTIVE", "RUNNING"}),
    frozenset({"BINDING", "INITIALIZING", "STARTING", "STOPPING"}),
    frozenset({"RETRYING"}),
)
DEFAULT_MRUC = 999_999_999  # CLWLMRUC initial value


def _fail(reason: int) -> MQMIError:
    return MQMIError(CMQC.MQCC_FAILED, reason)


@attrs.frozen
class QueueInstance:
    """One instance of a cluster queue as the workload algorithm sees it.

    Channel attributes (``channel_*``, ``netprty``) come from the hosting queue manager's
    CLUSRCVR record, queue attributes (``queue_*``, ``put_enabled``) from its queue record.
    """

    queue: str
    qmgr: str
    qmid: str
    cluster: str
    channel: str  # CLUSSDR to use ("" for the local instance)
    local: bool = False
    put_enabled: bool = True
    queue_rank: int = 0
    queue_priority: int = 0
    channel_rank: int = 0
    channel_priority: int = 0
    channel_weight: int = 50
    netprty: int = 0
    suspended: bool = False
    defbind: int = CMQC.MQBND_BIND_ON_OPEN
    clwluseq: str = "QMGR"

    @property
    def key(self) -> str:
        """The destination for round robin: a channel, shared by every queue it serves."""
        return LOCAL_KEY if self.local else self.channel

    @property
    def signature(self) -> tuple[int, int, int, int]:
        return (self.channel_rank, self.channel_priority, self.channel_weight, self.netprty)


@attrs.frozen
class RoundRobinState:
    """IBM's per-destination MQWDR.DestSeqFactor and DestSeqNumber, and the last number used.

    Immutable: :func:`choose_destination` returns a new one. Keep one per queue manager (the
    counts are per channel, across all cluster queues, as IBM documents for CLWLWGHT).
    """

    factors: Mapping[str, int] = attrs.field(factory=dict)
    numbers: Mapping[str, int] = attrs.field(factory=dict)
    signatures: Mapping[str, tuple[int, int, int, int]] = attrs.field(factory=dict)
    last_number: int = 0


@attrs.frozen
class WorkloadChoice:
    """The chosen instance (None: MQOPEN with BIND_NOT_FIXED, chosen at each put)."""

    destination: QueueInstance | None
    state: RoundRobinState


def effective_bind(open_options: int, defbind: int) -> int:
    """MQBND_* for an MQOPEN: MQOO_BIND_ON_OPEN / NOT_FIXED, or the queue's DEFBIND."""
    if open_options & CMQC.MQOO_BIND_NOT_FIXED:
        return CMQC.MQBND_BIND_NOT_FIXED
    if open_options & CMQC.MQOO_BIND_ON_OPEN:
        return CMQC.MQBND_BIND_ON_OPEN
    if open_options & CMQC.MQOO_BIND_ON_GROUP:
        return CMQC.MQBND_BIND_ON_GROUP
    return defbind


def _keep_max(items: list[QueueInstance], attr: str) -> list[QueueInstance]:
    best = max(getattr(i, attr) for i in items)
    return [i for i in items if getattr(i, attr) == best]


def _status_group(inst: QueueInstance, channel_states: Mapping[str, str]) -> int:
    if inst.local:
        return 0
    return _group_of(channel_states.get(inst.channel, "INACTIVE"))


def _group_of(status: str) -> int:
    """A channel status's group (workload step 6): lower is better; STOPPED is last."""
    for n, group in enumerate(STATUS_GROUPS):
        if status.upper() in group:
            return n
    return len(STATUS_GROUPS)


def _useq_local(clwluseq: str, qmgr_clwluseq: str) -> bool:
    value = clwluseq.upper()
    if value == "QMGR":
        value = qmgr_clwluseq.upper()
    return value != "ANY"


def choose_destination(
    instances: Sequence[QueueInstance],
    channel_states: Mapping[str, str],
    local_qmgr: str,
    clwluseq: str,
    bind: int,
    previous_choice: QueueInstance | None,
    round_robin_state: RoundRobinState,
    *,
    opening: bool = False,
    qmgr_clwluseq: str = "LOCAL",
    put_by_cluster_channel: bool = False,
    clwlmruc: int = DEFAULT_MRUC,
    target_qmgr: str = "",
) -> WorkloadChoice:
    """Choose the instance of a cluster queue for one MQOPEN (``opening``) or MQPUT.

    ``clwluseq`` is the local queue's CLWLUSEQ (LOCAL | ANY | QMGR), ``qmgr_clwluseq`` the
    queue manager's. ``bind`` is an MQBND_* value (see :func:`effective_bind`).
    ``previous_choice`` is what the MQOPEN chose for a BIND_ON_OPEN handle. ``target_qmgr``
    (an ObjectQMgrName in the MQOD) bypasses balancing. Raises MQMIError 2085, 2268 or 2051.
    """
    state = round_robin_state
    fixed = bind != CMQC.MQBND_BIND_NOT_FIXED
    if fixed and not opening and previous_choice is not None:
        return WorkloadChoice(previous_choice, state)  # BIND_ON_OPEN: every put goes there
    candidates = [i for i in instances if not target_qmgr or i.qmgr == target_qmgr]
    if not candidates:
        raise _fail(CMQC.MQRC_UNKNOWN_OBJECT_NAME)
    local = [i for i in candidates if i.local or i.qmgr == local_qmgr]

    # 1. put-disabled instances, unless all are
    enabled = [i for i in candidates if i.put_enabled]
    if not enabled:
        if opening and not fixed:
            return WorkloadChoice(None, state)  # NOT_FIXED: MQOPEN works, each MQPUT 2051
        if opening and local:
            return WorkloadChoice(local[0], state)  # bound to the local queue: MQPUT 2051
        raise _fail(CMQC.MQRC_CLUSTER_PUT_INHIBITED if opening else CMQC.MQRC_PUT_INHIBITED)
    if opening and not fixed:
        return WorkloadChoice(None, state)
    candidates = enabled
    # 2. the local instance, before any rank: CLWLUSEQ(LOCAL) or a put by a cluster channel
    # takes it whatever the remote instances' ranks; with ANY it competes from here on
    local = [i for i in candidates if i.local or i.qmgr == local_qmgr]
    if local and (put_by_cluster_channel or _useq_local(clwluseq, qmgr_clwluseq)):
        return WorkloadChoice(local[0], state)
    # 3. rank: channels, then queues (the local instance has no channel: its channel
    # rank counts as the highest, so only queue rank can set it aside)
    top_channel_rank = max(i.channel_rank for i in candidates)
    candidates = [i for i in candidates if i.local or i.qmgr == local_qmgr
                  or i.channel_rank == top_channel_rank]
    candidates = _keep_max(candidates, "queue_rank")
    # 5. suspended queue managers last
    active = [i for i in candidates if not i.suspended]
    candidates = active or candidates
    # 6. channel status groups
    best_group = min(_status_group(i, channel_states) for i in candidates)
    candidates = [i for i in candidates if _status_group(i, channel_states) == best_group]
    # 7. NETPRTY per queue manager
    top_net: dict[str, int] = {}
    for i in candidates:
        top_net[i.qmid] = max(top_net.get(i.qmid, i.netprty), i.netprty)
    candidates = [i for i in candidates if i.netprty == top_net[i.qmid]]
    # 8. priority: queues, then channels
    candidates = _keep_max(candidates, "queue_priority")
    candidates = _keep_max(candidates, "channel_priority")
    # 9-10. most recently used limit, then least recently used with weights
    return _least_recently_used(candidates, instances, state, clwlmruc)


def _least_recently_used(candidates: list[QueueInstance], known: list[QueueInstance],
                         state: RoundRobinState, clwlmruc: int) -> WorkloadChoice:
    """Step 10 among ``candidates``; ``known`` (every instance, eliminated or not) tells a
    new destination from one that was only set aside for a while (suspended, stopped)."""
    factors = dict(state.factors)
    numbers = dict(state.numbers)
    signatures = dict(state.signatures)
    if any(signatures.get(i.key) != i.signature for i in known):
        factors = dict.fromkeys(factors, 0)  # new destination, or its attributes changed
        for i in known:
            signatures[i.key] = i.signature
    if len(candidates) > clwlmruc:
        candidates = sorted(candidates, key=lambda i: -numbers.get(i.key, 0))[:clwlmruc]
    chosen = min(candidates, key=lambda i: (factors.get(i.key, 0), numbers.get(i.key, 0),
                                            i.key))
    factors[chosen.key] = factors.get(chosen.key, 0) + 1000 // max(1, chosen.channel_weight)
    numbers[chosen.key] = state.last_number + 1
    new_state = RoundRobinState(factors, numbers, signatures, state.last_number + 1)
    return WorkloadChoice(chosen, new_state)


def may_reroute(bind: int, in_doubt: bool) -> bool:
    """Whether a message backed out from a failed cluster channel may go elsewhere.

    Seed 001 2.1.1: only messages that are not in doubt and not bound to the queue manager
    (BIND_NOT_FIXED: no queue-manager name fixed in the MQXQH) are given to the workload
    algorithm again; the rest wait for the original queue manager.
    """
    return bind == CMQC.MQBND_BIND_NOT_FIXED and not in_doubt


def reroute(
    failed_channel: str,
    bind: int,
    in_doubt: bool,
    instances: Iterable[QueueInstance],
    channel_states: Mapping[str, str],
    local_qmgr: str,
    round_robin_state: RoundRobinState,
    *,
    clwluseq: str = "QMGR",
    qmgr_clwluseq: str = "LOCAL",
) -> WorkloadChoice | None:
    """A new destination for a message of ``failed_channel``, or None: it waits (seed 001).

    The failed channel's own instances are left out; with no alternative the message stays on
    SYSTEM.CLUSTER.TRANSMIT.QUEUE for the original queue manager. A message moves only to
    the local instance or to a channel in a strictly better status group than the failed
    one's (workload step 6): between two RETRYING channels it would only go back and forth.
    Spec operations-dlq-clusters 7.28.
    """
    if not may_reroute(bind, in_doubt):
        return None
    others = [i for i in instances if i.local or i.channel != failed_channel]
    if not others:
        return None
    try:
        choice = choose_destination(others, channel_states, local_qmgr, clwluseq,
                                    CMQC.MQBND_BIND_NOT_FIXED, None, round_robin_state,
                                    qmgr_clwluseq=qmgr_clwluseq)
    except MQMIError:
        return None  # every alternative is put-inhibited: wait for the original one
    dest = choice.destination
    if dest is None:
        return None
    failed = _group_of(channel_states.get(failed_channel, "INACTIVE"))
    if not dest.local and _status_group(dest, channel_states) >= failed:
        return None  # no better off there: it waits for its own channel
    return choice
