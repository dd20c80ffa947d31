"""The PCF cluster commands: Inquire Cluster Queue Manager, Inquire Queue for cluster queues,
Suspend and Resume Queue Manager Cluster, Refresh Cluster, Reset Cluster. The repository is
the channel initiator's; these run on the processor's structured entries (its DISPLAY rows,
its commands built from the request's values), so PCF and MQSC say the same."""

from __future__ import annotations

import fnmatch
import re

from mqpy import CMQC, CMQCFC, pcf
from mqpy.command.inquiries import CHS, inquire_q
from mqpy.command.requests import (
    PcfHandler,
    PcfRequest,
    Refused,
    Response,
    asked_attrs,
    failed,
    optional_name,
    required_name,
)
from mqpy.mqsc.parser import MQSCCommand
from mqpy.mqsc.results import CommandFailed

__all__ = ["CLUSTER", "inquire_cluster_q", "wants_cluster_queues"]

#: the characters of an MQ name (a QMID is a name and a time stamp, of the same characters)
_MQ_NAME = re.compile(r"[A-Za-z0-9._/%]{1,48}")


def _mq_name(name: str, *, generic: bool = True) -> str:
    """A name from a PCF request, checked as MQ checks names: MQ's name characters only, and
    a trailing * when generic; anything else (a quote, a parenthesis, a blank, a newline)
    is MQRCCF_OBJECT_NAME_ERROR."""
    if not name:
        return name
    stem = name[:-1] if generic and name.endswith("*") else name
    if (stem or not generic) and not _MQ_NAME.fullmatch(stem):
        raise Refused(CMQCFC.MQRCCF_OBJECT_NAME_ERROR)
    return name


def _command(verb: str, objtype: str, name: str | None, params: dict[str, object],
             flags: frozenset[str] = frozenset()) -> MQSCCommand:
    """The processor's command for a cluster request (checked by the request's guard as the
    same command typed in runmqsc would be)."""
    return MQSCCommand(verb, objtype, name, params, flags,
                       generic=bool(name and name.endswith("*")))


def _rows(req: PcfRequest, objtype: str, name: str, cluster: str) -> list[dict[str, object]]:
    """DISPLAY CLUSQMGR / QCLUSTER's rows, every attribute."""
    cmd = _command("DISPLAY", objtype, name, {"CLUSTER": cluster} if cluster else {},
                   frozenset({"ALL"}))
    try:
        return req.processor.rows(cmd, req.who)
    except CommandFailed as refused:
        raise Refused(refused.reason or CMQCFC.MQRCCF_COMMAND_FAILED) from None


def inquire_cluster_q_mgr(req: PcfRequest, msg: pcf.PCFMessage) -> list[Response]:
    """Inquire Cluster Queue Manager: one response per member and cluster."""
    name = _mq_name(required_name(msg, CMQC.MQCA_CLUSTER_Q_MGR_NAME))
    cluster = _mq_name(optional_name(msg, CMQC.MQCA_CLUSTER_NAME), generic=False)
    channel = optional_name(msg, CMQCFC.MQCACH_CHANNEL_NAME) or "*"
    try:
        rows = _rows(req, "CLUSQMGR", name, cluster)
    except Refused as refused:
        return failed(refused.reason)
    rows = [r for r in rows if fnmatch.fnmatchcase(str(r.get("CHANNEL", "")), channel)]
    if not rows:
        return failed(CMQC.MQRC_UNKNOWN_OBJECT_NAME)
    wanted = asked_attrs(msg, CMQCFC.MQIACF_CLUSTER_Q_MGR_ATTRS)
    return [Response(_row_params(row, _CLUSQMGR_PCF, wanted, _CLUSQMGR_ALWAYS))
            for row in rows]


