"""A bindings connection's usual MQPUT and MQGET made from what the call before left: the
request's bytes kept per object handle, the reply read against the one before it.

An application puts and gets in a loop with the same MQMD and MQPMO / MQGMO each time (a
fresh MQMD, the same options). :class:`Templates` keeps, per object handle, the request
``mqpy.bindings_calls`` packed last with copies of the structures' fields it was packed
from: a call whose structures' fields are equal to those, of the same types (``int`` and
``bytes`` only, which nothing changes in place) and whose message is as long, sends those
bytes again (with its own message) without packing anything. An application putting the
same MQMD again finds in it what the put before left: a synchronous put's MQMD fields a
reply changes (MsgId, CorrelId, PutDate, PutTime) are left out of the comparison, and the
request made from the kept one carries the MQMD's own in their place (when each is as long
as its field: packed as it is); an asynchronous put's identifiers that its options make
whatever the MQMD gives (``asyncput.ids_always_made``: MQPMO_NEW_MSG_ID,
MQPMO_NEW_CORREL_ID) are left out, its request carrying those made for it. An MQGET's
MsgId and CorrelId are left out likewise (a requester gets each reply by the CorrelId of
its own request), the request made from the kept one carrying the MQMD's.

A reply is read against the last one of its verb: when its bytes are those of the last
reply but for the fields a queue manager changes from one message to the next (MQMD's
MsgId, CorrelId, PutDate and PutTime, MQGMO's MsgToken) and the message data, the caller's
structures take the fields the last reply decoded to and those few fields read from their
place, instead of the whole structures decoded again. Anything else -- other structures,
another length, a failed call -- is read by ``mqiflows.common_reply`` (whose answers these
are: tests/performance_paths/test_bindings_templates.py holds them alike), and becomes the
template for the next.
"""

from __future__ import annotations

import struct
from typing import Any

from mqpy import asyncput
from mqpy.fap import mqiflows
from mqpy.fap.apiheader import API_HEADER_LENGTH
from mqpy.fap.tsh import TSH_LENGTH, SegmentType
from mqpy.structs.tables import GMO, MD

__all__ = ["Templates"]

_T = SegmentType
#: Object handles whose request is kept at once (a connection opening handle after handle
#: starts again rather than growing).
KEPT_HANDLES = 64
#: The field values a kept request may be packed from: immutable, and equal only to
#: values of their own type that pack to the same bytes (1 == 1.0, b"a" == bytearray(b"a")).
_KEPT_TYPES = frozenset({int, bytes})

_MD_LAYOUT = MD._layout_
_GMO_LAYOUT = GMO._layout_
#: MQMD fields that change from one message to the next: (name, offset, size, is a number),
#: in place order (``read_against`` gives them to the caller by these names, in this order)
_MD_VOLATILE = tuple((name, _MD_LAYOUT.offsets[name], size, False) for name, size in (
    ("MsgId", 24), ("CorrelId", 24), ("PutDate", 8), ("PutTime", 8)))
#: MQGMO's (version 3 on), after the MQMD (likewise)
_GMO_VOLATILE = (("MsgToken", _GMO_LAYOUT.offsets["MsgToken"], 16, False),
                 ("ReturnedLength", _GMO_LAYOUT.offsets["ReturnedLength"], 4, True))
_GMO_VOLATILE_VERSION = 3
_MD_STRUC_ID = _MD_LAYOUT.struc_id
#: where a request's two lengths are (the TSH's, the API header's ReplyLength: big-endian)
_LENGTH_AT, _REPLY_LENGTH_AT = 4, TSH_LENGTH
#: A segment's TSH and API header, before its body.
_HEADERS = TSH_LENGTH + API_HEADER_LENGTH
#: where an MQPUT request's MsgId and CorrelId are (its MQMD first in its body), and their
#: length each
_MSG_ID_AT, _CORREL_ID_AT = (_HEADERS + _MD_LAYOUT.offsets[name] for name in ("MsgId",
                                                                             "CorrelId"))
