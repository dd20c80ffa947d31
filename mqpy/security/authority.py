"""Object authorities (IBM's object authority manager, OAM): pure rules, no storage.

Owns the vocabulary of ``setmqaut`` / ``dspmqaut`` / SET AUTHREC (object types, authority
names, ``+all`` ``+allmqi`` ``+alladm``), generic profiles, and the authority an MQI call
needs. :mod:`mqpy.security.policy` stores the records and asks :func:`effective` at MQCONN and
MQOPEN.

Rules (IBM MQ on UNIX with ``SecurityPolicy=user``; [M] as remembered from IBM's
documentation, [inf] where mqpy chose):

- An authority record grants a set of authorities to one *entity* (a principal ``-p`` or a
  group ``-g``) for one object type and one *profile*: an object name, or a generic profile
  where ``?`` is one character, ``*`` any characters within a qualifier (between dots) and
  ``**`` any number of whole qualifiers (``PAY.**`` matches ``PAY`` and ``PAY.IN.EU``).
- For each entity only the most specific matching profile counts: an exact name beats any
  generic one; generic profiles are compared left to right, a plain character beating
  ``?``, which beats ``*``, which beats ``**``. A user's authority is the union over the
  user and each of its groups.
- Members of group ``mqm`` (the queue manager's owner is one) have every authority.
- MQCONN needs ``connect`` on the queue manager. MQOPEN of a queue needs, per option:
  INPUT_* -> ``get``, BROWSE -> ``browse``, OUTPUT -> ``put``, INQUIRE -> ``inq``, SET ->
  ``set``, PASS_IDENTITY_CONTEXT -> ``passid``, PASS_ALL_CONTEXT -> ``passall``,
  SET_IDENTITY_CONTEXT -> ``setid``, SET_ALL_CONTEXT -> ``setall``; and
  ALTERNATE_USER_AUTHORITY needs ``altusr`` on the queue manager. Setting context also
  needs ``setid`` / ``setall`` on the queue manager (IBM: "To use setid or setall authority,
  authorizations must be granted on both the appropriate queue object and also on the
  queue manager object"); passing it does not.
- Alternate-user authority (MQOO_ALTERNATE_USER_AUTHORITY, or MQPMO_ALTERNATE_USER_AUTHORITY
  on MQPUT1): the connection's user needs ``altusr`` on the queue manager, and the access
  the other options ask for (get, browse, put, inq, set) is judged for the MQOD's
  AlternateUserId instead; the context options (passid ... setall) are still judged for the
  connection's user (IBM: "some checks, for example context checks, are still carried out
  with the current user identifier"). A blank AlternateUserId is nobody: the open succeeds
  only if it needs no authority (:func:`open_checks`).
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterable, Sequence

import attrs

from mqpy import CMQC

__all__ = [
    "AUTHORITIES",
    "AuthRecord",
    "AuthSpecError",
    "OBJTYPES",
    "effective",
    "format_dspmqaut",
    "objtype_of",
    "open_checks",
    "open_requirements",
    "parse_specs",
    "profile_matches",
]

#: every authority name, in the order dspmqaut lists them.
AUTHORITIES = ("get", "browse", "put", "inq", "set", "connect", "altusr", "passid", "passall",
               "setid", "setall", "pub", "sub", "resume", "clr", "crt", "dlt", "chg", "dsp",
               "ctrl", "ctrlx", "system")

_MQI: dict[str, frozenset[str]] = {
    "queue": frozenset({"browse", "get", "inq", "passall", "passid", "put", "set", "setall",
                        "setid"}),
    "qmgr": frozenset({"altusr", "connect", "inq", "set", "setall", "setid"}),
    "process": frozenset({"inq"}),
    "namelist": frozenset({"inq"}),
    "channel": frozenset(),
    "clntconn": frozenset(),
    "listener": frozenset(),
    "service": frozenset(),
    "authinfo": frozenset({"inq"}),
    "comminfo": frozenset(),
    "topic": frozenset({"pub", "sub", "resume", "passall", "passid", "setall", "setid"}),
    "rqmname": frozenset({"put"}),
}
_ADMIN: dict[str, frozenset[str]] = {
    "queue": frozenset({"chg", "clr", "dlt", "dsp"}),
    "qmgr": frozenset({"chg", "dlt", "dsp", "ctrl", "system"}),
    "process": frozenset({"chg", "dlt", "dsp"}),
    "namelist": frozenset({"chg", "dlt", "dsp"}),
    "channel": frozenset({"chg", "dlt", "dsp", "ctrl", "ctrlx"}),
    "clntconn": frozenset({"chg", "dlt", "dsp"}),
    "listener": frozenset({"chg", "dlt", "dsp", "ctrl"}),
    "service": frozenset({"chg", "dlt", "dsp", "ctrl"}),
    "authinfo": frozenset({"chg", "dlt", "dsp"}),
    "comminfo": frozenset({"chg", "dlt", "dsp"}),
    "topic": frozenset({"chg", "clr", "dlt", "dsp", "ctrl"}),
    "rqmname": frozenset(),
}
#: object types of setmqaut -t, each with the authorities it accepts (crt: create objects).
OBJTYPES: dict[str, frozenset[str]] = {
    t: _MQI[t] | _ADMIN[t] | ({"crt"} if t != "rqmname" else set()) for t in _MQI
}
_ALIASES = {"q": "queue", "prcs": "process", "nl": "namelist", "chl": "channel",
            "lstr": "listener", "srvc": "service", "top": "topic", "qmgr": "qmgr",
            "clntconn": "clntconn", "authinfo": "authinfo", "comminfo": "comminfo",
            "rqmname": "rqmname"}
#: engine object types (MQSC words) -> OAM object types.
_ENGINE_TYPES = {"QLOCAL": "queue", "QMODEL": "queue", "QALIAS": "queue", "QREMOTE": "queue",
                 "QUEUE": "queue", "QMGR": "qmgr", "PROCESS": "process",
                 "NAMELIST": "namelist", "CHANNEL": "channel", "LISTENER": "listener",
                 "SERVICE": "service", "AUTHINFO": "authinfo", "TOPIC": "topic",
                 "COMMINFO": "comminfo", "CLNTCONN": "clntconn", "RQMNAME": "rqmname"}

# setmqaut return codes (IBM).
RC_INVALID_OBJTYPE = 148
RC_INVALID_AUTH = 151
RC_AUTH_MISSING = 150


class AuthSpecError(ValueError):
    """setmqaut input IBM refuses; ``rc`` is IBM's setmqaut return code."""

    def __init__(self, text: str, rc: int) -> None:
        super().__init__(text)
        self.rc = rc