def inquire_cluster_q(req: PcfRequest, msg: pcf.PCFMessage) -> list[Response]:
    """Inquire Queue for cluster queues (QType MQQT_CLUSTER, or MQQT_ALL with
    MQIACF_CLUSTER_INFO): one response per instance the repository knows."""
    name = _mq_name(required_name(msg, CMQC.MQCA_Q_NAME))
    cluster = _mq_name(optional_name(msg, CMQC.MQCA_CLUSTER_NAME), generic=False)
    local: list[Response] = []
    if msg.get(CMQC.MQIA_Q_TYPE) == CMQC.MQQT_ALL:
        local = [r for r in inquire_q(req, msg) if r.comp == CMQC.MQCC_OK]
    try:
        rows = _rows(req, "QCLUSTER", name, cluster)
    except Refused as refused:
        return local or failed(refused.reason)
    if not rows:  # (as DISPLAY QCLUSTER finds nothing: AMQ8147E)
        return local or failed(CMQC.MQRC_UNKNOWN_OBJECT_NAME)
    wanted = asked_attrs(msg, CMQCFC.MQIACF_Q_ATTRS)
    return local + [Response([pcf.CFIN(CMQC.MQIA_Q_TYPE, CMQC.MQQT_CLUSTER),
                              *_row_params(row, _QCLUSTER_PCF, wanted, _QCLUSTER_ALWAYS)])
                    for row in rows]


def wants_cluster_queues(msg: pcf.PCFMessage) -> bool:
    """Inquire Queue asks about cluster queues: QType MQQT_CLUSTER, or MQQT_ALL with
    ClusterInfo (IBM: cluster information is returned with the local queues)."""
    qtype = msg.get(CMQC.MQIA_Q_TYPE)
    return qtype == CMQC.MQQT_CLUSTER or (
        qtype == CMQC.MQQT_ALL and msg.get(CMQCFC.MQIACF_CLUSTER_INFO) is not None)


def _suspend_resume(req: PcfRequest, msg: pcf.PCFMessage, verb: str) -> list[Response]:
    """Suspend / Resume Queue Manager Cluster: ClusterName or ClusterNamelist, and for
    a suspension Mode (MQMODE_QUIESCE, the default, or MQMODE_FORCE)."""
    params = _cluster_target(msg)
    if verb == "SUSPEND":
        word = {CMQCFC.MQMODE_QUIESCE: "QUIESCE", CMQCFC.MQMODE_FORCE: "FORCE"}.get(
            msg.get(CMQCFC.MQIACF_MODE, CMQCFC.MQMODE_QUIESCE))
        if word is None:
            raise Refused(CMQCFC.MQRCCF_MODE_VALUE_ERROR)
        params["MODE"] = word
    return req.run(_command(verb, "QMGR", None, params))


def suspend(req: PcfRequest, msg: pcf.PCFMessage) -> list[Response]:
    return _suspend_resume(req, msg, "SUSPEND")


def resume(req: PcfRequest, msg: pcf.PCFMessage) -> list[Response]:
    return _suspend_resume(req, msg, "RESUME")


def _cluster_target(msg: pcf.PCFMessage) -> dict[str, object]:
    cluster = optional_name(msg, CMQC.MQCA_CLUSTER_NAME)
    namelist = optional_name(msg, CMQC.MQCA_CLUSTER_NAMELIST)
    if bool(cluster) == bool(namelist):
        raise Refused(CMQCFC.MQRCCF_PARM_COUNT_TOO_SMALL if not cluster
                      else CMQCFC.MQRCCF_PARM_CONFLICT)
    if cluster:
        return {"CLUSTER": _mq_name(cluster, generic=False)}
    return {"CLUSNL": _mq_name(namelist, generic=False)}


def refresh_cluster(req: PcfRequest, msg: pcf.PCFMessage) -> list[Response]:
    """Refresh Cluster: ClusterName (generic allowed), RefreshRepository."""
    cluster = _mq_name(required_name(msg, CMQC.MQCA_CLUSTER_NAME))
    repos = msg.get(CMQCFC.MQIACF_REFRESH_REPOSITORY, CMQCFC.MQCFO_REFRESH_REPOSITORY_NO)
    if repos not in (CMQCFC.MQCFO_REFRESH_REPOSITORY_NO, CMQCFC.MQCFO_REFRESH_REPOSITORY_YES):
        raise Refused(CMQCFC.MQRCCF_PARM_VALUE_ERROR)
    yes = repos == CMQCFC.MQCFO_REFRESH_REPOSITORY_YES
    return req.run(_command("REFRESH", "CLUSTER", cluster, {"REPOS": "YES" if yes else "NO"}))


