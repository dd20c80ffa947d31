"""The PCF Inquire commands of queues, the queue manager, channels, listeners and services,
and their status, answered from the MQSC processor's views and rows (what DISPLAY shows):
one response per object, the attributes the request's attribute list asks for."""

from __future__ import annotations

from mqpy import CMQC, CMQCFC, CMQXC, pcf
from mqpy.command.requests import (
    PcfHandler,
    PcfRequest,
    Refused,
    Response,
    asked_attrs,
    attr_params,
    optional_name,
    param,
    queue_types,
    required_name,
)
from mqpy.mqsc import channels, listeners_services, pcfattrs, pcfmap, queue_manager, queues
from mqpy.mqsc.results import CommandFailed

__all__ = ["CHS", "INQUIRIES"]

_OBJ_TO_QTYPE = {"QLOCAL": CMQC.MQQT_LOCAL, "QMODEL": CMQC.MQQT_MODEL,
                 "QALIAS": CMQC.MQQT_ALIAS, "QREMOTE": CMQC.MQQT_REMOTE}
_CHL_BY_KW = pcfmap.by_keyword(pcfmap.CHANNEL)

#: a listener's status as Inquire Listener Status answers it (cmqcfc.h MQSVC_STATUS_*).
_SVC_STATUS = pcfmap.SVC_STATUS
_QMGR_STATUS = {"STARTING": CMQCFC.MQQMSTA_STARTING, "RUNNING": CMQCFC.MQQMSTA_RUNNING,
                "QUIESCING": CMQCFC.MQQMSTA_QUIESCING, "STANDBY": CMQCFC.MQQMSTA_STANDBY}
#: Inquire Queue Manager Status's parameters: (parameter, DISPLAY QMSTATUS keyword, string
#: length; None for an MQCFIN)
_QMGR_STATUS_FIELDS = (
    (CMQCFC.MQIACF_CHINIT_STATUS, "CHINIT", None),
    (CMQCFC.MQIACF_CMD_SERVER_STATUS, "CMDSERV", None),
    (CMQCFC.MQIACF_CONNECTION_COUNT, "CONNS", None),
    (CMQCFC.MQCACF_Q_MGR_START_DATE, "STARTDA", CMQC.MQ_DATE_LENGTH),
    (CMQCFC.MQCACF_Q_MGR_START_TIME, "STARTTI", CMQC.MQ_TIME_LENGTH),
    (CMQCFC.MQCACF_CURRENT_LOG_EXTENT_NAME, "CURRLOG", CMQCFC.MQ_LOG_EXTENT_NAME_LENGTH),
    (CMQCFC.MQCACF_RESTART_LOG_EXTENT_NAME, "RECLOG", CMQCFC.MQ_LOG_EXTENT_NAME_LENGTH),
    (CMQCFC.MQCACF_MEDIA_LOG_EXTENT_NAME, "MEDIALOG", CMQCFC.MQ_LOG_EXTENT_NAME_LENGTH),
    (CMQCFC.MQCACF_LOG_PATH, "LOGPATH", CMQCFC.MQ_LOG_PATH_LENGTH),
    (CMQCFC.MQIACF_LOG_IN_USE, "LOGINUSE", None),
    (CMQCFC.MQIACF_LOG_UTILIZATION, "LOGUTIL", None),
    (CMQC.MQCA_INSTALLATION_NAME, "INSTNAME", CMQC.MQ_INSTALLATION_NAME_LENGTH),
    (CMQC.MQCA_INSTALLATION_PATH, "INSTPATH", CMQC.MQ_INSTALLATION_PATH_LENGTH),
)
_TRPTYPE = {"LU62": CMQC.MQXPT_LU62, "TCP": CMQC.MQXPT_TCP, "NETBIOS": CMQC.MQXPT_NETBIOS,
            "SPX": CMQC.MQXPT_SPX}
