"""One PCF request as the command handlers see it: the processor and the requester it runs
for (:class:`PcfRequest`), its parameters read and checked, and its responses
(:class:`Response`, or :class:`Refused` for a request refused as a whole)."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

import attrs

from mqpy import CMQC, CMQCFC, pcf
from mqpy.engine.objects import QUEUE_TYPES
from mqpy.mqsc import grammar, pcfmap
from mqpy.mqsc.parser import MQSCCommand
from mqpy.mqsc.pcfattrs import attr_params, param
from mqpy.mqsc.processor import MQSCProcessor
from mqpy.mqsc.results import EVERYONE, Requester

__all__ = ["PcfHandler", "PcfRequest", "Refused", "Response", "check_shapes", "failed",
           "asked_attrs", "attr_params", "name_of", "param", "required_name"]


@attrs.frozen(slots=True)
class Response:
    """One response message's parameters and outcome, before it gets its MQCFH."""

    params: list[pcf.Parameter] = attrs.field(factory=list)
    comp: int = CMQC.MQCC_OK
    reason: int = CMQC.MQRC_NONE


def failed(reason: int) -> list[Response]:
    """The one failed response of a command that did not work."""
    return [Response([], CMQC.MQCC_FAILED, reason)]


class Refused(Exception):
    """A request refused as a whole: one failed response with this reason, naming the
    parameter refused (MQIACF_PARAMETER_ID) when ``parameter`` is given."""

    def __init__(self, reason: int, parameter: int | None = None) -> None:
        super().__init__(reason)
        self.reason = reason
        self.parameter = parameter

    def response(self) -> Response:
        """The failed response the request gets."""
        named = [] if self.parameter is None else [
            pcf.CFIN(CMQCFC.MQIACF_PARAMETER_ID, self.parameter)]
        return Response(named, CMQC.MQCC_FAILED, self.reason)


@attrs.frozen(slots=True)
class PcfRequest:
    """What a PCF command handler runs on: the MQSC processor and the requester."""

    processor: MQSCProcessor
    who: Requester = EVERYONE
    #: the MQSC commands an MQCMD_ESCAPE parsed to (what its Command event reports)
    ran: list[MQSCCommand] = attrs.field(factory=list)

    @property
    def engine(self) -> Any:
        return self.processor.engine

    def objects(self, objtypes: Iterable[str], name: str) -> list[Any]:
        """The defined objects a name (generic with a trailing ``*``) names, that the
        requester may see."""
        return self.processor.matching(objtypes, name, name.endswith("*"), self.who)

    def run(self, cmd: MQSCCommand) -> list[Response]:
        """A command the processor runs (an MQSCCommand built from the request's values,
        each checked against what the MQSC command accepts)."""
        check_values(cmd)
        result = self.processor.execute(cmd, self.who)
        if result.ok:
            return [Response()]
        return failed(result.reason or CMQCFC.MQRCCF_COMMAND_FAILED)


PcfHandler = Callable[[PcfRequest, pcf.PCFMessage], list[Response]]


def _value_error(attr: grammar.Attr, value: object) -> int:
    """The MQRCCF_* reason a value the attribute cannot hold gets (0: it can)."""
    if attr.kind == grammar.LIST and isinstance(value, (list, tuple)):
        if attr.max_items and len(value) > attr.max_items:
            return CMQCFC.MQRCCF_PARM_VALUE_ERROR
        if attr.length and any(len(str(v)) > attr.length for v in value):
            return CMQCFC.MQRCCF_CFSL_STRING_LENGTH_ERR
    elif attr.kind in (grammar.NAME, grammar.STRING) and attr.length \
            and len(str(value)) > attr.length:
        return CMQCFC.MQRCCF_CFST_STRING_LENGTH_ERR
    elif attr.kind == grammar.INT and isinstance(value, int) and str(value) not in attr.values \
            and not attr.minimum <= value <= attr.maximum:
        return CMQCFC.MQRCCF_PARM_VALUE_ERROR
    return 0


