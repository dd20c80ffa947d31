"""amqsmon's text layout of statistics and accounting messages.

IBM's sample prints ``MonitoringType: QueueStatistics``, then one ``Name: value`` line per
parameter (strings quoted and trimmed, lists as ``[np, p]``, byte strings as ``x'..'``), a group
as ``QueueStatistics: <n>`` with its members indented two more spaces, and a blank line after
each message. Names are IBM's; mqpy's own storage group gets names in the same style.
Unknown parameters print as their number, as amqsmon does. Pure: message in, text out.
"""

from __future__ import annotations

from collections.abc import Iterable

from mqpy import CMQC, CMQCFC
from mqpy.pcf import CFBS, CFGR, CFIL, CFIL64, CFIN, CFIN64, CFSL, CFST, Parameter, PCFMessage
from mqpy.stats import records as R

MONITORING_TYPES = {
    CMQCFC.MQCMD_STATISTICS_MQI: "MQIStatistics",
    CMQCFC.MQCMD_STATISTICS_Q: "QueueStatistics",
    CMQCFC.MQCMD_STATISTICS_CHANNEL: "ChannelStatistics",
    CMQCFC.MQCMD_ACCOUNTING_MQI: "MQIAccounting",
    CMQCFC.MQCMD_ACCOUNTING_Q: "QueueAccounting",
}