_ID_LENGTH = 24
#: an MQPUT's identifiers
_ID_NAMES = ("MsgId", "CorrelId")
#: a synchronous MQPUT's MQMD fields left out of the comparison (module docstring)
_PUT_FREE = tuple(name for name, *_ in _MD_VOLATILE)
#: an MQGET's MQMD fields left out of the comparison: those a get selects by, which a
#: requester getting each reply by its CorrelId changes every call (module docstring)
_GET_FREE = _ID_NAMES


class _Request:
    """The bytes of one handle's last request (less the message) and what they were packed
    from; an MQPUT's in pieces around its lengths too (``parts``), for another message's.
    ``free``: the MQMD fields left out of the comparison, with the values it was
    packed from (None: none such), and ``free_at`` where they are in ``prefix`` (name,
    offset, size; in place order) (module docstring)."""

    __slots__ = ("cuts", "extra", "free", "free_at", "md", "md_types", "opts",
                 "opts_types", "parts", "prefix")

    def __init__(self, md: dict[str, Any], opts: dict[str, Any], extra: int,
                 prefix: bytes, cuts: tuple[int, ...] | None = None) -> None:
        self.md, self.md_types = dict(md), [*map(type, md.values())]
        self.opts, self.opts_types = dict(opts), [*map(type, opts.values())]
        self.extra = extra  # the message's length (MQPUT) or BufferLength (MQGET)
        self.prefix = prefix
        self.cuts = cuts
        self.parts = _parts(prefix, cuts)
        self.free: dict[str, Any] | None = None
        self.free_at: tuple[tuple[str, int, int], ...] = ()

    def with_fields(self, md_fields: dict[str, Any]) -> _Made | None:
        """This request with the values of ``md_fields`` in place of the ``free``
        ones it was packed from, when each is one of those or bytes as long as its field
        (packed as it is); None else."""
        prefix, free = self.prefix, self.free
        pieces, at = [], 0
        for name, offset, size in self.free_at:
            value = md_fields.get(name)
            if type(value) is not bytes or len(value) != size:
                if value == free[name] and type(value) is type(free[name]):  # type: ignore
                    continue  # (the bytes it was packed from, in place)
                return None
            pieces += (prefix[at:offset], value)
            at = offset + size
        pieces.append(prefix[at:])
        prefix = b"".join(pieces)
        return _Made(prefix, _parts(prefix, self.cuts), self.extra)


class _Made:
    """A request made from a kept one (``_Request.with_fields``): its ``prefix``, ``parts``
    and ``extra``, as the kept one's are used."""

    __slots__ = ("extra", "parts", "prefix")

    def __init__(self, prefix: bytes, parts: tuple[bytes, ...], extra: int) -> None:
        self.prefix, self.parts, self.extra = prefix, parts, extra


def _parts(prefix: bytes, cuts: tuple[int, ...] | None) -> tuple[bytes, ...]:
    """``prefix`` in pieces around the 4-byte fields at ``cuts`` (None: around its lengths,
    the TSH's, ReplyLength and the message's)."""
    if cuts is None:
        return (prefix[:_LENGTH_AT], prefix[_LENGTH_AT + 4:_REPLY_LENGTH_AT],
                prefix[_REPLY_LENGTH_AT + 4:-4])
    return _cut(prefix, cuts)


def _cut(prefix: bytes, cuts: tuple[int, ...]) -> tuple[bytes, ...]:
    """``prefix`` in pieces around the 4-byte fields at ``cuts`` (in order; -4: its last
    four bytes), which a request made from it patches (another transport's header)."""
    pieces, at = [], 0
    for cut in cuts:
        cut %= len(prefix)
        pieces.append(prefix[at:cut])
        at = cut + 4
    pieces.append(prefix[at:])
    return tuple(pieces)


