"""Channel authentication records (SET / DISPLAY CHLAUTH) and their evaluation: pure code.

Owns the record type, IBM's matching rules and the decision an inbound channel gets. It
never reads files, the engine or a socket: :mod:`mqpy.security.policy` stores the records as engine
objects and the SVRCONN / receiving MCAs call :func:`evaluate` with what the partner sent.

Theory of operation (IBM MQ "Channel authentication records"; [M] from IBM's documentation as
remembered, [inf] where mqpy had to choose):

1. **BLOCKADDR** is checked first, before the channel name is known (IBM checks it in the
   listener): an address in any ADDRLIST is refused, AMQ9782E (id [M]), reason qualifier
   MQRQ_CHANNEL_BLOCKED_ADDRESS.
2. **Mapping records** (SSLPEERMAP, USERMAP, QMGRMAP, ADDRESSMAP) whose channel profile
   matches the channel name and whose identity matches the partner are ranked, and only the
   best one is used. Ranking, most significant first:
   a. the channel profile: an exact name beats any generic one; between generic profiles,
      compared left to right, a plain character beats an asterisk (``SYSTEM.ADMIN.SVRCONN`` >
      ``SYSTEM.*`` > ``*``) [M];
   b. the identity type: SSLPEERMAP, then USERMAP (SVRCONN: a client user id was flowed) or
      QMGRMAP (other channels: a partner queue manager name was flowed), then ADDRESSMAP
      [M];
   c. the identity value: more DN attributes for SSLPEER (and an SSLCERTI), a less generic
      CLNTUSER / QMNAME [inf];
   d. a record that also names an ADDRESS beats one that does not; then the more specific
      address (per part, left to right: a single value beats a range, a narrower range
      beats a wider one, both beat ``*``) [M, per-part order inf].
   USERSRC(NOACCESS) refuses the channel (AMQ9777E, MQRQ_CHANNEL_BLOCKED_NOACCESS);
   USERSRC(MAP) runs it as the record's MCAUSER; USERSRC(CHANNEL), like no record at all,
   runs it as the channel's MCAUSER, or when that is blank the flowed client user id, or
   else the channel initiator's own user.
3. **BLOCKUSER**: of the BLOCKUSER records whose profile matches the channel, only the most
   specific applies (so ``SET CHLAUTH('MY.SVRCONN') TYPE(BLOCKUSER) USERLIST('nobody')``
   overrides the default ``*MQADMIN`` rule for that channel). If the user the channel would
   run as is in its USERLIST, or the list has ``*MQADMIN`` and the user is privileged, the
   channel is refused: AMQ9776E ([C], mqpy.amqmsgs), MQRQ_CHANNEL_BLOCKED_USERID [M].
4. A refusing record with WARN(YES) lets the channel in; the decision says it would have been
   blocked (``warning``), for an MQRC_CHANNEL_BLOCKED_WARNING event and an error-log entry.

Generic IP addresses follow IBM's rules: parts separated by ``.`` (IPv4) or ``:`` (IPv6),
each a number, a range ``lo-hi`` or ``*``; an asterisk stands for one or more whole parts.
An ADDRESS that is not an IP pattern is a host name pattern (``*`` anywhere, any case).
"""

from __future__ import annotations

import hashlib
import ipaddress
import re
from collections.abc import Callable, Iterable, Mapping, Sequence

import attrs

from mqpy import CMQC, CMQCFC, wildcards
from mqpy.errors import MQMIError

__all__ = [
    "ADMIN_USERS",
    "DEFAULT_RULES",
    "TYPES",
    "ChlauthRecord",
    "Decision",
    "address_matches",
    "apply_set",
    "display",
    "dn_matches",
    "evaluate",
    "generic_matches",
    "runcheck_line",
]

TYPES = ("BLOCKUSER", "BLOCKADDR", "SSLPEERMAP", "ADDRESSMAP", "USERMAP", "QMGRMAP")
MAPPING_TYPES = ("SSLPEERMAP", "ADDRESSMAP", "USERMAP", "QMGRMAP")
USERSRC = ("MAP", "NOACCESS", "CHANNEL")
#: the USERLIST word for "every privileged (mqm-group) user" on this platform.
ADMIN_USERS = "*MQADMIN"
_TYPE_RANK = {"SSLPEERMAP": 3, "USERMAP": 2, "QMGRMAP": 2, "ADDRESSMAP": 1}