NAMES: dict[int, str] = {
    CMQC.MQIA_COMMAND_LEVEL: "CommandLevel",
    CMQC.MQIA_DEFINITION_TYPE: "QueueDefinitionType",
    CMQC.MQIA_Q_TYPE: "QueueType",
    CMQCFC.MQIACF_PROCESS_ID: "ApplicationPid",
    CMQCFC.MQIACF_SEQUENCE_NUMBER: "SeqNumber",
    CMQCFC.MQIACF_THREAD_ID: "ApplicationTid",
    CMQCFC.MQIACH_CHANNEL_TYPE: "ChannelType",
    CMQCFC.MQIAMO_AVG_BATCH_SIZE: "AverageBatchSize",
    CMQCFC.MQIAMO_BACKOUTS: "BackCount",
    CMQCFC.MQIAMO_BROWSES_FAILED: "BrowseFailCount",
    CMQCFC.MQIAMO_BROWSES: "BrowseCount",
    CMQCFC.MQIAMO_BROWSE_MAX_BYTES: "BrowseMaxBytes",
    CMQCFC.MQIAMO_BROWSE_MIN_BYTES: "BrowseMinBytes",
    CMQCFC.MQIAMO_CLOSES: "CloseCount",
    CMQCFC.MQIAMO_CLOSES_FAILED: "CloseFailCount",
    CMQCFC.MQIAMO_COMMITS: "CommitCount",
    CMQCFC.MQIAMO_COMMITS_FAILED: "CommitFailCount",
    CMQCFC.MQIAMO_CONNS: "ConnCount",
    CMQCFC.MQIAMO_CONNS_FAILED: "ConnFailCount",
    CMQCFC.MQIAMO_CONNS_MAX: "ConnHighwater",
    CMQCFC.MQIAMO_DISC_TYPE: "DiscType",
    CMQCFC.MQIAMO_DISCS: "DiscCount",
    CMQCFC.MQIAMO_EXIT_TIME_AVG: "ExitMinAverage",
    CMQCFC.MQIAMO_EXIT_TIME_MAX: "ExitMaxTime",
    CMQCFC.MQIAMO_EXIT_TIME_MIN: "ExitMinTime",
    CMQCFC.MQIAMO_FULL_BATCHES: "FullBatchCount",
    CMQCFC.MQIAMO_GENERATED_MSGS: "GeneratedMsgCount",
    CMQCFC.MQIAMO_GETS_FAILED: "GetFailCount",
    CMQCFC.MQIAMO_GETS: "GetCount",
    CMQCFC.MQIAMO_GET_MAX_BYTES: "GetMaxBytes",
    CMQCFC.MQIAMO_GET_MIN_BYTES: "GetMinBytes",
    CMQCFC.MQIAMO_INCOMPLETE_BATCHES: "IncmplBatchCount",
    CMQCFC.MQIAMO_INQS: "InqCount",
    CMQCFC.MQIAMO_INQS_FAILED: "InqFailCount",
    CMQCFC.MQIAMO_MSGS: "MsgCount",
    CMQCFC.MQIAMO_MSGS_EXPIRED: "ExpiredMsgCount",
    CMQCFC.MQIAMO_MSGS_NOT_QUEUED: "NonQueuedMsgCount",
    CMQCFC.MQIAMO_MSGS_PURGED: "PurgeCount",
    CMQCFC.MQIAMO_NET_TIME_AVG: "NetMinAverage",
    CMQCFC.MQIAMO_NET_TIME_MAX: "NetMaxTime",
    CMQCFC.MQIAMO_NET_TIME_MIN: "NetMinTime",
    CMQCFC.MQIAMO_OBJECT_COUNT: "ObjectCount",
    CMQCFC.MQIAMO_OPENS: "OpenCount",
    CMQCFC.MQIAMO_OPENS_FAILED: "OpenFailCount",
    CMQCFC.MQIAMO_PUT_RETRIES: "PutRetryCount",
    CMQCFC.MQIAMO_PUT1S: "Put1Count",
    CMQCFC.MQIAMO_PUT1S_FAILED: "Put1FailCount",
    CMQCFC.MQIAMO_PUTS: "PutCount",
    CMQCFC.MQIAMO_PUTS_FAILED: "PutFailCount",
    CMQCFC.MQIAMO_PUT_MAX_BYTES: "PutMaxBytes",
    CMQCFC.MQIAMO_PUT_MIN_BYTES: "PutMinBytes",
    CMQCFC.MQIAMO_Q_MIN_DEPTH: "QMinDepth",
    CMQCFC.MQIAMO_Q_MAX_DEPTH: "QMaxDepth",
    CMQCFC.MQIAMO_SETS: "SetCount",
    CMQCFC.MQIAMO_SETS_FAILED: "SetFailCount",
    CMQCFC.MQIAMO64_BROWSE_BYTES: "BrowseBytes",
    CMQCFC.MQIAMO64_BYTES: "TotalBytes",
    CMQCFC.MQIAMO64_GET_BYTES: "GetBytes",
    CMQCFC.MQIAMO64_PUT_BYTES: "PutBytes",
    CMQCFC.MQIAMO64_Q_TIME_AVG: "TimeOnQAvg",
    CMQCFC.MQIAMO64_Q_TIME_MAX: "TimeOnQMax",
    CMQCFC.MQIAMO64_Q_TIME_MIN: "TimeOnQMin",
    CMQCFC.MQIAMO64_AVG_Q_TIME: "AverageQueueTime",
    CMQC.MQCA_REMOTE_Q_MGR_NAME: "RemoteQMgr",
    CMQCFC.MQCACF_APPL_NAME: "ApplicationName",
    CMQCFC.MQCACF_USER_IDENTIFIER: "UserId",
    CMQCFC.MQCACH_CHANNEL_NAME: "ChannelName",
    CMQCFC.MQCACH_CONNECTION_NAME: "ConnName",
    CMQCFC.MQCAMO_CLOSE_DATE: "CloseDate",
    CMQCFC.MQCAMO_CLOSE_TIME: "CloseTime",
    CMQCFC.MQCAMO_CONN_DATE: "ConnDate",
    CMQCFC.MQCAMO_CONN_TIME: "ConnTime",
    CMQCFC.MQCAMO_DISC_DATE: "DiscDate",
    CMQCFC.MQCAMO_DISC_TIME: "DiscTime",
    CMQCFC.MQCAMO_END_DATE: "IntervalEndDate",
    CMQCFC.MQCAMO_END_TIME: "IntervalEndTime",
    CMQCFC.MQCAMO_OPEN_DATE: "OpenDate",
    CMQCFC.MQCAMO_OPEN_TIME: "OpenTime",
    CMQCFC.MQCAMO_START_DATE: "IntervalStartDate",
    CMQCFC.MQCAMO_START_TIME: "IntervalStartTime",
    CMQC.MQCA_CREATION_DATE: "CreateDate",
    CMQC.MQCA_CREATION_TIME: "CreateTime",
    CMQC.MQCA_Q_MGR_NAME: "QueueManager",
    CMQC.MQCA_Q_NAME: "QueueName",
    CMQCFC.MQBACF_CONNECTION_ID: "ConnectionId",
    CMQCFC.MQGACF_Q_ACCOUNTING_DATA: "QueueAccounting",
    CMQCFC.MQGACF_Q_STATISTICS_DATA: "QueueStatistics",
    CMQCFC.MQGACF_CHL_STATISTICS_DATA: "ChannelStatistics",
    # mqpy's extensions
    CMQCFC.MQIACH_BATCH_SIZE: "BatchSize",
    R.MQPY_GACF_STORAGE_STATISTICS_DATA: "StorageStatistics",
    R.MQPY_IAMO64_LOG_BYTES: "LogBytes",
    R.MQPY_IAMO_LOG_RECORDS: "LogRecordCount",
    R.MQPY_IAMO_LOG_FORCES: "LogForceCount",
    R.MQPY_IAMO_LOG_RECORDS_PER_FORCE: "LogRecordsPerForce",
    R.MQPY_IAMO_CHECKPOINTS: "CheckpointCount",
    R.MQPY_IAMO64_CHECKPOINT_TIME: "CheckpointTime",
    R.MQPY_IAMO_PAGESET_READS: "PagesetReadCount",
    R.MQPY_IAMO_BUFFER_HITS: "BufferHitCount",
    R.MQPY_IAMO_BUFFER_EVICTIONS: "BufferEvictionCount",
    R.MQPY_IAMO_BUFFER_HIT_RATIO: "BufferHitRatio",
    R.MQPY_IAMO_PAGESET_IDS: "PagesetIds",
    R.MQPY_IAMO_PAGES_USED: "PagesUsed",
    R.MQPY_IAMO_PAGES_FREE: "PagesFree",
}

