"""The object authorities an administration command needs (IBM's command server checks).

Pure rules: one table from an MQSC command (the PCF commands run as their MQSC twins) to the
``(OAM object type, name, authorities)`` the requester must hold; the command server
(:mod:`mqpy.cmdserver`) asks the security policy about them for the MQMD UserIdentifier of
each request. [M] IBM's "Authorizations for MQSC commands in escape PCFs" and for PCF
commands; [inf] where mqpy chose:

- Every command needs ``dsp`` on the queue manager (IBM: to issue PCF commands at all).
- DISPLAY of an object needs ``dsp`` on it; a generic DISPLAY asks nothing here and shows only
  the objects the user may display (the command server filters them). DISPLAY QSTATUS,
  CHSTATUS, LSSTATUS and SVSTATUS need ``dsp`` on the queue, channel, listener or service; a
  generic one shows only the rows of the objects the user may display.
- DEFINE needs ``crt``. [inf] IBM judges crt on the queue-manager-level profile of the object
  class; mqpy's OAM keeps crt on the object type itself, judged against the name being
  defined, so ``setmqaut -t queue -n '**' +crt`` is IBM's class-wide grant and
  ``-n 'APP.**'`` limits it. DEFINE ... LIKE(x) also needs ``dsp`` on x, and a DEFINE
  without LIKE ``dsp`` on the system default object of its type, the one a definition
  starts from (:func:`default_object`: SYSTEM.DEFAULT.LOCAL.QUEUE, SYSTEM.DEF.SVRCONN ...).
  DEFINE ... REPLACE of an object that exists needs ``chg`` instead of ``crt``; of one that
  does not, what a DEFINE without REPLACE needs.
- A CLNTCONN channel is judged as OAM type ``clntconn`` (``setmqaut -t clntconn``), every
  other channel as ``channel``: DEFINE by the CHLTYPE given, ALTER / DELETE / DISPLAY by the
  CHLTYPE of the channel defined under that name.
- ALTER ``chg``, DELETE ``dlt``, CLEAR ``clr``; START / STOP / PING CHANNEL ``ctrl``, RESET /
  RESOLVE CHANNEL ``ctrlx``; START / STOP LISTENER and SERVICE ``ctrl``.
- Queue-manager commands (ALTER QMGR, REFRESH SECURITY, SUSPEND / RESUME QMGR, REFRESH /
  RESET CLUSTER, RESET QMGR, SET CHLAUTH, SET / DELETE AUTHREC) need ``chg`` on the queue
  manager; PING QMGR, DISPLAY QMGR / QMSTATUS / CONN / CHLAUTH / AUTHREC / CLUSQMGR need
  ``dsp`` on it.
- Any other command needs mqm membership (:data:`PRIVILEGED`): refusing what the table does
  not know is safer than allowing it.
"""

from __future__ import annotations

from collections.abc import Mapping

import attrs

from mqpy.security.authority import objtype_of

__all__ = ["Need", "OBJECTS", "PRIVILEGED", "command_needs", "default_object", "oam_type"]


@attrs.frozen(slots=True)
class Need:
    """``auths`` on object ``name`` of OAM type ``objtype`` (``qmgr``: the queue manager)."""

    objtype: str
    name: str
    auths: frozenset[str]


#: the answer for a command only members of mqm may issue.
PRIVILEGED = None

#: MQSC object types that have OAM profiles of their own.
OBJECTS = frozenset({"QLOCAL", "QMODEL", "QALIAS", "QREMOTE", "QUEUE", "CHANNEL", "PROCESS",
                     "NAMELIST", "LISTENER", "SERVICE", "AUTHINFO", "TOPIC", "COMMINFO"})
_ON_OBJECT = {"DISPLAY": "dsp", "DEFINE": "crt", "ALTER": "chg", "DELETE": "dlt"}
_CONTROL = {("START", "CHANNEL"): "ctrl", ("STOP", "CHANNEL"): "ctrl",
            ("PING", "CHANNEL"): "ctrl", ("RESET", "CHANNEL"): "ctrlx",
            ("RESOLVE", "CHANNEL"): "ctrlx", ("START", "LISTENER"): "ctrl",
            ("STOP", "LISTENER"): "ctrl", ("START", "SERVICE"): "ctrl",
            ("STOP", "SERVICE"): "ctrl", ("CLEAR", "QLOCAL"): "clr"}
_ON_QMGR = {("DISPLAY", "QMGR"): "dsp", ("PING", "QMGR"): "dsp", ("DISPLAY", "CONN"): "dsp",
            ("DISPLAY", "CHLAUTH"): "dsp", ("DISPLAY", "AUTHREC"): "dsp",
            ("DISPLAY", "CLUSQMGR"): "dsp", ("DISPLAY", "QCLUSTER"): "dsp",
            ("DISPLAY", "QMSTATUS"): "dsp", ("RESET", "QMGR"): "chg",
            ("ALTER", "QMGR"): "chg", ("REFRESH", "SECURITY"): "chg",
            ("SUSPEND", "QMGR"): "chg", ("RESUME", "QMGR"): "chg",
            ("REFRESH", "CLUSTER"): "chg", ("RESET", "CLUSTER"): "chg",
            ("SET", "CHLAUTH"): "chg", ("SET", "AUTHREC"): "chg", ("DELETE", "AUTHREC"): "chg",
            ("STOP", "CONN"): "chg"}