#: DISPLAY CHSTATUS STATUS -> Inquire Channel Status MQCHS_*
CHS = {"BINDING": CMQCFC.MQCHS_BINDING, "STARTING": CMQCFC.MQCHS_STARTING,
       "RUNNING": CMQCFC.MQCHS_RUNNING, "PAUSED": CMQCFC.MQCHS_PAUSED,
       "STOPPING": CMQCFC.MQCHS_STOPPING, "RETRYING": CMQCFC.MQCHS_RETRYING,
       "STOPPED": CMQCFC.MQCHS_STOPPED, "REQUESTING": CMQCFC.MQCHS_REQUESTING,
       "INACTIVE": CMQCFC.MQCHS_INACTIVE}
# DISPLAY CHSTATUS keyword -> (Inquire Channel Status parameter, string length or 0 integer)
_CHSTATUS_PCF: dict[str, tuple[int, int]] = {
    "CHANNEL": (CMQCFC.MQCACH_CHANNEL_NAME, CMQC.MQ_CHANNEL_NAME_LENGTH),
    "CONNAME": (CMQCFC.MQCACH_CONNECTION_NAME, CMQC.MQ_CONN_NAME_LENGTH),
    "XMITQ": (CMQCFC.MQCACH_XMIT_Q_NAME, CMQC.MQ_Q_NAME_LENGTH),
    "RQMNAME": (CMQC.MQCA_REMOTE_Q_MGR_NAME, CMQC.MQ_Q_MGR_NAME_LENGTH),
    "CURLUWID": (CMQCFC.MQCACH_CURRENT_LUWID, 16), "LSTLUWID": (CMQCFC.MQCACH_LAST_LUWID, 16),
    "CURSEQNO": (CMQCFC.MQIACH_CURRENT_SEQ_NUMBER, 0),
    "LSTSEQNO": (CMQCFC.MQIACH_LAST_SEQ_NUMBER, 0), "CURMSGS": (CMQCFC.MQIACH_CURRENT_MSGS, 0),
    "MSGS": (CMQCFC.MQIACH_MSGS, 0), "BATCHES": (CMQCFC.MQIACH_BATCHES, 0),
    "BYTSSENT": (CMQCFC.MQIACH_BYTES_SENT, 0), "BYTSRCVD": (CMQCFC.MQIACH_BYTES_RECEIVED, 0),
    "BUFSSENT": (CMQCFC.MQIACH_BUFFERS_SENT, 0), "BUFSRCVD": (CMQCFC.MQIACH_BUFFERS_RECEIVED, 0),
    "SHORTRTS": (CMQCFC.MQIACH_SHORT_RETRIES_LEFT, 0),
    "LONGRTS": (CMQCFC.MQIACH_LONG_RETRIES_LEFT, 0), "HBINT": (CMQCFC.MQIACH_HB_INTERVAL, 0),
    "BATCHSZ": (CMQCFC.MQIACH_BATCH_SIZE, 0), "MAXMSGL": (CMQCFC.MQIACH_MAX_MSG_LENGTH, 0),
    "KAINT": (CMQCFC.MQIACH_KEEP_ALIVE_INTERVAL, 0),
    "LSTMSGDA": (CMQCFC.MQCACH_LAST_MSG_DATE, 12), "LSTMSGTI": (CMQCFC.MQCACH_LAST_MSG_TIME, 8),
    "CHSTADA": (CMQCFC.MQCACH_CHANNEL_START_DATE, 12),
    "CHSTATI": (CMQCFC.MQCACH_CHANNEL_START_TIME, 8),
    "RAPPLTAG": (CMQCFC.MQCACH_REMOTE_APPL_TAG, CMQC.MQ_APPL_TAG_LENGTH),
    "MCAUSER": (CMQCFC.MQCACH_MCA_USER_ID, CMQC.MQ_MCA_USER_ID_LENGTH),
    "CURSHCNV": (CMQCFC.MQIACH_CURRENT_SHARING_CONVS, 0),
    "MAXSHCNV": (CMQCFC.MQIACH_MAX_SHARING_CONVS, 0),
    "SSLCIPH": (CMQCFC.MQCACH_SSL_CIPHER_SPEC, CMQC.MQ_SSL_CIPHER_SPEC_LENGTH),
    "SSLPEER": (CMQCFC.MQCACH_SSL_SHORT_PEER_NAME, CMQC.MQ_SSL_SHORT_PEER_NAME_LENGTH),
    "SSLCERTI": (CMQCFC.MQCACH_SSL_CERT_ISSUER_NAME, CMQC.MQ_SHORT_DNAME_LENGTH),
    "JOBNAME": (CMQCFC.MQCACH_MCA_JOB_NAME, CMQC.MQ_MCA_JOB_NAME_LENGTH),
    "LOCLADDR": (CMQCFC.MQCACH_LOCAL_ADDRESS, CMQC.MQ_LOCAL_ADDRESS_LENGTH),
    "RPRODUCT": (CMQCFC.MQCACH_REMOTE_PRODUCT, CMQCFC.MQ_REMOTE_PRODUCT_LENGTH),
    "RVERSION": (CMQCFC.MQCACH_REMOTE_VERSION, CMQCFC.MQ_REMOTE_VERSION_LENGTH),
    "SSLRKEYS": (CMQCFC.MQIACH_SSL_KEY_RESETS, 0),
    "SSLKEYDA": (CMQCFC.MQCACH_SSL_KEY_RESET_DATE, CMQC.MQ_DATE_LENGTH),
    "SSLKEYTI": (CMQCFC.MQCACH_SSL_KEY_RESET_TIME, CMQC.MQ_TIME_LENGTH),
}
#: DISPLAY CHSTATUS COMPHDR / COMPMSG words -> MQCOMPRESS_* (pairs: an MQCFIL)
_COMPRESS = {"NONE": CMQXC.MQCOMPRESS_NONE, "SYSTEM": CMQXC.MQCOMPRESS_SYSTEM,
             "RLE": CMQXC.MQCOMPRESS_RLE, "ZLIBFAST": CMQXC.MQCOMPRESS_ZLIBFAST,
             "ZLIBHIGH": CMQXC.MQCOMPRESS_ZLIBHIGH}
