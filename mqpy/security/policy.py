"""The queue manager's security policy: connection authentication, CHLAUTH, object authority.

:class:`SecurityPolicy` is the engine's ``authority`` (``mqpy.engine.authority.Authority``):

- **MQCONN** (:meth:`SecurityPolicy.check_connect`): CONNAUTH first, then ``connect``
  authority on the queue manager. QMGR ``CONNAUTH`` names an AUTHINFO object of
  AUTHTYPE(IDPWOS); its CHCKLOCL applies to bindings connections (``channel`` None) and its
  CHCKCLNT to client connections: NONE (a password is not looked at), OPTIONAL (a password,
  when given, must be right), REQUIRED (a right password is needed), REQDADM (needed from
  privileged users, optional for others). A connection with no password is an asserted
  identity (the operating-system user of a bindings application, the user a SVRCONN MCA
  decided on). A failed check writes AMQ5534E to the queue manager's error log and is
  refused with MQRC_NOT_AUTHORIZED (2035); so is a CONNAUTH naming no AUTHINFO object.
- **MQOPEN** (:meth:`SecurityPolicy.check_open`): the authorities the open options need
  (:func:`mqpy.security.authority.open_requirements`) on the object named and on the queue
  manager (altusr, setid, setall), else AMQ8077W in the error log and 2035. They are judged
  for the connection's user: for a client conversation the final user its SVRCONN decided
  on (MCAUSER, a CHLAUTH map, an adopted MQCSP user), never the channel initiator.
- **Channels**: :func:`check_channel` evaluates the channel authentication records
  (:mod:`mqpy.security.chlauth`) when QMGR CHLAUTH is ENABLED.

Users and groups are in ``<qmgr dir>/mqusers`` (:mod:`mqpy.security.users`); members of
group ``mqm`` (the owner, the user who first installed security, is one) hold every
authority. Authority records and CHLAUTH records are engine objects of types ``AUTHREC``
and ``CHLAUTH`` (logged and recovered like any definition), named by a hash of their key so
that names stay within 48 characters; the real fields are their attributes.

:func:`ensure_defaults` does crtmqm's share once per queue manager: IBM's three default
CHLAUTH records, AUTHINFO ``SYSTEM.DEFAULT.AUTHINFO.IDPWOS`` (CHCKLOCL(OPTIONAL)
CHCKCLNT(REQDADM)) and QMGR CONNAUTH naming it, then a marker so that records an
administrator removes stay removed.
"""

from __future__ import annotations

import getpass
import os
import time
from collections.abc import Iterable, Mapping

import attrs

from mqpy import CMQC, CMQCFC, amqmsgs
from mqpy.errorlog import ErrorLog
from mqpy.errors import MQMIError
from mqpy.security import authority as oam
from mqpy.security import chlauth
from mqpy.security.users import (
    ADMIN_GROUP,
    MAX_USER_LENGTH,
    UserFile,
    mq_user_id,
    users_path,
)

__all__ = [
    "DEFAULT_AUTHINFO",
    "SecurityPolicy",
    "authority_records",
    "channel_decision",
    "check_channel",
    "is_privileged",
    "owner",
    "chlauth_records",
    "delete_authrec",
    "display_chlauth",
    "effective_authority",
    "ensure_defaults",
    "flowed_user_refusal",
    "install",
    "remove_authority",
    "set_authority",
    "set_authrec",
    "set_chlauth",
    "user_authority",
]

DEFAULT_AUTHINFO = "SYSTEM.DEFAULT.AUTHINFO.IDPWOS"
AUTHINFO_DEFAULTS: dict[str, object] = {"AUTHTYPE": "IDPWOS", "CHCKLOCL": "OPTIONAL",
                                        "CHCKCLNT": "REQDADM", "ADOPTCTX": "YES",
                                        "FAILDLAY": 1, "DESCR": ""}
