"""SYSTEM.CLUSTER.TRANSMIT.QUEUE as the repository manager works on it: which cluster-sender
channels messages wait for, the unbound messages of a failed cluster sender re-routed to
another instance of their queue (seed 001 2.1.1; spec operations-dlq-clusters 7.28), and the
messages bound to the queue manager of a deleted cluster channel dead-lettered. Every function
here is blocking: the repository manager runs each on a worker thread, one unit of work a
message.
"""

from __future__ import annotations

from collections.abc import Iterator

import mqpy
from mqpy import CMQC, wake
from mqpy.engine import reports
from mqpy.engine.cluster import COMMAND_QUEUE
from mqpy.fap import channeldefs as D
from mqpy.fap.messagedata import XQH_WITH_MD_LENGTH

from .directory import Cache, cached_instances
from .workload import RoundRobinState, reroute


def _browsed(xq: mqpy.Queue) -> Iterator[mqpy.MD]:
    """Each message's MQMD on the cluster transmission queue, browsed from the first (no
    data read), until none is left."""
    options = CMQC.MQGMO_BROWSE_FIRST
    while True:
        md = mqpy.MD()
        try:
            xq.get(0, md, mqpy.GMO(Options=options | CMQC.MQGMO_NO_SYNCPOINT
                                   | CMQC.MQGMO_ACCEPT_TRUNCATED_MSG))
        except mqpy.MQMIError as e:
            if e.reason == CMQC.MQRC_NO_MSG_AVAILABLE:
                return
            if e.reason != CMQC.MQRC_TRUNCATED_MSG_ACCEPTED:
                raise
        yield md
        options = CMQC.MQGMO_BROWSE_NEXT


def waiting_channels(xq: mqpy.Queue) -> list[str]:
    """The channels that messages on the cluster transmission queue are keyed to."""
    seen: list[str] = []
    for md in _browsed(xq):
        name = D.channel_of_correl_id(md.CorrelId)
        if name and name not in seen:
            seen.append(name)
    return seen


def anything_waiting(xq: mqpy.Queue) -> bool:
    """Whether any message but a wake message (``mqpy.wake``) is on the cluster
    transmission queue (one keyed to no channel too)."""
    return any(not wake.is_wake(md) for md in _browsed(xq))


def reroute_unbound(qm: mqpy.QueueManager, channel: str, cache: Cache, qmgr: str,
                    rr: RoundRobinState) -> tuple[int, RoundRobinState]:
    """Messages of a failed cluster sender that are neither bound (no queue manager in
    the MQXQH) nor in doubt (those are locked) go to another instance, if there is one,
    chosen by the workload algorithm from ``cache`` as queue manager ``qmgr`` sees it, with
    round-robin state ``rr``. Each is its own unit of work. How many moved, and the
    round-robin state after them."""
    xq = mqpy.Queue(qm, D.CLUSTER_XMITQ, CMQC.MQOO_INPUT_SHARED | CMQC.MQOO_OUTPUT
                    | CMQC.MQOO_SET_ALL_CONTEXT | CMQC.MQOO_SAVE_ALL_CONTEXT)
    moved = 0
    try:
        for md, xqh in _unbound(qm, channel):
            queue = xqh.RemoteQName.rstrip(b" \x00").decode("latin-1")
            choice = reroute(channel, CMQC.MQBND_BIND_NOT_FIXED, False,
                             cached_instances(cache, queue), cache.channels, qmgr, rr,
                             qmgr_clwluseq=cache.clwluseq)
            if choice is None or choice.destination is None:
                continue  # nowhere better: it waits for its queue manager
            dest = choice.destination
            got = mqpy.MD(MsgId=md.MsgId, CorrelId=md.CorrelId)
            data = _take(xq, got)
            if data is None:
                continue  # the channel took it meanwhile
            try:
                if dest.local:
                    qm.put1(queue, data[XQH_WITH_MD_LENGTH:], xqh.MsgDesc,
                            mqpy.PMO(Options=CMQC.MQPMO_SYNCPOINT
                                     | CMQC.MQPMO_SET_ALL_CONTEXT))
                else:
                    got.CorrelId = D.cluster_correl_id(dest.channel)
                    xq.put(data, got, mqpy.PMO(Options=CMQC.MQPMO_SYNCPOINT
                                               | CMQC.MQPMO_SET_ALL_CONTEXT))
                qm.commit()
                rr = choice.state
                moved += 1
            except mqpy.MQMIError:
                qm.backout()
    finally:
        xq.close()
    return moved, rr