_CHSTATUS_COMPRESSION = {"COMPHDR": CMQCFC.MQIACH_HDR_COMPRESSION,
                         "COMPMSG": CMQCFC.MQIACH_MSG_COMPRESSION}
#: what IBM's Inquire Channel Status response always carries of a current instance, a
#: string blank and a number 0 where the instance has none (a SVRCONN's XmitQName)
_CHSTATUS_ALWAYS: dict[int, int] = {
    CMQCFC.MQCACH_CONNECTION_NAME: CMQC.MQ_CONN_NAME_LENGTH,
    CMQCFC.MQCACH_REMOTE_APPL_TAG: CMQC.MQ_APPL_TAG_LENGTH,
    CMQC.MQCA_REMOTE_Q_MGR_NAME: CMQC.MQ_Q_MGR_NAME_LENGTH,
    CMQCFC.MQCACH_XMIT_Q_NAME: CMQC.MQ_Q_NAME_LENGTH,
    CMQCFC.MQIACH_STOP_REQUESTED: 0, CMQCFC.MQIACH_CHANNEL_SUBSTATE: 0}
_CHSTATUS_HEAD = frozenset({CMQCFC.MQIACH_CHANNEL_INSTANCE_TYPE, CMQCFC.MQCACH_CHANNEL_NAME,
                            CMQCFC.MQIACH_CHANNEL_STATUS, CMQCFC.MQIACH_CHANNEL_TYPE,
                            *_CHSTATUS_ALWAYS})
# monitoring pairs (short term, long term) -> MQCFIL
_CHSTATUS_PAIRS = {"NETTIME": CMQCFC.MQIACH_NETWORK_TIME_INDICATOR,
                   "XQTIME": CMQCFC.MQIACH_XMITQ_TIME_INDICATOR,
                   "XBATCHSZ": CMQCFC.MQIACH_BATCH_SIZE_INDICATOR,
                   "EXITTIME": CMQCFC.MQIACH_EXIT_TIME_INDICATOR,
                   "COMPTIME": CMQCFC.MQIACH_COMPRESSION_TIME,
                   "COMPRATE": CMQCFC.MQIACH_COMPRESSION_RATE}
