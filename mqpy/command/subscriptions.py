"""Create, Change, Delete and Inquire Subscription (PCF): the MQSC commands DEFINE / ALTER /
DELETE / DISPLAY SUB built from the request's parameters and run by the processor."""

from __future__ import annotations

from functools import partial

from mqpy import CMQC, CMQCFC, pcf
from mqpy.command.pubsubstatus import PUBSUB_STATUS
from mqpy.command.requests import PcfHandler, PcfRequest, Refused, Response, name_of
from mqpy.mqsc import pcfmap
from mqpy.mqsc.parser import MQSCCommand
from mqpy.pubsub import admin

__all__ = ["SUBSCRIPTIONS"]

#: string parameters -> DEFINE SUB keywords
_STRINGS = {
    CMQC.MQCA_TOPIC_STRING: "TOPICSTR", CMQC.MQCA_TOPIC_NAME: "TOPICOBJ",
    CMQCFC.MQCACF_DESTINATION: "DEST", CMQCFC.MQCACF_DESTINATION_Q_MGR: "DESTQMGR",
    CMQCFC.MQCACF_SUB_USER_DATA: "USERDATA", CMQCFC.MQCACF_SUB_SELECTOR: "SELECTOR",
    CMQCFC.MQCACF_SUB_USER_ID: "SUBUSER",
}
#: integer parameters -> (keyword, {value: word}) (an empty map: the number itself)
_WORDS = {
    CMQCFC.MQIACF_DESTINATION_CLASS: ("DESTCLAS", {CMQC.MQDC_MANAGED: "MANAGED",
                                                   CMQC.MQDC_PROVIDED: "PROVIDED"}),
    CMQCFC.MQIACF_REQUEST_ONLY: ("REQONLY", {CMQC.MQRU_PUBLISH_ON_REQUEST: "YES",
                                             CMQC.MQRU_PUBLISH_ALL: "NO"}),
    CMQCFC.MQIACF_WILDCARD_SCHEMA: ("WSCHEMA", {CMQC.MQWS_CHAR: "CHAR",
                                                CMQC.MQWS_TOPIC: "TOPIC"}),
    CMQCFC.MQIACF_PUB_PRIORITY: ("PUBPRTY", {CMQC.MQPRI_PRIORITY_AS_PUBLISHED: "ASPUB",
                                             CMQC.MQPRI_PRIORITY_AS_Q_DEF: "ASQDEF"}),
    CMQCFC.MQIACF_EXPIRY: ("EXPIRY", {CMQC.MQEI_UNLIMITED: "UNLIMITED"}),
}
_CONTROL = frozenset({CMQCFC.MQCACF_SUB_NAME, CMQCFC.MQBACF_SUB_ID, CMQCFC.MQIACF_REPLACE})


def _params(msg: pcf.PCFMessage) -> dict[str, object]:
    """The request's subscription attributes as DEFINE SUB's keywords and values."""
    out: dict[str, object] = {}
    for p in msg.params:
        if p.Parameter in _CONTROL:
            continue
        if p.Parameter in _STRINGS:
            out[_STRINGS[p.Parameter]] = name_of(p.value)
        elif p.Parameter in _WORDS:
            keyword, words = _WORDS[p.Parameter]
            if not isinstance(p.value, int):
                raise Refused(CMQCFC.MQRCCF_CFIN_PARM_ID_ERROR)
            out[keyword] = words.get(p.value, p.value) if words else p.value
        elif p.Parameter == CMQCFC.MQBACF_DESTINATION_CORREL_ID:
            out["DESTCORL"] = bytes(p.value).hex().upper()
        else:
            raise Refused(pcfmap.parm_id_error(p), p.Parameter)
    return out


def _target(msg: pcf.PCFMessage) -> tuple[str, dict[str, object]]:
    """The subscription a request names: SubName, or SubId."""
    name = name_of(msg.get(CMQCFC.MQCACF_SUB_NAME) or b"")
    subid = msg.get(CMQCFC.MQBACF_SUB_ID)
    if not name and subid is None:
        raise Refused(CMQCFC.MQRCCF_PARM_COUNT_TOO_SMALL)
    return name, ({"SUBID": bytes(subid).hex().upper()} if subid is not None else {})


