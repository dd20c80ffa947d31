"""The authorities a command-server request needs, checked for the user it carries (its
MQMD UserIdentifier): :class:`RequestAuthority` is made for one request and gives the
processor its :class:`~mqpy.mqsc.results.Requester` (the guard every command passes, the
filter of what a generic inquiry shows). A refusal is logged as AMQ8077W."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import attrs

from mqpy import CMQC, CMQCFC, pcf
from mqpy.command.requests import Refused, optional_name
from mqpy.mqsc import adminevents
from mqpy.mqsc.messages import message
from mqpy.mqsc.parser import MQSCCommand
from mqpy.mqsc.results import CommandFailed, Requester
from mqpy.security.commands import OBJECTS, Need, command_needs, oam_type

__all__ = ["RequestAuthority", "authority_for"]

# PCF inquiries answered without the MQSC processor -> (MQSC verb, object type, name parameter)
_PCF_INQUIRIES: dict[int, tuple[str, str, int]] = {
    CMQCFC.MQCMD_PING_Q_MGR: ("PING", "QMGR", 0),
    CMQCFC.MQCMD_INQUIRE_Q_MGR: ("DISPLAY", "QMGR", 0),
    CMQCFC.MQCMD_INQUIRE_Q: ("DISPLAY", "QUEUE", CMQC.MQCA_Q_NAME),
    CMQCFC.MQCMD_INQUIRE_Q_NAMES: ("DISPLAY", "QUEUE", CMQC.MQCA_Q_NAME),
    CMQCFC.MQCMD_INQUIRE_Q_STATUS: ("DISPLAY", "QSTATUS", CMQC.MQCA_Q_NAME),
    CMQCFC.MQCMD_INQUIRE_CHANNEL: ("DISPLAY", "CHANNEL", CMQCFC.MQCACH_CHANNEL_NAME),
    CMQCFC.MQCMD_INQUIRE_CHANNEL_NAMES: ("DISPLAY", "CHANNEL", CMQCFC.MQCACH_CHANNEL_NAME),
    CMQCFC.MQCMD_INQUIRE_CHANNEL_STATUS: ("DISPLAY", "CHSTATUS", CMQCFC.MQCACH_CHANNEL_NAME),
    CMQCFC.MQCMD_INQUIRE_LISTENER_STATUS: ("DISPLAY", "LSSTATUS", CMQCFC.MQCACH_LISTENER_NAME),
    CMQCFC.MQCMD_INQUIRE_SERVICE: ("DISPLAY", "SERVICE", CMQC.MQCA_SERVICE_NAME),
    CMQCFC.MQCMD_INQUIRE_SERVICE_STATUS: ("DISPLAY", "SVSTATUS", CMQC.MQCA_SERVICE_NAME),
    CMQCFC.MQCMD_INQUIRE_NAMELIST: ("DISPLAY", "NAMELIST", CMQC.MQCA_NAMELIST_NAME),
    CMQCFC.MQCMD_INQUIRE_AUTH_INFO: ("DISPLAY", "AUTHINFO", CMQC.MQCA_AUTH_INFO_NAME),
    CMQCFC.MQCMD_INQUIRE_AUTH_INFO_NAMES: ("DISPLAY", "AUTHINFO", CMQC.MQCA_AUTH_INFO_NAME),
    CMQCFC.MQCMD_INQUIRE_NAMELIST_NAMES: ("DISPLAY", "NAMELIST", CMQC.MQCA_NAMELIST_NAME),
    CMQCFC.MQCMD_INQUIRE_PROCESS: ("DISPLAY", "PROCESS", CMQC.MQCA_PROCESS_NAME),
    CMQCFC.MQCMD_INQUIRE_PROCESS_NAMES: ("DISPLAY", "PROCESS", CMQC.MQCA_PROCESS_NAME),
    CMQCFC.MQCMD_INQUIRE_LISTENER: ("DISPLAY", "LISTENER", CMQCFC.MQCACH_LISTENER_NAME),
    CMQCFC.MQCMD_INQUIRE_AUTH_RECS: ("DISPLAY", "AUTHREC", 0),
    CMQCFC.MQCMD_INQUIRE_CHLAUTH_RECS: ("DISPLAY", "CHLAUTH", 0),
    CMQCFC.MQCMD_INQUIRE_CONNECTION: ("DISPLAY", "CONN", 0),
    CMQCFC.MQCMD_INQUIRE_ENTITY_AUTH: ("DISPLAY", "AUTHREC", 0),
}


def _chltype_of(obj: Any) -> str | None:
    """A defined channel's CHLTYPE (None: no object, or not a channel)."""
    if obj is None or obj.objtype != "CHANNEL":
        return None
    return str(obj.attributes.get("CHLTYPE") or "")