# DISPLAY CHSTATUS words -> Inquire Channel Status values
_CHSTATUS_ENUMS: dict[str, tuple[int, dict[str, int]]] = {
    "SUBSTATE": (CMQCFC.MQIACH_CHANNEL_SUBSTATE, {
        "RECEIVE": CMQCFC.MQCHSSTATE_RECEIVING, "MQGET": CMQCFC.MQCHSSTATE_IN_MQGET,
        "HEARTBEAT": CMQCFC.MQCHSSTATE_HEARTBEATING, "SEND": CMQCFC.MQCHSSTATE_SENDING,
        "MQPUT": CMQCFC.MQCHSSTATE_IN_MQPUT, "ENDBATCH": CMQCFC.MQCHSSTATE_END_OF_BATCH}),
    "STOPREQ": (CMQCFC.MQIACH_STOP_REQUESTED, {"NO": CMQCFC.MQCHSR_STOP_NOT_REQUESTED,
                                                "YES": CMQCFC.MQCHSR_STOP_REQUESTED}),
    "NPMSPEED": (CMQCFC.MQIACH_NPM_SPEED, {"FAST": CMQXC.MQNPMS_FAST,
                                           "NORMAL": CMQXC.MQNPMS_NORMAL}),
    "SECPROT": (CMQCFC.MQIACH_SECURITY_PROTOCOL, {
        "NONE": CMQXC.MQSECPROT_NONE, "SSLV3": CMQXC.MQSECPROT_SSLV30,
        "TLSV1": CMQXC.MQSECPROT_TLSV10, "TLSV12": CMQXC.MQSECPROT_TLSV12,
        "TLSV13": CMQXC.MQSECPROT_TLSV13}),
    "MONCHL": (CMQC.MQIA_MONITORING_CHANNEL, {
        "OFF": CMQC.MQMON_OFF, "LOW": CMQC.MQMON_LOW, "MEDIUM": CMQC.MQMON_MEDIUM,
        "HIGH": CMQC.MQMON_HIGH}),
}


def _chstatus_params(row: dict[str, object]) -> list[pcf.Parameter]:
    """A DISPLAY CHSTATUS row as Inquire Channel Status response parameters."""
    out: list[pcf.Parameter] = []
    chltype = _CHL_BY_KW["CHLTYPE"].to_pcf(str(row.get("CHLTYPE", "")))
    out.append(pcf.CFIN(CMQCFC.MQIACH_CHANNEL_TYPE, int(chltype)))  # type: ignore[arg-type]
    out.append(pcf.CFIN(CMQCFC.MQIACH_CHANNEL_STATUS,
                        CHS.get(str(row.get("STATUS", "")), CMQCFC.MQCHS_INACTIVE)))
    if "INDOUBT" in row:
        out.append(pcf.CFIN(CMQCFC.MQIACH_INDOUBT_STATUS,
                            CMQCFC.MQCHIDS_INDOUBT if row["INDOUBT"] == "YES"
                            else CMQCFC.MQCHIDS_NOT_INDOUBT))
    for keyword, (parameter, length) in _CHSTATUS_PCF.items():
        value = row.get(keyword)
        if value is None or value == "" and length == 0:
            continue
        out.append(pcf.CFST(parameter, str(value).encode("latin-1").ljust(length)[:length])
                   if length else pcf.CFIN(parameter, int(value)))  # type: ignore[arg-type]
    for keyword, (parameter, words) in _CHSTATUS_ENUMS.items():
        if keyword in row:  # (a current status; SAVED rows carry no substate)
            word = str(row[keyword])
            if keyword == "SECPROT" and word not in words:
                continue  # (not known yet: before the partner's initial data)
            out.append(pcf.CFIN(parameter, words.get(word, 0 if keyword != "MONCHL"
                                                     else CMQC.MQMON_OFF)))
    if row.get("XQMSGSA") not in (None, ""):
        out.append(pcf.CFIN(CMQCFC.MQIACH_XMITQ_MSGS_AVAILABLE, int(row["XQMSGSA"])))  # type: ignore[arg-type]
    for keyword, parameter in _CHSTATUS_PAIRS.items():
        value = str(row.get(keyword) or "")
        if "," in value:
            out.append(pcf.CFIL(parameter, [int(v) for v in value.split(",")]))
    for keyword, parameter in _CHSTATUS_COMPRESSION.items():
        value = str(row.get(keyword) or "")
        if value:
            out.append(pcf.CFIL(parameter, [_COMPRESS.get(v, CMQXC.MQCOMPRESS_NOT_AVAILABLE)
                                            for v in value.split(",")]))
    if "SUBSTATE" in row:  # a current instance: its MCA runs while the channel is active
        out.append(pcf.CFIN(CMQCFC.MQIACH_MCA_STATUS, CMQCFC.MQMCAS_STOPPED
                            if row.get("MCASTAT") == "NOTRUNNING"
                            or row.get("STATUS") in ("STOPPED", "INACTIVE")
                            else CMQCFC.MQMCAS_RUNNING))
        present = {p.Parameter for p in out}
        out.extend(pcf.CFST(parameter, b" " * length) if length else pcf.CFIN(parameter, 0)
                   for parameter, length in _CHSTATUS_ALWAYS.items()
                   if parameter not in present)
    return out


