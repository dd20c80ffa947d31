"""Create, Change, Copy, Delete and Inquire for the object types whose PCF commands all take
the same shape: Namelist, Process, Listener, Authentication Information and Service (and
Inquire Namelist / Process / Authentication Information Names). Each family names its parameters
(:class:`Family`); a change is the processor's command (an MQSCCommand built from the
request's values), an inquiry answered from the processor's stored views."""

from __future__ import annotations

from functools import partial

import attrs

from mqpy import CMQC, CMQCFC, CMQXC, pcf
from mqpy.command.changes import attributes, flags, target
from mqpy.command.requests import (
    PcfHandler,
    PcfRequest,
    Refused,
    Response,
    asked_attrs,
    required_name,
)
from mqpy.mqsc import pcfattrs, pcfmap
from mqpy.mqsc.parser import MQSCCommand

__all__ = ["OBJECTS"]


@attrs.frozen(slots=True)
class Family:
    """One object type's PCF parameters: its name, a copy's from and to names, the
    inquiry's attribute list, a type that selects among its objects, and its attributes
    (the name first)."""

    objtype: str
    name: int
    copy_from: int
    copy_to: int
    attrs_list: int
    table: tuple[pcfmap.PcfAttr, ...]
    selector: int = 0  #: an integer parameter an inquiry may select objects by (0: none)
    select_all: int = 0  #: the selector's value meaning every object
    read_only: frozenset[str] = frozenset({"ALTDATE", "ALTTIME"})
    names: int = 0  #: the MQCACF_*_NAMES list Inquire ... Names answers (0: no such command)

    @property
    def control(self) -> frozenset[int]:
        """The parameters that name or steer the command rather than set an attribute."""
        return frozenset({self.name, self.copy_from, self.copy_to, CMQCFC.MQIACF_REPLACE})


NAMELIST = Family("NAMELIST", CMQC.MQCA_NAMELIST_NAME, CMQCFC.MQCACF_FROM_NAMELIST_NAME,
                  CMQCFC.MQCACF_TO_NAMELIST_NAME, CMQCFC.MQIACF_NAMELIST_ATTRS,
                  pcfmap.NAMELIST, read_only=frozenset({"ALTDATE", "ALTTIME", "NAMCOUNT"}),
                  names=CMQCFC.MQCACF_NAMELIST_NAMES)
PROCESS = Family("PROCESS", CMQC.MQCA_PROCESS_NAME, CMQCFC.MQCACF_FROM_PROCESS_NAME,
                 CMQCFC.MQCACF_TO_PROCESS_NAME, CMQCFC.MQIACF_PROCESS_ATTRS, pcfmap.PROCESS,
                 names=CMQCFC.MQCACF_PROCESS_NAMES)
LISTENER = Family("LISTENER", CMQCFC.MQCACH_LISTENER_NAME, CMQCFC.MQCACF_FROM_LISTENER_NAME,
                  CMQCFC.MQCACF_TO_LISTENER_NAME, CMQCFC.MQIACF_LISTENER_ATTRS,
                  pcfmap.LISTENER, selector=CMQCFC.MQIACH_XMIT_PROTOCOL_TYPE,
                  select_all=CMQXC.MQXPT_ALL)
AUTHINFO = Family("AUTHINFO", CMQC.MQCA_AUTH_INFO_NAME, CMQCFC.MQCACF_FROM_AUTH_INFO_NAME,
                  CMQCFC.MQCACF_TO_AUTH_INFO_NAME, CMQCFC.MQIACF_AUTH_INFO_ATTRS,
                  pcfmap.AUTHINFO, selector=CMQC.MQIA_AUTH_INFO_TYPE,
                  select_all=CMQC.MQAIT_ALL, names=CMQCFC.MQCACF_AUTH_INFO_NAMES)

SERVICE = Family("SERVICE", CMQC.MQCA_SERVICE_NAME, CMQCFC.MQCACF_FROM_SERVICE_NAME,
                 CMQCFC.MQCACF_TO_SERVICE_NAME, CMQCFC.MQIACF_SERVICE_ATTRS, pcfmap.SERVICE)
TOPIC = Family("TOPIC", CMQC.MQCA_TOPIC_NAME, CMQCFC.MQCACF_FROM_TOPIC_NAME,
               CMQCFC.MQCACF_TO_TOPIC_NAME, CMQCFC.MQIACF_TOPIC_ATTRS, pcfmap.TOPIC,
               names=CMQCFC.MQCACF_TOPIC_NAMES)


def change_object(req: PcfRequest, msg: pcf.PCFMessage, family: Family, verb: str
                  ) -> list[Response]:
    """Create (DEFINE), Change (ALTER), Copy (DEFINE LIKE) or Delete an object."""
    verb, name, params = target(msg, verb, family.name, family.copy_from, family.copy_to)
    if verb != "DELETE":
        params.update(attributes(msg, pcfmap.by_parameter(family.table), family.control,
                                 family.read_only))
    return req.run(MQSCCommand(verb, family.objtype, name, params, flags(msg)))


