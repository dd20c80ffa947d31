"""Statistics and accounting messages in IBM's PCF layout, and their flat export records.

Builds the messages a queue manager puts on SYSTEM.ADMIN.STATISTICS.QUEUE (MQCFH Type
MQCFT_STATISTICS; Command MQCMD_STATISTICS_MQI, _Q, _CHANNEL) and SYSTEM.ADMIN.ACCOUNTING.QUEUE
(MQCFT_ACCOUNTING; MQCMD_ACCOUNTING_MQI, _Q), with the parameters and their order as IBM MQ
writes them, so IBM's amqsmon and pymqi read ours and ours read theirs. Lists split by
persistence are [non-persistent, persistent], as IBM's.

mqpy adds one group IBM has no equivalent for: the log and storage figures capacity planning
needs (``MQPY_GACF_STORAGE_STATISTICS_DATA``), at the end of the MQI statistics message. Its
identifiers sit in a range IBM does not use (9700+); parsers that do not know them skip the group.

``to_records`` flattens any of these messages (ours or IBM's) into the dicts the exporter writes
as JSON Lines and the Spark jobs read. Pure: no queues, no files, no clocks except the ones
passed in.
"""

from __future__ import annotations

import struct
import time
from collections.abc import Iterable, Sequence
from typing import Any

import attrs

from mqpy import CMQC, CMQCFC
from mqpy.engine.stats import MQICounters, QueueCounters
from mqpy.pcf import (
    CFBS,
    CFGR,
    CFH,
    CFIL,
    CFIL64,
    CFIN,
    CFIN64,
    CFST,
    Parameter,
    PCFMessage,
    build,
)
from mqpy.stats.channels import ChannelInterval, ChannelIntervals

# ----------------------------------------------------------------------------- mqpy extensions
#: The group of log and storage figures in an MQCMD_STATISTICS_MQI message.
MQPY_GACF_STORAGE_STATISTICS_DATA = 9800
MQPY_IAMO64_LOG_BYTES = 9701
MQPY_IAMO_LOG_RECORDS = 9702
MQPY_IAMO_LOG_FORCES = 9703
#: log records per force (fsync), in hundredths
MQPY_IAMO_LOG_RECORDS_PER_FORCE = 9704
MQPY_IAMO_CHECKPOINTS = 9705
#: microseconds spent in checkpoints during the interval
MQPY_IAMO64_CHECKPOINT_TIME = 9706
MQPY_IAMO_PAGESET_READS = 9707
MQPY_IAMO_BUFFER_HITS = 9708
MQPY_IAMO_BUFFER_EVICTIONS = 9709
#: buffer-pool hit ratio, in hundredths of a per cent (0..10000)
MQPY_IAMO_BUFFER_HIT_RATIO = 9710
MQPY_IAMO_PAGESET_IDS = 9711
MQPY_IAMO_PAGES_USED = 9712
MQPY_IAMO_PAGES_FREE = 9713

#: IBM writes at most this many object groups in one statistics message.
MAX_GROUPS_PER_MESSAGE = 100

_QTYPES = {"QLOCAL": CMQC.MQQT_LOCAL, "QMODEL": CMQC.MQQT_MODEL, "QALIAS": CMQC.MQQT_ALIAS,
           "QREMOTE": CMQC.MQQT_REMOTE}
_DEFTYPES = {"PREDEFINED": CMQC.MQQDT_PREDEFINED, "PERMDYN": CMQC.MQQDT_PERMANENT_DYNAMIC,
             "TEMPDYN": CMQC.MQQDT_TEMPORARY_DYNAMIC, "SHAREDYN": CMQC.MQQDT_SHARED_DYNAMIC}
CHANNEL_TYPES = {"SDR": CMQC.MQCHT_SENDER, "SVR": CMQC.MQCHT_SERVER, "RCVR": CMQC.MQCHT_RECEIVER,
                 "RQSTR": CMQC.MQCHT_REQUESTER, "SVRCONN": CMQC.MQCHT_SVRCONN,
                 "CLUSRCVR": CMQC.MQCHT_CLUSRCVR, "CLUSSDR": CMQC.MQCHT_CLUSSDR}


def date_time(epoch: float) -> tuple[str, str]:
    """IBM's local 'YYYY-MM-DD' and 'HH.MM.SS' for an instant."""
    t = time.localtime(epoch)
    return time.strftime("%Y-%m-%d", t), time.strftime("%H.%M.%S", t)


def parse_date_time(date: str, tod: str) -> float:
    """The instant of IBM's local date and time strings (seconds since the epoch)."""
    return time.mktime(time.strptime(f"{date.strip()} {tod.strip()}", "%Y-%m-%d %H.%M.%S"))


def _st(param: int, s: str | bytes, width: int | None = None) -> CFST:
    b = s.encode("latin-1", "replace") if isinstance(s, str) else s
    if width:
        b = b.ljust(width)
    return CFST(param, b)