def inquire_q(req: PcfRequest, msg: pcf.PCFMessage) -> list[Response]:
    name = required_name(msg, CMQC.MQCA_Q_NAME)
    objs = req.objects(queue_types(msg), name)
    if not objs:
        return [Response([], CMQC.MQCC_FAILED, CMQC.MQRC_UNKNOWN_OBJECT_NAME)]
    wanted = asked_attrs(msg, CMQCFC.MQIACF_Q_ATTRS)
    return [Response(pcfattrs.queue_params(req.processor, obj, wanted)) for obj in objs]


def inquire_q_names(req: PcfRequest, msg: pcf.PCFMessage) -> list[Response]:
    name = required_name(msg, CMQC.MQCA_Q_NAME)
    names = [o.name.ljust(CMQC.MQ_Q_NAME_LENGTH)
             for o in req.objects(queue_types(msg), name)]
    return [Response([pcf.CFSL(CMQCFC.MQCACF_Q_NAMES, names)])]


#: DISPLAY QSTATUS MONQ -> Inquire Queue Status QueueMonitoring (MQMON_*)
_MONQ = {"OFF": CMQC.MQMON_OFF, "LOW": CMQC.MQMON_LOW, "MEDIUM": CMQC.MQMON_MEDIUM,
         "HIGH": CMQC.MQMON_HIGH}


def _not_available(value: object) -> int:
    """A monitoring value as PCF carries it: MQMON_NOT_AVAILABLE where DISPLAY shows none."""
    return CMQC.MQMON_NOT_AVAILABLE if value in ("", None) else int(value)  # type: ignore


def _q_status_params(view: dict[str, object]) -> list[pcf.Parameter]:
    """A DISPLAY QSTATUS TYPE(QUEUE) view as Inquire Queue Status response parameters
    (StatusType MQIACF_Q_STATUS), every one the response can carry."""
    uncom = view["UNCOM"]
    return [
        pcf.CFIN(CMQC.MQIA_CURRENT_Q_DEPTH, int(view["CURDEPTH"])),  # type: ignore
        pcf.CFIN(CMQC.MQIA_OPEN_INPUT_COUNT, int(view["IPPROCS"])),  # type: ignore
        pcf.CFIN(CMQC.MQIA_OPEN_OUTPUT_COUNT, int(view["OPPROCS"])),  # type: ignore
        pcf.CFIN(CMQCFC.MQIACF_UNCOMMITTED_MSGS, 0 if uncom == "NO" else int(uncom)),  # type: ignore
        pcf.CFIN(CMQCFC.MQIACF_OLDEST_MSG_AGE, _not_available(view["MSGAGE"])),
        pcf.CFIL(CMQCFC.MQIACF_Q_TIME_INDICATOR,
                 [_not_available(t) for t in view["QTIME"]]),  # type: ignore[union-attr]
        pcf.CFIN(CMQC.MQIA_MONITORING_Q, _MONQ.get(str(view["MONQ"]), CMQC.MQMON_OFF)),
        pcf.CFST(CMQCFC.MQCACF_LAST_PUT_DATE, str(view["LPUTDATE"]).ljust(12)),
        pcf.CFST(CMQCFC.MQCACF_LAST_PUT_TIME, str(view["LPUTTIME"]).ljust(8)),
        pcf.CFST(CMQCFC.MQCACF_LAST_GET_DATE, str(view["LGETDATE"]).ljust(12)),
        pcf.CFST(CMQCFC.MQCACF_LAST_GET_TIME, str(view["LGETTIME"]).ljust(8)),
        pcf.CFIN(CMQCFC.MQIACF_CUR_Q_FILE_SIZE, int(view["CURFSIZE"])),  # type: ignore
        pcf.CFIN(CMQCFC.MQIACF_CUR_MAX_FILE_SIZE, int(view["CURMAXFS"])),  # type: ignore
    ]  # fmt: skip