_MARKER = ("SECURITY", "SECINIT")
AMQ8077W = "AMQ8077W"  # Entity '...' has insufficient authority to access object '...'.
# [C] ids and lines (IBM technote "How to remove an IBM MQ channel authentication record",
# runmqsc output); [C] letters (MQ 9.1 runmqsc transcripts print AMQ8877I; tools that parse
# runmqsc output match AMQ8878I)
AMQ8877I = "AMQ8877I: IBM MQ channel authentication record set."
AMQ8878I = "AMQ8878I: Display channel authentication record details."


def _refuse() -> MQMIError:
    return MQMIError(CMQC.MQCC_FAILED, CMQC.MQRC_NOT_AUTHORIZED)


def _stamp() -> tuple[str, str]:
    return time.strftime("%Y-%m-%d"), time.strftime("%H.%M.%S")


def _owner() -> str:
    try:
        return getpass.getuser()
    except Exception:  # noqa: BLE001 - no user name in this environment (as the engine does)
        return "mqpy"


# ------------------------------------------------------------------ stored records


def chlauth_records(eng) -> list[chlauth.ChlauthRecord]:  # noqa: ANN001 - the engine
    with eng.lock:
        return [chlauth.ChlauthRecord.from_attributes(o.attributes)
                for o in eng.catalog.by_type("CHLAUTH")]


def set_chlauth(eng, profile: str, params: Mapping[str, object]) -> str:  # noqa: ANN001
    """SET CHLAUTH(profile) with the parsed MQSC ``params``; IBM's confirmation line.

    Raises MQMIError with an MQRCCF_* reason for a refused command.
    """
    with eng.lock:
        date, tod = _stamp()
        put, gone = chlauth.apply_set(chlauth_records(eng), profile, params, date=date,
                                      time=tod)
        for r in gone:
            eng.delete("CHLAUTH", r.object_name)
        for r in put:
            eng.define("CHLAUTH", r.object_name, r.attributes(), replace=True)
    return AMQ8877I


def display_chlauth(eng, profile: str, params: Mapping[str, object] | None = None  # noqa: ANN001
                    ) -> list[dict[str, object]] | str:
    """DISPLAY CHLAUTH: the records' attributes, or for MATCH(RUNCHECK) the AMQ9783I line."""
    params = params or {}
    match = str(params.get("MATCH", "GENERIC"))
    if match == "RUNCHECK":
        return chlauth.runcheck_line(runcheck(eng, profile, params))
    found = chlauth.display(chlauth_records(eng), profile, type=str(params.get("TYPE", "ALL")),
                            match=match)
    return [r.attributes() for r in found]


#: the values a run check matches with (MQSC keyword), none of which may be generic
RUNCHECK_VALUES = ("ADDRESS", "CLNTUSER", "QMNAME", "SSLPEER", "SSLCERTI")


def runcheck(eng, profile: str, params: Mapping[str, object]) -> chlauth.Decision:  # noqa: ANN001
    """DISPLAY CHLAUTH MATCH(RUNCHECK): the decision an inbound channel ``profile`` from
    ADDRESS, with CLNTUSER or QMNAME (and SSLPEER / SSLCERTI), would get. A generic value
    is MQRCCF_CHLAUTH_RUNCHECK_ERROR."""
    values = {k: str(params[k]) for k in RUNCHECK_VALUES if params.get(k) is not None}
    if "*" in profile or any("*" in v for v in values.values()):
        raise MQMIError(CMQC.MQCC_FAILED, CMQCFC.MQRCCF_CHLAUTH_RUNCHECK_ERROR)
    return check_channel(eng, profile, values.get("ADDRESS", ""),
                         client_user=values.get("CLNTUSER"), remote_qmgr=values.get("QMNAME"),
                         ssl_peer=values.get("SSLPEER"), ssl_issuer=values.get("SSLCERTI"))


#: How many times authority records have changed in this process (setmqaut, SET / DELETE
#: AUTHREC: every writer of AUTHREC objects is below, and a running queue manager's are
#: made in its own process, through its command server). A policy's cached decisions are
#: good while it is the same, so a change applies to the very next check.
_authrec_changes = 0