def objtype_of(name: str) -> str:
    """``-t`` value or engine object type -> the OAM object type (``queue``, ``qmgr`` ...)."""
    key = name.strip()
    if key.upper() in _ENGINE_TYPES:
        return _ENGINE_TYPES[key.upper()]
    low = key.lower()
    if low in OBJTYPES:
        return low
    if low in _ALIASES:
        return _ALIASES[low]
    raise AuthSpecError(f"Object type '{name}' is not valid.", RC_INVALID_OBJTYPE)


def parse_specs(objtype: str, specs: Sequence[str], current: Iterable[str] = ()
                ) -> frozenset[str]:
    """Apply ``+put -browse +all -all +allmqi +alladm +none`` to ``current``, in order."""
    valid = OBJTYPES[objtype]
    auths = set(current)
    if not specs:
        raise AuthSpecError("An authorization specification is required.", RC_AUTH_MISSING)
    for spec in specs:
        if len(spec) < 2 or spec[0] not in "+-":
            raise AuthSpecError(f"Authorization specification '{spec}' is not valid.",
                                RC_INVALID_AUTH)
        name = spec[1:].lower()
        group = {"all": OBJTYPES[objtype], "allmqi": _MQI[objtype], "alladm": _ADMIN[objtype],
                 "none": frozenset()}.get(name)
        if group is None:
            if name not in valid:
                raise AuthSpecError(f"Authorization specification '{spec}' is not valid for "
                                    f"object type {objtype}.", RC_INVALID_AUTH)
            group = frozenset({name})
        if spec[0] == "+":
            auths |= group
        else:
            auths -= group
    return frozenset(auths)


# ------------------------------------------------------------------ profiles


def _tokens(profile: str) -> list[str]:
    return re.findall(r"\*\*|\*|\?|[^*?]", profile)


#: a profile's pieces (:func:`_pieces`), besides a character standing for itself
_ONE, _ANY, _QUALIFIERS_FIRST, _QUALIFIERS = range(4)


