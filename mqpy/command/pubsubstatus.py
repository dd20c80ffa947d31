"""Inquire Topic Status, Inquire Subscription Status and Inquire Pub/Sub Status (PCF): the
rows of DISPLAY TPSTATUS, SBSTATUS and PUBSUB (``mqpy.pubsub.status``) as IBM's command
server answers them, one response message a row.

- Inquire Topic Status: TopicString required (``#`` and ``+`` are wildcards, a trailing
  ``*`` is not); StatusType MQIACF_TOPIC_STATUS (the default), MQIACF_TOPIC_SUB or
  MQIACF_TOPIC_PUB. A wildcard that matches no topic is MQRCCF_TOPIC_STRING_NOT_FOUND.
- Inquire Subscription Status: SubName (generic with a trailing ``*``) or SubId; neither is
  MQRCCF_PARM_COUNT_TOO_SMALL, no such subscription MQRC_UNKNOWN_OBJECT_NAME.
- Inquire Pub/Sub Status: the local queue manager (Type MQPSST_LOCAL or MQPSST_ALL); no
  hierarchy is built here, so MQPSST_PARENT and MQPSST_CHILD find nothing.
"""

from __future__ import annotations

from collections.abc import Mapping

from mqpy import CMQC, CMQCFC, pcf
from mqpy.command.requests import PcfHandler, PcfRequest, Refused, Response, name_of
from mqpy.mqsc import pcfmap
from mqpy.pubsub import admin, status, topicstrings
from mqpy.pubsub.registry import registry_for

__all__ = ["PUBSUB_STATUS"]

_TOPIC_ATTRS = pcfmap.by_keyword(pcfmap.TOPIC)
_YES_NO = {"YES": CMQCFC.MQQSO_YES, "NO": CMQCFC.MQQSO_NO}
_STATUS_TYPES = {CMQCFC.MQIACF_TOPIC_STATUS: "TOPIC", CMQCFC.MQIACF_TOPIC_SUB: "SUB",
                 CMQCFC.MQIACF_TOPIC_PUB: "PUB"}
_DATES = {"LMSGDATE": CMQCFC.MQCACF_LAST_MSG_DATE, "LMSGTIME": CMQCFC.MQCACF_LAST_MSG_TIME,
          "RESMDATE": CMQC.MQCA_RESUME_DATE, "RESMTIME": CMQC.MQCA_RESUME_TIME,
          "LPUBDATE": CMQCFC.MQCACF_LAST_PUB_DATE, "LPUBTIME": CMQCFC.MQCACF_LAST_PUB_TIME}
_COUNTS = {"NUMMSGS": CMQCFC.MQIACF_MESSAGE_COUNT, "NUMPUBS": CMQCFC.MQIACF_PUBLISH_COUNT,
           "PUBCOUNT": CMQC.MQIA_PUB_COUNT, "SUBCOUNT": CMQC.MQIA_SUB_COUNT}


def _string(parameter: int, value: object, length: int = 0) -> pcf.CFST:
    text = str(value).encode("utf-8")
    return pcf.CFST(parameter, text.ljust(length) if length else text)


def _status_params(row: Mapping[str, object]) -> list[object]:
    """The parameters a status row's keywords carry (those of the sub and pub rows)."""
    out: list[object] = []
    for key, value in row.items():
        if key in _DATES:
            out.append(_string(_DATES[key], value, CMQC.MQ_DATE_LENGTH
                               if key.endswith("DATE") else CMQC.MQ_TIME_LENGTH))
        elif key in _COUNTS:
            out.append(pcf.CFIN(_COUNTS[key], int(value)))  # type: ignore[call-overload]
        elif key == "SUBID":
            out.append(pcf.CFBS(CMQCFC.MQBACF_SUB_ID, bytes.fromhex(str(value))))
        elif key == "ACTCONN":
            out.append(pcf.CFBS(CMQCFC.MQBACF_CONNECTION_ID, bytes.fromhex(str(value))))
        elif key == "DURABLE":
            out.append(pcf.CFIN(CMQCFC.MQIACF_DURABLE_SUBSCRIPTION, CMQC.MQSUB_DURABLE_YES
                                if value == "YES" else CMQC.MQSUB_DURABLE_NO))
        elif key == "SUBTYPE":
            out.append(pcf.CFIN(CMQCFC.MQIACF_SUB_TYPE, getattr(
                CMQCFC, f"MQSUBTYPE_{value}", CMQCFC.MQSUBTYPE_API)))
        elif key == "SUBUSER":
            out.append(_string(CMQCFC.MQCACF_SUB_USER_ID, value, CMQC.MQ_USER_ID_LENGTH))
    return out


def _topic_params(row: Mapping[str, object]) -> list[object]:
    """A TYPE(TOPIC) row: its resolved attributes as Inquire Topic gives them, then ADMIN,
    the counts and RETAINED."""
    out: list[object] = [_string(CMQC.MQCA_ADMIN_TOPIC_NAME, row.get("ADMIN", ""),
                                 CMQC.MQ_TOPIC_NAME_LENGTH),
                         pcf.CFIN(CMQCFC.MQIACF_RETAINED_PUBLICATION,
                                  _YES_NO[str(row.get("RETAINED", "NO"))])]
    for key, value in row.items():
        attr = _TOPIC_ATTRS.get(key)
        if key in _COUNTS:
            out.append(pcf.CFIN(_COUNTS[key], int(value)))  # type: ignore[call-overload]
        elif attr is not None and key != "TOPICSTR":
            try:
                carried = attr.to_pcf(value)
            except (TypeError, ValueError):
                continue  # a value this attribute has no number for
            out.append(pcf.CFST(attr.parameter, carried) if attr.is_string  # type: ignore[arg-type]
                       else pcf.CFIN(attr.parameter, carried))  # type: ignore[arg-type]
    return out