def inquire_q_status(req: PcfRequest, msg: pcf.PCFMessage) -> list[Response]:
    """One response per local queue named (StatusType MQIACF_Q_STATUS, the default) or per
    handle open on one (MQIACF_Q_HANDLE): QName and StatusType always, then what
    QStatusAttrs asks for (default all). OldestMsgAge and OnQTime are MQMON_NOT_AVAILABLE
    while the queue's monitoring (MONQ in effect) is OFF."""
    name = required_name(msg, CMQC.MQCA_Q_NAME)
    objs = req.objects(("QLOCAL",), name)
    if not objs:
        return [Response([], CMQC.MQCC_FAILED, CMQC.MQRC_UNKNOWN_OBJECT_NAME)]
    stype = msg.get(CMQCFC.MQIACF_Q_STATUS_TYPE, CMQCFC.MQIACF_Q_STATUS)
    wanted = asked_attrs(msg, CMQCFC.MQIACF_Q_STATUS_ATTRS)
    out = []
    index = req.processor.engine.open_handles_by_queue() if len(objs) > 1 else None
    for obj in objs:
        head = [pcf.CFST(CMQC.MQCA_Q_NAME, obj.name.ljust(CMQC.MQ_Q_NAME_LENGTH)),
                pcf.CFIN(CMQCFC.MQIACF_Q_STATUS_TYPE, stype)]
        if stype == CMQCFC.MQIACF_Q_HANDLE:
            for row in queues.handle_status(req.processor, obj, with_options=True):
                params = attr_params(row, pcfmap.QSTATUS_HANDLE, wanted)
                if wanted is None or CMQCFC.MQBACF_EXTERNAL_UOW_ID in wanted:
                    # ExternalUOWId: the handle's unit of work as its external coordinator
                    # knows it; the queue manager's own (URTYPE QMGR) has none, runmqsc's
                    # URID(XA_FORMATID[] XA_GTRID[] XA_BQUAL[])
                    params.append(pcf.CFBS(CMQCFC.MQBACF_EXTERNAL_UOW_ID, b""))
                out.append(Response([*head, *params]))
            continue
        view = queues.queue_status_view(req.processor, obj, index)
        out.append(Response([*head, *(p for p in _q_status_params(view)
                                      if wanted is None or p.Parameter in wanted)]))
    return out


def inquire_q_mgr(req: PcfRequest, msg: pcf.PCFMessage) -> list[Response]:
    wanted = asked_attrs(msg, CMQCFC.MQIACF_Q_MGR_ATTRS)
    return [Response(pcfattrs.qmgr_params(req.processor, wanted))]