def check_values(cmd: MQSCCommand) -> None:
    """Refuse a value longer, or outside the range, than its MQSC keyword allows, as
    runmqsc would refuse the same command's text (a longer string: the structure's
    MQRCCF_*_STRING_LENGTH_ERR; a number out of range: MQRCCF_PARM_VALUE_ERROR)."""
    spec = grammar.COMMANDS.get((cmd.verb, cmd.objtype))
    if spec is None:
        return
    for keyword, value in cmd.params.items():
        attr = spec.params.get(keyword)
        if attr is not None and (reason := _value_error(attr, value)):
            raise Refused(reason)

QTYPE_TO_OBJ = {CMQC.MQQT_LOCAL: "QLOCAL", CMQC.MQQT_MODEL: "QMODEL",
                CMQC.MQQT_ALIAS: "QALIAS", CMQC.MQQT_REMOTE: "QREMOTE"}

_S, _I, _L = pcf.CFST, pcf.CFIN, pcf.CFIL
#: the structure each parameter the server reads itself must come in (a filter aside):
#: another is refused MQRCCF_<structure>_PARM_ID_ERROR, as IBM's command server refuses it
_SHAPES: dict[int, type | tuple[type, ...]] = {
    **dict.fromkeys((CMQC.MQIA_Q_TYPE, CMQCFC.MQIACH_CHANNEL_TYPE, CMQCFC.MQIACH_IN_DOUBT,
                     CMQCFC.MQIACH_DATA_COUNT, CMQCFC.MQIACF_MODE, CMQCFC.MQIACF_ACTION,
                     CMQCFC.MQIACH_MSG_SEQUENCE_NUMBER, CMQCFC.MQIACH_CHANNEL_STATUS,
                     CMQCFC.MQIACH_CHANNEL_INSTANCE_TYPE, CMQCFC.MQIACF_SECURITY_TYPE,
                     CMQCFC.MQIACF_REPLACE, CMQCFC.MQIACF_PURGE, CMQCFC.MQIACF_Q_STATUS_TYPE,
                     CMQCFC.MQIACF_ESCAPE_TYPE, CMQCFC.MQIACF_REMOVE_QUEUES,
                     CMQCFC.MQIACF_REFRESH_REPOSITORY, CMQCFC.MQIACF_IGNORE_STATE,
                     CMQCFC.MQIACF_CLUSTER_INFO, CMQCFC.MQIACF_REFRESH_TYPE,
                     CMQCFC.MQIACF_OBJECT_TYPE, CMQCFC.MQIACF_AUTH_OPTIONS), _I),
    **dict.fromkeys((CMQCFC.MQIACF_Q_ATTRS, CMQCFC.MQIACF_Q_MGR_ATTRS,
                     CMQCFC.MQIACF_Q_MGR_STATUS_ATTRS, CMQCFC.MQIACF_CHANNEL_ATTRS,
                     CMQCFC.MQIACF_LISTENER_STATUS_ATTRS, CMQCFC.MQIACF_SERVICE_ATTRS,
                     CMQCFC.MQIACF_SERVICE_STATUS_ATTRS, CMQCFC.MQIACF_CLUSTER_Q_MGR_ATTRS,
                     CMQCFC.MQIACF_Q_STATUS_ATTRS, CMQCFC.MQIACH_CHANNEL_INSTANCE_ATTRS,
                     CMQCFC.MQIACF_CONNECTION_ATTRS, CMQCFC.MQIACF_NAMELIST_ATTRS,
                     CMQCFC.MQIACF_PROCESS_ATTRS, CMQCFC.MQIACF_LISTENER_ATTRS,
                     CMQCFC.MQIACF_AUTH_INFO_ATTRS, CMQCFC.MQIACF_TOPIC_ATTRS,
                     CMQCFC.MQIACF_AUTH_PROFILE_ATTRS, CMQCFC.MQIACF_CHLAUTH_ATTRS,
                     CMQCFC.MQIACF_SUB_ATTRS, CMQCFC.MQIACF_SUB_STATUS_ATTRS,
                     CMQCFC.MQIACF_TOPIC_STATUS_ATTRS, CMQCFC.MQIACF_PUBSUB_STATUS_ATTRS), _L),
    **dict.fromkeys((CMQC.MQCA_Q_NAME, CMQCFC.MQCACH_CHANNEL_NAME, CMQC.MQCA_SERVICE_NAME,
                     CMQCFC.MQCACH_LISTENER_NAME, CMQCFC.MQCACF_ESCAPE_TEXT,
                     CMQC.MQCA_Q_MGR_NAME, CMQC.MQCA_Q_MGR_IDENTIFIER,
                     CMQCFC.MQCACH_CONNECTION_NAME, CMQCFC.MQCACH_XMIT_Q_NAME,
                     CMQC.MQCA_CLUSTER_NAME, CMQC.MQCA_CLUSTER_NAMELIST,
                     CMQC.MQCA_CLUSTER_Q_MGR_NAME, CMQCFC.MQCACF_FROM_Q_NAME,
                     CMQCFC.MQCACF_TO_Q_NAME, CMQCFC.MQCACF_FROM_CHANNEL_NAME,
                     CMQCFC.MQCACF_TO_CHANNEL_NAME, CMQCFC.MQCACF_FROM_SERVICE_NAME,
                     CMQCFC.MQCACF_TO_SERVICE_NAME, CMQC.MQCA_TOPIC_STRING), _S),
    # (an MQCFST as pymqi sends bytes, or an MQCFBS; never a number: bytes(value) of one is
    # that many NUL bytes, of an MQCFIN of 2**31 - 1 2 GB)
    **dict.fromkeys((CMQCFC.MQBACF_SUB_ID, CMQCFC.MQBACF_CONNECTION_ID,
                     CMQCFC.MQBACF_GENERIC_CONNECTION_ID), (pcf.CFBS, _S)),
}
_FILTER_TYPES = (pcf.CFIF, pcf.CFSF, pcf.CFBF)


