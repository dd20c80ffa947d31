"""The PCF security commands: Set, Delete and Inquire Authority Records, Set and Inquire
Channel Authentication Records. Set and Delete are the processor's SET / DELETE AUTHREC
(one per entity) and SET CHLAUTH, MQSCCommands built from the request's values; the
inquiries answer from the stored records."""

from __future__ import annotations

from mqpy import CMQC, CMQCFC, CMQZC, pcf
from mqpy.command.changes import attributes
from mqpy.command.requests import (
    PcfHandler,
    PcfRequest,
    Refused,
    Response,
    asked_attrs,
    attr_params,
    name_of,
    optional_name,
    param,
    required_name,
)
from mqpy.errors import MQMIError
from mqpy.mqsc import pcfattrs, pcfmap
from mqpy.mqsc.parser import MQSCCommand
from mqpy.security import authority as oam
from mqpy.security import policy
from mqpy.security.users import UserFile, users_path

__all__ = ["SECURITY"]

#: MQOT_* -> the OBJTYPE word, MQAUTH_* -> the authority word (and back): the Inquire
#: answer's, shared with the configuration events (:mod:`mqpy.mqsc.pcfattrs`)
OBJTYPES, AUTHS = pcfattrs.AUTHREC_OBJTYPES, pcfattrs.AUTHS
_MQOT, _MQAUTH = pcfattrs.MQOT_OF_AUTHREC, pcfattrs.MQAUTH_OF


def _objtype(msg: pcf.PCFMessage) -> str:
    """The request's ObjectType as an AUTHREC OBJTYPE word (required)."""
    objtype = msg.get(CMQCFC.MQIACF_OBJECT_TYPE)
    if objtype is None:
        raise Refused(CMQCFC.MQRCCF_OBJECT_TYPE_MISSING)
    if objtype not in OBJTYPES:
        raise Refused(CMQCFC.MQRCCF_PARM_VALUE_ERROR)
    return OBJTYPES[objtype]


def _auth_words(msg: pcf.PCFMessage, parameter: int) -> list[str]:
    words = []
    for value in msg.get(parameter) or []:
        if value not in AUTHS:
            raise Refused(CMQCFC.MQRCCF_AUTH_VALUE_ERROR)
        words.append(AUTHS[value])
    return words


def _entities(msg: pcf.PCFMessage) -> list[tuple[str, str]]:
    """(PRINCIPAL or GROUP, name) for each entity the request names: at least one."""
    out = [("PRINCIPAL", name_of(v)) for v in msg.get(CMQCFC.MQCACF_PRINCIPAL_ENTITY_NAMES) or []]
    out += [("GROUP", name_of(v)) for v in msg.get(CMQCFC.MQCACF_GROUP_ENTITY_NAMES) or []]
    if not out or not all(name for _, name in out):
        raise Refused(CMQCFC.MQRCCF_ENTITY_NAME_MISSING)
    return out


def _authrec(req: PcfRequest, msg: pcf.PCFMessage, verb: str) -> list[Response]:
    """Set / Delete Authority Record: one SET / DELETE AUTHREC per entity named."""
    base: dict[str, object] = {"OBJTYPE": _objtype(msg),
                               "PROFILE": optional_name(msg, CMQCFC.MQCACF_AUTH_PROFILE_NAME)}
    if base["OBJTYPE"] != "QMGR" and not base["PROFILE"]:
        raise Refused(CMQCFC.MQRCCF_PARM_COUNT_TOO_SMALL)
    if verb == "SET":
        base["AUTHADD"] = _auth_words(msg, CMQCFC.MQIACF_AUTH_ADD_AUTHS)
        base["AUTHRMV"] = _auth_words(msg, CMQCFC.MQIACF_AUTH_REMOVE_AUTHS)
        if not base["AUTHADD"] and not base["AUTHRMV"]:
            raise Refused(CMQCFC.MQRCCF_PARM_COUNT_TOO_SMALL)
    for keyword, entity in _entities(msg):
        responses = req.run(MQSCCommand(verb, "AUTHREC", None, {**base, keyword: entity},
                                        frozenset()))
        if responses[0].comp != CMQC.MQCC_OK:
            return responses
    return [Response()]


