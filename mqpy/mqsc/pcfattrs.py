"""An object's attributes as PCF parameters, as the Inquire commands answer them: the one place
that turns a definition (the view DISPLAY shows) into MQCFIN / MQCFST / MQCFSL structures.
The command server's Inquire Queue, Channel, Queue Manager, Namelist, Process, Listener,
Service, Authentication Information and Topic answer with these lists, and the configuration
events (:mod:`mqpy.mqsc.adminevents`) carry the same ones."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING, Any

from mqpy import CMQC, CMQCFC, CMQZC, pcf
from mqpy.mqsc import pcfmap, queue_manager
from mqpy.mqsc.mapping import display_keywords
from mqpy.security import authority as oam

if TYPE_CHECKING:
    from mqpy.mqsc.processor import MQSCProcessor

__all__ = ["AUTHREC_OBJTYPES", "AUTHS", "FAMILY_TABLES", "MQAUTH_OF", "MQOT_OF_AUTHREC",
           "attr_params", "authrec_params", "channel_params", "chlauth_params", "family_params",
           "object_params", "param", "qmgr_params", "queue_params"]

#: MQOT_* -> the OBJTYPE word of SET / DISPLAY AUTHREC
AUTHREC_OBJTYPES: Mapping[int, str] = {
    CMQC.MQOT_Q: "QUEUE", CMQC.MQOT_Q_MGR: "QMGR", CMQC.MQOT_PROCESS: "PROCESS",
    CMQC.MQOT_NAMELIST: "NAMELIST", CMQC.MQOT_CHANNEL: "CHANNEL",
    CMQC.MQOT_CLNTCONN_CHANNEL: "CLNTCONN", CMQC.MQOT_LISTENER: "LISTENER",
    CMQC.MQOT_SERVICE: "SERVICE", CMQC.MQOT_AUTH_INFO: "AUTHINFO", CMQC.MQOT_TOPIC: "TOPIC",
    CMQC.MQOT_COMM_INFO: "COMMINFO", CMQC.MQOT_REMOTE_Q_MGR_NAME: "RQMNAME"}
#: an authority record's object type (mqpy.security's word) -> MQOT_*
MQOT_OF_AUTHREC = {word.lower(): number for number, word in AUTHREC_OBJTYPES.items()}
MQOT_OF_AUTHREC["queue"] = CMQC.MQOT_Q

#: MQAUTH_* -> the authority word of AUTHADD / AUTHRMV (setmqaut's)
AUTHS: Mapping[int, str] = {
    CMQCFC.MQAUTH_ALT_USER_AUTHORITY: "altusr", CMQCFC.MQAUTH_BROWSE: "browse",
    CMQCFC.MQAUTH_CHANGE: "chg", CMQCFC.MQAUTH_CLEAR: "clr", CMQCFC.MQAUTH_CONNECT: "connect",
    CMQCFC.MQAUTH_CREATE: "crt", CMQCFC.MQAUTH_DELETE: "dlt", CMQCFC.MQAUTH_DISPLAY: "dsp",
    CMQCFC.MQAUTH_INPUT: "get", CMQCFC.MQAUTH_INQUIRE: "inq", CMQCFC.MQAUTH_OUTPUT: "put",
    CMQCFC.MQAUTH_PASS_ALL_CONTEXT: "passall", CMQCFC.MQAUTH_PASS_IDENTITY_CONTEXT: "passid",
    CMQCFC.MQAUTH_SET: "set", CMQCFC.MQAUTH_SET_ALL_CONTEXT: "setall",
    CMQCFC.MQAUTH_SET_IDENTITY_CONTEXT: "setid", CMQCFC.MQAUTH_CONTROL: "ctrl",
    CMQCFC.MQAUTH_CONTROL_EXTENDED: "ctrlx", CMQCFC.MQAUTH_PUBLISH: "pub",
    CMQCFC.MQAUTH_SUBSCRIBE: "sub", CMQCFC.MQAUTH_RESUME: "resume",
    CMQCFC.MQAUTH_SYSTEM: "system", CMQCFC.MQAUTH_ALL: "all",
    CMQCFC.MQAUTH_ALL_ADMIN: "alladm", CMQCFC.MQAUTH_ALL_MQI: "allmqi",
    CMQCFC.MQAUTH_NONE: "none"}
#: an authority word -> MQAUTH_*
MQAUTH_OF = {word: number for number, word in AUTHS.items()}

OBJ_TO_QTYPE = {"QLOCAL": CMQC.MQQT_LOCAL, "QMODEL": CMQC.MQQT_MODEL,
                "QALIAS": CMQC.MQQT_ALIAS, "QREMOTE": CMQC.MQQT_REMOTE}

#: the object types whose Inquire answers its name, then its table's attributes
FAMILY_TABLES: dict[str, tuple[pcfmap.PcfAttr, ...]] = {
    "NAMELIST": pcfmap.NAMELIST, "PROCESS": pcfmap.PROCESS, "LISTENER": pcfmap.LISTENER,
    "AUTHINFO": pcfmap.AUTHINFO, "SERVICE": pcfmap.SERVICE, "TOPIC": pcfmap.TOPIC}


def param(attr: pcfmap.PcfAttr, value: object) -> pcf.Parameter | None:
    """An attribute's value as a response parameter; None if PCF cannot carry it."""
    try:
        converted = attr.to_pcf(value)
    except (TypeError, ValueError):
        return None
    if isinstance(converted, list):
        return pcf.CFSL(attr.parameter, converted)
    if isinstance(converted, bytes):
        return pcf.CFST(attr.parameter, converted)
    return pcf.CFIN(attr.parameter, converted)