class _AsyncPut(_Request):
    """The bytes of one handle's last asynchronous MQPUT request (less the message) and
    the structures' fields as the application gave them, before ``mqpy.asyncput.prepare``
    made their identifiers: ``made`` says which it made (MsgId, CorrelId), whose bytes
    another put's request has its own in place of (``ids``: the kept ones); ``parts``
    the prefix in pieces around its lengths and identifiers."""

    __slots__ = ("ids", "made")

    def __init__(self, md: dict[str, Any], opts: dict[str, Any], extra: int, prefix: bytes,
                 made: tuple[bool, bool]) -> None:
        super().__init__(md, opts, extra, prefix, (_LENGTH_AT, _REPLY_LENGTH_AT))
        self.made = made
        self.ids = (prefix[_MSG_ID_AT:_CORREL_ID_AT],
                    prefix[_CORREL_ID_AT:_CORREL_ID_AT + _ID_LENGTH])
        head, middle, rest = self.parts
        at = _REPLY_LENGTH_AT + 4
        self.parts = (head, middle, rest[:_MSG_ID_AT - at],
                      rest[_CORREL_ID_AT + _ID_LENGTH - at:-4])

    def request(self, msg_id: bytes | None, correl_id: bytes | None, data: bytes) -> bytes:
        """The request of ``data`` with these identifiers (None: the kept one's; else
        exactly _ID_LENGTH bytes, as ``asyncput.new_id`` makes them)."""
        n = len(data)
        length = (len(self.prefix) + n).to_bytes(4, "big")
        head, middle, before, after = self.parts
        kept_msg_id, kept_correl_id = self.ids
        return b"".join((head, length, middle, length, before,
                         kept_msg_id if msg_id is None else msg_id,
                         kept_correl_id if correl_id is None else correl_id, after,
                         n.to_bytes(4, "little"), data))


class _Reply:
    """The last reply of one verb read in full: its structures' bytes between the fields
    that change (``stable``, in place order), where those are (``volatile``: (structure's
    index, name, offset, size, is a number)), and the fields each structure was given; an
    MQGET's DataLength, its message's length and the message follow the structures
    (``data_at``). ``unpack`` reads it all in one go: each stable piece then the volatile
    field after it, in place order (the MQMD's, then those of the MQGMO named in
    ``opts_names``, if any), the last stable piece, and an MQGET's two lengths. Made from a
    whole reply segment (``at``: where its structures start), the stable pieces hold its
    headers too."""

    __slots__ = ("classes", "data_at", "fields", "lengths", "opts_names", "size", "stable",
                 "stable_end", "unpack", "volatile")

    def __init__(self, body: bytes, values: tuple[Any, ...], volatile: list[tuple]) -> None:
        self.classes = (type(values[0]), type(values[1]))
        self.fields = (dict(values[0].__dict__), dict(values[1].__dict__))
        self.lengths = (len(self.fields[0]), len(self.fields[1]))
        self.volatile = tuple(volatile)
        #: an MQGET's DataLength is here, then its message's length and the message (None:
        #: an MQPUT's, which ends with the structures)
        self.data_at = len(body) - len(values[3]) - 8 if len(values) > 3 else None
        end = len(body) if self.data_at is None else self.data_at
        by_place = sorted(volatile, key=lambda v: v[2])
        stable, at, layout = [], 0, ["<"]
        for _, _, offset, size, number in by_place:
            stable.append(body[at:offset])
            layout.append(f"{offset - at}s{'i' if number else f'{size}s'}")
            at = offset + size
        stable.append(body[at:end])
        layout.append(f"{end - at}s")
        if self.data_at is not None:
            layout.append("ii")
        self.stable = tuple(stable)
        #: ``unpack``'s values up to here, every other one from the first, are the stable
        self.stable_end = 2 * len(by_place) + 1
        self.unpack = struct.Struct("".join(layout)).unpack_from
        self.opts_names = tuple(v[1] for v in by_place if v[0])
        #: the body's length (an MQPUT's), or the least it can be (an MQGET's)
        self.size = end if self.data_at is None else end + 8