def _record_params(r: oam.AuthRecord, options: int, qmgr: str, wanted: set[int] | None
                   ) -> list[pcf.Parameter]:
    params: list[pcf.Parameter] = [
        pcf.CFST(CMQC.MQCA_Q_MGR_NAME, qmgr.ljust(CMQC.MQ_Q_MGR_NAME_LENGTH)),
        pcf.CFIN(CMQCFC.MQIACF_AUTH_OPTIONS, options),
        pcf.CFST(CMQCFC.MQCACF_AUTH_PROFILE_NAME, r.profile.ljust(CMQCFC.MQ_AUTH_PROFILE_NAME_LENGTH)),
        pcf.CFIN(CMQCFC.MQIACF_OBJECT_TYPE, _MQOT.get(r.objtype, CMQC.MQOT_NONE)),
        pcf.CFST(CMQCFC.MQCACF_ENTITY_NAME, r.entity.ljust(CMQCFC.MQ_ENTITY_NAME_LENGTH)),
        pcf.CFIN(CMQCFC.MQIACF_ENTITY_TYPE, CMQZC.MQZAET_PRINCIPAL
                 if r.entity_type == "principal" else CMQZC.MQZAET_GROUP)]
    if wanted is None or CMQCFC.MQIACF_AUTHORIZATION_LIST in wanted:
        auths = [_MQAUTH[a] for a in oam.AUTHORITIES if a in r.auths] or [CMQCFC.MQAUTH_NONE]
        params.append(pcf.CFIL(CMQCFC.MQIACF_AUTHORIZATION_LIST, auths))
    return params


def _selects(r: oam.AuthRecord, options: int, profile: str, objtype: str | None,
             entities: set[tuple[str, str]]) -> bool:
    """Whether Inquire Authority Records' options and names select record ``r``
    (``entities``: (principal|group, name) pairs; empty for every entity)."""
    if objtype is not None and r.objtype != oam.objtype_of(objtype):
        return False
    if profile and r.objtype != "qmgr":
        if options & CMQCFC.MQAUTHOPT_NAME_EXPLICIT and r.profile != profile:
            return False
        if options & CMQCFC.MQAUTHOPT_NAME_ALL_MATCHING and r.profile != profile \
                and not oam.profile_matches(r.profile, profile):
            return False
    return not entities or (r.entity_type, r.entity) in entities


def _entities_asked(req: PcfRequest, msg: pcf.PCFMessage, options: int
                    ) -> set[tuple[str, str]]:
    """The (principal|group, name) pairs EntityName and EntityType select (EntityType by
    default either); with MQAUTHOPT_ENTITY_SET a principal's groups too. Empty: all."""
    entity = optional_name(msg, CMQCFC.MQCACF_ENTITY_NAME)
    if not entity:
        return set()
    kinds = {CMQZC.MQZAET_PRINCIPAL: ("principal",), CMQZC.MQZAET_GROUP: ("group",)}.get(
        msg.get(CMQCFC.MQIACF_ENTITY_TYPE), ("principal", "group"))
    out = {(kind, entity) for kind in kinds}
    if options & CMQCFC.MQAUTHOPT_ENTITY_SET and "principal" in kinds:
        users = UserFile(users_path(req.engine.qmdir))
        out |= {("group", group) for group in users.groups(entity)} if users.exists() else set()
    return out