def check_shapes(msg: pcf.PCFMessage) -> None:
    """Refuse a parameter the server reads itself in a structure it cannot be in (a list
    where one integer belongs, a string for an attribute list...)."""
    for p in msg.params:
        shape = _SHAPES.get(p.Parameter)
        if shape is not None and type(p) not in (shape if type(shape) is tuple else (shape,)) \
                and not isinstance(p, _FILTER_TYPES):
            raise Refused(pcfmap.parm_id_error(p), p.Parameter)


def name_of(value: Any) -> str:
    """A name parameter's value without its padding."""
    if isinstance(value, bytes):
        return value.decode("latin-1").rstrip(" \x00")
    return str(value or "").rstrip()


def optional_name(msg: pcf.PCFMessage, parameter: int) -> str:
    """A name parameter the request may leave out ("" then)."""
    return name_of(msg.get(parameter) or b"")


def required_name(msg: pcf.PCFMessage, parameter: int) -> str:
    """A name the command needs: MQRCCF_PARM_COUNT_TOO_SMALL if it is not there,
    MQRCCF_OBJECT_NAME_ERROR if it is blank."""
    value = msg.get(parameter)
    if value is None:
        raise Refused(CMQCFC.MQRCCF_PARM_COUNT_TOO_SMALL)
    name = name_of(value)
    if not name:
        raise Refused(CMQCFC.MQRCCF_OBJECT_NAME_ERROR)
    return name


def queue_types(msg: pcf.PCFMessage) -> tuple[str, ...]:
    """The queue types a QType parameter names (all of them by default)."""
    qtype = msg.get(CMQC.MQIA_Q_TYPE, CMQC.MQQT_ALL)
    if qtype == CMQC.MQQT_ALL:
        return QUEUE_TYPES
    if qtype not in QTYPE_TO_OBJ:
        raise Refused(CMQCFC.MQRCCF_Q_TYPE_ERROR)
    return (QTYPE_TO_OBJ[qtype],)


def asked_attrs(msg: pcf.PCFMessage, attrs_parameter: int) -> set[int] | None:
    """The attributes an inquiry's attribute list asks for; None for all."""
    asked = msg.get(attrs_parameter)
    if asked is None or CMQCFC.MQIACF_ALL in asked:
        return None
    return set(asked)