def inquire_q_mgr_status(req: PcfRequest, msg: pcf.PCFMessage) -> list[Response]:
    """Inquire Queue Manager Status: DISPLAY QMSTATUS's values; QMgrName and
    QMgrStatus always, the rest as QMStatusAttrs asks (default all)."""
    view = queue_manager.qmgr_status_view(req.processor)
    wanted = asked_attrs(msg, CMQCFC.MQIACF_Q_MGR_STATUS_ATTRS)
    params: list[pcf.Parameter] = [
        pcf.CFST(CMQC.MQCA_Q_MGR_NAME,
                 req.engine.name.ljust(CMQC.MQ_Q_MGR_NAME_LENGTH)),
        pcf.CFIN(CMQCFC.MQIACF_Q_MGR_STATUS, _QMGR_STATUS[str(view["STATUS"])])]
    for parameter, keyword, length in _QMGR_STATUS_FIELDS:
        if wanted is not None and parameter not in wanted:
            continue
        value = view[keyword]
        if length is None:
            value = _SVC_STATUS.get(str(value), value)
            params.append(pcf.CFIN(parameter, int(value)))  # type: ignore[arg-type]
        else:
            params.append(pcf.CFST(parameter, str(value).ljust(length)))
    return [Response(params)]


def _channels(req: PcfRequest, msg: pcf.PCFMessage) -> list:
    """The channels ChannelName (generic or not) and ChannelType (default all) select."""
    objs = req.objects(("CHANNEL",), required_name(msg, CMQCFC.MQCACH_CHANNEL_NAME))
    chltype = msg.get(CMQCFC.MQIACH_CHANNEL_TYPE, CMQC.MQCHT_ALL)
    if chltype != CMQC.MQCHT_ALL:
        try:
            word = _CHL_BY_KW["CHLTYPE"].from_pcf(chltype)
        except ValueError:
            raise Refused(CMQCFC.MQRCCF_CHANNEL_TYPE_ERROR) from None
        objs = [o for o in objs if o.attributes.get("CHLTYPE") == word]
    return objs


def inquire_channel_names(req: PcfRequest, msg: pcf.PCFMessage) -> list[Response]:
    """Inquire Channel Names: one response listing the channels selected."""
    return [Response([pcf.CFSL(CMQCFC.MQCACH_CHANNEL_NAMES,
                               [o.name.ljust(CMQC.MQ_CHANNEL_NAME_LENGTH)
                                for o in _channels(req, msg)])])]


def inquire_channel(req: PcfRequest, msg: pcf.PCFMessage) -> list[Response]:
    objs = _channels(req, msg)
    if not objs:
        return [Response([], CMQC.MQCC_FAILED, CMQCFC.MQRCCF_CHANNEL_NOT_FOUND)]
    wanted = asked_attrs(msg, CMQCFC.MQIACF_CHANNEL_ATTRS)
    return [Response(pcfattrs.channel_params(req.processor, obj, wanted)) for obj in objs]


def inquire_channel_status(req: PcfRequest, msg: pcf.PCFMessage) -> list[Response]:
    """One response per channel instance: current status from the channel initiator, or
    with MQOT_SAVED_CHANNEL each end's saved sync data; what IBM always returns, then the
    ChannelInstanceAttrs asked for (default all)."""
    name = required_name(msg, CMQCFC.MQCACH_CHANNEL_NAME)
    instance = msg.get(CMQCFC.MQIACH_CHANNEL_INSTANCE_TYPE, CMQC.MQOT_CURRENT_CHANNEL)
    if instance not in (CMQC.MQOT_CURRENT_CHANNEL, CMQC.MQOT_SAVED_CHANNEL):
        raise Refused(CMQCFC.MQRCCF_CFIN_PARM_ID_ERROR)
    rows = channels.channel_status_rows(
        req.processor, name, req.who, instance == CMQC.MQOT_SAVED_CHANNEL,
        optional_name(msg, CMQCFC.MQCACH_CONNECTION_NAME),
        optional_name(msg, CMQCFC.MQCACH_XMIT_Q_NAME))
    if not rows:
        return [Response([], CMQC.MQCC_FAILED, CMQCFC.MQRCCF_CHL_STATUS_NOT_FOUND)]
    wanted = asked_attrs(msg, CMQCFC.MQIACH_CHANNEL_INSTANCE_ATTRS)
    return [Response([pcf.CFIN(CMQCFC.MQIACH_CHANNEL_INSTANCE_TYPE, instance),
                      *(p for p in _chstatus_params(row) if wanted is None
                        or p.Parameter in wanted or p.Parameter in _CHSTATUS_HEAD)])
            for row in rows]