def _pieces(profile: str) -> list[str | int]:
    """``profile`` as what :func:`profile_matches` walks: a character for itself; _ONE
    (``?``: one character not a dot); _ANY (``*``: any characters, dots excepted);
    _QUALIFIERS_FIRST (a leading ``**``: any whole qualifiers, each with its dot after);
    _QUALIFIERS (``**`` after a qualifier: any whole qualifiers, each with its dot
    before)."""
    quals = profile.split(".")
    out: list[str | int] = []
    for i, q in enumerate(quals):
        if q == "**":
            out.append(_QUALIFIERS_FIRST if i == 0 else _QUALIFIERS)
            continue
        if not (i == 0 or (i == 1 and quals[0] == "**")):
            out.append(".")
        out.extend(_ONE if t == "?" else _ANY if t == "*" else t for t in _tokens(q))
    return out


def profile_matches(profile: str, name: str) -> bool:
    """Whether ``name`` is one the generic ``profile`` names. Worked out position by
    position (whether the profile from each piece matches the name from each place), in
    time bounded by the product of the lengths: the name is an application's (the object
    it opens), which a regular expression of ``[^.]*`` runs would backtrack over for
    seconds against a profile of several ``*``."""
    if not any(c in profile for c in "*?"):
        return profile == name
    if profile == "**":
        return True
    n = len(name)
    after_dot = [n + 1] * (n + 1)  # where the first dot from each place ends (n + 1: none)
    for p in range(n - 1, -1, -1):
        after_dot[p] = p + 1 if name[p] == "." else after_dot[p + 1]
    later = [p == n for p in range(n + 2)]  # the pieces after this one match from p
    for piece in reversed(_pieces(profile)):
        here = [False] * (n + 2)
        if piece == _QUALIFIERS:
            seen = False  # (the pieces after match from some place after p)
            for p in range(n, -1, -1):
                here[p] = later[p] or (name[p] == "." and seen if p < n else False)
                seen = seen or later[p]
        else:
            for p in range(n, -1, -1):
                c = name[p] if p < n else ""
                if piece == _ANY:
                    here[p] = later[p] or (c not in ("", ".") and here[p + 1])
                elif piece == _QUALIFIERS_FIRST:
                    here[p] = later[p] or (after_dot[p] <= n and here[after_dot[p]])
                elif piece == _ONE:
                    here[p] = c not in ("", ".") and later[p + 1]
                else:
                    here[p] = c == piece and later[p + 1]
        later = here
    return later[0]


def profile_key(profile: str) -> tuple[bool, tuple[int, ...]]:
    """Bigger is more specific (module docstring)."""
    rank = {"**": 0, "*": 1, "?": 2}
    return (not any(c in profile for c in "*?"),
            tuple(rank.get(t, 3) for t in _tokens(profile)))


# ------------------------------------------------------------------ records


@attrs.frozen(slots=True)
class AuthRecord:
    """Authorities of one principal or group for one object type and profile."""

    entity_type: str  # "principal" or "group"
    entity: str
    objtype: str
    profile: str
    auths: frozenset[str] = frozenset()

    @property
    def object_name(self) -> str:
        """A stable engine-object name (48 characters at most) for this record's key."""
        key = "\0".join((self.entity_type, self.entity, self.objtype, self.profile))
        return "AR." + hashlib.sha1(key.encode()).hexdigest()[:40]

    def attributes(self) -> dict[str, object]:
        who = "PRINCIPAL" if self.entity_type == "principal" else "GROUP"
        return {"PROFILE": self.profile, "OBJTYPE": self.objtype.upper(), who: self.entity,
                "AUTHLIST": [a.upper() for a in AUTHORITIES if a in self.auths]}

    @classmethod
    def from_attributes(cls, a: dict[str, object]) -> AuthRecord:
        if a.get("PRINCIPAL"):
            etype, entity = "principal", str(a["PRINCIPAL"])
        else:
            etype, entity = "group", str(a.get("GROUP", ""))
        auths = a.get("AUTHLIST") or []
        return cls(etype, entity, str(a.get("OBJTYPE", "")).lower(), str(a.get("PROFILE", "")),
                   frozenset(str(x).lower() for x in auths))  # type: ignore[union-attr]