# Message ids of the decisions: [C] AMQ9783I (public scripts that check DISPLAY CHLAUTH
# MATCH(RUNCHECK) output for it), AMQ9776E and AMQ9777E (see mqpy.amqmsgs); [M] AMQ9782E,
# not found in public material.
AMQ9776E = "AMQ9776E"  # Channel was blocked by userid
AMQ9777E = "AMQ9777E"  # Channel was blocked
AMQ9782E = "AMQ9782E"  # Remote connection blocked (BLOCKADDR)
AMQ9783I = "AMQ9783I"  # Channel will run using MCAUSER('...')


def _fail(reason: int) -> MQMIError:
    return MQMIError(CMQC.MQCC_FAILED, reason)


# ------------------------------------------------------------------ records


@attrs.frozen(slots=True)
class ChlauthRecord:
    """One channel authentication record, with the attributes of SET CHLAUTH."""

    profile: str
    type: str
    address: str = ""
    addrlist: tuple[str, ...] = ()
    userlist: tuple[str, ...] = ()
    clntuser: str = ""
    qmname: str = ""
    sslpeer: str = ""
    sslcerti: str = ""
    usersrc: str = "MAP"
    mcauser: str = ""
    chckclnt: str = "ASQMGR"
    warn: bool = False
    descr: str = ""
    altdate: str = ""
    alttime: str = ""

    @property
    def key(self) -> tuple[str, ...]:
        """What makes two records the same record (ACTION(ADD) fails on a duplicate)."""
        t = self.type
        if t == "BLOCKUSER":
            return (self.profile, t)
        if t == "BLOCKADDR":
            return ("*", t)
        if t == "ADDRESSMAP":
            return (self.profile, t, self.address)
        if t == "USERMAP":
            return (self.profile, t, self.clntuser, self.address)
        if t == "QMGRMAP":
            return (self.profile, t, self.qmname, self.address)
        return (self.profile, t, _norm_dn(self.sslpeer), _norm_dn(self.sslcerti), self.address)

    @property
    def object_name(self) -> str:
        """A stable engine-object name (48 characters at most) for this record's key."""
        return "CA." + hashlib.sha1("\0".join(self.key).encode()).hexdigest()[:40]

    def attributes(self) -> dict[str, object]:
        """MQSC keyword -> value, as DISPLAY CHLAUTH shows them (and as they are stored)."""
        out: dict[str, object] = {"CHLAUTH": self.profile, "TYPE": self.type}
        if self.type == "BLOCKUSER":
            out["USERLIST"] = list(self.userlist)
        elif self.type == "BLOCKADDR":
            out["ADDRLIST"] = list(self.addrlist)
        else:
            if self.type == "SSLPEERMAP":
                out["SSLPEER"] = self.sslpeer
                out["SSLCERTI"] = self.sslcerti
            elif self.type == "USERMAP":
                out["CLNTUSER"] = self.clntuser
            elif self.type == "QMGRMAP":
                out["QMNAME"] = self.qmname
            out["ADDRESS"] = self.address
            out["USERSRC"] = self.usersrc
            out["MCAUSER"] = self.mcauser
            if self.type in ("SSLPEERMAP", "USERMAP", "ADDRESSMAP"):
                out["CHCKCLNT"] = self.chckclnt
        out["DESCR"] = self.descr
        out["WARN"] = "YES" if self.warn else "NO"
        out["ALTDATE"] = self.altdate
        out["ALTTIME"] = self.alttime
        return out

    @classmethod
    def from_attributes(cls, a: Mapping[str, object]) -> ChlauthRecord:
        def s(k: str, default: str = "") -> str:
            return str(a.get(k, default) or default)

        def lst(k: str) -> tuple[str, ...]:
            v = a.get(k) or ()
            return tuple(str(x) for x in (v if isinstance(v, (list, tuple)) else [v]))

        return cls(profile=s("CHLAUTH"), type=s("TYPE"), address=s("ADDRESS"),
                   addrlist=lst("ADDRLIST"), userlist=lst("USERLIST"), clntuser=s("CLNTUSER"),
                   qmname=s("QMNAME"), sslpeer=s("SSLPEER"), sslcerti=s("SSLCERTI"),
                   usersrc=s("USERSRC", "MAP"), mcauser=s("MCAUSER"),
                   chckclnt=s("CHCKCLNT", "ASQMGR"), warn=s("WARN", "NO") == "YES",
                   descr=s("DESCR"), altdate=s("ALTDATE"), alttime=s("ALTTIME"))


