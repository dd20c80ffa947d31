"""Operator utilities like IBM's SupportPac MS0G: dump the repository, inspect and re-drive the
cluster transmission queue (spec operations-dlq-clusters §4 "MS0G utilities", 7.29).

- :func:`dump_repository` (``dumprepos``): every record on SYSTEM.CLUSTER.REPOSITORY.QUEUE
  (and the subscriptions kept there), browsed: the repository manager holds the queue for
  exclusive input, and browsing is allowed.
- :func:`xmitq` (``clusxq``): the messages on SYSTEM.CLUSTER.TRANSMIT.QUEUE by channel
  (CorrelId), *internal* (repository commands, for SYSTEM.CLUSTER.COMMAND.QUEUE) or *user*:
  ``statistics`` counts them, ``display`` lists them, ``delete`` removes them, ``reput`` gets
  each one and puts its message again by its destination queue name (the workload algorithm
  chooses anew for a user message; an internal one keeps its queue manager), and puts it on
  the dead-letter queue behind an MQDLH when that put fails. Each message is one unit of work.
"""

from __future__ import annotations

import attrs

import mqpy
from mqpy import CMQC
from mqpy.browsing import browse
from mqpy.engine import reports
from mqpy.engine.cluster import COMMAND_QUEUE, REQUEST_FORMAT
from mqpy.fap.channeldefs import CLUSTER_XMITQ, channel_of_correl_id
from mqpy.fap.messagedata import XQH_WITH_MD_LENGTH

from .manager import REPOSITORY_QUEUE
from .records import RecordFormatError, decode, encode


def dump_repository(qm: mqpy.QueueManager) -> list[str]:
    """One line per message on the repository queue: its record as JSON, or why not."""
    lines: list[str] = []
    for md, data in browse(qm, REPOSITORY_QUEUE):
        if md.Format.rstrip(b" \x00").decode("latin-1") == REQUEST_FORMAT:
            lines.append(data.decode("utf-8", "replace"))  # a name asked for here
            continue
        try:
            lines.append(encode(decode(data)).decode())
        except RecordFormatError as exc:
            lines.append(f"(not a repository record: {exc})")
    return lines


@attrs.frozen
class XmitMessage:
    channel: str
    internal: bool
    remote_q: str
    remote_qm: str
    length: int
    msgid: bytes


def _wanted(msg: XmitMessage, channel: str, kind: str) -> bool:
    if channel and msg.channel != channel:
        return False
    return kind == "" or (kind == "c") == msg.internal


def _describe(md: mqpy.MD, data: bytes) -> XmitMessage:
    xqh = mqpy.XQH().unpack(data)
    remote_q = xqh.RemoteQName.rstrip(b" \x00").decode("latin-1")
    return XmitMessage(channel_of_correl_id(md.CorrelId), remote_q == COMMAND_QUEUE, remote_q,
                       xqh.RemoteQMgrName.rstrip(b" \x00").decode("latin-1"),
                       len(data) - XQH_WITH_MD_LENGTH, bytes(md.MsgId))


def xmitq(qm: mqpy.QueueManager, action: str, channel: str = "", kind: str = ""
          ) -> list[XmitMessage]:
    """``action``: "display" (and "statistics"), "delete" or "reput"; ``kind``: "c" internal
    messages only, "u" user messages only, "" both; ``channel`` "" = every channel.
    Returns the messages acted on."""
    if action in ("display", "statistics"):
        return [m for m in _browse(qm) if _wanted(m, channel, kind)]
    done: list[XmitMessage] = []
    q = mqpy.Queue(qm, CLUSTER_XMITQ, CMQC.MQOO_INPUT_SHARED | CMQC.MQOO_BROWSE)
    try:
        for msg in [m for m in _browse(qm) if _wanted(m, channel, kind)]:
            md = mqpy.MD(MsgId=msg.msgid)
            try:
                data = q.get(None, md, mqpy.GMO(Options=CMQC.MQGMO_SYNCPOINT,
                                                MatchOptions=CMQC.MQMO_MATCH_MSG_ID))
            except mqpy.MQMIError as e:
                if e.reason == CMQC.MQRC_NO_MSG_AVAILABLE:
                    continue  # a channel took it meanwhile
                raise
            try:
                if action == "reput":
                    _reput(qm, msg, data)
                qm.commit()
            except mqpy.MQMIError:
                qm.backout()  # the message stays where it was
                raise
            done.append(msg)
    finally:
        q.close()
    return done


def statistics(messages: list[XmitMessage]) -> dict[str, dict[str, int]]:
    """Per channel: internal and user message counts and bytes."""
    out: dict[str, dict[str, int]] = {}
    for m in messages:
        row = out.setdefault(m.channel, {"internal": 0, "user": 0, "bytes": 0})
        row["internal" if m.internal else "user"] += 1
        row["bytes"] += m.length
    return out


def _browse(qm: mqpy.QueueManager) -> list[XmitMessage]:
    return [_describe(md, data) for md, data in browse(qm, CLUSTER_XMITQ)]


def _reput(qm: mqpy.QueueManager, msg: XmitMessage, data: bytes) -> None:
    """Put the message again by its destination; on failure, to the DLQ (same UOW)."""
    inner = mqpy.XQH().unpack(data).MsgDesc
    body = data[XQH_WITH_MD_LENGTH:]
    od = mqpy.OD(ObjectName=msg.remote_q.encode("latin-1"),
                 ObjectQMgrName=(msg.remote_qm if msg.internal else "").encode("latin-1"))
    pmo = mqpy.PMO(Options=CMQC.MQPMO_SYNCPOINT | CMQC.MQPMO_SET_ALL_CONTEXT)
    try:
        qm.put1(od, body, inner, pmo)
        return
    except mqpy.MQMIError as e:
        reason = e.reason
    deadq = qm.inquire(CMQC.MQCA_DEAD_LETTER_Q_NAME).strip(b" \x00").decode("latin-1")
    if not deadq:
        raise mqpy.MQMIError(CMQC.MQCC_FAILED, reason)
    dmd, dlq_body = reports.build_dead_letter(inner, body, reason, msg.remote_q, msg.remote_qm,
                                              put_appl_name=b"mqpy clusxq",
                                              put_date=inner.PutDate, put_time=inner.PutTime)
    qm.put1(deadq, dlq_body, dmd, mqpy.PMO(Options=CMQC.MQPMO_SYNCPOINT
                                           | CMQC.MQPMO_SET_ALL_CONTEXT))