def _interval(qmgr: str, start: float, end: float) -> list[Parameter]:
    sd, st = date_time(start)
    ed, et = date_time(end)
    return [
        _st(CMQC.MQCA_Q_MGR_NAME, qmgr, CMQC.MQ_Q_MGR_NAME_LENGTH),
        _st(CMQCFC.MQCAMO_START_DATE, sd),
        _st(CMQCFC.MQCAMO_START_TIME, st),
        _st(CMQCFC.MQCAMO_END_DATE, ed),
        _st(CMQCFC.MQCAMO_END_TIME, et),
        CFIN(CMQC.MQIA_COMMAND_LEVEL, CMQC.MQCMDL_CURRENT_LEVEL),
    ]


def _message(cft: int, command: int, params: list[Parameter], seq: int = 1,
             last: bool = True) -> PCFMessage:
    header = CFH(Type=cft, StrucLength=CMQCFC.MQCFH_STRUC_LENGTH, Version=CMQCFC.MQCFH_VERSION_3,
                 Command=command, MsgSeqNumber=seq,
                 Control=CMQCFC.MQCFC_LAST if last else CMQCFC.MQCFC_NOT_LAST)
    return PCFMessage(header, params)


# ----------------------------------------------------------------------------- storage group


@attrs.frozen
class StorageInterval:
    """The log and storage figures of one interval (deltas, except the pageset pages)."""

    log_bytes: int = 0
    log_records: int = 0
    log_forces: int = 0
    checkpoints: int = 0
    checkpoint_seconds: float = 0.0
    pageset_reads: int = 0
    buffer_hits: int = 0
    evictions: int = 0
    #: psid -> (pages used, pages in the map)
    pagesets: dict[int, tuple[int, int]] = attrs.Factory(dict)

    def group(self) -> CFGR:
        per_force = round(self.log_records * 100 / self.log_forces) if self.log_forces else 0
        lookups = self.buffer_hits + self.pageset_reads
        ratio = round(self.buffer_hits * 10000 / lookups) if lookups else 10000
        psids = sorted(self.pagesets)
        return CFGR(MQPY_GACF_STORAGE_STATISTICS_DATA, [
            CFIN64(MQPY_IAMO64_LOG_BYTES, self.log_bytes),
            CFIN(MQPY_IAMO_LOG_RECORDS, self.log_records),
            CFIN(MQPY_IAMO_LOG_FORCES, self.log_forces),
            CFIN(MQPY_IAMO_LOG_RECORDS_PER_FORCE, per_force),
            CFIN(MQPY_IAMO_CHECKPOINTS, self.checkpoints),
            CFIN64(MQPY_IAMO64_CHECKPOINT_TIME, int(self.checkpoint_seconds * 1e6)),
            CFIN(MQPY_IAMO_PAGESET_READS, self.pageset_reads),
            CFIN(MQPY_IAMO_BUFFER_HITS, self.buffer_hits),
            CFIN(MQPY_IAMO_BUFFER_EVICTIONS, self.evictions),
            CFIN(MQPY_IAMO_BUFFER_HIT_RATIO, ratio),
            CFIL(MQPY_IAMO_PAGESET_IDS, psids),
            CFIL(MQPY_IAMO_PAGES_USED, [self.pagesets[p][0] for p in psids]),
            CFIL(MQPY_IAMO_PAGES_FREE, [self.pagesets[p][1] - self.pagesets[p][0] for p in psids]),
        ])


# ----------------------------------------------------------------------------- statistics