def inquire_topic_status(req: PcfRequest, msg: pcf.PCFMessage) -> list[Response]:
    """Inquire Topic Status: a response a topic (StatusType topic), subscription or
    publisher."""
    raw = msg.get(CMQC.MQCA_TOPIC_STRING)
    if raw is None:
        raise Refused(CMQCFC.MQRCCF_PARM_COUNT_TOO_SMALL)
    topic = bytes(raw).decode("utf-8", "replace").rstrip(" \0")
    kind = _STATUS_TYPES.get(msg.get(CMQCFC.MQIACF_TOPIC_STATUS_TYPE,  # type: ignore[arg-type]
                                     CMQCFC.MQIACF_TOPIC_STATUS))
    if kind is None:
        raise Refused(CMQCFC.MQRCCF_CFIN_PARM_ID_ERROR)
    if topicstrings.has_wildcard(topic) and not status.tpstatus_rows(req.engine, topic):
        return [Response([], CMQC.MQCC_FAILED, CMQCFC.MQRCCF_TOPIC_STRING_NOT_FOUND)]
    rows = status.tpstatus_rows(req.engine, topic, kind)
    return [Response([_string(CMQC.MQCA_TOPIC_STRING, row["TOPICSTR"]),
                      *(_topic_params(row) if kind == "TOPIC" else _status_params(row))])
            for row in rows]


def inquire_sub_status(req: PcfRequest, msg: pcf.PCFMessage) -> list[Response]:
    """Inquire Subscription Status: a response a subscription named (or by SubId)."""
    name = name_of(msg.get(CMQCFC.MQCACF_SUB_NAME) or b"")
    subid = msg.get(CMQCFC.MQBACF_SUB_ID)
    if not name and subid is None:
        raise Refused(CMQCFC.MQRCCF_PARM_COUNT_TOO_SMALL)
    generic = not name or name.endswith("*")
    rows = status.sbstatus_rows(req.engine, name or "*", generic)
    if subid is not None:
        rows = [r for r in rows if r["SUBID"] == bytes(subid).hex().upper()]  # type: ignore[arg-type]
    rows = [r for r in rows if admin.subtype_shown(r, msg.get(CMQCFC.MQIACF_SUB_TYPE))]
    if not rows:
        return [Response([], CMQC.MQCC_FAILED, CMQC.MQRC_UNKNOWN_OBJECT_NAME)]
    subs = registry_for(req.engine).subs
    out = []
    for row in rows:
        sub = subs.get(bytes.fromhex(str(row["SUBID"])))
        extra = [] if sub is None else [
            _string(CMQC.MQCA_TOPIC_STRING, sub.topic),
            _string(CMQCFC.MQCACF_SUB_USER_ID, sub.sub_user, CMQC.MQ_USER_ID_LENGTH)]
        out.append(Response([_string(CMQCFC.MQCACF_SUB_NAME, row["SUB"]),
                             *_status_params(row), *extra]))
    return out


def inquire_pubsub_status(req: PcfRequest, msg: pcf.PCFMessage) -> list[Response]:
    """Inquire Pub/Sub Status: the local queue manager's publish/subscribe engine."""
    kind = msg.get(CMQCFC.MQIACF_PS_STATUS_TYPE, CMQCFC.MQPSST_ALL)
    if kind not in (CMQCFC.MQPSST_ALL, CMQCFC.MQPSST_LOCAL, CMQCFC.MQPSST_PARENT,
                    CMQCFC.MQPSST_CHILD):
        raise Refused(CMQCFC.MQRCCF_CFIN_PARM_ID_ERROR)
    if kind in (CMQCFC.MQPSST_PARENT, CMQCFC.MQPSST_CHILD):
        return [Response()]
    return [Response([
        _string(CMQC.MQCA_Q_MGR_NAME, row["QMNAME"], CMQC.MQ_Q_MGR_NAME_LENGTH),
        pcf.CFIN(CMQCFC.MQIACF_PS_STATUS_TYPE, CMQCFC.MQPSST_LOCAL),
        pcf.CFIN(CMQCFC.MQIACF_PUBSUB_STATUS, CMQCFC.MQPS_STATUS_ACTIVE),
        pcf.CFIN(CMQC.MQIA_SUB_COUNT, int(row["SUBCOUNT"])),  # type: ignore[call-overload]
        pcf.CFIN(CMQC.MQIA_TOPIC_NODE_COUNT, int(row["TPCOUNT"])),  # type: ignore[call-overload]
    ]) for row in status.pubsub_rows(req.engine)]


#: command -> handler
PUBSUB_STATUS: dict[int, PcfHandler] = {
    CMQCFC.MQCMD_INQUIRE_TOPIC_STATUS: inquire_topic_status,
    CMQCFC.MQCMD_INQUIRE_SUB_STATUS: inquire_sub_status,
    CMQCFC.MQCMD_INQUIRE_PUBSUB_STATUS: inquire_pubsub_status,
}