def reset_cluster(req: PcfRequest, msg: pcf.PCFMessage) -> list[Response]:
    """Reset Cluster: ClusterName, Action MQACT_FORCE_REMOVE, QMgrName or QMgrIdentifier,
    RemoveQueues (full repositories only: the repository manager refuses it elsewhere)."""
    cluster = _mq_name(required_name(msg, CMQC.MQCA_CLUSTER_NAME), generic=False)
    action = msg.get(CMQCFC.MQIACF_ACTION)
    if action is None:
        raise Refused(CMQCFC.MQRCCF_PARM_COUNT_TOO_SMALL)
    if action != CMQCFC.MQACT_FORCE_REMOVE:
        raise Refused(CMQCFC.MQRCCF_ACTION_VALUE_ERROR)
    qmname = optional_name(msg, CMQC.MQCA_Q_MGR_NAME)
    qmid = optional_name(msg, CMQC.MQCA_Q_MGR_IDENTIFIER)
    if bool(qmname) == bool(qmid):
        raise Refused(CMQCFC.MQRCCF_PARM_COUNT_TOO_SMALL if not qmname
                      else CMQCFC.MQRCCF_PARM_CONFLICT)
    queues = msg.get(CMQCFC.MQIACF_REMOVE_QUEUES, CMQCFC.MQCFO_REMOVE_QUEUES_NO)
    if queues not in (CMQCFC.MQCFO_REMOVE_QUEUES_NO, CMQCFC.MQCFO_REMOVE_QUEUES_YES):
        raise Refused(CMQCFC.MQRCCF_PARM_VALUE_ERROR)
    if qmid and not _MQ_NAME.fullmatch(qmid):
        raise Refused(CMQCFC.MQRCCF_PARM_VALUE_ERROR)
    member = {"QMNAME": _mq_name(qmname, generic=False)} if qmname else {"QMID": qmid}
    yes = queues == CMQCFC.MQCFO_REMOVE_QUEUES_YES
    return req.run(_command("RESET", "CLUSTER", cluster, {
        "ACTION": "FORCEREMOVE", **member, "QUEUES": "YES" if yes else "NO"}))