def inquire_auth_recs(req: PcfRequest, msg: pcf.PCFMessage) -> list[Response]:
    """Inquire Authority Records: one response per record the options select (the
    queue-manager name, options, profile, object type and entity always; the authority
    list as ProfileAttrs asks)."""
    options = msg.get(CMQCFC.MQIACF_AUTH_OPTIONS)
    if options is None:
        raise Refused(CMQCFC.MQRCCF_PARM_COUNT_TOO_SMALL)
    if not options & (CMQCFC.MQAUTHOPT_NAME_ALL_MATCHING | CMQCFC.MQAUTHOPT_NAME_EXPLICIT):
        raise Refused(CMQCFC.MQRCCF_PARM_VALUE_ERROR)
    if options & CMQCFC.MQAUTHOPT_NAME_EXPLICIT and options & CMQCFC.MQAUTHOPT_ENTITY_SET:
        raise Refused(CMQCFC.MQRCCF_PARM_CONFLICT)
    objtype = OBJTYPES.get(msg.get(CMQCFC.MQIACF_OBJECT_TYPE, CMQC.MQOT_ALL))
    profile = optional_name(msg, CMQCFC.MQCACF_AUTH_PROFILE_NAME)
    entities = _entities_asked(req, msg, options)
    records = [r for r in policy.authority_records(req.engine)
               if _selects(r, options, profile, objtype, entities)]
    if not records:
        return [Response([], CMQC.MQCC_FAILED, CMQCFC.MQRCCF_OBJECT_NAME_ERROR)]
    wanted = asked_attrs(msg, CMQCFC.MQIACF_AUTH_PROFILE_ATTRS)
    records.sort(key=lambda r: (r.objtype, r.profile, r.entity_type, r.entity))
    return [Response(_record_params(r, options, req.engine.name, wanted)) for r in records]


_ENTITY_TYPES = {CMQZC.MQZAET_PRINCIPAL: "principal", CMQZC.MQZAET_GROUP: "group"}


def inquire_entity_auth(req: PcfRequest, msg: pcf.PCFMessage) -> list[Response]:
    """Inquire Entity Authority: the authorities EntityName (of EntityType) holds on the
    object ObjectType and ObjectName (MQCACF_OBJECT_NAME; a generic profile's name may be
    given; left out for MQOT_Q_MGR) name, its groups' included, as dspmqaut answers.
    Options is required: MQAUTHOPT_CUMULATIVE. The response: the queue-manager name,
    Options and the object name always, the entity, its type, the object type and the
    authority list as ProfileAttrs asks (default all)."""
    options = msg.get(CMQCFC.MQIACF_AUTH_OPTIONS)
    if options is None:
        raise Refused(CMQCFC.MQRCCF_PARM_COUNT_TOO_SMALL)
    if not options & CMQCFC.MQAUTHOPT_CUMULATIVE:
        raise Refused(CMQCFC.MQRCCF_PARM_VALUE_ERROR)
    entity = optional_name(msg, CMQCFC.MQCACF_ENTITY_NAME)
    if not entity:
        raise Refused(CMQCFC.MQRCCF_ENTITY_NAME_MISSING)
    etype = msg.get(CMQCFC.MQIACF_ENTITY_TYPE)
    if etype is None:
        raise Refused(CMQCFC.MQRCCF_ENTITY_TYPE_MISSING)
    if etype not in _ENTITY_TYPES:
        raise Refused(CMQCFC.MQRCCF_PARM_VALUE_ERROR)
    word = _objtype(msg)
    name = optional_name(msg, CMQCFC.MQCACF_OBJECT_NAME)
    if word == "QMGR":
        name = req.engine.name
    elif not name:
        raise Refused(CMQCFC.MQRCCF_PARM_COUNT_TOO_SMALL)
    try:
        held = policy.entity_authority(req.engine, _ENTITY_TYPES[etype], entity,
                                       oam.objtype_of(word), name)
    except MQMIError as err:
        raise Refused(err.reason) from None
    wanted = asked_attrs(msg, CMQCFC.MQIACF_AUTH_PROFILE_ATTRS)
    params: list[pcf.Parameter] = [
        pcf.CFST(CMQC.MQCA_Q_MGR_NAME, req.engine.name.ljust(CMQC.MQ_Q_MGR_NAME_LENGTH)),
        pcf.CFIN(CMQCFC.MQIACF_AUTH_OPTIONS, options),
        pcf.CFST(CMQCFC.MQCACF_OBJECT_NAME, name.ljust(CMQC.MQ_OBJECT_NAME_LENGTH))]
    extra = [pcf.CFST(CMQCFC.MQCACF_ENTITY_NAME, entity.ljust(CMQCFC.MQ_ENTITY_NAME_LENGTH)),
             pcf.CFIN(CMQCFC.MQIACF_ENTITY_TYPE, etype),
             pcf.CFIN(CMQCFC.MQIACF_OBJECT_TYPE, msg.get(CMQCFC.MQIACF_OBJECT_TYPE)),
             pcf.CFIL(CMQCFC.MQIACF_AUTHORIZATION_LIST,
                      [_MQAUTH[a] for a in oam.AUTHORITIES if a in held]
                      or [CMQCFC.MQAUTH_NONE])]
    params += [p for p in extra if wanted is None or p.Parameter in wanted]
    return [Response(params)]