def _mqi_params(c: MQICounters) -> list[Parameter]:
    """The MQI counters as IBM orders them in MQI statistics and accounting messages."""
    return [
        CFIN(CMQCFC.MQIAMO_CONNS, c.connects),
        CFIN(CMQCFC.MQIAMO_CONNS_FAILED, c.connect_fails),
        CFIL(CMQCFC.MQIAMO_DISCS, [c.disconnects, 0, 0]),
        CFIL(CMQCFC.MQIAMO_OPENS, [c.opens]),
        CFIL(CMQCFC.MQIAMO_OPENS_FAILED, [c.open_fails]),
        CFIL(CMQCFC.MQIAMO_CLOSES, [c.closes]),
        CFIL(CMQCFC.MQIAMO_CLOSES_FAILED, [c.close_fails]),
        CFIL(CMQCFC.MQIAMO_INQS, [c.inqs]),
        CFIL(CMQCFC.MQIAMO_INQS_FAILED, [c.inq_fails]),
        CFIL(CMQCFC.MQIAMO_SETS, [c.sets]),
        CFIL(CMQCFC.MQIAMO_SETS_FAILED, [c.set_fails]),
        CFIL(CMQCFC.MQIAMO_PUTS, c.puts),
        CFIN(CMQCFC.MQIAMO_PUTS_FAILED, c.put_fails),
        CFIL(CMQCFC.MQIAMO_PUT1S, c.put1s),
        CFIN(CMQCFC.MQIAMO_PUT1S_FAILED, 0),
        CFIL64(CMQCFC.MQIAMO64_PUT_BYTES, c.put_bytes),
        CFIL(CMQCFC.MQIAMO_GETS, c.gets),
        CFIN(CMQCFC.MQIAMO_GETS_FAILED, c.get_fails),
        CFIL64(CMQCFC.MQIAMO64_GET_BYTES, c.get_bytes),
        CFIL(CMQCFC.MQIAMO_BROWSES, c.browses),
        CFIN(CMQCFC.MQIAMO_BROWSES_FAILED, 0),
        CFIL64(CMQCFC.MQIAMO64_BROWSE_BYTES, c.browse_bytes),
        CFIN(CMQCFC.MQIAMO_COMMITS, c.commits),
        CFIN(CMQCFC.MQIAMO_COMMITS_FAILED, c.commit_fails),
        CFIN(CMQCFC.MQIAMO_BACKOUTS, c.backouts),
        CFIN(CMQCFC.MQIAMO_MSGS_EXPIRED, c.expired),
        CFIN(CMQCFC.MQIAMO_MSGS_PURGED, c.purged),
        CFIN(CMQCFC.MQIAMO_SUBS_DUR, c.subs[0]),
        CFIN(CMQCFC.MQIAMO_SUBS_NDUR, c.subs[1]),
        CFIN(CMQCFC.MQIAMO_SUBS_FAILED, c.sub_fails),
        CFIN(CMQCFC.MQIAMO_SUBRQS, c.subrqs),
        CFIN(CMQCFC.MQIAMO_SUBRQS_FAILED, c.subrq_fails),
        CFIN(CMQCFC.MQIAMO_STATS, c.stats),
        CFIN(CMQCFC.MQIAMO_STATS_FAILED, c.stat_fails),
    ]


def mqi_statistics(qmgr: str, counters: MQICounters, start: float, end: float, *,
                   conns_max: int = 0, storage: StorageInterval | None = None) -> PCFMessage:
    """MQCMD_STATISTICS_MQI for one interval, with mqpy's storage group when given."""
    params = _interval(qmgr, start, end)
    params.append(CFIN(CMQCFC.MQIAMO_CONNS_MAX, conns_max))
    params += _mqi_params(counters)
    if storage is not None:
        params.append(storage.group())
    return _message(CMQCFC.MQCFT_STATISTICS, CMQCFC.MQCMD_STATISTICS_MQI, params)


@attrs.frozen
class QueueInfo:
    """What a queue group says about the queue itself (from its definition)."""

    name: str
    qtype: str = "QLOCAL"
    deftype: str = "PREDEFINED"
    crdate: str = ""
    crtime: str = ""


def _queue_group(info: QueueInfo, c: QueueCounters, depth_now: int) -> CFGR:
    min_depth = depth_now if c.min_depth is None else c.min_depth
    max_depth = max(c.max_depth, depth_now) if c.min_depth is None else c.max_depth
    return CFGR(CMQCFC.MQGACF_Q_STATISTICS_DATA, [
        _st(CMQC.MQCA_Q_NAME, info.name, CMQC.MQ_Q_NAME_LENGTH),
        _st(CMQC.MQCA_CREATION_DATE, info.crdate, CMQC.MQ_CREATION_DATE_LENGTH),
        _st(CMQC.MQCA_CREATION_TIME, info.crtime, CMQC.MQ_CREATION_TIME_LENGTH),
        CFIN(CMQC.MQIA_Q_TYPE, _QTYPES.get(info.qtype, CMQC.MQQT_LOCAL)),
        CFIN(CMQC.MQIA_DEFINITION_TYPE, _DEFTYPES.get(info.deftype, CMQC.MQQDT_PREDEFINED)),
        CFIN(CMQCFC.MQIAMO_Q_MIN_DEPTH, min_depth),
        CFIN(CMQCFC.MQIAMO_Q_MAX_DEPTH, max_depth),
        CFIL64(CMQCFC.MQIAMO64_AVG_Q_TIME, c.average_time_on_q_us()),
        CFIL(CMQCFC.MQIAMO_PUTS, c.puts),
        CFIN(CMQCFC.MQIAMO_PUTS_FAILED, c.put_fails),
        CFIL(CMQCFC.MQIAMO_PUT1S, c.put1s),
        CFIN(CMQCFC.MQIAMO_PUT1S_FAILED, c.put1_fails),
        CFIL64(CMQCFC.MQIAMO64_PUT_BYTES, c.put_bytes),
        CFIL(CMQCFC.MQIAMO_GETS, c.gets),
        CFIL64(CMQCFC.MQIAMO64_GET_BYTES, c.get_bytes),
        CFIN(CMQCFC.MQIAMO_GETS_FAILED, c.get_fails),
        CFIL(CMQCFC.MQIAMO_BROWSES, c.browses),
        CFIL64(CMQCFC.MQIAMO64_BROWSE_BYTES, c.browse_bytes),
        CFIN(CMQCFC.MQIAMO_BROWSES_FAILED, c.browse_fails),
        CFIN(CMQCFC.MQIAMO_MSGS_NOT_QUEUED, 0),
        CFIN(CMQCFC.MQIAMO_MSGS_EXPIRED, c.expired),
        CFIN(CMQCFC.MQIAMO_MSGS_PURGED, c.purged),
    ])