def _selected(req: PcfRequest, msg: pcf.PCFMessage, family: Family) -> list:
    """The objects a request's name (generic or not) and type selector name."""
    objs = req.objects((family.objtype,), required_name(msg, family.name))
    if family.selector:
        wanted_type = msg.get(family.selector, family.select_all)
        if wanted_type != family.select_all:
            try:
                word = family.table[1].from_pcf(wanted_type)
            except ValueError:
                raise Refused(CMQCFC.MQRCCF_PARM_VALUE_ERROR) from None
            objs = [o for o in objs if o.attributes.get(family.table[1].keyword) == word]
    return objs


def inquire_object(req: PcfRequest, msg: pcf.PCFMessage, family: Family) -> list[Response]:
    """One response per object selected: its name always (and the type it is selected by),
    the rest as the attribute list asks (default all)."""
    objs = _selected(req, msg, family)
    if not objs:
        return [Response([], CMQC.MQCC_FAILED, CMQC.MQRC_UNKNOWN_OBJECT_NAME)]
    wanted = asked_attrs(msg, family.attrs_list)
    if wanted is not None and family.selector:
        wanted |= {family.table[1].parameter}
    return [Response(pcfattrs.family_params(req.processor, obj, family.table, wanted))
            for obj in objs]


def inquire_names(req: PcfRequest, msg: pcf.PCFMessage, family: Family) -> list[Response]:
    """Inquire ... Names: one response listing the names selected (an empty list if none)."""
    length = family.table[0].length
    return [Response([pcf.CFSL(family.names, [o.name.ljust(length).encode("latin-1")
                                              for o in _selected(req, msg, family)])])]


def _handlers(family: Family, create: int, change: int, copy: int, delete: int,
              inquire: int, inquire_names_of: int = 0) -> dict[int, PcfHandler]:
    handlers: dict[int, PcfHandler] = {
        create: partial(change_object, family=family, verb="DEFINE"),
        change: partial(change_object, family=family, verb="ALTER"),
        copy: partial(change_object, family=family, verb="COPY"),
        delete: partial(change_object, family=family, verb="DELETE"),
        inquire: partial(inquire_object, family=family)}
    if inquire_names_of:
        handlers[inquire_names_of] = partial(inquire_names, family=family)
    return handlers


#: command -> handler
OBJECTS: dict[int, PcfHandler] = {
    **_handlers(NAMELIST, CMQCFC.MQCMD_CREATE_NAMELIST, CMQCFC.MQCMD_CHANGE_NAMELIST,
                CMQCFC.MQCMD_COPY_NAMELIST, CMQCFC.MQCMD_DELETE_NAMELIST,
                CMQCFC.MQCMD_INQUIRE_NAMELIST, CMQCFC.MQCMD_INQUIRE_NAMELIST_NAMES),
    **_handlers(PROCESS, CMQCFC.MQCMD_CREATE_PROCESS, CMQCFC.MQCMD_CHANGE_PROCESS,
                CMQCFC.MQCMD_COPY_PROCESS, CMQCFC.MQCMD_DELETE_PROCESS,
                CMQCFC.MQCMD_INQUIRE_PROCESS, CMQCFC.MQCMD_INQUIRE_PROCESS_NAMES),
    **_handlers(LISTENER, CMQCFC.MQCMD_CREATE_LISTENER, CMQCFC.MQCMD_CHANGE_LISTENER,
                CMQCFC.MQCMD_COPY_LISTENER, CMQCFC.MQCMD_DELETE_LISTENER,
                CMQCFC.MQCMD_INQUIRE_LISTENER),
    **_handlers(AUTHINFO, CMQCFC.MQCMD_CREATE_AUTH_INFO, CMQCFC.MQCMD_CHANGE_AUTH_INFO,
                CMQCFC.MQCMD_COPY_AUTH_INFO, CMQCFC.MQCMD_DELETE_AUTH_INFO,
                CMQCFC.MQCMD_INQUIRE_AUTH_INFO, CMQCFC.MQCMD_INQUIRE_AUTH_INFO_NAMES),
    **_handlers(SERVICE, CMQCFC.MQCMD_CREATE_SERVICE, CMQCFC.MQCMD_CHANGE_SERVICE,
                CMQCFC.MQCMD_COPY_SERVICE, CMQCFC.MQCMD_DELETE_SERVICE,
                CMQCFC.MQCMD_INQUIRE_SERVICE),
    **_handlers(TOPIC, CMQCFC.MQCMD_CREATE_TOPIC, CMQCFC.MQCMD_CHANGE_TOPIC,
                CMQCFC.MQCMD_COPY_TOPIC, CMQCFC.MQCMD_DELETE_TOPIC,
                CMQCFC.MQCMD_INQUIRE_TOPIC, CMQCFC.MQCMD_INQUIRE_TOPIC_NAMES),
}