_CHLAUTH = pcfmap.by_parameter(pcfmap.CHLAUTH)
_ACTIONS = {CMQCFC.MQACT_ADD: "ADD", CMQCFC.MQACT_REPLACE: "REPLACE",
            CMQCFC.MQACT_REMOVE: "REMOVE", CMQCFC.MQACT_REMOVEALL: "REMOVEALL"}
_MATCHES = {CMQCFC.MQMATCH_GENERIC: "GENERIC", CMQCFC.MQMATCH_EXACT: "EXACT",
            CMQCFC.MQMATCH_ALL: "ALL"}


def set_chlauth(req: PcfRequest, msg: pcf.PCFMessage) -> list[Response]:
    """Set Channel Authentication Record: SET CHLAUTH(ProfileName) with Type, Action
    (default MQACT_ADD) and the record's attributes."""
    profile = required_name(msg, CMQCFC.MQCACH_CHANNEL_NAME)
    if msg.get(CMQCFC.MQIACF_CHLAUTH_TYPE) is None:
        raise Refused(CMQCFC.MQRCCF_PARM_COUNT_TOO_SMALL)
    action = _ACTIONS.get(msg.get(CMQCFC.MQIACF_ACTION, CMQCFC.MQACT_ADD))
    if action is None:
        raise Refused(CMQCFC.MQRCCF_CHLAUTH_ACTION_ERROR)
    params = attributes(msg, _CHLAUTH, {CMQCFC.MQCACH_CHANNEL_NAME, CMQCFC.MQIACF_ACTION},
                        {"ALTDATE", "ALTTIME"})
    return req.run(MQSCCommand("SET", "CHLAUTH", profile, {**params, "ACTION": action},
                               frozenset(), generic=profile.endswith("*")))


#: the run check's values: parameter -> MQSC keyword (valid only with MQMATCH_RUNCHECK)
_RUNCHECK_VALUES = {CMQCFC.MQCACH_CONNECTION_NAME: "ADDRESS",
                    CMQCFC.MQCACH_CLIENT_USER_ID: "CLNTUSER",
                    CMQC.MQCA_REMOTE_Q_MGR_NAME: "QMNAME",
                    CMQCFC.MQCACH_SSL_PEER_NAME: "SSLPEER",
                    CMQC.MQCA_SSL_CERT_ISSUER_NAME: "SSLCERTI"}


def _record_response(record: dict, wanted: set[int] | None) -> Response:
    """One record's response: its profile and type always, the rest as asked."""
    return Response([param(pcfmap.CHLAUTH[0], record["CHLAUTH"]),  # type: ignore[list-item]
                     param(pcfmap.CHLAUTH[1], record["TYPE"]),  # type: ignore[list-item]
                     *attr_params(record, pcfmap.CHLAUTH[2:], wanted)])


