"""Subscriptions made, changed, ended and shown by an administrator (DEFINE / ALTER /
DELETE / DISPLAY SUB, and their PCF forms Create / Change / Delete / Inquire Subscription).

IBM's rules, as built here:

1. DEFINE SUB makes a durable subscription of SUBTYPE(ADMIN) to TOPICSTR, below TOPICOBJ's
   topic string when both are given (neither: refused). DESTCLAS(PROVIDED) needs DEST, an
   existing queue; DESTCLAS(MANAGED) makes a permanent dynamic queue from the topic's
   MDURMDL (SYSTEM.MANAGED.DURABLE.*). A name in use is MQRCCF_SUB_ALREADY_EXISTS.
2. An application resumes it with MQSUB MQSO_RESUME; while a handle has it open, DELETE SUB
   is MQRCCF_SUBSCRIPTION_IN_USE. DELETE SUB ends it as MQCO_REMOVE_SUB does (a managed
   queue goes with it).
3. DEFINE SUB LIKE(name) takes the attributes it does not give from that subscription (its
   topic, destination, user data, selector, expiry, priorities ...; a managed one's queue
   is not copied: the new one gets its own); LIKE(SYSTEM.DEFAULT.SUB) takes IBM's default
   values (those of the queue manager's default subscription object). A LIKE naming no
   subscription is MQRC_UNKNOWN_OBJECT_NAME.
4. DISPLAY SUB shows the subscriptions with a name (durable or not) as DISPLAY SUB's
   keywords, SUBID and SUB (the name) first.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from mqpy import CMQC, CMQCFC
from mqpy.errors import MQMIError
from mqpy.pubsub import admintopic, destinations, topicstrings
from mqpy.pubsub.registry import end_subscription, registry_for
from mqpy.pubsub.subscription import Subscription

__all__ = ["AdminRefused", "define", "delete", "rows"]

_PRIORITY = {"ASPUB": CMQC.MQPRI_PRIORITY_AS_PUBLISHED, "ASQDEF": CMQC.MQPRI_PRIORITY_AS_Q_DEF}


class AdminRefused(Exception):
    """A subscription command refused with a PCF reason (MQRCCF_* or MQRC_*)."""

    def __init__(self, reason: int) -> None:
        super().__init__(reason)
        self.reason = reason


def _topic(eng: Any, params: Mapping[str, object]) -> str:
    """The full topic string of TOPICOBJ and TOPICSTR (rule 1)."""
    obj_name = str(params.get("TOPICOBJ") or "")
    base = ""
    if obj_name:
        obj = eng.catalog.lookup("TOPIC", obj_name)
        if obj is None or obj.objtype != "TOPIC":
            raise AdminRefused(CMQC.MQRC_UNKNOWN_OBJECT_NAME)
        base = str(obj.attributes.get("TOPICSTR") or "")
    topic = topicstrings.full_topic_string(base, str(params.get("TOPICSTR") or ""))
    if not topic:
        raise AdminRefused(CMQCFC.MQRCCF_PARM_MISSING)
    return topic


def _managed_queue(eng: Any, topic: str) -> str:
    """A new permanent dynamic queue from the topic's MDURMDL (rule 1)."""
    reg = registry_for(eng)
    model = eng.catalog.queue_def(str(reg.topic_attribute(topic, "MDURMDL")))
    if model is None or model.objtype != "QMODEL" \
            or model.attributes.get("DEFTYPE") == "TEMPDYN":
        raise AdminRefused(CMQC.MQRC_INVALID_DESTINATION)
    name = "SYSTEM.MANAGED.DURABLE." + eng.new_msgid()[-8:].hex().upper()
    attributes = {k: v for k, v in model.attributes.items() if k != "DEFTYPE"}
    attributes["DEFTYPE"] = "PERMDYN"
    eng.define("QLOCAL", name, attributes)
    return name


SYSTEM_DEFAULT_SUB = "SYSTEM.DEFAULT.SUB"
#: the values of IBM's SYSTEM.DEFAULT.SUB that DEFINE SUB takes (rule 3)
DEFAULT_SUB_VALUES: dict[str, object] = {
    "DESTCLAS": "PROVIDED", "EXPIRY": "UNLIMITED", "PUBPRTY": "ASPUB", "REQONLY": "NO",
    "WSCHEMA": "TOPIC", "SELECTOR": "", "USERDATA": "", "SUBUSER": "", "PUBAPPID": "",
    "DESTQMGR": "", "TOPICOBJ": "", "PSPROP": "MSGPROP"}
#: what LIKE copies from another subscription (rule 3)
_COPIED = ("TOPICSTR", "TOPICOBJ", "DEST", "DESTQMGR", "DESTCLAS", "USERDATA", "SELECTOR",
           "SUBUSER", "EXPIRY", "PUBPRTY", "PUBAPPID", "REQONLY", "WSCHEMA", "PSPROP")


def _like(eng: Any, params: Mapping[str, object]) -> Mapping[str, object]:
    """``params`` over the attributes of the subscription LIKE names (rule 3)."""
    like = str(params.get("LIKE") or "").strip()
    if not like:
        return params
    model = registry_for(eng).named(like)
    if model is None and like != SYSTEM_DEFAULT_SUB:
        raise AdminRefused(CMQC.MQRC_UNKNOWN_OBJECT_NAME)
    if model is None:
        base: dict[str, object] = dict(DEFAULT_SUB_VALUES)
    else:
        shown = model.attributes()
        base = {k: shown[k] for k in _COPIED if k in shown}
        if model.managed:
            base.pop("DEST", None)
    return {**base, **{k: v for k, v in params.items() if k != "LIKE"}}


