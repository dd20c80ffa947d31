"""dmpmqcfg's core: DISPLAY output in, the MQSC that re-creates the objects out.

Pure functions: the command (``mqpy_cli/dmpmqcfg.py``) sends DISPLAY commands to the command
server and hands the text of each answer here. A DISPLAY answer is read back from runmqsc's
layout (``display.py``): items of ``KEYWORD(value)`` or a bare keyword, two to a line, the
second at column 44. A definition keeps only the keywords its DEFINE (ALTER QMGR, SET
CHLAUTH, SET AUTHREC) accepts, per channel type for channels, and, unless every attribute is
asked for (``-a``), only those that differ from IBM's defaults for the object type, as
dmpmqcfg does. Values are quoted where MQSC wants quotes (names and text).

The items are read back by :func:`mqpy.mqsc.display.parse_items` (its docstring says the one
ambiguity of the text form).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping

import attrs

from mqpy.engine import objects
from mqpy.mqsc import grammar as g
from mqpy.mqsc import mapping
from mqpy.mqsc.display import parse_items
from mqpy.mqsc.writer import quote
from mqpy.security.policy import AUTHINFO_DEFAULTS

#: DISPLAY's name item -> the DEFINE object keyword (queues take theirs from TYPE)
_NAME_ITEMS = {"QUEUE": "QUEUE", "CHANNEL": "CHANNEL", "LISTENER": "LISTENER",
               "NAMELIST": "NAMELIST", "PROCESS": "PROCESS", "STGCLASS": "STGCLASS",
               "AUTHINFO": "AUTHINFO", "CHLAUTH": "CHLAUTH", "SERVICE": "SERVICE",
               "TOPIC": "TOPIC", "SUB": "SUB"}

#: keywords never dumped: stamps, status, and what the object's own keyword already says
_NEVER = {*mapping.STAMPS, "CURDEPTH", "IPPROCS", "OPPROCS", "TYPE", "CHLTYPE",
          "QMNAME", "QMID", "LIKE", "REPLACE", "NOREPLACE", "FORCE", "ACTION", "ALL"}


#: keywords IBM's DEFINE requires even at their default value
_ALWAYS = {"AUTHINFO": ("AUTHTYPE",), "LISTENER": ("TRPTYPE",), "TOPIC": ("TOPICSTR",)}
#: a subscription's defaults, as IBM's SYSTEM.DEFAULT.SUB has them (SUBID is the queue
#: manager's to give: DEFINE SUB does not take it)
_SUB_DEFAULTS = {"DESTCLAS": "PROVIDED", "EXPIRY": "UNLIMITED", "PSPROP": "MSGPROP",
                 "PUBPRTY": "ASPUB", "REQONLY": "NO", "SUBSCOPE": "ALL", "VARUSER": "ANY",
                 "WSCHEMA": "TOPIC", "SUBLEVEL": "1", "SELECTOR": "", "TOPICOBJ": "",
                 "USERDATA": "", "DESTCORL": "", "PUBACCT": "", "PUBAPPID": "", "SUBUSER": "",
                 "DESTQMGR": ""}
_CONNAME_REQUIRED = ("SDR", "RQSTR", "CLNTCONN", "CLUSSDR", "CLUSRCVR")


def parse_display(text: str) -> list[dict[str, str | None]]:
    """Every object in one or more DISPLAY answers (an AMQ message line before each)."""
    objects_: list[dict[str, str | None]] = []
    current: dict[str, str | None] | None = None
    for line in text.splitlines():
        if line.startswith("   ") and line.strip():
            if current is None:
                current = {}
                objects_.append(current)
            current.update(parse_items(line))
        else:
            current = None  # an AMQnnnn line starts the next object
    return objects_


@attrs.frozen
class Definition:
    """One MQSC command of the dump."""

    verb: str  #: DEFINE, ALTER, SET
    objtype: str  #: QLOCAL ... CHANNEL, QMGR, CHLAUTH, AUTHREC
    name: str | None
    items: tuple[tuple[str, str | None], ...]  #: (keyword, MQSC value text or None: a flag)
    ending: str  #: REPLACE, FORCE, ACTION(REPLACE) or ""

    def mqsc(self, one_line: bool = False) -> str:
        head = f"{self.verb} {self.objtype}" + (f"({quote(self.name)})" if self.name is not None
                                                else "")
        parts = [k if v is None else f"{k}({v})" for k, v in self.items]
        if self.ending:
            parts.append(self.ending)
        if one_line:
            return " ".join([head, *parts])
        return " +\n   ".join([head, *parts])


def _value_text(attr: g.Attr | None, value: str) -> str:
    """A DISPLAY value as MQSC input: names and text quoted (each, in a list)."""
    if attr is None or attr.kind in (g.INT, g.ENUM):
        return value if value != "" else quote("")
    if attr.kind == g.LIST:
        return ",".join(quote(v) for v in value.split(",")) if value else quote("")
    return quote(value)


def _same(shown: str | None, default: object) -> bool:
    if isinstance(default, (list, tuple)):
        default = ",".join(str(v) for v in default)
    return (shown or "") == ("" if default is None else str(default))


def _definition(verb: str, objtype: str, name: str | None, shown: Mapping[str, str | None],
                spec: g.CommandSpec, allowed: Iterable[str], defaults: Mapping[str, object],
                every: bool, ending: str, first: tuple[tuple[str, str | None], ...] = (),
                always: tuple[str, ...] = ()) -> Definition:
    allowed = set(allowed)
    items: list[tuple[str, str | None]] = list(first)
    for key in sorted(shown):
        value = shown[key]
        if key in _NEVER:
            continue
        if value is None:  # a flag: TRIGGER / NOTRIGGER ...
            stored = mapping.FLAG_ATTRS.get(key)
            if stored is None or stored[0] not in allowed and key not in allowed:
                continue
            if not every and _same(stored[1], defaults.get(stored[0])):
                continue
            items.append((key, None))
            continue
        if key not in allowed:
            continue
        if not every and key in defaults and _same(value, defaults[key]) \
                and key not in always and not any(key in group for group in spec.required):
            continue  # a default, unless DEFINE must be given it
        items.append((key, _value_text(spec.params.get(key), value)))
    given = {k for k, _ in items}
    items += [(key, "' '") for key in always if key not in given]  # DISPLAY left it out
    return Definition(verb, objtype, name, tuple(items), ending)


def _allowed(spec: g.CommandSpec) -> set[str]:
    return set(spec.params) | set(spec.flags) | {
        mapping.FLAG_ATTRS[f][0] for f in spec.flags if f in mapping.FLAG_ATTRS}


def object_definitions(kind: str, shown: Iterable[Mapping[str, str | None]], *,
                       every: bool = False) -> Iterator[Definition]:
    """DEFINE (ALTER QMGR, SET CHLAUTH) commands for the objects DISPLAY showed. ``kind`` is
    the DISPLAY object keyword (QMGR, QUEUE, CHANNEL, LISTENER, ...)."""
    for obj in shown:
        if kind == "QMGR":
            spec = g.command_spec("ALTER", "QMGR")
            assert spec is not None
            defaults = {**objects.QMGR_DEFAULTS, **mapping.EXTRA_DEFAULTS["QMGR"]}
            yield _definition("ALTER", "QMGR", None, obj, spec, _allowed(spec), defaults,
                              every, "FORCE")
        elif kind == "CHLAUTH":
            spec = g.command_spec("SET", "CHLAUTH")
            assert spec is not None
            name = obj.get("CHLAUTH") or ""
            rule = {k: v for k, v in obj.items() if k != "CHLAUTH"}
            yield _definition("SET", "CHLAUTH", name, rule, spec, _allowed(spec) - {"TYPE"},
                              {}, True, "ACTION(REPLACE)",
                              first=(("TYPE", rule.get("TYPE") or ""),))
        else:
            objtype = (obj.get("TYPE") or "QLOCAL") if kind == "QUEUE" else kind
            name = obj.get(_NAME_ITEMS.get(kind, kind)) or ""
            if objtype == "QLOCAL" and obj.get("DEFTYPE") == "TEMPDYN":
                continue  # a temporary dynamic queue is not a definition
            if objtype == "SUB":
                if obj.get("SUBTYPE") != "ADMIN":
                    continue  # an application's (MQSUB) is not configuration, even durable
                dropped = {"SUBID", "DEST", "DESTQMGR"} if obj.get("DESTCLAS") == "MANAGED" \
                    else {"SUBID"}  # a managed queue is made anew by DEFINE SUB
                obj = {k: v for k, v in obj.items() if k not in dropped}
            spec = g.command_spec("DEFINE", objtype)
            if spec is None:
                continue
            allowed = _allowed(spec)
            first: tuple[tuple[str, str | None], ...] = ()
            always = _ALWAYS.get(objtype, ())
            if kind == "CHANNEL":
                chltype = obj.get("CHLTYPE") or ""
                if chltype in _CONNAME_REQUIRED:
                    always = ("CONNAME",)  # present, even blank: DEFINE requires it
                allowed &= set(g.CHLTYPE_ATTRS.get(chltype, ())) | {
                    f for f in allowed if f in mapping.FLAG_ATTRS}
                defaults: Mapping[str, object] = mapping.channel_defaults(chltype) \
                    if chltype in g.CHLTYPE_ATTRS else {}
                first = (("CHLTYPE", chltype),)
            else:
                defaults = {**objects.DEFAULTS.get(objtype, {}),
                            **mapping.EXTRA_DEFAULTS.get(objtype, {}),
                            **(AUTHINFO_DEFAULTS if objtype == "AUTHINFO" else {}),
                            **(_SUB_DEFAULTS if objtype == "SUB" else {})}
            yield _definition("DEFINE", objtype, name, obj, spec, allowed, defaults, every,
                              "REPLACE", first, always)


def authority_records(shown: Iterable[Mapping[str, str | None]], qmgr: str
                      ) -> Iterator[tuple[Definition, str]]:
    """SET AUTHREC commands and the matching setmqaut lines for DISPLAY AUTHREC's records."""
    for rec in shown:
        objtype = rec.get("OBJTYPE") or ""
        profile = rec.get("PROFILE") or ""
        entity = rec.get("ENTITY") or ""
        group = (rec.get("ENTTYPE") or "") == "GROUP"
        auths = [a for a in (rec.get("AUTHLIST") or "").split(",") if a and a != "NONE"]
        if not auths:
            continue
        items: list[tuple[str, str | None]] = []
        if objtype != "QMGR":
            items.append(("PROFILE", quote(profile)))
        items += [("OBJTYPE", objtype), ("GROUP" if group else "PRINCIPAL", quote(entity)),
                  ("AUTHADD", ",".join(auths))]
        definition = Definition("SET", "AUTHREC", None, tuple(items), "")
        target = f" -n {quote(profile)}" if objtype != "QMGR" else ""
        line = (f"setmqaut -m {qmgr}{target} -t {objtype.lower()} "
                f"{'-g' if group else '-p'} {entity} "
                + " ".join(f"+{a.lower()}" for a in auths))
        yield definition, line