class Templates:
    """One connection's kept requests (per object handle) and replies (per verb)."""

    __slots__ = ("async_puts", "replies", "requests", "segments")

    def __init__(self) -> None:
        self.requests: dict[tuple[SegmentType, int], _Request] = {}
        #: per object handle, the last asynchronous MQPUT's request (``keep_async_put``)
        self.async_puts: dict[int, _AsyncPut] = {}
        self.replies: dict[SegmentType, _Reply] = {}
        #: per verb, the last whole reply segment that did not fail, as kept (headers and
        #: all), and the CompCode, Reason and Hobj its headers say: a reply of the same
        #: length with the same headers says the same (``bindings_calls._one_reply``)
        self.segments: dict[SegmentType, tuple[_Reply, int, int, int]] = {}

    # -- requests --------------------------------------------------------------------------
    def request(self, verb: SegmentType, hobj: int, md: Any, opts: Any, extra: int) -> bytes | None:
        """The kept request of ``verb`` on ``hobj`` when ``md`` and ``opts`` (the MQPMO or
        MQGMO) have the fields it was packed from and ``extra`` is its message's length
        (MQPUT) or BufferLength (MQGET): its bytes less the message; None otherwise."""
        kept = self._kept(verb, hobj, md, opts)
        return None if kept is None or kept.extra != extra else kept.prefix

    def put_request(self, hobj: int, md: Any, pmo: Any, data: bytes, limit: int) -> bytes | None:
        """The MQPUT request of ``data`` on ``hobj`` made from the kept one when ``md`` and
        ``pmo`` have the fields it was packed from (its lengths made ``data``'s), if it is
        at most ``limit`` bytes long; None otherwise."""
        kept = self._kept(_T.MQPUT, hobj, md, pmo)
        if kept is None:
            return None
        n = len(data)
        if n == kept.extra:
            return kept.prefix + data
        total = len(kept.prefix) + n
        if total > limit:
            return None
        length = total.to_bytes(4, "big")
        head, middle, rest = kept.parts
        return b"".join((head, length, middle, length, rest, n.to_bytes(4, "little"), data))

    def _kept(self, verb: SegmentType, hobj: int, md: Any, opts: Any) -> _Request | _Made | None:
        """The kept request of ``verb`` on ``hobj`` when ``md`` and ``opts`` have the fields
        it was packed from, of the same types; or, but for the MQPUT's ``free`` fields,
        made with ``md``'s in their place (``_Request.with_fields``)."""
        kept = self.requests.get((verb, hobj))
        if kept is None:
            return None
        # (_same_fields, written out: this is every synchronous call's path)
        md_fields, opts_fields = md.__dict__, opts.__dict__
        if md_fields != kept.md or opts_fields != kept.opts \
                or [*map(type, md_fields.values())] != kept.md_types \
                or [*map(type, opts_fields.values())] != kept.opts_types:
            if kept.free is None or not _same_but_free(kept, md_fields, opts_fields):
                return None
            return kept.with_fields(md_fields)
        return kept

    #: (verb, hobj, md, opts): the kept request of ``verb`` on ``hobj`` when ``md`` and
    #: ``opts`` have the fields it was packed from, of the same types -- its ``prefix``,
    #: ``parts`` (as cut when kept) and ``extra`` -- or None: for a transport that patches
    #: more than the lengths (``mqpy.clientcalls``)
    kept = _kept

    def keep_request(self, verb: SegmentType, hobj: int, md: Any, opts: Any, extra: int,
                     prefix: bytes, cuts: tuple[int, ...] | None = None,
                     headers: int = _HEADERS) -> None:
        """Keep ``prefix``, the request of ``verb`` on ``hobj`` just packed from ``md`` and
        ``opts`` (before the reply changes them), when their fields are all of _KEPT_TYPES
        (its ``parts`` cut around the 4-byte fields at ``cuts``, when given, else around
        its lengths; an MQPUT's MQMD after ``headers`` bytes of the transport's headers)."""
        kept = _Request(md.__dict__, opts.__dict__, extra, prefix, cuts)
        if not _KEPT_TYPES.issuperset(kept.md_types) \
                or not _KEPT_TYPES.issuperset(kept.opts_types):
            return
        _keep_free(kept, headers, _PUT_FREE if verb == _T.MQPUT else _GET_FREE)
        if len(self.requests) >= KEPT_HANDLES and (verb, hobj) not in self.requests:
            self.requests.clear()
        self.requests[verb, hobj] = kept

    def kept_async_put(self, hobj: int, md: Any, pmo: Any) -> _AsyncPut | None:
        """The kept asynchronous MQPUT request on ``hobj`` when ``md`` and ``pmo`` have the
        fields it was packed from (as the application gave them), of the same types."""
        kept = self.async_puts.get(hobj)
        if kept is None:
            return None
        if _same_fields(kept, md, pmo) or (kept.free is not None and _same_but_free(
                kept, md.__dict__, pmo.__dict__)):
            return kept
        return None

    def keep_async_put(self, hobj: int, md: dict[str, Any], pmo: dict[str, Any],
                       made: tuple[bool, bool], extra: int, prefix: bytes) -> None:
        """Keep ``prefix``, the asynchronous MQPUT request on ``hobj`` of a message
        ``extra`` bytes long just packed, whose MQMD and MQPMO had the fields ``md`` and
        ``pmo`` before ``asyncput.prepare`` made the identifiers ``made`` says it made,
        when their fields are all of _KEPT_TYPES and the request's MsgId and CorrelId are
        in their place."""
        if not prefix.startswith(_MD_STRUC_ID, _HEADERS) \
                or len(prefix) < _CORREL_ID_AT + _ID_LENGTH + 4:
            return
        kept = _AsyncPut(md, pmo, extra, prefix, made)
        if not _KEPT_TYPES.issuperset(kept.md_types) \
                or not _KEPT_TYPES.issuperset(kept.opts_types):
            return
        options = kept.opts.get("Options")
        if type(options) is int:
            _keep_free(kept, _HEADERS, [name for name, made in zip(
                _ID_NAMES, asyncput.ids_always_made(options), strict=True) if made])
        if len(self.async_puts) >= KEPT_HANDLES and hobj not in self.async_puts:
            self.async_puts.clear()
        self.async_puts[hobj] = kept

    # -- replies ---------------------------------------------------------------------------
    def reply(self, verb: SegmentType, comp: int, reason: int, hobj: int, body: bytes,
              targets: tuple[Any, ...]) -> mqiflows.Decoded | None:
        """What ``mqiflows.common_reply(verb, comp, reason, hobj, body, targets)`` gives a
        reply of MQPUT or MQGET that did not fail (``targets`` the caller's MQMD and
        MQPMO / MQGMO): read against the last such reply when only its volatile fields and
        message differ, else in full (and kept for the next)."""
        kept = self.replies.get(verb)
        if kept is not None:
            values = read_against(kept, body, targets)
            if values is not None:
                return mqiflows.Decoded(verb, comp, reason, hobj, values)
        decoded = mqiflows.common_reply(verb, comp, reason, hobj, body, targets)
        if decoded is not None and body:
            self._keep_reply(verb, body, decoded.values)
        return decoded

    def _keep_reply(self, verb: SegmentType, body: bytes, values: tuple[Any, ...]) -> None:
        """Keep the reply of ``verb`` just read in full (``values``) for the next, when its
        structures are an MQMD and an MQPMO / MQGMO whose fields are all of _KEPT_TYPES."""
        kept = _record(body, values, 0)
        if kept is not None:
            self.replies[verb] = kept

    def keep_segment(self, verb: SegmentType, segment: bytes, comp: int, reason: int,
                     hobj: int, values: tuple[Any, ...]) -> None:
        """Keep the whole reply segment of ``verb`` just read (``values``, its headers
        saying ``comp``, ``reason`` and ``hobj``) for the next, as :meth:`_keep_reply`
        keeps its body: a reply of the same length with the same headers says the same."""
        kept = _record(segment, values, _HEADERS)
        if kept is None:
            self.segments.pop(verb, None)
        else:
            self.segments[verb] = (kept, comp, reason, hobj)