#: The records crtmqm creates (IBM MQ 7.1 and later), with IBM's descriptions.
DEFAULT_RULES: tuple[ChlauthRecord, ...] = (
    ChlauthRecord("SYSTEM.ADMIN.SVRCONN", "ADDRESSMAP", address="*", usersrc="CHANNEL",
                  descr="Default rule to allow MQ Explorer access"),
    ChlauthRecord("SYSTEM.*", "ADDRESSMAP", address="*", usersrc="NOACCESS",
                  descr="Default rule to disable all SYSTEM channels"),
    ChlauthRecord("*", "BLOCKUSER", userlist=(ADMIN_USERS,),
                  descr="Default rule to disallow privileged users"),
)


# ------------------------------------------------------------------ generic names


def generic_matches(pattern: str, name: str, *, ignore_case: bool = False) -> bool:
    """A CHLAUTH generic name: ``*`` anywhere stands for any characters, none included.
    Matched piece by piece (``mqpy.wildcards``), in time bounded by the lengths: the name is
    a peer's (its channel, queue manager or user name), which a regular expression of
    ``.*`` runs would backtrack over for minutes against a pattern of a dozen ``*``."""
    if ignore_case:
        pattern, name = pattern.lower(), name.lower()
    if "*" not in pattern:
        return pattern == name
    return wildcards.matcher([(re.escape(piece), len(piece))
                              for piece in pattern.split("*")])(name)


def _generic_key(pattern: str) -> tuple[int, tuple[int, ...]]:
    """Bigger is more specific: an exact name first, then plain characters leftmost."""
    return ("*" not in pattern, tuple(0 if c == "*" else 1 for c in pattern))


# ------------------------------------------------------------------ IP addresses


@attrs.frozen(slots=True)
class _Part:
    lo: int
    hi: int
    star: bool = False


def _parse_pattern(pattern: str) -> tuple[str, list[_Part]] | None:
    """``("4"|"6", parts)`` for an IP address pattern; None for a host-name pattern."""
    p = pattern.strip()
    if p == "*":
        return ("*", [_Part(0, 0, True)])
    if re.fullmatch(r"[0-9*.\-]+", p) and "." in p:
        sep, base, family = ".", 10, "4"
    elif ":" in p and re.fullmatch(r"[0-9A-Fa-f*:\-]+", p):
        sep, base, family = ":", 16, "6"
        if "::" in p:
            if "*" in p or "-" in p:
                raise _fail(CMQCFC.MQRCCF_IPADDR_ERROR)
            try:
                p = ipaddress.IPv6Address(p).exploded
            except ValueError:
                raise _fail(CMQCFC.MQRCCF_IPADDR_ERROR) from None
    else:
        return None
    parts: list[_Part] = []
    limit = 255 if family == "4" else 0xFFFF
    for text in p.split(sep):
        try:
            if text == "*":
                if parts and parts[-1].star:
                    raise ValueError("adjacent asterisks")
                parts.append(_Part(0, limit, True))
            elif "-" in text:
                lo_s, hi_s = text.split("-")
                lo, hi = int(lo_s, base), int(hi_s, base)
                if not 0 <= lo <= limit or not 0 <= hi <= limit:
                    raise ValueError(text)
                if lo >= hi:  # IBM: the smaller number must be below the larger
                    raise _fail(CMQCFC.MQRCCF_IPADDR_RANGE_ERROR)
                parts.append(_Part(lo, hi))
            else:
                v = int(text, base)
                if not 0 <= v <= limit:
                    raise ValueError(text)
                parts.append(_Part(v, v))
        except ValueError:
            raise _fail(CMQCFC.MQRCCF_IPADDR_ERROR) from None
    want = 4 if family == "4" else 8
    if len(parts) > want or (len(parts) < want and not any(x.star for x in parts)):
        raise _fail(CMQCFC.MQRCCF_IPADDR_ERROR)
    return (family, parts)


#: a host-name pattern: labels of letters, digits, ``-`` and ``_``, ``*`` anywhere
_HOST_PATTERN = re.compile(r"[A-Za-z0-9_*-]+(\.[A-Za-z0-9_*-]+)*\.?")


def validate_address(pattern: str) -> None:
    """Raise MQRCCF_IPADDR_ERROR (3345) for an IP pattern IBM would refuse, or a host-name
    pattern with characters no host name has, and MQRCCF_IPADDR_RANGE_ERROR (3346) for a
    range whose first number is not below its last; the error's ``address`` is ``pattern``."""
    try:
        if _parse_pattern(pattern) is None and not _HOST_PATTERN.fullmatch(pattern.strip()):
            raise _fail(CMQCFC.MQRCCF_IPADDR_ERROR)
    except MQMIError as err:
        raise MQMIError(err.comp, err.reason, address=pattern) from None