def define(eng: Any, name: str, params: Mapping[str, object]) -> Subscription:
    """DEFINE SUB (rules 1, 3)."""
    with eng.lock:
        reg = registry_for(eng)
        if reg.named(name) is not None:
            raise AdminRefused(CMQCFC.MQRCCF_SUB_ALREADY_EXISTS)
        params = _like(eng, params)
        topic = _topic(eng, params)
        scheme = CMQC.MQWS_CHAR if params.get("WSCHEMA") == "CHAR" else CMQC.MQWS_TOPIC
        if admintopic.subscribe_error(topic, scheme):  # wildcards restricted in $SYS/MQ
            raise AdminRefused(admintopic.subscribe_error(topic, scheme))
        managed = params.get("DESTCLAS") == "MANAGED"
        if managed:
            dest = _managed_queue(eng, topic)
        else:
            dest = str(params.get("DEST") or "")
            if not dest:
                raise AdminRefused(CMQCFC.MQRCCF_PARM_MISSING)
            if not params.get("DESTQMGR") and eng.catalog.queue_def(dest) is None \
                    and not destinations.in_cluster(eng, dest):
                raise AdminRefused(CMQC.MQRC_UNKNOWN_OBJECT_NAME)
        correl = str(params.get("DESTCORL") or "")
        expiry = params.get("EXPIRY", "UNLIMITED")
        priority = params.get("PUBPRTY", "ASPUB")
        sub = Subscription(
            subid=eng.new_msgid(), name=name, topic=topic, dest=dest,
            dest_qmgr=str(params.get("DESTQMGR") or ""), managed=managed, durable=True,
            correl_id=bytes.fromhex(correl) if correl else eng.new_msgid(),
            user_data=str(params.get("USERDATA") or "").encode("utf-8"),
            selector=str(params.get("SELECTOR") or ""), sub_user=str(params.get("SUBUSER") or ""),
            expiry=CMQC.MQEI_UNLIMITED if expiry == "UNLIMITED" else int(expiry),  # type: ignore[call-overload]
            pub_priority=_PRIORITY.get(str(priority), priority)  # type: ignore[arg-type]
            if isinstance(priority, str) else int(priority),  # type: ignore[call-overload]
            on_request=params.get("REQONLY") == "YES", wildcard_scheme=scheme, admin=True,
            psprop=str(params.get("PSPROP") or "MSGPROP"),
            topic_object=str(params.get("TOPICOBJ") or ""))
        reg.add(sub)
        return sub


def _named(eng: Any, name: str, subid: str) -> Subscription:
    reg = registry_for(eng)
    sub = reg.subs.get(bytes.fromhex(subid)) if subid else reg.named(name)
    if sub is None:
        raise AdminRefused(CMQC.MQRC_UNKNOWN_OBJECT_NAME)
    return sub


def delete(eng: Any, name: str, subid: str = "") -> None:
    """DELETE SUB (rule 2)."""
    with eng.lock:
        reg = registry_for(eng)
        sub = _named(eng, name, subid)
        if sub.subid in reg.open_by:
            raise AdminRefused(CMQCFC.MQRCCF_SUBSCRIPTION_IN_USE)
        try:
            end_subscription(eng, reg, sub)
        except MQMIError as err:
            raise AdminRefused(err.reason) from None


def alter(eng: Any, name: str, subid: str, params: Mapping[str, object]) -> None:
    """ALTER SUB: the values a subscription may change (its topic and durability stay)."""
    with eng.lock:
        reg = registry_for(eng)
        sub = _named(eng, name, subid)
        if "TOPICSTR" in params or "TOPICOBJ" in params:
            raise AdminRefused(CMQC.MQRC_TOPIC_NOT_ALTERABLE)
        if "DEST" in params and not sub.managed:
            sub.dest = str(params["DEST"])
        if "USERDATA" in params:
            sub.user_data = str(params["USERDATA"]).encode("utf-8")
        if "REQONLY" in params:
            sub.on_request = params["REQONLY"] == "YES"
        reg.changed(sub)


#: PCF SubscriptionType (MQIACF_SUB_TYPE) -> DISPLAY SUB's SUBTYPE word
_SUBTYPE_WORDS = {CMQCFC.MQSUBTYPE_API: "API", CMQCFC.MQSUBTYPE_ADMIN: "ADMIN",
                  CMQCFC.MQSUBTYPE_PROXY: "PROXY", CMQCFC.MQSUBTYPE_ALL: "ALL",
                  CMQCFC.MQSUBTYPE_USER: "USER"}


def subtype_shown(row: dict[str, object], asked: object) -> bool:
    """DISPLAY SUB SUBTYPE(...), or PCF SubscriptionType: USER (the default) is API and
    ADMIN, ALL every one."""
    if isinstance(asked, int):
        asked = _SUBTYPE_WORDS.get(asked, "USER")
    asked = str(asked or "USER").upper()
    if asked == "ALL":
        return True
    if asked == "USER":
        return row.get("SUBTYPE") in ("API", "ADMIN")
    return row.get("SUBTYPE") == asked


def rows(eng: Any, name: str, generic: bool) -> list[dict[str, object]]:
    """DISPLAY SUB's rows (rule 3), sorted by name."""
    with eng.lock:
        subs = [s for s in registry_for(eng) if s.name
                and (s.name.startswith(name[:-1]) if generic else s.name == name)]
        out = []
        for s in sorted(subs, key=lambda s: s.name):
            row = {"SUB": s.name, **s.attributes()}
            for hidden in ("SUBNAME", "SETIDENT", "SUBOPTS", "STARTED"):
                row.pop(hidden, None)
            out.append(row)
        return out

