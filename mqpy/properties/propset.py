"""``PropertySet``: the properties of one message, and MQSETMP / MQINQMP / MQDLTMP on them.

Properties are kept in the order they were set, under their kept names (``names.canonical``);
several may share a name (MQSMPO_APPEND_PROPERTY, or an MQRFH2 repeating an element).

Theory of operation of the property cursor (IBM's MQIMPO / MQSMPO / MQDMPO rules):

1. MQINQMP with MQIMPO_INQ_FIRST returns the first property matching the name (``%`` at the
   end matches any rest) and puts the cursor on it.
2. MQIMPO_INQ_NEXT continues after the cursor while the name is the one the cursor was set
   with; with another name it starts again from the first property (rule 1).
3. MQIMPO_INQ_PROP_UNDER_CURSOR returns the property under the cursor again (its name
   ignored); with no cursor, or when that property was deleted, MQRC_PROPERTY_NOT_AVAILABLE.
4. A property deleted under the cursor leaves the cursor where it was: INQ_NEXT continues with
   the property that followed it.
5. MQRC_PROPERTY_VALUE_TOO_BIG and MQIMPO_QUERY_LENGTH still move the cursor to the property,
   so that INQ_PROP_UNDER_CURSOR with a larger buffer fetches it; a value that grows beyond
   the buffer in MQIMPO_CONVERT_VALUE leaves the cursor unchanged.
6. MQSMPO_SET_PROP_UNDER_CURSOR / _BEFORE_CURSOR / _AFTER_CURSOR and
   MQDMPO_DEL_PROP_UNDER_CURSOR act at the cursor; with none, MQRC_PROPERTY_NOT_AVAILABLE.

MQSETMP keeps MQPD's Context and CopyOptions; Support only for properties of the ``mq``
folder (MQ's own): any other property is MQPD_SUPPORT_OPTIONAL, as IBM sets it.

``Root.MQMD.<field>`` properties set here are kept like others (MQPMO_MD_FOR_OUTPUT_ONLY
takes them); inquired and not set, they come from the attached ``md`` when there is one.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import attrs

from mqpy import CMQC
from mqpy.properties import names, types
from mqpy.properties.errors import PropertyError, fail, warn

__all__ = ["Inquired", "Property", "PropertySet"]

C = CMQC
_IMPO_KNOWN = (C.MQIMPO_CONVERT_TYPE | C.MQIMPO_QUERY_LENGTH | C.MQIMPO_INQ_NEXT
               | C.MQIMPO_INQ_PROP_UNDER_CURSOR | C.MQIMPO_CONVERT_VALUE)
_SMPO_CHOICES = (C.MQSMPO_SET_FIRST, C.MQSMPO_SET_PROP_UNDER_CURSOR,
                 C.MQSMPO_SET_PROP_AFTER_CURSOR, C.MQSMPO_APPEND_PROPERTY,
                 C.MQSMPO_SET_PROP_BEFORE_CURSOR)
_DMPO_CHOICES = (C.MQDMPO_DEL_FIRST, C.MQDMPO_DEL_PROP_UNDER_CURSOR)
_COPY_BITS = (C.MQCOPY_ALL | C.MQCOPY_FORWARD | C.MQCOPY_PUBLISH | C.MQCOPY_REPLY
              | C.MQCOPY_REPORT)
_SUPPORTS = (C.MQPD_SUPPORT_OPTIONAL, C.MQPD_SUPPORT_REQUIRED, C.MQPD_SUPPORT_REQUIRED_IF_LOCAL)
_CONTEXTS = (C.MQPD_NO_CONTEXT, C.MQPD_USER_CONTEXT)
_APPL_CCSIDS = (C.MQCCSI_APPL, C.MQCCSI_INHERIT, C.MQCCSI_AS_PUBLISHED, 0)


@attrs.define(eq=False)
class Property:
    """One property: its kept name, MQTYPE_*, Python value and descriptor (MQPD) fields."""

    name: str
    type: int
    value: Any
    support: int = C.MQPD_SUPPORT_OPTIONAL
    context: int = C.MQPD_NO_CONTEXT
    copy_options: int = C.MQCOPY_DEFAULT


@attrs.frozen
class Inquired:
    """What MQINQMP returns: the name, type and value (None with MQIMPO_QUERY_LENGTH), the
    DataLength, the descriptor fields, and the warning it completed with (MQRC_NONE)."""

    name: str
    type: int
    value: Any
    data_length: int
    support: int = C.MQPD_SUPPORT_OPTIONAL
    context: int = C.MQPD_NO_CONTEXT
    copy_options: int = C.MQCOPY_DEFAULT
    ccsid: int = 1208
    reason: int = C.MQRC_NONE


def check_descriptor(support: int, context: int, copy_options: int, options: int = 0) -> None:
    """MQSETMP's checks of the MQPD fields: MQRC_PD_ERROR for an Options other than
    MQPD_NONE, an unknown Support or Context, or CopyOptions bits IBM does not define."""
    if options != C.MQPD_NONE or support not in _SUPPORTS or context not in _CONTEXTS:
        raise fail(C.MQRC_PD_ERROR)
    if copy_options & ~_COPY_BITS or copy_options < 0:
        raise fail(C.MQRC_PD_ERROR)


def _one_choice(options: int, choices: tuple[int, ...], reason: int) -> int:
    if type(options) is not int or options not in choices:
        raise fail(reason)
    return options


class PropertySet:
    """The properties of one message (a message handle's contents)."""

    def __init__(self, *, validate: bool = True, md: Any = None) -> None:
        self.validate = validate  #: MQCMHO_VALIDATE (True) or MQCMHO_NO_VALIDATION
        self.md = md  #: the MQMD ``Root.MQMD.*`` names are read from, when attached
        self._props: list[Property] = []
        self._cursor: Property | None = None
        self._cursor_at = 0  # where the cursor's property was last seen: tried first
        self._cursor_pattern: str | None = None
        self._gap = 0  # where the cursor's property was, once deleted (rule 4)
        self._found_at = 0  # where the last property _find returned is

    # -- the set as data ----------------------------------------------------------------
    def __len__(self) -> int:
        return len(self._props)

    def __iter__(self) -> Iterator[Property]:
        return iter(list(self._props))

    def values(self) -> dict[str, Any]:
        """Kept name -> value of the first property of each name (what selectors read)."""
        out: dict[str, Any] = {}
        for p in self._props:
            out.setdefault(p.name, p.value)
        return out

    def add(self, prop: Property) -> None:
        """Append a property already checked (one read from an MQRFH2)."""
        self._props.append(prop)

    def remove(self, prop: Property) -> None:
        """Take out ``prop`` itself (MQMHBUF with MQMHBO_DELETE_PROPERTIES)."""
        self._props = [p for p in self._props if p is not prop]

    def clear(self) -> None:
        """Delete every property (MQBUFMH with MQBMHO_DELETE_PROPERTIES, a handle reused on
        MQGET) and reset the cursor."""
        self._props.clear()
        self.reset_cursor()

    def reset_cursor(self) -> None:
        self._cursor = self._cursor_pattern = None
        self._gap = 0

    def copied_for(self, operation: int) -> PropertySet:
        """The properties a message made from this one carries: ``operation`` is MQCOPY_FORWARD,
        _PUBLISH, _REPLY or _REPORT; a property goes along when its CopyOptions has that bit
        or MQCOPY_ALL."""
        out = PropertySet(validate=self.validate)
        for p in self._props:
            if p.copy_options & (operation | C.MQCOPY_ALL):
                out.add(attrs.evolve(p))
        return out

    def user_context(self) -> list[Property]:
        """The properties of the user context (MQPD_USER_CONTEXT): saved with
        MQOO_SAVE_ALL_CONTEXT and passed with MQPMO_PASS_IDENTITY_CONTEXT / _ALL_CONTEXT."""
        return [p for p in self._props if p.context == C.MQPD_USER_CONTEXT]

    # -- MQSETMP ----------------------------------------------------------------------------
    def _check_set_name(self, name: str, ptype: int) -> str:
        kept = names.check_name(name, validate=self.validate, for_set=True)
        if not self.validate:
            return kept
        if name in names.JMS_SETTABLE and ptype != names.JMS_SETTABLE[name]:
            raise fail(C.MQRC_PROPERTY_TYPE_ERROR)
        if kept.startswith(names.MQMD_PREFIX):
            if ptype != names.MQMD_FIELDS[kept[len(names.MQMD_PREFIX):]]:
                raise fail(C.MQRC_PROPERTY_TYPE_ERROR)
        elif "." in kept:
            for p in self._props:  # mixed content: a.b beside a.b.c
                if "." in p.name and p.name != kept and (
                        p.name.startswith(kept + ".") or kept.startswith(p.name + ".")):
                    raise fail(C.MQRC_PROPERTY_NAME_ERROR)
        return kept

    def _position(self, prop: Property | None) -> int | None:
        """Where ``prop`` is in the set (None: not there). The cursor's last place is tried
        first, so that MQINQMP's INQ_NEXT through n properties costs n steps, not n²."""
        if prop is None:
            return None
        at = self._cursor_at
        if at < len(self._props) and self._props[at] is prop:
            return at
        for i, p in enumerate(self._props):
            if p is prop:
                return i
        return None

    def _cursor_index(self) -> int:
        i = self._position(self._cursor)
        if i is None:
            raise fail(C.MQRC_PROPERTY_NOT_AVAILABLE)
        self._cursor_at = i
        return i

    def set(self, name: str, value: Any, ptype: int, *, value_length: int | None = None,
            options: int = C.MQSMPO_SET_FIRST, support: int = C.MQPD_SUPPORT_OPTIONAL,
            context: int = C.MQPD_NO_CONTEXT, copy_options: int = C.MQCOPY_DEFAULT,
            pd_options: int = C.MQPD_NONE, value_ccsid: int = C.MQCCSI_APPL) -> None:
        """MQSETMP: set property ``name`` to ``value`` of MQTYPE_* ``ptype``."""
        options = _one_choice(options, _SMPO_CHOICES, C.MQRC_SMPO_ERROR)
        check_descriptor(support, context, copy_options, pd_options)
        kept = self._check_set_name(name, ptype)
        value = types.check_value(ptype, value, value_length, value_ccsid)
        if names.folder_of(kept) != "mq":  # only MQ's own properties need support
            support = C.MQPD_SUPPORT_OPTIONAL
        prop = Property(kept, ptype, value, support, context, copy_options)
        if options == C.MQSMPO_SET_FIRST:
            for i, p in enumerate(self._props):
                if p.name == kept:
                    self._props[i] = prop
                    if self._cursor is p:
                        self._cursor = prop
                    return
            self._props.append(prop)
        elif options == C.MQSMPO_APPEND_PROPERTY:
            self._props.append(prop)
        else:
            i = self._cursor_index()
            if options == C.MQSMPO_SET_PROP_UNDER_CURSOR:
                if self._props[i].name != kept:
                    raise fail(C.MQRC_PROPERTY_NOT_AVAILABLE)
                self._props[i] = self._cursor = prop
            else:
                self._props.insert(i + (options == C.MQSMPO_SET_PROP_AFTER_CURSOR), prop)

    # -- MQINQMP ----------------------------------------------------------------------------
    def _find(self, pattern: str, options: int) -> Property | None:
        if options & C.MQIMPO_INQ_PROP_UNDER_CURSOR:
            return self._cursor if self._position(self._cursor) is not None else None
        start = 0
        if options & C.MQIMPO_INQ_NEXT and self._cursor is not None \
                and self._cursor_pattern == pattern:
            at = self._position(self._cursor)
            start = at + 1 if at is not None else self._gap
        props = self._props
        for i in range(start, len(props)):
            if names.matches(pattern, props[i].name):
                self._found_at = i
                return props[i]
        return None

    def _from_md(self, kept: str) -> Property | None:
        field = kept[len(names.MQMD_PREFIX):]
        if self.md is None or not kept.startswith(names.MQMD_PREFIX) \
                or field not in names.MQMD_FIELDS:
            return None
        return Property(kept, names.MQMD_FIELDS[field], names.mqmd_value(self.md, field))

    def inquire(self, name: str, *, options: int = C.MQIMPO_INQ_FIRST,
                ptype: int = C.MQTYPE_AS_SET, max_length: int | None = None,
                requested_ccsid: int = C.MQCCSI_APPL) -> Inquired:
        """MQINQMP: the property ``name`` (perhaps ending ``%``) as ``options`` choose it (see
        the module's cursor rules), converted as MQIMPO_CONVERT_TYPE / _VALUE ask, limited
        to ``max_length`` bytes (None: any)."""
        if type(options) is not int or options & ~_IMPO_KNOWN or options < 0 or (
                options & C.MQIMPO_INQ_NEXT and options & C.MQIMPO_INQ_PROP_UNDER_CURSOR):
            raise fail(C.MQRC_IMPO_ERROR)
        under = options & C.MQIMPO_INQ_PROP_UNDER_CURSOR
        pattern = None if under else names.check_name(
            name, validate=self.validate, for_set=False, wildcard=True)
        prop = self._find(pattern, options)
        if prop is None and pattern is not None and not pattern.endswith(names.WILDCARD):
            prop = self._from_md(pattern)
        if prop is None:
            raise fail(C.MQRC_PROPERTY_NOT_AVAILABLE)
        value, vtype = prop.value, prop.type
        if options & C.MQIMPO_CONVERT_TYPE:
            value, vtype = types.convert_type(value, vtype, ptype)
        ccsid, reason, codec = 1208, C.MQRC_NONE, "utf-8"
        if options & C.MQIMPO_CONVERT_VALUE and vtype == C.MQTYPE_STRING \
                and requested_ccsid not in _APPL_CCSIDS:
            try:
                types.encode_string(value, requested_ccsid)
                ccsid, codec = requested_ccsid, types.ccsid_codec(requested_ccsid)
            except PropertyError as exc:
                reason = exc.reason
        length = types.length_of(vtype, value, codec)
        if max_length is not None and length > max_length:
            if codec == "utf-8" or types.length_of(vtype, value) > max_length:
                self._move_cursor(prop, pattern)
            raise fail(C.MQRC_PROPERTY_VALUE_TOO_BIG, data_length=length)
        self._move_cursor(prop, pattern)
        if options & C.MQIMPO_QUERY_LENGTH:
            value = None
        return Inquired(prop.name, vtype, value, length, prop.support, prop.context,
                        prop.copy_options, ccsid, reason)

    def _move_cursor(self, prop: Property, pattern: str | None) -> None:
        if pattern is None:  # under the cursor: it stays
            return
        at = self._found_at
        if not (at < len(self._props) and self._props[at] is prop):
            at = self._position(prop)
        if at is not None:
            self._cursor, self._cursor_pattern, self._cursor_at = prop, pattern, at

    # -- MQDLTMP ----------------------------------------------------------------------------
    def delete(self, name: str, *, options: int = C.MQDMPO_DEL_FIRST) -> None:
        """MQDLTMP: delete the first property called ``name`` (no wildcards), or the one under
        the cursor (MQDMPO_DEL_PROP_UNDER_CURSOR); none is the warning
        MQRC_PROPERTY_NOT_AVAILABLE."""
        options = _one_choice(options, _DMPO_CHOICES, C.MQRC_DMPO_ERROR)
        if options == C.MQDMPO_DEL_PROP_UNDER_CURSOR:
            try:
                i = self._cursor_index()
            except PropertyError:
                raise warn(C.MQRC_PROPERTY_NOT_AVAILABLE) from None
        else:
            kept = names.check_name(name, validate=self.validate, for_set=False)
            found = [i for i, p in enumerate(self._props) if p.name == kept]
            if not found:
                raise warn(C.MQRC_PROPERTY_NOT_AVAILABLE)
            i = found[0]
        if self._props[i] is self._cursor:
            self._gap = i
        del self._props[i]
