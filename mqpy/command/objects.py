"""Create, Change, Copy, Delete and Inquire for the object types whose PCF commands all take
the same shape: Namelist, Authentication Information and Service. Each family names its parameters
(:class:`Family`); a change is the processor's command (an MQSCCommand built from the
request's values), an inquiry answered from the processor's stored views."""

from __future__ import annotations

from functools import partial

import attrs

from mqpy import CMQC, CMQCFC, pcf
from mqpy.command.changes import attributes, flags
from mqpy.command.requests import (
    PcfHandler,
    PcfRequest,
    Refused,
    Response,
    asked_attrs,
    attr_params,
    param,
    required_name,
)
from mqpy.mqsc import pcfmap
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

    @property
    def control(self) -> frozenset[int]:
        """The parameters that name or steer the command rather than set an attribute."""
        return frozenset({self.name, self.copy_from, self.copy_to, CMQCFC.MQIACF_REPLACE})


NAMELIST = Family("NAMELIST", CMQC.MQCA_NAMELIST_NAME, CMQCFC.MQCACF_FROM_NAMELIST_NAME,
                  CMQCFC.MQCACF_TO_NAMELIST_NAME, CMQCFC.MQIACF_NAMELIST_ATTRS,
                  pcfmap.NAMELIST,
                  read_only=frozenset({"ALTDATE", "ALTTIME", "NAMCOUNT"}))
AUTHINFO = Family("AUTHINFO", CMQC.MQCA_AUTH_INFO_NAME, CMQCFC.MQCACF_FROM_AUTH_INFO_NAME,
                  CMQCFC.MQCACF_TO_AUTH_INFO_NAME, CMQCFC.MQIACF_AUTH_INFO_ATTRS,
                  pcfmap.AUTHINFO, selector=CMQC.MQIA_AUTH_INFO_TYPE,
                  select_all=CMQC.MQAIT_ALL)

SERVICE = Family("SERVICE", CMQC.MQCA_SERVICE_NAME, CMQCFC.MQCACF_FROM_SERVICE_NAME,
                 CMQCFC.MQCACF_TO_SERVICE_NAME, CMQCFC.MQIACF_SERVICE_ATTRS, pcfmap.SERVICE)


def change_object(req: PcfRequest, msg: pcf.PCFMessage, family: Family, verb: str
                  ) -> list[Response]:
    """Create (DEFINE), Change (ALTER), Copy (DEFINE LIKE) or Delete an object."""
    params: dict[str, object] = {}
    if verb == "COPY":
        params["LIKE"] = required_name(msg, family.copy_from)
        name = required_name(msg, family.copy_to)
        verb = "DEFINE"
    else:
        name = required_name(msg, family.name)
    if verb != "DELETE":
        params.update(attributes(msg, pcfmap.by_parameter(family.table), family.control,
                                 family.read_only))
    return req.run(MQSCCommand(verb, family.objtype, name, params, flags(msg)))


def inquire_object(req: PcfRequest, msg: pcf.PCFMessage, family: Family) -> list[Response]:
    """One response per object the name (generic or not) selects: its name always, the
    rest as the attribute list asks (default all)."""
    name = required_name(msg, family.name)
    objs = req.objects((family.objtype,), name)
    if family.selector:
        wanted_type = msg.get(family.selector, family.select_all)
        if wanted_type != family.select_all:
            try:
                word = family.table[1].from_pcf(wanted_type)
            except ValueError:
                raise Refused(CMQCFC.MQRCCF_PARM_VALUE_ERROR) from None
            objs = [o for o in objs if o.attributes.get(family.table[1].keyword) == word]
    if not objs:
        return [Response([], CMQC.MQCC_FAILED, CMQC.MQRC_UNKNOWN_OBJECT_NAME)]
    wanted = asked_attrs(msg, family.attrs_list)
    out = []
    for obj in objs:
        view = req.processor.stored_view(obj)
        if family.selector:  # the type is answered always, as the name is
            wanted = None if wanted is None else wanted | {family.table[1].parameter}
        out.append(Response([param(family.table[0], obj.name),  # type: ignore[list-item]
                             *attr_params(view, family.table[1:], wanted)]))
    return out


def _handlers(family: Family, create: int, change: int, copy: int, delete: int,
              inquire: int) -> dict[int, PcfHandler]:
    return {create: partial(change_object, family=family, verb="DEFINE"),
            change: partial(change_object, family=family, verb="ALTER"),
            copy: partial(change_object, family=family, verb="COPY"),
            delete: partial(change_object, family=family, verb="DELETE"),
            inquire: partial(inquire_object, family=family)}


#: command -> handler
OBJECTS: dict[int, PcfHandler] = {
    **_handlers(NAMELIST, CMQCFC.MQCMD_CREATE_NAMELIST, CMQCFC.MQCMD_CHANGE_NAMELIST,
                CMQCFC.MQCMD_COPY_NAMELIST, CMQCFC.MQCMD_DELETE_NAMELIST,
                CMQCFC.MQCMD_INQUIRE_NAMELIST),
    **_handlers(AUTHINFO, CMQCFC.MQCMD_CREATE_AUTH_INFO, CMQCFC.MQCMD_CHANGE_AUTH_INFO,
                CMQCFC.MQCMD_COPY_AUTH_INFO, CMQCFC.MQCMD_DELETE_AUTH_INFO,
                CMQCFC.MQCMD_INQUIRE_AUTH_INFO),
    **_handlers(SERVICE, CMQCFC.MQCMD_CREATE_SERVICE, CMQCFC.MQCMD_CHANGE_SERVICE,
                CMQCFC.MQCMD_COPY_SERVICE, CMQCFC.MQCMD_DELETE_SERVICE,
                CMQCFC.MQCMD_INQUIRE_SERVICE),
}