def _authrecs_changed() -> None:
    global _authrec_changes
    _authrec_changes += 1


def authority_records(eng) -> list[oam.AuthRecord]:  # noqa: ANN001
    with eng.lock:
        return [oam.AuthRecord.from_attributes(o.attributes)
                for o in eng.catalog.by_type("AUTHREC")]


def _entity(principal: str | None, group: str | None) -> tuple[str, str]:
    if bool(principal) == bool(group):
        raise MQMIError(CMQC.MQCC_FAILED, CMQCFC.MQRCCF_ENTITY_NAME_MISSING)
    return ("principal", principal) if principal else ("group", group)  # type: ignore[return-value]


def set_authority(eng, objtype: str, profile: str, specs: Iterable[str], *,  # noqa: ANN001
                  principal: str | None = None, group: str | None = None
                  ) -> oam.AuthRecord | None:
    """setmqaut: apply ``+put -browse ...`` to the entity's record for ``profile``.

    A record left with no authority is deleted (IBM keeps an empty profile; mqpy does not).
    Raises :class:`mqpy.security.authority.AuthSpecError` for bad specifications.
    """
    otype = oam.objtype_of(objtype)
    etype, entity = _entity(principal, group)
    with eng.lock:
        key = oam.AuthRecord(etype, entity, otype, profile)
        old = eng.lookup("AUTHREC", key.object_name)
        current = oam.AuthRecord.from_attributes(old.attributes).auths if old else frozenset()
        auths = oam.parse_specs(otype, list(specs), current)
        rec = oam.AuthRecord(etype, entity, otype, profile, auths)
        try:
            if not auths:
                if old is not None:
                    eng.delete("AUTHREC", key.object_name)
                return None
            eng.define("AUTHREC", rec.object_name, rec.attributes(), replace=True)
            return rec
        finally:
            _authrecs_changed()  # after the change: a check made meanwhile is not kept


def remove_authority(eng, objtype: str, profile: str, *, principal: str | None = None,  # noqa: ANN001
                     group: str | None = None) -> bool:
    """setmqaut -remove: delete the entity's record for ``profile``; False if none."""
    etype, entity = _entity(principal, group)
    key = oam.AuthRecord(etype, entity, oam.objtype_of(objtype), profile)
    with eng.lock:
        if eng.lookup("AUTHREC", key.object_name) is None:
            return False
        eng.delete("AUTHREC", key.object_name)
        _authrecs_changed()
        return True


def set_authrec(eng, params: Mapping[str, object]) -> oam.AuthRecord | None:  # noqa: ANN001
    """MQSC SET AUTHREC PROFILE() OBJTYPE() PRINCIPAL()|GROUP() AUTHADD() AUTHRMV()."""
    objtype = str(params.get("OBJTYPE", ""))
    profile = str(params.get("PROFILE", "") or "")
    if oam.objtype_of(objtype) == "qmgr":
        profile = eng.name
    specs = [f"+{a}" for a in params.get("AUTHADD", ()) or ()]  # type: ignore[union-attr]
    specs += [f"-{a}" for a in params.get("AUTHRMV", ()) or ()]  # type: ignore[union-attr]
    _known_entity(eng, params.get("PRINCIPAL"), params.get("GROUP"))  # type: ignore[arg-type]
    return set_authority(eng, objtype, profile, specs,
                         principal=params.get("PRINCIPAL"),  # type: ignore[arg-type]
                         group=params.get("GROUP"))  # type: ignore[arg-type]


def _known_entity(eng, principal: str | None, group: str | None) -> None:  # noqa: ANN001
    """SET AUTHREC names a user or group of the queue manager's user file, as IBM's OAM
    wants an operating-system one: else MQRC_UNKNOWN_ENTITY. A queue manager whose security
    was never installed (no user file: an embedded one) has no users to check against."""
    users = UserFile(users_path(eng.qmdir))
    if not users.exists():
        return
    if principal and users.get(principal) is None or \
            group and group not in users.all_groups():
        raise MQMIError(CMQC.MQCC_FAILED, CMQC.MQRC_UNKNOWN_ENTITY)