def dead_letter_bound(qm: mqpy.QueueManager, channel: str) -> int:
    """The user messages bound to the queue manager of a cluster channel that is no
    longer defined go to the dead-letter queue (MQRC_UNKNOWN_REMOTE_Q_MGR), each in its
    own unit of work; without a DLQ they stay. How many went."""
    deadq = qm.inquire(CMQC.MQCA_DEAD_LETTER_Q_NAME).strip(b" \x00")
    if not deadq:
        return 0
    xq = mqpy.Queue(qm, D.CLUSTER_XMITQ, CMQC.MQOO_INPUT_SHARED)
    dead = 0
    try:
        for md, xqh in _keyed_to(qm, channel, bound=True):
            got = mqpy.MD(MsgId=md.MsgId, CorrelId=md.CorrelId)
            data = _take(xq, got)
            if data is None:
                continue  # the channel took it meanwhile
            dmd, body = reports.build_dead_letter(
                xqh.MsgDesc, data[XQH_WITH_MD_LENGTH:], CMQC.MQRC_UNKNOWN_REMOTE_Q_MGR,
                xqh.RemoteQName.rstrip(b" \x00").decode("latin-1"),
                xqh.RemoteQMgrName.rstrip(b" \x00").decode("latin-1"),
                put_appl_name=b"mqpy repository manager", put_date=got.PutDate,
                put_time=got.PutTime)
            try:
                qm.put1(deadq.decode("latin-1"), body, dmd,
                        mqpy.PMO(Options=CMQC.MQPMO_SYNCPOINT
                                 | CMQC.MQPMO_SET_ALL_CONTEXT))
                qm.commit()
                dead += 1
            except mqpy.MQMIError:
                qm.backout()  # the DLQ is full or inhibited: it waits
    finally:
        xq.close()
    return dead


def _unbound(qm: mqpy.QueueManager, channel: str) -> list[tuple[mqpy.MD, mqpy.XQH]]:
    """The user messages keyed to ``channel`` whose MQXQH names no queue manager."""
    return _keyed_to(qm, channel, bound=False)


def _keyed_to(qm: mqpy.QueueManager, channel: str, *, bound: bool
              ) -> list[tuple[mqpy.MD, mqpy.XQH]]:
    """The user messages keyed to ``channel`` whose MQXQH names a queue manager (``bound``)
    or none, browsed reading only the MQXQH (the bodies stay where they are). Cluster
    commands, and anything that is not a transmission message, are left alone."""
    q = mqpy.Queue(qm, D.CLUSTER_XMITQ, CMQC.MQOO_BROWSE)
    out = []
    options = CMQC.MQGMO_BROWSE_FIRST
    try:
        while True:
            md = mqpy.MD(CorrelId=D.cluster_correl_id(channel))
            try:
                head = q.get(XQH_WITH_MD_LENGTH, md, mqpy.GMO(
                    Options=options | CMQC.MQGMO_NO_SYNCPOINT
                    | CMQC.MQGMO_ACCEPT_TRUNCATED_MSG,
                    MatchOptions=CMQC.MQMO_MATCH_CORREL_ID))
            except mqpy.MQMIError as e:
                if e.reason == CMQC.MQRC_NO_MSG_AVAILABLE:
                    return out
                if e.reason != CMQC.MQRC_TRUNCATED_MSG_ACCEPTED:
                    raise
                head = getattr(e, "message", b"")
            options = CMQC.MQGMO_BROWSE_NEXT
            if md.Format.rstrip(b" \x00") != CMQC.MQFMT_XMIT_Q_HEADER.rstrip(b" ") or \
                    len(head) < XQH_WITH_MD_LENGTH:
                continue
            try:
                xqh = mqpy.XQH().unpack(head)
            except ValueError:  # mqpy.structs.fields.StructError
                continue
            if xqh.RemoteQName.rstrip(b" \x00").decode("latin-1") == COMMAND_QUEUE:
                continue
            if bool(xqh.RemoteQMgrName.strip(b" \x00")) == bound:
                out.append((md, xqh))
    finally:
        q.close()


def _take(xq: mqpy.Queue, md: mqpy.MD) -> bytes | None:
    """Get, under syncpoint, the one message ``md``'s MsgId and CorrelId name; None when it is
    gone (its channel took it meanwhile)."""
    try:
        return xq.get(None, md, mqpy.GMO(
            Options=CMQC.MQGMO_SYNCPOINT,
            MatchOptions=CMQC.MQMO_MATCH_MSG_ID | CMQC.MQMO_MATCH_CORREL_ID))
    except mqpy.MQMIError as e:
        if e.reason == CMQC.MQRC_NO_MSG_AVAILABLE:
            return None
        raise