def _address_parts(address: str) -> tuple[str, list[int]] | None:
    # a link-local peer comes with its zone ('fe80::1%eth0'): the zone is no part of the
    # address a pattern names, and ipaddress would keep it in ``exploded``
    text = address.strip().strip("[]").split("%", 1)[0]
    try:
        ip = ipaddress.ip_address(text)
    except ValueError:
        return None
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
        ip = ip.ipv4_mapped  # IBM recognises IPv4-mapped IPv6 addresses
    if isinstance(ip, ipaddress.IPv4Address):
        return ("4", [int(x) for x in str(ip).split(".")])
    return ("6", [int(x, 16) for x in ip.exploded.split(":")])


def _match_parts(pat: Sequence[_Part], addr: Sequence[int]) -> bool:
    if not pat:
        return not addr
    head = pat[0]
    if head.star:  # one or more whole parts
        return any(_match_parts(pat[1:], addr[n:]) for n in range(1, len(addr) + 1))
    return bool(addr) and head.lo <= addr[0] <= head.hi and _match_parts(pat[1:], addr[1:])


def address_matches(pattern: str, address: str) -> bool:
    """Does the partner's ``address`` (an IP address or host name) match ``pattern``?"""
    if not pattern:
        return True
    parsed = _parse_pattern(pattern)
    if parsed is None:
        return generic_matches(pattern, address, ignore_case=True)
    family, parts = parsed
    if family == "*":
        return True
    addr = _address_parts(address)
    if addr is None or addr[0] != family:
        return False
    return _match_parts(parts, addr[1])


def _address_key(pattern: str) -> tuple:
    """Bigger is more specific (see the module docstring, rule 2d)."""
    if not pattern:
        return (0,)
    parsed = _parse_pattern(pattern)
    if parsed is None:
        return (1, _generic_key(pattern))
    _family, parts = parsed
    per_part = tuple((0, 0) if x.star else (1, x.lo - x.hi) if x.lo != x.hi else (2, 0)
                     for x in parts)
    return (1, per_part)


# ------------------------------------------------------------------ SSL peer names


def _norm_dn(dn: str) -> str:
    return ",".join(f"{k}={v}" for k, v in (parse_dn(dn) or []))


_DN_KEY = re.compile(r"[A-Za-z][A-Za-z0-9-]*|[0-9]+(?:\.[0-9]+)*")  # a name or an OID
_DN_SEPARATORS = ",;+"
_HEX2 = re.compile(r"[0-9A-Fa-f]{2}")


def _dn_value(text: str, i: int) -> tuple[str, int] | None:
    """One attribute value from ``text[i:]`` up to an unescaped separator: ``"quoted"``, or
    with ``\\c`` / ``\\hh`` escapes; unescaped blanks around it dropped. (value, index of
    the separator or the end), or None if malformed."""
    n = len(text)
    while i < n and text[i] == " ":
        i += 1
    if i < n and text[i] == '"':
        out: list[str] = []
        i += 1
        while i < n and text[i] != '"':
            if text[i] == "\\":
                if i + 1 >= n:
                    return None
                i += 1
            out.append(text[i])
            i += 1
        if i >= n:
            return None  # unterminated quotes
        i += 1
        while i < n and text[i] == " ":
            i += 1
        if i < n and text[i] not in _DN_SEPARATORS:
            return None
        return "".join(out), i
    chars: list[tuple[str, bool]] = []  # (character, escaped)
    raw = bytearray()  # a run of \hh pairs: UTF-8 bytes

    def flush() -> None:
        if raw:
            chars.extend((c, True) for c in raw.decode("utf-8", "replace"))
            raw.clear()

    while i < n and text[i] not in _DN_SEPARATORS:
        c = text[i]
        if c == "\\":
            if i + 1 >= n:
                return None  # a trailing backslash escapes nothing
            if _HEX2.fullmatch(text[i + 1:i + 3]):
                raw.append(int(text[i + 1:i + 3], 16))
                i += 3
                continue
            flush()
            chars.append((text[i + 1], True))
            i += 2
            continue
        flush()
        chars.append((c, False))
        i += 1
    flush()
    while chars and chars[-1] == (" ", False):
        chars.pop()
    return "".join(c for c, _ in chars), i