def delete_authrec(eng, params: Mapping[str, object]) -> bool:  # noqa: ANN001
    """MQSC DELETE AUTHREC PROFILE() OBJTYPE() PRINCIPAL()|GROUP()."""
    objtype = str(params.get("OBJTYPE", ""))
    profile = eng.name if oam.objtype_of(objtype) == "qmgr" else str(params.get("PROFILE", ""))
    return remove_authority(eng, objtype, profile,
                            principal=params.get("PRINCIPAL"),  # type: ignore[arg-type]
                            group=params.get("GROUP"))  # type: ignore[arg-type]


def effective_authority(eng, qmdir: str, user: str, objtype: str, name: str  # noqa: ANN001
                        ) -> frozenset[str]:
    """dspmqaut -p: what ``user`` may do with object ``name`` (mqm members: everything)."""
    otype = oam.objtype_of(objtype)
    return user_authority(authority_records(eng), UserFile(users_path(qmdir)), user, otype,
                          name)


def entity_authority(eng, entity_type: str, entity: str, objtype: str, name: str  # noqa: ANN001
                     ) -> frozenset[str]:
    """Inquire Entity Authority (dspmqaut): what principal or group ``entity`` may do with
    object ``name`` of OAM type ``objtype``, its groups' authorities included; an entity
    the user file does not know is MQRC_UNKNOWN_ENTITY."""
    principal = entity if entity_type == "principal" else None
    _known_entity(eng, principal, None if principal else entity)
    if principal:
        return effective_authority(eng, eng.qmdir, entity, objtype, name)
    return group_authority(eng, objtype, name, entity)


def user_authority(records: Iterable[oam.AuthRecord], users: UserFile, user: str,
                   otype: str, name: str) -> frozenset[str]:
    """What ``user`` may do with object ``name`` given the authority ``records``."""
    if users.is_admin(user):
        return oam.OBJTYPES[otype]
    return oam.effective(records, user, users.groups(user), otype, name)


def group_authority(eng, objtype: str, name: str, group: str) -> frozenset[str]:  # noqa: ANN001
    """dspmqaut -g: the authorities group ``group`` holds for object ``name``."""
    return group_authority_of(authority_records(eng), oam.objtype_of(objtype), name, group)


def group_authority_of(records: Iterable[oam.AuthRecord], otype: str, name: str,
                       group: str) -> frozenset[str]:
    """What group ``group`` holds for object ``name`` given the authority ``records``."""
    if group == ADMIN_GROUP:
        return oam.OBJTYPES[otype]
    return oam.effective([r for r in records if r.entity_type == "group"], "", [group],
                         otype, name)


# ------------------------------------------------------------------ defaults


def ensure_defaults(eng, owner: str | None = None) -> bool:  # noqa: ANN001
    """crtmqm's security objects, once per queue manager; True if they were made now."""
    with eng.lock:
        if eng.lookup(*_MARKER) is not None:
            return False
        names = {r.key for r in chlauth_records(eng)}
        date, tod = _stamp()
        # forced together with the marker: a crash before it leaves none of them, and the
        # next start makes them all
        with eng.data.objects_together():
            for r in chlauth.DEFAULT_RULES:
                if r.key not in names:
                    r = chlauth.ChlauthRecord(**{**_fields(r), "altdate": date,
                                                 "alttime": tod})
                    eng.define("CHLAUTH", r.object_name, r.attributes())
            if eng.lookup("AUTHINFO", DEFAULT_AUTHINFO) is None:
                eng.define("AUTHINFO", DEFAULT_AUTHINFO, dict(AUTHINFO_DEFAULTS))
            if not eng.catalog.qmgr.get("CONNAUTH"):
                eng.alter_qmgr({"CONNAUTH": DEFAULT_AUTHINFO})
            eng.define(*_MARKER, {"VERSION": 1, "OWNER": owner or _owner()})
    return True