# DISPLAY CLUSQMGR / QCLUSTER keyword -> (parameter, string length, or 0 for an integer,
# with its words if it is an enumeration)
_PcfField = tuple[int, int, "dict[str, int] | None"]
_CLUSQMGR_PCF: dict[str, _PcfField] = {
    "CLUSQMGR": (CMQC.MQCA_CLUSTER_Q_MGR_NAME, CMQC.MQ_Q_MGR_NAME_LENGTH, None),
    "CLUSTER": (CMQC.MQCA_CLUSTER_NAME, CMQC.MQ_CLUSTER_NAME_LENGTH, None),
    "CHANNEL": (CMQCFC.MQCACH_CHANNEL_NAME, CMQC.MQ_CHANNEL_NAME_LENGTH, None),
    "CONNAME": (CMQCFC.MQCACH_CONNECTION_NAME, CMQC.MQ_CONN_NAME_LENGTH, None),
    "QMID": (CMQC.MQCA_Q_MGR_IDENTIFIER, CMQC.MQ_Q_MGR_IDENTIFIER_LENGTH, None),
    "DEFTYPE": (CMQCFC.MQIACF_Q_MGR_DEFINITION_TYPE, 0, {
        "CLUSSDR": CMQCFC.MQQMDT_EXPLICIT_CLUSTER_SENDER,
        "CLUSSDRA": CMQCFC.MQQMDT_AUTO_CLUSTER_SENDER,
        "CLUSSDRB": CMQCFC.MQQMDT_AUTO_EXP_CLUSTER_SENDER,
        "CLUSRCVR": CMQCFC.MQQMDT_CLUSTER_RECEIVER}),
    "QMTYPE": (CMQCFC.MQIACF_Q_MGR_TYPE, 0, {"REPOS": CMQCFC.MQQMT_REPOSITORY,
                                            "NORMAL": CMQCFC.MQQMT_NORMAL}),
    "STATUS": (CMQCFC.MQIACH_CHANNEL_STATUS, 0, CHS),
    "SUSPEND": (CMQCFC.MQIACF_SUSPEND, 0, {"YES": CMQCFC.MQSUS_YES, "NO": CMQCFC.MQSUS_NO}),
    "CLWLPRTY": (CMQCFC.MQIACH_CLWL_CHANNEL_PRIORITY, 0, None),
    "CLWLRANK": (CMQCFC.MQIACH_CLWL_CHANNEL_RANK, 0, None),
    "CLWLWGHT": (CMQCFC.MQIACH_CLWL_CHANNEL_WEIGHT, 0, None),
    "NETPRTY": (CMQCFC.MQIACH_NETWORK_PRIORITY, 0, None),
}
_CLUSQMGR_ALWAYS = ("CLUSQMGR", "CLUSTER", "CHANNEL")
_QCLUSTER_PCF: dict[str, _PcfField] = {
    "QUEUE": (CMQC.MQCA_Q_NAME, CMQC.MQ_Q_NAME_LENGTH, None),
    "CLUSTER": (CMQC.MQCA_CLUSTER_NAME, CMQC.MQ_CLUSTER_NAME_LENGTH, None),
    "CLUSQMGR": (CMQC.MQCA_CLUSTER_Q_MGR_NAME, CMQC.MQ_Q_MGR_NAME_LENGTH, None),
    "QMID": (CMQC.MQCA_Q_MGR_IDENTIFIER, CMQC.MQ_Q_MGR_IDENTIFIER_LENGTH, None),
    "CLUSQT": (CMQC.MQIA_CLUSTER_Q_TYPE, 0, {
        "QLOCAL": CMQC.MQCQT_LOCAL_Q, "QALIAS": CMQC.MQCQT_ALIAS_Q,
        "QREMOTE": CMQC.MQCQT_REMOTE_Q, "QMGR": CMQC.MQCQT_Q_MGR_ALIAS}),
    "DEFBIND": (CMQC.MQIA_DEF_BIND, 0, {"OPEN": CMQC.MQBND_BIND_ON_OPEN,
                                        "NOTFIXED": CMQC.MQBND_BIND_NOT_FIXED,
                                        "GROUP": CMQC.MQBND_BIND_ON_GROUP}),
    "DEFPRTY": (CMQC.MQIA_DEF_PRIORITY, 0, None),
    "DEFPSIST": (CMQC.MQIA_DEF_PERSISTENCE, 0, {"YES": CMQC.MQPER_PERSISTENT,
                                                "NO": CMQC.MQPER_NOT_PERSISTENT}),
    "PUT": (CMQC.MQIA_INHIBIT_PUT, 0, {"ENABLED": CMQC.MQQA_PUT_ALLOWED,
                                       "DISABLED": CMQC.MQQA_PUT_INHIBITED}),
    "CLWLPRTY": (CMQC.MQIA_CLWL_Q_PRIORITY, 0, None),
    "CLWLRANK": (CMQC.MQIA_CLWL_Q_RANK, 0, None),
}
_QCLUSTER_ALWAYS = ("QUEUE", "CLUSTER", "CLUSQMGR")


def _row_params(row: dict[str, object], fields: dict[str, _PcfField],
                wanted: set[int] | None, always: tuple[str, ...]) -> list[pcf.Parameter]:
    """A DISPLAY row as PCF response parameters (the identifying ones always, the others
    if ``wanted`` is None or names them)."""
    out: list[pcf.Parameter] = []
    for keyword, (parameter, length, words) in fields.items():
        if keyword not in row:
            continue
        if keyword not in always and wanted is not None and parameter not in wanted:
            continue
        value = row[keyword]
        if length:
            text = "" if value is None else str(value)
            out.append(pcf.CFST(parameter, text.encode("latin-1", "replace")
                                .ljust(length)[:length]))
        elif words is not None:
            if str(value) in words:
                out.append(pcf.CFIN(parameter, words[str(value)]))
        else:
            try:
                out.append(pcf.CFIN(parameter, int(value)))  # type: ignore[arg-type]
            except (TypeError, ValueError):
                continue
    return out


#: command -> handler
CLUSTER: dict[int, PcfHandler] = {
    CMQCFC.MQCMD_INQUIRE_CLUSTER_Q_MGR: inquire_cluster_q_mgr,
    CMQCFC.MQCMD_SUSPEND_Q_MGR_CLUSTER: suspend,
    CMQCFC.MQCMD_RESUME_Q_MGR_CLUSTER: resume,
    CMQCFC.MQCMD_REFRESH_CLUSTER: refresh_cluster,
    CMQCFC.MQCMD_RESET_CLUSTER: reset_cluster,
}