def parse_dn(text: str) -> list[tuple[str, str]] | None:
    """A distinguished name or SSLPEER pattern as its (attribute, value) pairs, both upper
    case (IBM compares DNs case-blind): ``'CN=a, O=b'`` -> ``[('CN', 'A'), ('O', 'B')]``.

    Attributes are separated by unescaped ``,`` ``;`` or ``+`` (RFC 4514 with IBM's ``;``);
    a value may be quoted or hold ``\\,``-style and ``\\2C``-style escapes, so a separator
    inside a value never starts a new attribute. None if malformed: empty, an attribute
    without ``=``, a key that is no attribute type, a dangling escape or quote."""
    pairs: list[tuple[str, str]] = []
    i, n = 0, len(text)
    if not text.strip():
        return None
    while True:
        eq = text.find("=", i)
        if eq < 0:
            return None
        key = text[i:eq].strip()
        if not _DN_KEY.fullmatch(key):
            return None
        got = _dn_value(text, eq + 1)
        if got is None:
            return None
        value, i = got
        pairs.append((key.upper(), value.upper()))
        if i >= n:
            return pairs
        i += 1  # past the separator
        if not text[i:].strip():
            return None  # a separator with nothing after it


def escape_dn_value(value: str) -> str:
    """RFC 4514 escaping of one attribute value, for DN strings built from certificates."""
    out = []
    last = len(value) - 1
    for i, c in enumerate(value):
        if ord(c) < 0x20:
            out.append(f"\\{ord(c):02X}")
        elif c in ',;+"\\<>=' or (i == 0 and c in " #") or (i == last and c == " "):
            out.append("\\" + c)
        else:
            out.append(c)
    return "".join(out)


def valid_dn_pattern(pattern: str) -> bool:
    """Is ``pattern`` a usable SSLPEER / SSLCERTI value (checked when it is entered, as IBM
    does on distributed platforms): it parses, and ``*`` appears only at a value's ends."""
    pairs = parse_dn(pattern)
    return pairs is not None and all("*" not in v.strip("*") for _, v in pairs)


def _dn_matches(pattern: str, dn: str) -> bool:
    """Every attribute the pattern names is in the DN (values may start or end with ``*``).
    A malformed pattern or DN matches nothing."""
    have, want = parse_dn(dn), parse_dn(pattern)
    if have is None or want is None:
        return False
    used: set[int] = set()
    for k, v in want:
        for i, (hk, hv) in enumerate(have):
            if i not in used and hk == k and generic_matches(v, hv):
                used.add(i)
                break
        else:
            return False
    return True


def dn_matches(pattern: str, dn: str) -> bool:
    """IBM's SSLPEER / SSLPEERMAP matching of a certificate DN (``CN=a*, O=b``); ``dn`` is
    an escaped DN string (``mqpy.fap.tls.peer_dn``)."""
    return _dn_matches(pattern, dn)


def _dn_key(pattern: str) -> tuple[int, int]:
    pairs = parse_dn(pattern) or []
    return (len(pairs), sum(1 for _, v in pairs if "*" not in v))


# ------------------------------------------------------------------ SET CHLAUTH


def _validate(rec: ChlauthRecord) -> None:
    t = rec.type
    if t not in TYPES:
        raise _fail(CMQCFC.MQRCCF_CHLAUTH_TYPE_ERROR)
    if not rec.profile:
        raise _fail(CMQCFC.MQRCCF_PROFILE_NAME_MISSING)
    if t == "BLOCKADDR" and rec.profile != "*":
        raise _fail(CMQCFC.MQRCCF_CHLAUTH_NAME_ERROR)
    if rec.usersrc not in USERSRC:
        raise _fail(CMQCFC.MQRCCF_CHLAUTH_USERSRC_ERROR)
    if t in MAPPING_TYPES and rec.usersrc == "MAP" and not rec.mcauser:
        raise _fail(CMQCFC.MQRCCF_PARM_MISSING)  # USERSRC(MAP) needs an MCAUSER
    if t == "ADDRESSMAP" and not rec.address:
        raise _fail(CMQCFC.MQRCCF_PARM_MISSING)
    if t == "USERMAP" and not rec.clntuser:
        raise _fail(CMQCFC.MQRCCF_PARM_MISSING)
    if t == "QMGRMAP" and not rec.qmname:
        raise _fail(CMQCFC.MQRCCF_PARM_MISSING)
    if t == "SSLPEERMAP" and not rec.sslpeer:
        raise _fail(CMQCFC.MQRCCF_PARM_MISSING)
    for dn in (rec.sslpeer, rec.sslcerti):
        if dn and not valid_dn_pattern(dn):
            raise _fail(CMQCFC.MQRCCF_SSL_PEER_NAME_ERROR)
    for a in (rec.address, *rec.addrlist):
        if a:
            validate_address(a)