def queue_statistics(qmgr: str, queues: Sequence[tuple[QueueInfo, QueueCounters, int]],
                     start: float, end: float) -> list[PCFMessage]:
    """MQCMD_STATISTICS_Q messages, up to 100 queue groups each, for (info, counters, depth)."""
    return _grouped(qmgr, start, end, CMQCFC.MQCMD_STATISTICS_Q,
                    [_queue_group(i, c, d) for i, c, d in queues])


def _grouped(qmgr: str, start: float, end: float, command: int,
             groups: list[CFGR]) -> list[PCFMessage]:
    chunks = [groups[i:i + MAX_GROUPS_PER_MESSAGE]
              for i in range(0, len(groups), MAX_GROUPS_PER_MESSAGE)]
    out = []
    for n, chunk in enumerate(chunks, 1):
        params = _interval(qmgr, start, end)
        params.append(CFIN(CMQCFC.MQIAMO_OBJECT_COUNT, len(chunk)))
        params += chunk
        out.append(_message(CMQCFC.MQCFT_STATISTICS, command, params, seq=n,
                            last=n == len(chunks)))
    return out


# ----------------------------------------------------------------------------- channels


def _channel_group(c: ChannelInterval) -> CFGR:
    """A channel's MQGACF_CHL_STATISTICS_DATA group."""
    avg_batch = round(c.msgs / c.batches) if c.batches else 0
    net_avg = c.net_time_us // c.batches if c.batches else 0
    return CFGR(CMQCFC.MQGACF_CHL_STATISTICS_DATA, [
        _st(CMQCFC.MQCACH_CHANNEL_NAME, c.channel, CMQC.MQ_CHANNEL_NAME_LENGTH),
        CFIN(CMQCFC.MQIACH_CHANNEL_TYPE, CHANNEL_TYPES.get(c.chltype, 0)),
        _st(CMQC.MQCA_REMOTE_Q_MGR_NAME, c.rqmname, CMQC.MQ_Q_MGR_NAME_LENGTH),
        _st(CMQCFC.MQCACH_CONNECTION_NAME, c.conname, CMQC.MQ_CONN_NAME_LENGTH),
        CFIN(CMQCFC.MQIAMO_MSGS, c.msgs),
        CFIN64(CMQCFC.MQIAMO64_BYTES, c.bytes),
        CFIN(CMQCFC.MQIAMO_FULL_BATCHES, c.full_batches),
        CFIN(CMQCFC.MQIAMO_INCOMPLETE_BATCHES, c.incomplete_batches),
        CFIN(CMQCFC.MQIAMO_AVG_BATCH_SIZE, avg_batch),
        CFIN(CMQCFC.MQIAMO_PUT_RETRIES, c.put_retries),
        CFIN(CMQCFC.MQIAMO_NET_TIME_MIN, c.net_time_min_us),
        CFIN(CMQCFC.MQIAMO_NET_TIME_AVG, net_avg),
        CFIN(CMQCFC.MQIAMO_NET_TIME_MAX, c.net_time_max_us),
        CFIN(CMQCFC.MQIAMO_EXIT_TIME_MIN, 0),
        CFIN(CMQCFC.MQIAMO_EXIT_TIME_AVG, 0),
        CFIN(CMQCFC.MQIAMO_EXIT_TIME_MAX, 0),
        # mqpy: the channel's BATCHSZ, so achieved batch size can be judged against it
        CFIN(CMQCFC.MQIACH_BATCH_SIZE, c.batchsz),
    ])


def channel_statistics(qmgr: str, channels: Sequence[ChannelInterval], start: float,
                       end: float) -> list[PCFMessage]:
    """MQCMD_STATISTICS_CHANNEL messages for the channels active in the interval."""
    return _grouped(qmgr, start, end, CMQCFC.MQCMD_STATISTICS_CHANNEL,
                    [_channel_group(c) for c in channels])


class ChannelStatsTracker(ChannelIntervals):
    """``ChannelIntervals`` that makes each interval's MQCMD_STATISTICS_CHANNEL messages."""

    def messages(self, qmgr: str, statuses: Iterable[Any], now: float | None = None
                 ) -> list[PCFMessage]:
        """The MQCMD_STATISTICS_CHANNEL messages of the interval ending now."""
        start, end, ivs = self.end_interval(statuses, now)
        return channel_statistics(qmgr, ivs, start, end) if ivs else []