def attr_params(view: Mapping[str, object], table: Iterable[pcfmap.PcfAttr],
                asked: set[int] | None) -> list[pcf.Parameter]:
    """The attributes of ``table`` that ``view`` has (all, or those ``asked`` names) as
    response parameters; a value PCF cannot carry is left out."""
    out: list[pcf.Parameter] = []
    for attr in table:
        if attr.keyword in view and (asked is None or attr.parameter in asked):
            p = param(attr, view[attr.keyword])
            if p is not None:
                out.append(p)
    return out


def queue_params(proc: MQSCProcessor, obj: Any, asked: set[int] | None = None
                 ) -> list[pcf.Parameter]:
    """Inquire Queue's answer for one queue: QName, QType, then the attributes DISPLAY shows
    for its type (those ``asked`` names, or all)."""
    view = proc.stored_view(obj)
    shown = display_keywords(obj.objtype)
    return [pcf.CFST(CMQC.MQCA_Q_NAME, obj.name.ljust(CMQC.MQ_Q_NAME_LENGTH)),
            pcf.CFIN(CMQC.MQIA_Q_TYPE, OBJ_TO_QTYPE[obj.objtype]),
            *attr_params({k: v for k, v in view.items() if k in shown}, pcfmap.QUEUE[2:],
                         asked)]


def channel_params(proc: MQSCProcessor, obj: Any, asked: set[int] | None = None
                   ) -> list[pcf.Parameter]:
    """Inquire Channel's answer for one channel: ChannelName and ChannelType always, then
    the attributes DISPLAY shows for its type (those ``asked`` names, or all)."""
    view = proc.stored_view(obj)
    shown = display_keywords("CHANNEL", str(view.get("CHLTYPE", "")))
    params: list[pcf.Parameter] = []
    for attr in pcfmap.CHANNEL:
        always = attr.keyword in ("CHANNEL", "CHLTYPE")
        value = obj.name if attr.keyword == "CHANNEL" else view.get(attr.keyword)
        if value is None or not (always or attr.keyword in shown):
            continue
        if always or asked is None or attr.parameter in asked:
            p = param(attr, value)
            if p is not None:
                params.append(p)
    return params


def qmgr_params(proc: MQSCProcessor, asked: set[int] | None = None) -> list[pcf.Parameter]:
    """Inquire Queue Manager's answer: QMgrName always, then the attributes asked (all)."""
    view = queue_manager.qmgr_view(proc)
    view["QMNAME"] = proc.engine.name
    return [p for attr in pcfmap.QMGR if attr.keyword in view and (
        asked is None or attr.parameter in asked or attr.keyword == "QMNAME")
        if (p := param(attr, view[attr.keyword])) is not None]


def family_params(proc: MQSCProcessor, obj: Any, table: tuple[pcfmap.PcfAttr, ...],
                  asked: set[int] | None = None) -> list[pcf.Parameter]:
    """The answer of Inquire Namelist, Process, Listener, Service, Authentication
    Information or Topic for one object: its name, then the attributes asked (all)."""
    return [param(table[0], obj.name),  # type: ignore[list-item]
            *attr_params(proc.stored_view(obj), table[1:], asked)]


def object_params(proc: MQSCProcessor, obj: Any) -> list[pcf.Parameter] | None:
    """Every attribute of ``obj`` as its Inquire answers them (its name first); None for an
    object type no Inquire answers."""
    if obj.objtype in OBJ_TO_QTYPE:
        return queue_params(proc, obj)
    if obj.objtype == "CHANNEL":
        return channel_params(proc, obj)
    if obj.objtype == "QMGR":
        return qmgr_params(proc)
    table = FAMILY_TABLES.get(obj.objtype)
    return None if table is None else family_params(proc, obj, table)


def chlauth_params(record: Mapping[str, object]) -> list[pcf.Parameter]:
    """A channel authentication record as Inquire Channel Authentication Records answers it
    (all its attributes): its profile (ChannelProfile), its type, then the rest."""
    return [p for p in (param(pcfmap.CHLAUTH[0], record["CHLAUTH"]),
                        param(pcfmap.CHLAUTH[1], record["TYPE"]),
                        *attr_params(record, pcfmap.CHLAUTH[2:], None)) if p is not None]


def authrec_params(record: oam.AuthRecord) -> list[pcf.Parameter]:
    """An authority record as its configuration events carry it (IBM's "Authority Record
    attributes"): its profile, AuthorityRecordType (the MQOT_* of its object type), its
    AuthorizationList, EntityName and EntityType."""
    return [pcf.CFST(CMQCFC.MQCACF_AUTH_PROFILE_NAME,
                     record.profile.ljust(CMQCFC.MQ_AUTH_PROFILE_NAME_LENGTH)),
            pcf.CFIN(CMQCFC.MQIACF_AUTH_REC_TYPE,
                     MQOT_OF_AUTHREC.get(record.objtype, CMQC.MQOT_NONE)),
            pcf.CFIL(CMQCFC.MQIACF_AUTHORIZATION_LIST,
                     [MQAUTH_OF[a] for a in oam.AUTHORITIES if a in record.auths]
                     or [CMQCFC.MQAUTH_NONE]),
            pcf.CFST(CMQCFC.MQCACF_ENTITY_NAME,
                     record.entity.ljust(CMQCFC.MQ_ENTITY_NAME_LENGTH)),
            pcf.CFIN(CMQCFC.MQIACF_ENTITY_TYPE, CMQZC.MQZAET_PRINCIPAL
                     if record.entity_type == "principal" else CMQZC.MQZAET_GROUP)]