def change_subscription(req: PcfRequest, msg: pcf.PCFMessage, verb: str) -> list[Response]:
    """Create (DEFINE SUB), Change (ALTER SUB) or Delete (DELETE SUB) Subscription."""
    name, named = _target(msg)
    params = {} if verb == "DELETE" else _params(msg)
    result = req.processor.execute(MQSCCommand(verb, "SUB", name, {**params, **named}),
                                   req.who)
    if result.ok:
        return [Response()]
    return [Response([], CMQC.MQCC_FAILED, result.reason or CMQCFC.MQRCCF_COMMAND_FAILED)]


def inquire_subscription(req: PcfRequest, msg: pcf.PCFMessage) -> list[Response]:
    """Inquire Subscription: SubName, SubId, TopicString, Destination, DestinationClass,
    Durable, SubType of each subscription selected."""
    name = name_of(msg.get(CMQCFC.MQCACF_SUB_NAME) or b"*")
    found = [r for r in admin.rows(req.engine, name, name.endswith("*"))
             if admin.subtype_shown(r, msg.get(CMQCFC.MQIACF_SUB_TYPE))]
    if not found:
        return [Response([], CMQC.MQCC_FAILED, CMQC.MQRC_UNKNOWN_OBJECT_NAME)]
    return [Response([
        pcf.CFST(CMQCFC.MQCACF_SUB_NAME, str(row["SUB"]).encode("utf-8")),
        pcf.CFBS(CMQCFC.MQBACF_SUB_ID, bytes.fromhex(str(row["SUBID"]))),
        pcf.CFST(CMQC.MQCA_TOPIC_STRING, str(row["TOPICSTR"]).encode("utf-8")),
        pcf.CFST(CMQCFC.MQCACF_DESTINATION, str(row["DEST"]).ljust(48).encode("latin-1")),
        pcf.CFIN(CMQCFC.MQIACF_DESTINATION_CLASS,
                 CMQC.MQDC_MANAGED if row["DESTCLAS"] == "MANAGED" else CMQC.MQDC_PROVIDED),
        pcf.CFIN(CMQCFC.MQIACF_DURABLE_SUBSCRIPTION,
                 CMQC.MQSUB_DURABLE_YES if row["DURABLE"] == "YES" else CMQC.MQSUB_DURABLE_NO),
        pcf.CFIN(CMQCFC.MQIACF_SUB_TYPE,
                 getattr(CMQCFC, f"MQSUBTYPE_{row['SUBTYPE']}", CMQCFC.MQSUBTYPE_API)),
        *_described(row),
    ]) for row in found]


def _described(row: dict[str, object]) -> list:
    """The rest of an Inquire Subscription answer IBM gives: TopicObject,
    DestinationQueueManager, DestinationCorrelId, Selector, Userdata, SubscriptionUser,
    RequestOnly and WildcardSchema."""
    strings = {CMQC.MQCA_TOPIC_NAME: "TOPICOBJ", CMQCFC.MQCACF_DESTINATION_Q_MGR: "DESTQMGR",
               CMQCFC.MQCACF_SUB_SELECTOR: "SELECTOR", CMQCFC.MQCACF_SUB_USER_DATA: "USERDATA",
               CMQCFC.MQCACF_SUB_USER_ID: "SUBUSER"}
    return [*(pcf.CFST(p, str(row.get(k) or "").encode("utf-8")) for p, k in strings.items()),
            pcf.CFBS(CMQCFC.MQBACF_DESTINATION_CORREL_ID,
                     bytes.fromhex(str(row.get("DESTCORL") or "00" * 24))),
            pcf.CFIN(CMQCFC.MQIACF_REQUEST_ONLY, CMQC.MQRU_PUBLISH_ON_REQUEST
                     if row.get("REQONLY") == "YES" else CMQC.MQRU_PUBLISH_ALL),
            pcf.CFIN(CMQCFC.MQIACF_WILDCARD_SCHEMA, CMQC.MQWS_CHAR
                     if row.get("WSCHEMA") == "CHAR" else CMQC.MQWS_TOPIC)]


#: command -> handler
SUBSCRIPTIONS: dict[int, PcfHandler] = {
    CMQCFC.MQCMD_CREATE_SUBSCRIPTION: partial(change_subscription, verb="DEFINE"),
    CMQCFC.MQCMD_CHANGE_SUBSCRIPTION: partial(change_subscription, verb="ALTER"),
    CMQCFC.MQCMD_DELETE_SUBSCRIPTION: partial(change_subscription, verb="DELETE"),
    CMQCFC.MQCMD_INQUIRE_SUBSCRIPTION: inquire_subscription,
    **PUBSUB_STATUS,
}