def channel_statistics_from_status(qmgr: str, statuses: Iterable[Any], start: float,
                                   end: float) -> list[PCFMessage]:
    """MQCMD_STATISTICS_CHANNEL from ChannelStatus objects whose counters cover one interval."""
    return channel_statistics(qmgr, ChannelIntervals().intervals(statuses), start, end)


# ----------------------------------------------------------------------------- accounting


@attrs.frozen
class ConnectionInfo:
    """Who the accounting record is for."""

    connection_id: bytes
    appl_name: str
    user: str = ""
    pid: int = 0
    tid: int = 0
    conn_time: float = 0.0
    seq: int = 0
    #: a client's SVRCONN and address (ChannelName, ConnName: returned when available)
    channel: str = ""
    conn_name: str = ""


def _conn_params(qmgr: str, conn: ConnectionInfo, start: float, end: float
                 ) -> list[Parameter]:
    params = _interval(qmgr, start, end)
    cd, ct = date_time(conn.conn_time or start)
    params += [
        CFBS(CMQCFC.MQBACF_CONNECTION_ID, conn.connection_id.ljust(24, b"\0")[:24]),
        CFIN(CMQCFC.MQIACF_SEQUENCE_NUMBER, conn.seq),
        _st(CMQCFC.MQCACF_APPL_NAME, conn.appl_name, CMQC.MQ_APPL_NAME_LENGTH),
        CFIN(CMQCFC.MQIACF_PROCESS_ID, conn.pid),
        CFIN(CMQCFC.MQIACF_THREAD_ID, conn.tid),
        _st(CMQCFC.MQCACF_USER_IDENTIFIER, conn.user, CMQC.MQ_USER_ID_LENGTH),
    ]
    return params + [_st(CMQCFC.MQCAMO_CONN_DATE, cd), _st(CMQCFC.MQCAMO_CONN_TIME, ct)]


def accounting_mqi(qmgr: str, conn: ConnectionInfo, counters: MQICounters, start: float,
                   end: float, *, disc_type: int | None = None) -> PCFMessage:
    """MQCMD_ACCOUNTING_MQI for one connection over one accounting period; a client's
    ConnName and ChannelName, and, in its last (``disc_type``: how it ended), DiscDate,
    DiscTime and DiscType, where IBM places them."""
    params = _conn_params(qmgr, conn, start, end)
    if conn.channel:
        params += [_st(CMQCFC.MQCACH_CONNECTION_NAME, conn.conn_name, CMQC.MQ_CONN_NAME_LENGTH),
                   _st(CMQCFC.MQCACH_CHANNEL_NAME, conn.channel, CMQC.MQ_CHANNEL_NAME_LENGTH)]
    if disc_type is not None:
        dd, dt = date_time(end)
        params += [_st(CMQCFC.MQCAMO_DISC_DATE, dd), _st(CMQCFC.MQCAMO_DISC_TIME, dt),
                   CFIN(CMQCFC.MQIAMO_DISC_TYPE, disc_type)]
    params += _mqi_params(counters)
    return _message(CMQCFC.MQCFT_ACCOUNTING, CMQCFC.MQCMD_ACCOUNTING_MQI, params)


def accounting_q(qmgr: str, conn: ConnectionInfo,
                 queues: Sequence[tuple[QueueInfo, QueueCounters]], start: float,
                 end: float) -> list[PCFMessage]:
    """MQCMD_ACCOUNTING_Q for one connection: a QueueAccounting group per queue it used."""
    groups = []
    for info, c in queues:
        groups.append(CFGR(CMQCFC.MQGACF_Q_ACCOUNTING_DATA, [
            _st(CMQC.MQCA_Q_NAME, info.name, CMQC.MQ_Q_NAME_LENGTH),
            CFIN(CMQC.MQIA_Q_TYPE, _QTYPES.get(info.qtype, CMQC.MQQT_LOCAL)),
            CFIN(CMQC.MQIA_DEFINITION_TYPE, _DEFTYPES.get(info.deftype, 1)),
            CFIL(CMQCFC.MQIAMO_PUTS, c.puts),
            CFIN(CMQCFC.MQIAMO_PUTS_FAILED, c.put_fails),
            CFIL(CMQCFC.MQIAMO_PUT1S, c.put1s),
            CFIN(CMQCFC.MQIAMO_PUT1S_FAILED, c.put1_fails),
            CFIL64(CMQCFC.MQIAMO64_PUT_BYTES, c.put_bytes),
            CFIL(CMQCFC.MQIAMO_GETS, c.gets),
            CFIN(CMQCFC.MQIAMO_GETS_FAILED, c.get_fails),
            CFIL64(CMQCFC.MQIAMO64_GET_BYTES, c.get_bytes),
            CFIL(CMQCFC.MQIAMO_BROWSES, c.browses),
            CFIN(CMQCFC.MQIAMO_BROWSES_FAILED, c.browse_fails),
            CFIL64(CMQCFC.MQIAMO64_BROWSE_BYTES, c.browse_bytes),
            CFIL64(CMQCFC.MQIAMO64_Q_TIME_AVG, c.average_time_on_q_us()),
        ]))
    out = []
    for n in range(0, max(len(groups), 1), MAX_GROUPS_PER_MESSAGE):
        chunk = groups[n:n + MAX_GROUPS_PER_MESSAGE]
        params = _conn_params(qmgr, conn, start, end)
        params.append(CFIN(CMQCFC.MQIAMO_OBJECT_COUNT, len(chunk)))
        out.append(_message(CMQCFC.MQCFT_ACCOUNTING, CMQCFC.MQCMD_ACCOUNTING_Q, params + chunk))
    return out