_MAP_ONLY = ("ADDRESS", "USERSRC", "MCAUSER", "CHCKCLNT")
_ALLOWED: dict[str, frozenset[str]] = {
    "BLOCKUSER": frozenset({"USERLIST"}),
    "BLOCKADDR": frozenset({"ADDRLIST"}),
    "ADDRESSMAP": frozenset(_MAP_ONLY),
    "USERMAP": frozenset({*_MAP_ONLY, "CLNTUSER"}),
    "QMGRMAP": frozenset({*_MAP_ONLY, "QMNAME"}) - {"CHCKCLNT"},
    "SSLPEERMAP": frozenset({*_MAP_ONLY, "SSLPEER", "SSLCERTI"}),
}
_COMMON = frozenset({"TYPE", "ACTION", "DESCR", "WARN", "CUSTOM", "CMDSCOPE"})


def apply_set(records: Iterable[ChlauthRecord], profile: str, params: Mapping[str, object],
              *, date: str = "", time: str = ""
              ) -> tuple[list[ChlauthRecord], list[ChlauthRecord]]:
    """SET CHLAUTH(profile) with MQSC ``params``: ``(records to store, records to delete)``.

    IBM's actions: ADD (default) creates a mapping record and fails if it exists; for
    BLOCKUSER / BLOCKADDR it adds the names to the record's list. REPLACE creates or
    replaces. REMOVE deletes a mapping record, or takes names out of a list (the record goes
    when its list is empty). REMOVEALL deletes every record of the TYPE for the profile.
    Errors are MQMIError with MQRCCF_* reasons.
    """
    t = str(params.get("TYPE", ""))
    if t not in TYPES:
        raise _fail(CMQCFC.MQRCCF_CHLAUTH_TYPE_ERROR)
    action = str(params.get("ACTION", "ADD"))
    if action not in ("ADD", "REPLACE", "REMOVE", "REMOVEALL"):
        raise _fail(CMQCFC.MQRCCF_CHLAUTH_ACTION_ERROR)
    extra = set(params) - _COMMON - _ALLOWED[t]
    if extra:
        raise _fail(CMQCFC.MQRCCF_WRONG_CHLAUTH_TYPE)
    existing = {r.key: r for r in records}
    if action == "REMOVEALL":
        gone = [r for r in existing.values() if r.profile == profile and r.type == t]
        if t == "BLOCKADDR" and profile != "*":
            raise _fail(CMQCFC.MQRCCF_CHLAUTH_NAME_ERROR)
        return [], gone

    def lst(k: str) -> tuple[str, ...]:
        v = params.get(k, ())
        return tuple(str(x) for x in (v if isinstance(v, (list, tuple)) else [v]) if str(x))

    rec = ChlauthRecord(
        profile=profile, type=t, address=str(params.get("ADDRESS", "") or ""),
        addrlist=lst("ADDRLIST"), userlist=lst("USERLIST"),
        clntuser=str(params.get("CLNTUSER", "") or ""), qmname=str(params.get("QMNAME", "")
                                                                  or ""),
        sslpeer=str(params.get("SSLPEER", "") or ""),
        sslcerti=str(params.get("SSLCERTI", "") or ""),
        usersrc=str(params.get("USERSRC", "MAP")), mcauser=str(params.get("MCAUSER", "") or ""),
        chckclnt=str(params.get("CHCKCLNT", "ASQMGR")), warn=params.get("WARN") == "YES",
        descr=str(params.get("DESCR", "") or ""), altdate=date, alttime=time)
    if t in ("BLOCKUSER", "BLOCKADDR") and action in ("ADD", "REPLACE"):
        if not (rec.userlist if t == "BLOCKUSER" else rec.addrlist):
            raise _fail(CMQCFC.MQRCCF_PARM_MISSING)
    old = existing.get(rec.key)
    if t in ("BLOCKUSER", "BLOCKADDR"):
        field = "userlist" if t == "BLOCKUSER" else "addrlist"
        names: tuple[str, ...] = getattr(rec, field)
        current: tuple[str, ...] = getattr(old, field) if old is not None else ()
        if action == "ADD":
            merged = current + tuple(n for n in names if n not in current)
        elif action == "REPLACE":
            merged = names
        else:  # REMOVE
            if old is None:
                raise _fail(CMQCFC.MQRCCF_CHLAUTH_NOT_FOUND)
            merged = tuple(n for n in current if n not in names) if names else ()
            if not merged:
                return [], [old]
        keep = old if old is not None and action == "REMOVE" else rec
        new = attrs.evolve(keep, **{field: merged}, altdate=date, alttime=time)
        if action != "REMOVE" and old is not None and "DESCR" not in params:
            new = attrs.evolve(new, descr=old.descr)
        _validate(new)
        return [new], []
    if action == "REMOVE":
        if old is None:
            raise _fail(CMQCFC.MQRCCF_CHLAUTH_NOT_FOUND)
        return [], [old]
    if action == "ADD" and old is not None:
        raise _fail(CMQCFC.MQRCCF_CHLAUTH_ALREADY_EXISTS)
    _validate(rec)
    return [rec], []