def effective(records: Iterable[AuthRecord], user: str, groups: Iterable[str], objtype: str,
              name: str) -> frozenset[str]:
    """The authorities ``user`` (a member of ``groups``) has on object ``name``."""
    entities = {("principal", user), *(("group", g) for g in groups)}
    best: dict[tuple[str, str], AuthRecord] = {}
    for r in records:
        ent = (r.entity_type, r.entity)
        if r.objtype != objtype or ent not in entities or not profile_matches(r.profile, name):
            continue
        held = best.get(ent)
        if held is None or profile_key(r.profile) > profile_key(held.profile):
            best[ent] = r
    out: set[str] = set()
    for r in best.values():
        out |= r.auths
    return frozenset(out)


_OPEN_NEEDS = (
    (CMQC.MQOO_INPUT_AS_Q_DEF | CMQC.MQOO_INPUT_SHARED | CMQC.MQOO_INPUT_EXCLUSIVE, "get"),
    (CMQC.MQOO_BROWSE, "browse"),
    (CMQC.MQOO_OUTPUT, "put"),
    (CMQC.MQOO_INQUIRE, "inq"),
    (CMQC.MQOO_SET, "set"),
    (CMQC.MQOO_PASS_IDENTITY_CONTEXT, "passid"),
    (CMQC.MQOO_PASS_ALL_CONTEXT, "passall"),
    (CMQC.MQOO_SET_IDENTITY_CONTEXT, "setid"),
    (CMQC.MQOO_SET_ALL_CONTEXT, "setall"),
)


#: open options that need an authority on the queue manager as well as (or instead of) on
#: the object: alternate-user authority, and setting context (module docstring).
_QMGR_NEEDS = ((CMQC.MQOO_ALTERNATE_USER_AUTHORITY, "altusr"),
               (CMQC.MQOO_SET_IDENTITY_CONTEXT, "setid"),
               (CMQC.MQOO_SET_ALL_CONTEXT, "setall"))


def open_requirements(options: int) -> tuple[frozenset[str], frozenset[str]]:
    """MQOO_* options -> (authorities needed on the object, on the queue manager)."""
    obj = frozenset(a for bits, a in _OPEN_NEEDS if options & bits)
    qmgr = frozenset(a for bits, a in _QMGR_NEEDS if options & bits)
    return obj, qmgr


#: the authorities of the context open options: never delegated to an alternate user.
CONTEXT_AUTHORITIES = frozenset({"passid", "passall", "setid", "setall"})


def open_checks(user: str, options: int, alternate_user: str | None = None
                ) -> list[tuple[str, str, frozenset[str]]]:
    """Who must hold what for an MQOPEN with ``options``: ``(entity, "object"|"qmgr",
    authorities)`` triples, the alternate user (``alternate_user``, given when the open asked
    for alternate-user authority) taking the access options (module docstring)."""
    on_obj, on_qmgr = open_requirements(options)
    if not options & CMQC.MQOO_ALTERNATE_USER_AUTHORITY or alternate_user is None:
        return [(user, "object", on_obj), (user, "qmgr", on_qmgr)]
    return [(user, "qmgr", on_qmgr), (user, "object", on_obj & CONTEXT_AUTHORITIES),
            (alternate_user, "object", on_obj - CONTEXT_AUTHORITIES)]


def format_dmpmqaut(records: Iterable[AuthRecord]) -> str:
    """dmpmqaut's report: one block a record, as IBM lays it out (profile, object type,
    entity, entity type, authority), each block ended by a dashed line."""
    blocks = []
    for r in records:
        listed = [a for a in AUTHORITIES if a in r.auths]
        blocks.append("\n".join([
            f"profile:     {r.profile}", f"object type: {r.objtype}", f"entity:      {r.entity}",
            f"entity type: {r.entity_type}", f"authority:   {' '.join(listed) or 'none'}",
            "- - - - - - - - - ",
        ]))
    return "\n".join(blocks)


def format_dspmqaut(entity: str, name: str, auths: Iterable[str], *,
                    entity_type: str = "principal") -> str:
    """dspmqaut's report: ``Entity alice has the following authorizations for object Q1:``."""
    have = set(auths)
    lines = [f"Entity {entity} has the following authorizations for object {name}:"]
    listed = [a for a in AUTHORITIES if a in have]
    lines += [f"\t{a}" for a in listed] or ["\tnone"]
    return "\n".join(lines)