def _same_fields(kept: _Request, md: Any, opts: Any) -> bool:
    """Whether ``md`` and ``opts`` have the fields ``kept`` was packed from, of the same
    types."""
    md_fields, opts_fields = md.__dict__, opts.__dict__
    return md_fields == kept.md and opts_fields == kept.opts \
        and [*map(type, md_fields.values())] == kept.md_types \
        and [*map(type, opts_fields.values())] == kept.opts_types


def _same_but_free(kept: _Request, md_fields: dict[str, Any],
                   opts_fields: dict[str, Any]) -> bool:
    """Whether ``md_fields`` and ``opts_fields`` are the fields ``kept`` was packed from, of
    the same types, but for its ``free`` ones."""
    if opts_fields != kept.opts or len(md_fields) != len(kept.md):
        return False  # (before the copy: the usual other structures)
    md_fields = md_fields.copy()
    md_fields.update(kept.free)  # type: ignore[arg-type]
    return md_fields == kept.md and [*map(type, md_fields.values())] == kept.md_types \
        and [*map(type, opts_fields.values())] == kept.opts_types


def _keep_free(kept: _Request, headers: int, names: Any) -> None:
    """Note in ``kept``, an MQPUT request whose MQMD is after ``headers`` bytes, the MQMD
    fields ``names`` (of _MD_VOLATILE) as left out of the comparison, and where they are,
    when its MQMD is there and holds them all."""
    md = kept.md
    at = [(name, headers + offset, size) for name, offset, size, _ in _MD_VOLATILE
          if name in names]
    if not at or not all(name in md for name, _, _ in at) \
            or not kept.prefix.startswith(_MD_STRUC_ID, headers) \
            or len(kept.prefix) < max(offset + size for _, offset, size in at) + 4:
        return
    kept.free = {name: md[name] for name, _, _ in at}
    kept.free_at = tuple(at)