def display(records: Iterable[ChlauthRecord], profile: str, *, type: str = "ALL",
            match: str = "GENERIC") -> list[ChlauthRecord]:
    """DISPLAY CHLAUTH(profile) TYPE(..) MATCH(GENERIC|EXACT|ALL), in profile order.

    GENERIC: records whose profile the (possibly generic) name matches; EXACT: the record
    profile is exactly the name; ALL: every record that would apply to channel ``profile``.
    """
    out = []
    for r in records:
        if type not in ("ALL", r.type):
            continue
        if match == "EXACT":
            ok = r.profile == profile
        elif match == "ALL":
            ok = generic_matches(r.profile, profile)
        else:
            ok = generic_matches(profile, r.profile)
        if ok:
            out.append(r)
    return sorted(out, key=lambda r: (r.profile, TYPES.index(r.type), r.key))


# ------------------------------------------------------------------ evaluation


@attrs.frozen(slots=True)
class Decision:
    """What an inbound channel gets: run (as ``user``) or be refused with ``msgid``."""

    allowed: bool
    user: str
    msgid: str
    text: str
    reason_qualifier: int = 0  # MQRQ_CHANNEL_BLOCKED_* when refused (or warned)
    warning: bool = False  # a WARN(YES) record would have refused it
    record: ChlauthRecord | None = None  # the record that decided
    adopted: bool = False  # the user came from an MQCSP (ADOPTCTX): it must be authenticated

    @property
    def user_to_run_as(self) -> str:
        return self.user


def _active_values(channel: str, address: str, client_user: str | None,
                   remote_qmgr: str | None, ssl_peer: str | None, user: str | None) -> str:
    vals = []
    if ssl_peer:
        vals.append(f"SSLPEER({ssl_peer})")
    if client_user is not None:
        vals.append(f"CLNTUSER({client_user})")
    if remote_qmgr is not None:
        vals.append(f"QMNAME({remote_qmgr})")
    if user is not None:
        vals.append(f"MCAUSER({user})")
    vals.append(f"ADDRESS({address})")
    return " ".join(vals)


def _mapping_matches(r: ChlauthRecord, channel: str, address: str, client_user: str | None,
                     remote_qmgr: str | None, ssl_peer: str | None, ssl_issuer: str | None
                     ) -> bool:
    if r.type not in MAPPING_TYPES or not generic_matches(r.profile, channel):
        return False
    if r.address and not address_matches(r.address, address):
        return False
    if r.type == "USERMAP":
        return client_user is not None and generic_matches(r.clntuser, client_user)
    if r.type == "QMGRMAP":
        return remote_qmgr is not None and generic_matches(r.qmname, remote_qmgr)
    if r.type == "SSLPEERMAP":
        if ssl_peer is None or not _dn_matches(r.sslpeer, ssl_peer):
            return False
        return not r.sslcerti or (ssl_issuer is not None and _dn_matches(r.sslcerti,
                                                                          ssl_issuer))
    return True  # ADDRESSMAP: its address matched


def _mapping_key(r: ChlauthRecord) -> tuple:
    if r.type == "SSLPEERMAP":
        ident: tuple = (_dn_key(r.sslpeer), bool(r.sslcerti))
    elif r.type == "USERMAP":
        ident = _generic_key(r.clntuser)
    elif r.type == "QMGRMAP":
        ident = _generic_key(r.qmname)
    else:
        ident = ()
    return (_generic_key(r.profile), _TYPE_RANK[r.type], ident, bool(r.address),
            _address_key(r.address))