def inquire_listener_status(req: PcfRequest, msg: pcf.PCFMessage) -> list[Response]:
    """Inquire Listener Status: one response per running listener (the channel
    initiator's), its name always, then Status, Port and TransportType as
    ListenerStatusAttrs asks (default all)."""
    name = required_name(msg, CMQCFC.MQCACH_LISTENER_NAME)
    try:
        rows = listeners_services.listener_status_rows(req.processor, name, req.who)
    except CommandFailed as failed:
        return [Response([], CMQC.MQCC_FAILED, failed.reason)]
    if not rows:
        return [Response([], CMQC.MQCC_FAILED, CMQCFC.MQRCCF_LSTR_STATUS_NOT_FOUND)]
    wanted = asked_attrs(msg, CMQCFC.MQIACF_LISTENER_STATUS_ATTRS)
    out = []
    for row in rows:
        params: list[pcf.Parameter] = [pcf.CFST(
            CMQCFC.MQCACH_LISTENER_NAME,
            str(row.get("LISTENER", "")).ljust(CMQC.MQ_LISTENER_NAME_LENGTH))]
        for parameter, value in (
                (CMQCFC.MQIACH_LISTENER_STATUS, _SVC_STATUS.get(str(row.get("STATUS")))),
                (CMQCFC.MQIACH_PORT, row.get("PORT")),
                (CMQCFC.MQIACH_XMIT_PROTOCOL_TYPE,
                 _TRPTYPE.get(str(row.get("TRPTYPE"))))):
            if value is not None and (wanted is None or parameter in wanted):
                params.append(pcf.CFIN(parameter, int(value)))  # type: ignore[arg-type]
        out.append(Response(params))
    return out



def inquire_service_status(req: PcfRequest, msg: pcf.PCFMessage) -> list[Response]:
    """Inquire Service Status: one response per running server service, its name
    always, then Status, ProcessId, StartDate, StartTime and the definition's
    attributes as ServiceStatusAttrs asks (default all)."""
    name = required_name(msg, CMQC.MQCA_SERVICE_NAME)
    generic = name.endswith("*")
    if not generic and req.engine.lookup("SERVICE", name) is None:
        return [Response([], CMQC.MQCC_FAILED, CMQC.MQRC_UNKNOWN_OBJECT_NAME)]
    rows = listeners_services.service_status_rows(req.processor, name, generic, req.who)
    if not rows:
        return [Response([], CMQC.MQCC_FAILED, CMQCFC.MQRCCF_SERV_STATUS_NOT_FOUND)]
    wanted = asked_attrs(msg, CMQCFC.MQIACF_SERVICE_STATUS_ATTRS)
    fields = pcfmap.SERVICE_STATUS + tuple(a for a in pcfmap.SERVICE[1:]
                                           if a.keyword not in ("ALTDATE", "ALTTIME"))
    return [Response([param(pcfmap.SERVICE[0], row["SERVICE"]),  # type: ignore[list-item]
                      *attr_params(row, fields, wanted)])
            for row in rows]


#: command -> handler
INQUIRIES: dict[int, PcfHandler] = {
    CMQCFC.MQCMD_INQUIRE_Q: inquire_q,
    CMQCFC.MQCMD_INQUIRE_Q_NAMES: inquire_q_names,
    CMQCFC.MQCMD_INQUIRE_Q_STATUS: inquire_q_status,
    CMQCFC.MQCMD_INQUIRE_Q_MGR: inquire_q_mgr,
    CMQCFC.MQCMD_INQUIRE_Q_MGR_STATUS: inquire_q_mgr_status,
    CMQCFC.MQCMD_INQUIRE_CHANNEL: inquire_channel,
    CMQCFC.MQCMD_INQUIRE_CHANNEL_NAMES: inquire_channel_names,
    CMQCFC.MQCMD_INQUIRE_CHANNEL_STATUS: inquire_channel_status,
    CMQCFC.MQCMD_INQUIRE_LISTENER_STATUS: inquire_listener_status,
    CMQCFC.MQCMD_INQUIRE_SERVICE_STATUS: inquire_service_status,
}