def _record(body: bytes, values: tuple[Any, ...], at: int) -> _Reply | None:
    """``body`` (its structures from ``at`` on) read in full into ``values``, as a reply
    the next is read against; None when its structures are not an MQMD and an MQPMO /
    MQGMO whose fields are all of _KEPT_TYPES (or no structures at all)."""
    if values is None or len(values) < 2:
        return None
    md, opts = values[0], values[1]
    if type(md) is not MD or not _KEPT_TYPES.issuperset(map(type, md.__dict__.values())) \
            or not _KEPT_TYPES.issuperset(map(type, opts.__dict__.values())):
        return None
    volatile = [(0, name, at + offset, size, number)
                for name, offset, size, number in _MD_VOLATILE]
    if type(opts) is GMO and opts.Version >= _GMO_VOLATILE_VERSION:
        at += _MD_LAYOUT.length(md.Version)
        volatile += [(1, name, at + offset, size, number)
                     for name, offset, size, number in _GMO_VOLATILE]
    return _Reply(body, values, volatile)


def read_against(kept: _Reply, body: bytes, targets: tuple[Any, ...], at: int = 0
                  ) -> tuple[Any, ...] | None:
    """The values of ``body`` (from ``at`` on: a reply segment's, past its headers, is read
    in place) read into ``targets`` when it is ``kept``'s but for the volatile fields and an
    MQGET's DataLength and message (whose length must be what the body says, as the full
    read has it); None, nothing filled in, else."""
    data_at = kept.data_at
    size = len(body) - at
    if len(targets) != 2 or (size != kept.size if data_at is None else size < kept.size):
        return None
    md, opts = targets
    classes = kept.classes
    if type(md) is not classes[0] or type(opts) is not classes[1]:
        return None
    lengths = kept.lengths
    if len(md.__dict__) != lengths[0] or len(opts.__dict__) != lengths[1]:
        return None  # (not as the full read fills it: that makes a new structure)
    values = kept.unpack(body, at)
    if values[:kept.stable_end:2] != kept.stable:
        return None
    if data_at is not None and values[-1] != size - data_at - 8:
        return None
    # the caller's fields made the kept ones at once (a copy of a dict: cheaper than
    # updating the caller's field by field), then the volatile ones read
    # (``unpack`` reads them in place order: _MD_VOLATILE's, then _GMO_VOLATILE's)
    fields = kept.fields
    md_fields = fields[0].copy()
    md_fields["MsgId"], md_fields["CorrelId"], md_fields["PutDate"], md_fields["PutTime"] \
        = values[1:8:2]
    _set_fields(md, "__dict__", md_fields)
    opts_fields = fields[1].copy()
    if kept.opts_names:
        opts_fields["MsgToken"], opts_fields["ReturnedLength"] = values[9:12:2]
    _set_fields(opts, "__dict__", opts_fields)
    if data_at is not None:
        return md, opts, values[-2], body[at + data_at + 8:]
    return md, opts


#: a structure's fields replaced at once (past MQStruct.__setattr__, which takes fields only)
_set_fields = object.__setattr__