def _runcheck(req: PcfRequest, msg: pcf.PCFMessage, profile: str) -> list[Response]:
    """MQMATCH_RUNCHECK: the record an inbound channel ``profile`` from Address, with
    ClntUser or QMName (SSLPeer, SSLCertIssuer), would be decided by, as DISPLAY CHLAUTH
    MATCH(RUNCHECK) decides; Address is required, Type must be all, no value may be
    generic (MQRCCF_CHLAUTH_RUNCHECK_ERROR); a channel no record decides is
    MQRCCF_CHLAUTH_NOT_FOUND."""
    values = {kw: optional_name(msg, parameter) for parameter, kw in _RUNCHECK_VALUES.items()
              if msg.get(parameter) is not None}
    if not values.get("ADDRESS"):
        raise Refused(CMQCFC.MQRCCF_PARM_COUNT_TOO_SMALL)
    if msg.get(CMQCFC.MQIACF_CHLAUTH_TYPE, CMQCFC.MQCAUT_ALL) != CMQCFC.MQCAUT_ALL:
        raise Refused(CMQCFC.MQRCCF_WRONG_CHLAUTH_TYPE)
    try:
        decision = policy.runcheck(req.engine, profile, values)
    except MQMIError as err:
        raise Refused(err.reason) from None
    if decision.record is None:
        return [Response([], CMQC.MQCC_FAILED, CMQCFC.MQRCCF_CHLAUTH_NOT_FOUND)]
    return [_record_response(decision.record.attributes(),
                             asked_attrs(msg, CMQCFC.MQIACF_CHLAUTH_ATTRS))]


def inquire_chlauth(req: PcfRequest, msg: pcf.PCFMessage) -> list[Response]:
    """Inquire Channel Authentication Records: the records DISPLAY CHLAUTH shows for the
    profile (Match GENERIC by default, EXACT or ALL; Type default all), the profile and type
    always, the rest as ChlAuthAttrs asks; Match RUNCHECK answers the record that decides
    a channel (:func:`_runcheck`)."""
    profile = required_name(msg, CMQCFC.MQCACH_CHANNEL_NAME)
    if msg.get(CMQCFC.MQIACH_MATCH) == CMQCFC.MQMATCH_RUNCHECK:
        return _runcheck(req, msg, profile)
    if any(msg.get(parameter) is not None for parameter in _RUNCHECK_VALUES):
        raise Refused(CMQCFC.MQRCCF_WRONG_CHLAUTH_MATCH)
    match = _MATCHES.get(msg.get(CMQCFC.MQIACH_MATCH, CMQCFC.MQMATCH_GENERIC))
    kind = msg.get(CMQCFC.MQIACF_CHLAUTH_TYPE, CMQCFC.MQCAUT_ALL)
    word = "ALL" if kind == CMQCFC.MQCAUT_ALL else {v: k for k, v in pcfmap.CHLAUTH[1].words.items()}.get(kind)  # type: ignore[union-attr]
    if match is None or word is None:
        raise Refused(CMQCFC.MQRCCF_PARM_VALUE_ERROR)
    try:
        found = policy.display_chlauth(req.engine, profile, {"MATCH": match, "TYPE": word})
    except MQMIError as err:
        raise Refused(err.reason) from None
    if isinstance(found, str) or not found:
        return [Response([], CMQC.MQCC_FAILED, CMQCFC.MQRCCF_CHLAUTH_NOT_FOUND)]
    wanted = asked_attrs(msg, CMQCFC.MQIACF_CHLAUTH_ATTRS)
    return [_record_response(record, wanted) for record in found]


SECURITY: dict[int, PcfHandler] = {
    CMQCFC.MQCMD_SET_CHLAUTH_REC: set_chlauth,
    CMQCFC.MQCMD_INQUIRE_CHLAUTH_RECS: inquire_chlauth,
    CMQCFC.MQCMD_SET_AUTH_REC: lambda req, msg: _authrec(req, msg, "SET"),
    CMQCFC.MQCMD_DELETE_AUTH_REC: lambda req, msg: _authrec(req, msg, "DELETE"),
    CMQCFC.MQCMD_INQUIRE_AUTH_RECS: inquire_auth_recs,
    CMQCFC.MQCMD_INQUIRE_ENTITY_AUTH: inquire_entity_auth,
}