# ----------------------------------------------------------------------------- packing

# The parameter structures these messages use, as ``mqpy.pcf`` declares them (its construct
# layouts, native byte order: Type, StrucLength, Parameter, then the structure's own fields),
# packed with ``struct``: an accounting record has about 45 parameters, and building each
# through construct was most of the CPU an MQDISC with accounting on cost. ``pack`` is
# checked byte for byte against ``pcf.build`` (tests/stats/test_accounting_cost.py).
_INTEGER = struct.Struct("=4i")  # Value
_INTEGER64 = struct.Struct("=4iq")  # Reserved, Value
_LIST_HEAD = struct.Struct("=4i")  # Count, then Count values
_STRING_HEAD = struct.Struct("=5i")  # CodedCharSetId, StringLength, then the string, padded
_BYTES_HEAD = struct.Struct("=4i")  # StringLength, then the bytes, padded
_GROUP = struct.Struct("=4i")  # ParameterCount, then its parameters
assert _INTEGER.size == CMQCFC.MQCFIN_STRUC_LENGTH
assert _INTEGER64.size == CMQCFC.MQCFIN64_STRUC_LENGTH
assert _LIST_HEAD.size == CMQCFC.MQCFIL_STRUC_LENGTH_FIXED
assert _STRING_HEAD.size == CMQCFC.MQCFST_STRUC_LENGTH_FIXED
assert _BYTES_HEAD.size == CMQCFC.MQCFBS_STRUC_LENGTH_FIXED
assert _GROUP.size == CMQCFC.MQCFGR_STRUC_LENGTH


def _pack_params(params: list[Parameter], out: list[bytes]) -> None:
    for p in params:
        kind = type(p)
        if kind is CFIN:
            out.append(_INTEGER.pack(CMQCFC.MQCFT_INTEGER, _INTEGER.size, p.Parameter, p.Value))
        elif kind is CFIL or kind is CFIL64:
            values = p.Values
            n = len(values)
            if kind is CFIL:
                out.append(_LIST_HEAD.pack(CMQCFC.MQCFT_INTEGER_LIST, _LIST_HEAD.size + 4 * n,
                                           p.Parameter, n))
                out.append(struct.pack(f"={n}i", *values))
            else:
                out.append(_LIST_HEAD.pack(CMQCFC.MQCFT_INTEGER64_LIST, _LIST_HEAD.size + 8 * n,
                                           p.Parameter, n))
                out.append(struct.pack(f"={n}q", *values))
        elif kind is CFST and p.Pad is None:
            text = p.String
            pad = -len(text) % 4
            out.append(_STRING_HEAD.pack(CMQCFC.MQCFT_STRING, _STRING_HEAD.size + len(text) + pad,
                                         p.Parameter, p.CodedCharSetId, len(text)))
            out.append(text + b"\0" * pad if pad else text)
        elif kind is CFGR:
            out.append(_GROUP.pack(CMQCFC.MQCFT_GROUP, _GROUP.size, p.Parameter, len(p.Parameters)))
            _pack_params(p.Parameters, out)
        elif kind is CFIN64:
            out.append(_INTEGER64.pack(CMQCFC.MQCFT_INTEGER64, _INTEGER64.size, p.Parameter, p.Reserved,
                                       p.Value))
        elif kind is CFBS and p.Pad is None:
            data = p.String
            pad = -len(data) % 4
            out.append(_BYTES_HEAD.pack(CMQCFC.MQCFT_BYTE_STRING, _BYTES_HEAD.size + len(data) + pad,
                                        p.Parameter, len(data)))
            out.append(data + b"\0" * pad if pad else data)
        else:  # (any other structure as mqpy.pcf packs it)
            out.append(p.pack())
            if isinstance(p, CFGR):
                _pack_params(p.Parameters, out)