@attrs.frozen(slots=True)
class RequestAuthority:
    """One request's user under the installed security policy (not a member of mqm)."""

    engine: Any
    policy: Any
    user: str
    command: int = 0  #: the request's MQCMD_* (what a Not Authorized type 4 event names)

    def requester(self) -> Requester:
        """What the processor runs this request's commands for."""
        return Requester(guard=self.guard, visible=self.visible)

    def _missing(self, needs: list[Need] | None) -> tuple[str, list[str]] | None:
        """The first need the user lacks (object name, authorities); None if all held."""
        if needs is None:
            return self.engine.name, ["mqm"]
        for need in needs:
            if not self.policy.admin_holds(self.user, need.objtype, need.name, need.auths):
                return need.name, sorted(need.auths)
        return None

    def _check(self, needs: list[Need] | None) -> bool:
        """True if the request may proceed; else AMQ8077W is logged and, while AUTHOREV is
        ENABLED, a Not Authorized (type 4) event put."""
        missing = self._missing(needs)
        if missing is None:
            return True
        self.policy.admin_refused(self.user, *missing)
        adminevents.command_refused(self.engine, self.command, self.user)
        return False

    def _defined(self, objtype: str | None, name: str | None, generic: bool) -> Any:
        """The object a command names, if defined (in its type's namespace); None for a
        generic name or a command on no object."""
        if (objtype or "").upper() not in OBJECTS or not name or generic:
            return None
        return self.engine.lookup(str(objtype).upper(), name)

    def guard(self, cmd: MQSCCommand) -> None:
        """The processor's guard: every command (escape or PCF) passes here."""
        defined = self._defined(cmd.objtype, cmd.name, cmd.generic)
        needs = command_needs(cmd.verb, cmd.objtype, cmd.name, cmd.params, cmd.flags,
                              generic=cmd.generic, qmgr=self.engine.name,
                              chltype=_chltype_of(defined), exists=defined is not None)
        if not self._check(needs):
            raise CommandFailed([message("AMQ8135E")], CMQC.MQRC_NOT_AUTHORIZED)

    def visible(self, objtype: str, name: str, attributes: Mapping[str, object]) -> bool:
        """A generic inquiry shows an object, or a channel's or listener's status row, only
        to a user with dsp on that object (a CLNTCONN channel: dsp as type clntconn)."""
        try:
            otype = oam_type(objtype, attributes.get("CHLTYPE"))
        except ValueError:
            return False
        return bool(self.policy.admin_holds(self.user, otype, name, {"dsp"}))

    def check_inquiry(self, msg: pcf.PCFMessage) -> None:
        """The PCF inquiries answered from the processor's views, checked as the DISPLAY
        they answer like: MQRC_NOT_AUTHORIZED when refused."""
        twin = _PCF_INQUIRIES.get(msg.header.Command)
        if twin is None:
            return
        verb, objtype, parameter = twin
        name = optional_name(msg, parameter) if parameter else ""
        if parameter and not name:
            return  # the handler answers the missing name
        generic = name.endswith("*")
        needs = command_needs(verb, objtype, name, {}, frozenset(), generic=generic,
                              qmgr=self.engine.name,
                              chltype=_chltype_of(self._defined(objtype, name, generic)))
        if not self._check(needs):
            raise Refused(CMQC.MQRC_NOT_AUTHORIZED)


def authority_for(engine: Any, user: str, command: int = 0) -> RequestAuthority | None:
    """The authority checks of a request from ``user`` (its MQCMD_* ``command``); None when
    nothing is checked (no security policy installed, or a privileged user: mqm)."""
    policy = getattr(engine, "authority", None)
    if not hasattr(policy, "admin_privileged") or policy.admin_privileged(user):
        return None
    return RequestAuthority(engine, policy, user, command)