def _fields(r: chlauth.ChlauthRecord) -> dict[str, object]:
    return attrs.asdict(r, recurse=False)


# ------------------------------------------------------------------ connection authentication


def connauth_mode(eng, channel: str | None) -> str:  # noqa: ANN001
    """CHCKCLNT (``channel`` given) or CHCKLOCL of the QMGR CONNAUTH AUTHINFO: NONE,
    OPTIONAL, REQUIRED or REQDADM; NONE when CONNAUTH is blank; MISCONFIGURED when it names
    no IDPWOS AUTHINFO (every connection is then refused)."""
    name = str(eng.catalog.qmgr.get("CONNAUTH", "") or "")
    if not name:
        return "NONE"
    ai = eng.catalog.lookup("AUTHINFO", name)
    if ai is None or ai.attributes.get("AUTHTYPE", "IDPWOS") != "IDPWOS":
        return "MISCONFIGURED"
    key = "CHCKCLNT" if channel else "CHCKLOCL"
    return str(ai.attributes.get(key, "OPTIONAL"))


def _fail_delay(eng) -> float:  # noqa: ANN001
    """FAILDLAY of the QMGR CONNAUTH AUTHINFO, seconds (0..60; IBM's default 1)."""
    ai = eng.catalog.lookup("AUTHINFO", str(eng.catalog.qmgr.get("CONNAUTH", "") or ""))
    try:
        delay = int(ai.attributes.get("FAILDLAY", 1)) if ai is not None else 1
    except (TypeError, ValueError):
        delay = 1
    return float(min(max(delay, 0), 60))


def _adopts(eng, *, client: bool) -> bool:  # noqa: ANN001
    """Does an authenticated MQCSP user become the connection's user? Only when CONNAUTH
    authenticates this kind of connection (``client``: CHCKCLNT, else CHCKLOCL) at all, and
    its AUTHINFO says ADOPTCTX(YES)."""
    if connauth_mode(eng, "client" if client else None) in ("NONE", "MISCONFIGURED"):
        return False
    ai = eng.catalog.lookup("AUTHINFO", str(eng.catalog.qmgr.get("CONNAUTH", "")))
    return str(ai.attributes.get("ADOPTCTX", "YES")) == "YES"


# ------------------------------------------------------------------ channels


def check_channel(eng, channel: str, address: str, *, client_user: str | None = None,  # noqa: ANN001
                  remote_qmgr: str | None = None, ssl_peer: str | None = None,
                  ssl_issuer: str | None = None, mcauser: str = "",
                  default_user: str | None = None, qmdir: str | None = None,
                  csp_user: str | None = None) -> chlauth.Decision:
    """The CHLAUTH decision for an inbound channel (allowed as the user it would run as if
    CHLAUTH is DISABLED). For the SVRCONN / RCVR MCA, before it connects for the partner.

    ``csp_user``: the user id of the client's MQCSP. With CONNAUTH authenticating clients
    and ADOPTCTX(YES) it is adopted (IBM's ChlauthEarlyAdopt order): USERMAP matches it, it
    takes precedence over the channel's MCAUSER, USERSRC(MAP) still overrides it, and
    BLOCKUSER judges the final user. The decision's ``adopted`` says so, and the MQCONN that
    follows must then authenticate that MQCSP (``SecurityPolicy.check_connect``)."""
    adopted = bool(csp_user) and _adopts(eng, client=True)
    if adopted:
        client_user = csp_user
    if str(eng.catalog.qmgr.get("CHLAUTH", "ENABLED")) != "ENABLED":
        user = (client_user if adopted else None) or mcauser or client_user or \
            default_user or _owner()
        return chlauth.Decision(True, user, chlauth.AMQ9783I,
                                f"Channel will run using MCAUSER('{user}').",
                                adopted=adopted)
    users = UserFile(users_path(qmdir or eng.qmdir))
    return chlauth.evaluate(chlauth_records(eng), channel, address, client_user, remote_qmgr,
                            ssl_peer, mcauser, ssl_issuer=ssl_issuer,
                            default_user=default_user or _owner(), is_admin=users.is_admin,
                            adopted=adopted)