def pack(msg: PCFMessage) -> bytes:
    """The bytes of a statistics or accounting message, native byte order: what
    ``pcf.build(msg)`` makes, in a fraction of its time."""
    if not msg.params:
        return build(msg)
    header = msg.header.copy()
    header.ParameterCount = len(msg.params)
    out = [header.pack()]
    _pack_params(msg.params, out)
    return b"".join(out)


# ----------------------------------------------------------------------------- flattening

RECORD_TYPES = {
    CMQCFC.MQCMD_STATISTICS_MQI: "MQIStatistics",
    CMQCFC.MQCMD_STATISTICS_Q: "QueueStatistics",
    CMQCFC.MQCMD_STATISTICS_CHANNEL: "ChannelStatistics",
    CMQCFC.MQCMD_ACCOUNTING_MQI: "MQIAccounting",
    CMQCFC.MQCMD_ACCOUNTING_Q: "QueueAccounting",
}
STORAGE = "StorageStatistics"
ERRORS = "ErrorLog"

#: flat field name -> PCF parameter; a list parameter becomes <name>_np and <name>_p
_COUNTERS = {
    "conns": CMQCFC.MQIAMO_CONNS, "conns_failed": CMQCFC.MQIAMO_CONNS_FAILED,
    "conns_max": CMQCFC.MQIAMO_CONNS_MAX, "discs": CMQCFC.MQIAMO_DISCS,
    "opens": CMQCFC.MQIAMO_OPENS, "opens_failed": CMQCFC.MQIAMO_OPENS_FAILED,
    "closes": CMQCFC.MQIAMO_CLOSES, "closes_failed": CMQCFC.MQIAMO_CLOSES_FAILED,
    "inqs": CMQCFC.MQIAMO_INQS, "sets": CMQCFC.MQIAMO_SETS,
    "puts": CMQCFC.MQIAMO_PUTS, "puts_failed": CMQCFC.MQIAMO_PUTS_FAILED,
    "put1s": CMQCFC.MQIAMO_PUT1S, "put1s_failed": CMQCFC.MQIAMO_PUT1S_FAILED,
    "put_bytes": CMQCFC.MQIAMO64_PUT_BYTES,
    "gets": CMQCFC.MQIAMO_GETS, "gets_failed": CMQCFC.MQIAMO_GETS_FAILED,
    "get_bytes": CMQCFC.MQIAMO64_GET_BYTES,
    "browses": CMQCFC.MQIAMO_BROWSES, "browses_failed": CMQCFC.MQIAMO_BROWSES_FAILED,
    "browse_bytes": CMQCFC.MQIAMO64_BROWSE_BYTES,
    "commits": CMQCFC.MQIAMO_COMMITS, "commits_failed": CMQCFC.MQIAMO_COMMITS_FAILED,
    "backouts": CMQCFC.MQIAMO_BACKOUTS, "expired": CMQCFC.MQIAMO_MSGS_EXPIRED,
    "purged": CMQCFC.MQIAMO_MSGS_PURGED, "not_queued": CMQCFC.MQIAMO_MSGS_NOT_QUEUED,
    "min_depth": CMQCFC.MQIAMO_Q_MIN_DEPTH, "max_depth": CMQCFC.MQIAMO_Q_MAX_DEPTH,
    "avg_q_time_us": CMQCFC.MQIAMO64_AVG_Q_TIME,
    "q_time_avg_us": CMQCFC.MQIAMO64_Q_TIME_AVG,
    "msgs": CMQCFC.MQIAMO_MSGS, "bytes": CMQCFC.MQIAMO64_BYTES,
    "full_batches": CMQCFC.MQIAMO_FULL_BATCHES,
    "incomplete_batches": CMQCFC.MQIAMO_INCOMPLETE_BATCHES,
    "avg_batch_size": CMQCFC.MQIAMO_AVG_BATCH_SIZE, "put_retries": CMQCFC.MQIAMO_PUT_RETRIES,
    "net_time_min_us": CMQCFC.MQIAMO_NET_TIME_MIN, "net_time_avg_us": CMQCFC.MQIAMO_NET_TIME_AVG,
    "net_time_max_us": CMQCFC.MQIAMO_NET_TIME_MAX, "batchsz": CMQCFC.MQIACH_BATCH_SIZE,
    "channel_type": CMQCFC.MQIACH_CHANNEL_TYPE, "q_type": CMQC.MQIA_Q_TYPE,
    "object_count": CMQCFC.MQIAMO_OBJECT_COUNT, "seq_number": CMQCFC.MQIACF_SEQUENCE_NUMBER,
    "pid": CMQCFC.MQIACF_PROCESS_ID,
}
_STRINGS = {
    "queue": CMQC.MQCA_Q_NAME, "channel": CMQCFC.MQCACH_CHANNEL_NAME,
    "remote_qmgr": CMQC.MQCA_REMOTE_Q_MGR_NAME, "conn_name": CMQCFC.MQCACH_CONNECTION_NAME,
    "appl_name": CMQCFC.MQCACF_APPL_NAME, "user": CMQCFC.MQCACF_USER_IDENTIFIER,
}
_STORAGE = {
    "log_bytes": MQPY_IAMO64_LOG_BYTES, "log_records": MQPY_IAMO_LOG_RECORDS,
    "log_forces": MQPY_IAMO_LOG_FORCES, "checkpoints": MQPY_IAMO_CHECKPOINTS,
    "checkpoint_us": MQPY_IAMO64_CHECKPOINT_TIME, "pageset_reads": MQPY_IAMO_PAGESET_READS,
    "buffer_hits": MQPY_IAMO_BUFFER_HITS, "evictions": MQPY_IAMO_BUFFER_EVICTIONS,
}
_PERSISTENCE_SPLIT = {"puts", "put1s", "put_bytes", "gets", "get_bytes", "browses",
                      "browse_bytes", "avg_q_time_us", "q_time_avg_us"}