def evaluate(rules: Iterable[ChlauthRecord], channel: str, address: str,
             client_user: str | None = None, remote_qmgr: str | None = None,
             ssl_peer: str | None = None, mcauser: str = "", *,
             ssl_issuer: str | None = None, default_user: str = "",
             is_admin: Callable[[str], bool] = lambda user: False,
             adopted: bool = False) -> Decision:
    """Decide whether an inbound channel may start, and as whom it runs.

    ``client_user`` is the user id a client flowed on a SVRCONN channel (None for a channel
    from a queue manager); ``remote_qmgr`` the partner queue manager's name (None for a
    client); ``mcauser`` the channel definition's MCAUSER; ``default_user`` the channel
    initiator's own user, used when nothing else names one; ``is_admin`` says whether a
    user is privileged (``*MQADMIN``); ``adopted``: ``client_user`` is an MQCSP user that
    ADOPTCTX(YES) adopts, which IBM ranks above the channel's MCAUSER (and below
    USERSRC(MAP)). BLOCKUSER judges the final user.
    """
    rules = list(rules)
    warned: tuple[str, int, ChlauthRecord] | None = None

    def values(user: str | None) -> str:
        return _active_values(channel, address, client_user, remote_qmgr, ssl_peer, user)

    # 1. BLOCKADDR, before anything else is known.
    for r in rules:
        if r.type == "BLOCKADDR" and any(address_matches(a, address) for a in r.addrlist):
            text = (f"The connection from address '{address}' was blocked because the address "
                    f"matched a channel authentication record of TYPE(BLOCKADDR).")
            if not r.warn:
                return Decision(False, "", AMQ9782E, text,
                                CMQCFC.MQRQ_CHANNEL_BLOCKED_ADDRESS, record=r)
            warned = (AMQ9782E, CMQCFC.MQRQ_CHANNEL_BLOCKED_ADDRESS, r)
            break

    # 2. The best mapping record.
    candidates = [r for r in rules if _mapping_matches(r, channel, address, client_user,
                                                        remote_qmgr, ssl_peer, ssl_issuer)]
    best = max(candidates, key=_mapping_key) if candidates else None
    flowed = (client_user if adopted else None) or mcauser or client_user or default_user
    user = flowed
    if best is not None:
        if best.usersrc == "NOACCESS":
            text = (f"The inbound channel '{channel}' was blocked from address '{address}' "
                    f"because the active values of the channel matched a record configured "
                    f"with USERSRC(NOACCESS). The active values of the channel were "
                    f"'{values(None)}'.")
            if not best.warn:
                return Decision(False, "", AMQ9777E, text,
                                CMQCFC.MQRQ_CHANNEL_BLOCKED_NOACCESS, record=best)
            warned = warned or (AMQ9777E, CMQCFC.MQRQ_CHANNEL_BLOCKED_NOACCESS, best)
        elif best.usersrc == "MAP":
            user = best.mcauser

    # 3. BLOCKUSER: only the most specific profile's list applies.
    blockers = [r for r in rules if r.type == "BLOCKUSER" and generic_matches(r.profile,
                                                                                channel)]
    if blockers:
        blk = max(blockers, key=lambda r: _generic_key(r.profile))
        hit = user in blk.userlist or (ADMIN_USERS in blk.userlist and is_admin(user))
        if hit:
            text = (f"The inbound channel '{channel}' was blocked from address '{address}' "
                    f"because the active values of the channel were mapped to a user ID "
                    f"which should be blocked. The active values of the channel were "
                    f"'{values(user)}'.")
            if not blk.warn:
                return Decision(False, "", AMQ9776E, text,
                                CMQCFC.MQRQ_CHANNEL_BLOCKED_USERID, record=blk)
            warned = warned or (AMQ9776E, CMQCFC.MQRQ_CHANNEL_BLOCKED_USERID, blk)

    text = f"Channel will run using MCAUSER('{user}')."
    if warned is not None:
        msgid, rq, rec = warned
        return Decision(True, user, msgid, text, rq, warning=True, record=rec,
                        adopted=adopted)
    return Decision(True, user, AMQ9783I, text, record=best, adopted=adopted)


def runcheck_line(decision: Decision) -> str:
    """The answer of DISPLAY CHLAUTH MATCH(RUNCHECK): ``AMQ9783I: Channel will run ...``."""
    if decision.allowed:
        return f"{AMQ9783I}: Channel will run using MCAUSER('{decision.user}')."
    short = {AMQ9776E: "Channel was blocked by userid", AMQ9777E: "Channel was blocked",
             AMQ9782E: "Remote connection blocked"}[decision.msgid]
    return f"{decision.msgid}: {short}"