def channel_decision(eng, query: Mapping[str, object]) -> dict[str, object]:  # noqa: ANN001
    """:func:`check_channel` for a query dict (the channel initiator's SPI call), as a dict.

    ``query`` keys: ``channel``, ``address``, ``client_user``, ``csp_user``, ``remote_qmgr``,
    ``ssl_peer``, ``ssl_issuer``, ``mcauser``; ``address_only`` asks about BLOCKADDR alone
    (the listener's check, made before a channel name is known)."""
    address = str(query.get("address") or "")
    if query.get("address_only"):
        if str(eng.catalog.qmgr.get("CHLAUTH", "ENABLED")) != "ENABLED":
            return {"allowed": True, "user": "", "msgid": chlauth.AMQ9783I, "text": ""}
        d = chlauth.evaluate([r for r in chlauth_records(eng) if r.type == "BLOCKADDR"],
                             "", address)
    else:
        def opt(key: str) -> str | None:
            v = query.get(key)
            return None if v is None else str(v)

        def user_id(key: str) -> str | None:
            v = opt(key)
            return None if v is None else mq_user_id(v)

        refusal = flowed_user_refusal(opt("client_user"), opt("csp_user"))
        if refusal is not None:
            return refusal
        d = check_channel(eng, str(query.get("channel") or ""), address,
                          client_user=user_id("client_user"), remote_qmgr=opt("remote_qmgr"),
                          ssl_peer=opt("ssl_peer"), ssl_issuer=opt("ssl_issuer"),
                          mcauser=str(query.get("mcauser") or ""),
                          csp_user=user_id("csp_user"))
    return {"allowed": d.allowed, "user": d.user, "msgid": d.msgid, "text": d.text,
            "warning": d.warning, "adopted": d.adopted, "reason_qualifier": d.reason_qualifier}


def _printable(text: str | None) -> str:
    return "".join(c if c.isprintable() else "?" for c in (text or ""))[:64]


def flowed_user_refusal(uid: str | None, csp: str | None) -> dict[str, object] | None:
    """The refusal (a :func:`channel_decision` dict) when a client flowed a user name that
    is no MQ user id, in its UID (``uid``) or its MQCSP (``csp``); None when both are user
    ids or absent. IBM's queue manager fails that conversation's MQCONN with 2035 and logs
    AMQ9557E rather than ending the channel, and the channel initiator answers so."""
    bad_csp = csp is not None and mq_user_id(csp) is None
    if not bad_csp and (uid is None or mq_user_id(uid) is not None):
        return None
    bad = csp if bad_csp else uid
    r = amqmsgs.AMQ9557.render({"user": _printable(bad), "csp": _printable(csp),
                                 "uid": _printable(uid)})
    return {"allowed": False, "user": "", "msgid": r.msgid,
            "text": f"{r.text} {r.explanation}",
            "warning": False, "adopted": False}


def owner() -> str:
    """The user this process runs as: the queue manager's owner in its daemon."""
    return _owner()


def is_privileged(qmdir: str, user: str | None) -> bool:
    """The queue manager's owner or a member of mqm: may connect on behalf of others."""
    if not user:
        return False
    if user == _owner():  # the whole operating-system name, not its first 12 characters
        return True
    return len(user) <= MAX_USER_LENGTH and UserFile(users_path(qmdir)).is_admin(user)


# ------------------------------------------------------------------ the policy


#: at most this many cached authority decisions per policy (then they start again: dynamic
#: queues have names never seen again)
_MAX_DECISIONS = 4096