def _text(v: Any) -> str:
    return v.decode("latin-1").rstrip(" \0") if isinstance(v, bytes) else str(v)


def _flat(params: list[Parameter], rec: dict[str, Any]) -> None:
    by_id: dict[int, Any] = {}
    for p in params:
        if not isinstance(p, CFGR):
            by_id.setdefault(p.Parameter, p.value)
    for name, pid in _STRINGS.items():
        if pid in by_id:
            rec[name] = _text(by_id[pid])
    for name, pid in _COUNTERS.items():
        if pid not in by_id:
            continue
        v = by_id[pid]
        if name in _PERSISTENCE_SPLIT:
            vals = list(v) if isinstance(v, list) else [v, 0]
            rec[f"{name}_np"], rec[f"{name}_p"] = (vals + [0, 0])[:2]
        else:
            rec[name] = sum(v) if isinstance(v, list) else v
    if CMQCFC.MQBACF_CONNECTION_ID in by_id:
        rec["connection_id"] = bytes(by_id[CMQCFC.MQBACF_CONNECTION_ID]).hex()


def to_records(msg: PCFMessage, msg_id: bytes = b"") -> list[dict[str, Any]]:
    """Flat dicts of one statistics or accounting message: one per object group (one for an
    MQI message, plus one StorageStatistics record when mqpy's group is present)."""
    kind = RECORD_TYPES.get(msg.header.Command)
    if kind is None:
        raise ValueError(f"MQCFH Command {msg.header.Command} is not statistics or accounting")
    top = [p for p in msg.params if not isinstance(p, CFGR)]
    g = {p.Parameter: p.value for p in top}
    start = parse_date_time(_text(g[CMQCFC.MQCAMO_START_DATE]),
                            _text(g[CMQCFC.MQCAMO_START_TIME]))
    end = parse_date_time(_text(g[CMQCFC.MQCAMO_END_DATE]), _text(g[CMQCFC.MQCAMO_END_TIME]))
    base: dict[str, Any] = {
        "record_type": kind,
        "queue_manager": _text(g.get(CMQC.MQCA_Q_MGR_NAME, b"")),
        "start_ts": start, "end_ts": end, "msg_id": msg_id.hex(), "msg_seq": msg.header.MsgSeqNumber,
    }
    out: list[dict[str, Any]] = []
    if kind in ("MQIStatistics", "MQIAccounting"):
        rec = dict(base, seq=0)
        _flat(top, rec)
        out.append(rec)
    groups = [p for p in msg.params if isinstance(p, CFGR)]
    conn = {}
    if kind in ("MQIAccounting", "QueueAccounting"):
        _flat(top, conn)
        for k in ("object_count", "seq_number") + tuple(_COUNTERS):
            if k not in ("pid",):
                conn.pop(k, None)
    for n, grp in enumerate(groups, start=1):
        if grp.Parameter == MQPY_GACF_STORAGE_STATISTICS_DATA:
            rec = dict(base, record_type=STORAGE, seq=n)
            vals = {p.Parameter: p.value for p in grp.Parameters}
            for name, pid in _STORAGE.items():
                rec[name] = vals.get(pid, 0)
            used = vals.get(MQPY_IAMO_PAGES_USED, [])
            free = vals.get(MQPY_IAMO_PAGES_FREE, [])
            rec["pages_used"], rec["pages_free"] = sum(used), sum(free)
            out.append(rec)
            continue
        if grp.Parameter not in (CMQCFC.MQGACF_Q_STATISTICS_DATA, CMQCFC.MQGACF_Q_ACCOUNTING_DATA,
                                 CMQCFC.MQGACF_CHL_STATISTICS_DATA):
            continue
        rec = dict(base, seq=n, **conn)
        _flat(grp.Parameters, rec)
        out.append(rec)
    return out