_VALUE_NAMES: dict[int, dict[int, str]] = {
    CMQC.MQIA_Q_TYPE: {CMQC.MQQT_LOCAL: "Local", CMQC.MQQT_MODEL: "Model",
                       CMQC.MQQT_ALIAS: "Alias", CMQC.MQQT_REMOTE: "Remote",
                       CMQC.MQQT_CLUSTER: "Cluster"},
    CMQC.MQIA_DEFINITION_TYPE: {CMQC.MQQDT_PREDEFINED: "Predefined",
                                CMQC.MQQDT_PERMANENT_DYNAMIC: "PermanentDynamic",
                                CMQC.MQQDT_TEMPORARY_DYNAMIC: "TemporaryDynamic",
                                CMQC.MQQDT_SHARED_DYNAMIC: "SharedDynamic"},
    CMQCFC.MQIACH_CHANNEL_TYPE: {CMQC.MQCHT_SENDER: "Sender", CMQC.MQCHT_SERVER: "Server",
                                 CMQC.MQCHT_RECEIVER: "Receiver",
                                 CMQC.MQCHT_REQUESTER: "Requester",
                                 CMQC.MQCHT_SVRCONN: "SvrConn", CMQC.MQCHT_CLUSRCVR: "ClusRcvr",
                                 CMQC.MQCHT_CLUSSDR: "ClusSdr"},
}


def _name(param: int) -> str:
    return NAMES.get(param, str(param))


def _trim(b: bytes) -> str:
    return b.decode("latin-1").rstrip(" \0")


def _lines(params: Iterable[Parameter], indent: int) -> list[str]:
    pad = " " * min(indent, 20)
    out: list[str] = []
    group_no = 0
    for p in params:
        name = _name(p.Parameter)
        if isinstance(p, CFGR):
            out.append(f"{pad}{name}: {group_no}")
            group_no += 1
            out += _lines(p.Parameters, indent + 2)
        elif isinstance(p, (CFIN, CFIN64)):
            named = _VALUE_NAMES.get(p.Parameter, {}).get(p.Value)
            out.append(f"{pad}{name}: {named if named is not None else p.Value}")
        elif isinstance(p, (CFIL, CFIL64)):
            out.append(f"{pad}{name}: [{', '.join(str(v) for v in p.Values)}]")
        elif isinstance(p, CFST):
            out.append(f"{pad}{name}: '{_trim(p.String)}'")
        elif isinstance(p, CFSL):
            out.append(f"{pad}{name}: [{', '.join(repr(_trim(s)) for s in p.Strings)}]")
        elif isinstance(p, CFBS):
            out.append(f"{pad}{name}: x'{p.String.hex()}'")
    return out


def format_message(msg: PCFMessage) -> str:
    """One statistics or accounting message as amqsmon prints it (ends with a blank line)."""
    kind = MONITORING_TYPES.get(msg.header.Command)
    if kind is None:
        raise ValueError(f"Invalid monitoring record 'cfh.Command' = {msg.header.Command}.")
    return "\n".join([f"MonitoringType: {kind}", *_lines(msg.params, 0), "", ""])


def select(msg: PCFMessage, *, mqi_only: bool = False, queue: str | None = None,
           channel: str | None = None) -> PCFMessage | None:
    """amqsmon's -a, -q [name] and -c [name] filters: the message (groups filtered) or None."""
    cmd = msg.header.Command
    if mqi_only:
        return msg if cmd in (CMQCFC.MQCMD_STATISTICS_MQI, CMQCFC.MQCMD_ACCOUNTING_MQI) else None
    if queue is not None:
        if cmd not in (CMQCFC.MQCMD_STATISTICS_Q, CMQCFC.MQCMD_ACCOUNTING_Q):
            return None
        return _only(msg, CMQC.MQCA_Q_NAME, queue)
    if channel is not None:
        if cmd != CMQCFC.MQCMD_STATISTICS_CHANNEL:
            return None
        return _only(msg, CMQCFC.MQCACH_CHANNEL_NAME, channel)
    return msg


def _only(msg: PCFMessage, param: int, name: str) -> PCFMessage | None:
    if not name:
        return msg
    keep = []
    matched = False
    for p in msg.params:
        if isinstance(p, CFGR):
            if _trim(p.get(param, b"")) != name:
                continue
            matched = True
        keep.append(p)
    return PCFMessage(msg.header, keep) if matched else None