@attrs.define
class _Decisions:
    """A policy's decisions while the user file had one stamp and the authority records one
    change count (``valid_for``)."""

    valid_for: tuple[object, int] | None
    #: (entity, OAM object type, name) -> the authorities the entity holds
    held: dict[tuple[str, str, str], frozenset[str]] = attrs.Factory(dict)
    #: the opens allowed: (user, object type, name, options, alternate user)
    opens: set[tuple[str, str, str, int, str | None]] = attrs.Factory(set)

    def full(self) -> bool:
        return len(self.held) >= _MAX_DECISIONS or len(self.opens) >= _MAX_DECISIONS


class SecurityPolicy:
    """The engine's Authority: CONNAUTH and OAM checks (module docstring)."""

    def __init__(self, engine, qmdir: str) -> None:  # noqa: ANN001
        self.engine = engine
        self.qmdir = qmdir
        self.users = UserFile(users_path(qmdir))
        self.errors = ErrorLog(os.path.join(qmdir, "errors"), qmgr=engine.name)
        self._decided = _Decisions(None)

    # -------------------------------------------------------------- helpers

    def _connauth_mode(self, channel: str | None) -> str:
        return connauth_mode(self.engine, channel)

    def _fail_auth(self, user: str, appl_name: str) -> MQMIError:
        """AMQ5534E and 2035; the error carries ``fail_delay``, the CONNAUTH AUTHINFO's
        FAILDLAY (IBM default 1 second), which the server waits before answering so that
        passwords cannot be guessed at full speed (the wait holds no thread)."""
        self.errors.write(amqmsgs.AMQ5534, inserts={"user": user, "appl": appl_name.strip()})
        err = _refuse()
        err.fail_delay = _fail_delay(self.engine)  # type: ignore[attr-defined]
        return err

    def _insufficient(self, user: str, name: str, needed: Iterable[str]) -> MQMIError:
        self.errors.write_event(
            AMQ8077W, f"Entity '{user}' has insufficient authority to access object "
                      f"'{name}'. The following authorities were needed: "
                      f"{' '.join(sorted(needed))}.")
        return _refuse()

    def _decisions(self) -> _Decisions:
        """The decisions still good: those made since the user file and the authority
        records last changed (one ``stat`` of the user file). A group added with mqpyuser,
        a setmqaut or SET AUTHREC applies to the next check, as without them, so REFRESH
        SECURITY still has nothing to drop. A check keeps the one object it got, so what
        it decides never lands among decisions made since a change."""
        valid_for = (self.users.stamp(), _authrec_changes)
        decided = self._decided
        if valid_for != decided.valid_for or decided.full():
            decided = self._decided = _Decisions(valid_for)
        return decided

    def _authorities(self, user: str, objtype: str, name: str,
                     decided: _Decisions | None = None) -> frozenset[str]:
        """What ``user`` holds on object ``name``; ``decided``: this check's
        :meth:`_decisions` (a check that asks several times stats the user file once)."""
        if decided is None:
            decided = self._decisions()
        key = (user, objtype, name)
        held = decided.held.get(key)
        if held is None:
            if self.users.is_admin(user):
                held = oam.OBJTYPES[objtype]
            else:
                held = oam.effective(authority_records(self.engine), user,
                                     self.users.groups(user), objtype, name)
            decided.held[key] = held
        return held

    # -------------------------------------------------------------- administration

    def admin_privileged(self, user: str) -> bool:
        """The command server's question: may ``user`` (a request's UserIdentifier) issue
        every command? The owner and members of mqm may."""
        return is_privileged(self.qmdir, user)

    def admin_holds(self, user: str, objtype: str, name: str, needed: Iterable[str]) -> bool:
        """Does ``user`` hold ``needed`` on object ``name`` of OAM type ``objtype``?"""
        return bool(user) and frozenset(needed) <= self._authorities(user, objtype, name)

    def admin_refused(self, user: str, name: str, needed: Iterable[str]) -> None:
        """AMQ8077W for a command the command server refuses (it answers 2035 / AMQ8135E)."""
        self._insufficient(user or "(blank)", name, needed)

    # -------------------------------------------------------------- Authority protocol

    def check_connect(self, user: str, password: str | None, appl_name: str,
                      channel: str | None, *, asserted: str, adopted: bool = False) -> str:
        """CONNAUTH, then connect authority; the user the connection runs as.

        An MQCSP (``password`` given) is authenticated unless CONNAUTH is off for this kind
        of connection (then it is ignored, never adopted); once authenticated, a bindings
        connection adopts its user with ADOPTCTX(YES). A channel connection runs as
        ``asserted``: the channel initiator has already applied ADOPTCTX and CHLAUTH
        (:func:`channel_decision`), and ``adopted`` says that user came from the MQCSP, whose
        password must then be right whatever CHCKCLNT says."""
        mode = self._connauth_mode(channel)
        if mode == "MISCONFIGURED":
            raise self._fail_auth(user, appl_name)
        base = mq_user_id(asserted if password is not None else user)
        if base is None:
            raise self._fail_auth(user if password is None else asserted, appl_name)
        run_as = base
        if password is None:
            if mode == "REQUIRED" or (mode == "REQDADM" and self.users.is_admin(base)):
                raise self._fail_auth(base, appl_name)
        elif mode != "NONE" or adopted:
            csp = mq_user_id(user)
            if csp is None or not self.users.verify(csp, password):
                raise self._fail_auth(csp or user, appl_name)
            if channel is None and _adopts(self.engine, client=False):
                run_as = csp
        if "connect" not in self._authorities(run_as, "qmgr", self.engine.name):
            raise self._insufficient(run_as, self.engine.name, ["connect"])
        return run_as

    def check_open(self, user: str, objtype: str, name: str, options: int, *,
                   alternate_user: str | None = None) -> None:
        """The open's authorities (``oam.open_checks``): with alternate-user authority the
        connection's user needs ``altusr`` (checked first) and the alternate user the
        access; a blank alternate user holds nothing. An open allowed since nothing
        changed (:meth:`_decisions`) is allowed again without judging it; a refusal is
        judged (and logged) every time."""
        decided = self._decisions()
        opened = (user, objtype, name, options, alternate_user)
        if opened in decided.opens:
            return
        otype = oam.objtype_of(objtype)
        checks = oam.open_checks(user, options, alternate_user)
        checks.sort(key=lambda c: c[1] != "qmgr")  # altusr before the object's authorities
        for entity, where, needed in checks:
            if not needed:
                continue
            held = frozenset() if not entity else (
                self._authorities(entity, "qmgr", self.engine.name, decided)
                if where == "qmgr" else self._authorities(entity, otype, name, decided))
            missing = needed - held
            if missing:
                raise self._insufficient(entity, self.engine.name if where == "qmgr"
                                         else name, missing)
        decided.opens.add(opened)


    def check_delete(self, user: str, objtype: str, name: str) -> None:
        """``dlt`` on object ``name`` (an MQCLOSE deleting a permanent dynamic queue its
        handle did not create); a refusal is logged, AMQ8077W."""
        if "dlt" not in self._authorities(user, oam.objtype_of(objtype), name):
            raise self._insufficient(user, name, ["dlt"])

    def check_topic(self, user: str, names: list[str], needed: str) -> None:
        """Publish or subscribe authority (``needed``: "pub", "sub") on a topic: granted by
        any of the topic objects ``names`` -- the closest administrative node, its parents,
        SYSTEM.BASE.TOPIC -- as IBM checks up the topic tree."""
        decided = self._decisions()
        for name in names:
            if needed in self._authorities(user, "topic", name, decided):
                return
        raise self._insufficient(user, names[0] if names else "", [needed])


def install(engine, qmdir: str | None = None) -> SecurityPolicy:  # noqa: ANN001
    """Turn security on for ``engine``: owner in mqm, defaults once, the policy installed."""
    qmdir = qmdir or engine.qmdir
    UserFile(users_path(qmdir)).ensure_owner(_owner())
    ensure_defaults(engine)
    policy = SecurityPolicy(engine, qmdir)
    engine.authority = policy
    return policy