_STATUS = {"QSTATUS": "queue", "CHSTATUS": "channel", "LSSTATUS": "listener",
           "SVSTATUS": "service"}


_DEFAULT_OBJECTS = {"QLOCAL": "SYSTEM.DEFAULT.LOCAL.QUEUE",
                    "QMODEL": "SYSTEM.DEFAULT.MODEL.QUEUE",
                    "QALIAS": "SYSTEM.DEFAULT.ALIAS.QUEUE",
                    "QREMOTE": "SYSTEM.DEFAULT.REMOTE.QUEUE",
                    "PROCESS": "SYSTEM.DEFAULT.PROCESS", "NAMELIST": "SYSTEM.DEFAULT.NAMELIST",
                    "SERVICE": "SYSTEM.DEFAULT.SERVICE", "TOPIC": "SYSTEM.DEFAULT.TOPIC",
                    "COMMINFO": "SYSTEM.DEFAULT.COMMINFO.MULTICAST"}
_DEFAULT_CHANNELS = {"SDR": "SYSTEM.DEF.SENDER", "SVR": "SYSTEM.DEF.SERVER",
                     "RCVR": "SYSTEM.DEF.RECEIVER", "RQSTR": "SYSTEM.DEF.REQUESTER",
                     "SVRCONN": "SYSTEM.DEF.SVRCONN", "CLNTCONN": "SYSTEM.DEF.CLNTCONN",
                     "CLUSSDR": "SYSTEM.DEF.CLUSSDR", "CLUSRCVR": "SYSTEM.DEF.CLUSRCVR",
                     "AMQP": "SYSTEM.DEF.AMQP"}


def default_object(objtype: str, params: Mapping[str, object]) -> str | None:
    """IBM's system default object a DEFINE of ``objtype`` without LIKE starts from: by
    CHLTYPE for a channel, TRPTYPE for a listener (TCP if not given), AUTHTYPE for an
    authentication information object; None for a type that has none."""
    obj = objtype.upper()
    if obj == "CHANNEL":
        return _DEFAULT_CHANNELS.get(str(params.get("CHLTYPE") or "").upper())
    if obj == "LISTENER":
        return f"SYSTEM.DEFAULT.LISTENER.{str(params.get('TRPTYPE') or 'TCP').upper()}"
    if obj == "AUTHINFO":
        kind = str(params.get("AUTHTYPE") or "").upper()
        return f"SYSTEM.DEFAULT.AUTHINFO.{kind}" if kind else None
    return _DEFAULT_OBJECTS.get(obj)


def oam_type(objtype: str, chltype: object = None) -> str:
    """The OAM object type of an MQSC object type; a CLNTCONN channel is type clntconn."""
    if objtype.upper() == "CHANNEL" and str(chltype or "").upper() == "CLNTCONN":
        return "clntconn"
    return objtype_of(objtype)


def command_needs(verb: str, objtype: str | None, name: str | None,
                  params: Mapping[str, object], flags: frozenset[str], *, generic: bool,
                  qmgr: str, chltype: str | None = None, exists: bool = False
                  ) -> list[Need] | None:
    """What the requester must hold to run this command (module docstring); None: mqm only.

    ``chltype``: the CHLTYPE of the channel defined under ``name``, if one is. A channel
    command is judged as type clntconn for a CLNTCONN channel: DEFINE by the CHLTYPE it
    gives, any other command by the defined channel's (the command's own CHLTYPE only
    when none is defined). ``exists``: an object of that name is defined (a DEFINE
    REPLACE of it needs chg, not crt). The queue manager's ``dsp`` (needed by every
    command) is the first need."""
    base = [Need("qmgr", qmgr, frozenset({"dsp"}))]
    verb, obj, name = verb.upper(), (objtype or "").upper(), name or ""
    if verb == "DEFINE" or not chltype:
        chltype = str(params.get("CHLTYPE") or "")
    if verb in ("END", "EXIT", "QUIT"):
        return []
    if (verb, obj) in _ON_QMGR:
        return base + [Need("qmgr", qmgr, frozenset({_ON_QMGR[verb, obj]}))]
    if (verb, obj) in _CONTROL:
        return base + [Need(oam_type(obj, chltype), name, frozenset({_CONTROL[verb, obj]}))]
    if verb == "DISPLAY" and obj in _STATUS:
        if generic:
            return base  # only the rows the user may display are shown
        return base + [Need(_STATUS[obj], name, frozenset({"dsp"}))]
    if obj not in OBJECTS or verb not in _ON_OBJECT:
        return PRIVILEGED
    if verb == "DISPLAY" and generic:
        return base  # only the objects the user may display are shown
    auth = _ON_OBJECT[verb]
    if verb == "DEFINE" and "REPLACE" in flags and exists:
        auth = "chg"  # replacing an object changes it; a new one is created (crt)
    needs = base + [Need(oam_type(obj, chltype), name, frozenset({auth}))]
    if verb == "DEFINE":
        source = params.get("LIKE") or default_object(obj, params)
        if source:
            needs.append(Need(oam_type(obj, chltype), str(source), frozenset({"dsp"})))
    return needs
