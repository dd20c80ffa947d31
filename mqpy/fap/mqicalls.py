"""The MQI verbs as one request and one reply, written once for every transport.

A connection that reaches its queue manager by messages -- the bindings socket
(``mqpy.bindings``), a SVRCONN channel (``mqpy.client``), the channel initiator's trio
connection to its queue manager (``mqpy_chinit.qmconn``) -- offers the engine ``Connection``'s
methods: ``open``, ``put``, ``get`` and the rest. What each verb sends and what it does with
the reply (filling the caller's MQMD, MQGMO ... as MQ's in/out parameters, turning a warning
into a return value or an exception) is the same everywhere and lives here, sans-IO, as an
*exchange*: a generator that yields its request ``(verb, values, hobj)`` once and is sent
the decoded reply. :class:`MQIVerbs` drives exchanges over a blocking ``_call``;
:class:`AsyncMQIVerbs` over an awaitable one.
"""

from __future__ import annotations

from collections.abc import Generator, Sequence
from typing import Any, TypeVar

from mqpy import CMQC, asyncput
from mqpy.errors import MQMIError
from mqpy.fap import mqiflows, mqiparams
from mqpy.fap.tsh import SegmentType
from mqpy.structs.fields import StructError
from mqpy.structs.tables import GMO, MD, PMO, STS
from mqpy.trace import TRACER

__all__ = ["AsyncMQIVerbs", "MQIVerbs", "copy_fields", "failure", "run_in_order"]

T = TypeVar("T")
#: A verb's request: the verb, its body values, the object handle, the caller's structures
#: that a *failed* reply still fills (a distribution list's response records), and the
#: caller's structures that a reply that did not fail fills, in the order of the reply's
#: structures (MQ's output parameters): a transport may decode the reply straight into them
#: (``mqiflows.decode_reply(into=...)``) instead of into new ones copied by the exchange.
Request = tuple[SegmentType, Any, int, tuple[Any, ...], tuple[Any, ...]]
#: One call of :func:`run_in_order`: a method name ("put", "put1", "get") and its arguments;
#: a third item False says that the caller of a put keeps nothing of its output structures
#: (see :func:`run_in_order`).
Step = tuple[Any, ...]
Exchange = Generator[Request, mqiflows.Decoded, T]

_T = SegmentType
_WARNING = CMQC.MQCC_WARNING
_RESPONSE_OPTIONS = CMQC.MQPMO_ASYNC_RESPONSE | CMQC.MQPMO_SYNC_RESPONSE


def copy_fields(dst: Any, src: Any) -> None:
    """Give the caller's structure the fields the queue manager returned (MQ's in/out
    parameters). ``src`` was just decoded from the reply, so its values are already checked:
    a structure of the same class without record arrays takes them as they are (a channel's
    batch copies two structures per message); one with record arrays is updated element by
    element (``update_from``), so an application keeps its own MQRR / MQPMR objects."""
    if dst is src:
        return  # decoded straight into the caller's (mqiflows.decode_reply(into=...))
    cls = type(dst)
    if cls is type(src):
        mine, theirs = getattr(dst, "__dict__", None), getattr(src, "__dict__", None)
        if mine is not None and theirs is not None and len(mine) == len(theirs) and (
                _flat(cls) or not any(type(v) is list for v in theirs.values())):
            mine.update(theirs)
            return
    dst.update_from(src)


_FLAT: dict[type, bool] = {}


def failure(reply: Any, into: Sequence[Any]) -> MQMIError:
    """The MQMIError of a failed ``reply``, its structures (a distribution list's response
    records, a truncated get's MQMD ...) first copied ``into`` the caller's."""
    for dst, src in zip(into, reply.values or (), strict=False):
        copy_fields(dst, src)
    return MQMIError(reply.comp, reply.reason)


def _flat(cls: type) -> bool:
    """Can no field of ``cls`` hold a list (no record pointer, array or nested structure)?"""
    flat = _FLAT.get(cls)
    if flat is None:
        fields = getattr(getattr(cls, "_layout_", None), "fields", None)
        flat = _FLAT[cls] = fields is not None and all(
            getattr(f, "kind", "pointer") not in ("pointer", "longs", "nested") for f in fields)
    return flat


def _warning(reply: mqiflows.Decoded) -> int:
    """A warning reply without a body is raised (MQINQ's 2068); with one it is returned."""
    if reply.comp == _WARNING and reply.values is None:
        raise MQMIError(reply.comp, reply.reason)
    return reply.reason if reply.comp == _WARNING else 0


# -- the exchanges ------------------------------------------------------------------------

def _open(od: Any, options: int, defaults: dict[int, Any] | None = None) -> Exchange[int]:
    """``defaults``: where the opened object's defaults go, by handle, when the reply
    carries them (``fap.fopa``)."""
    reply = yield _T.MQOPEN, [od, options], 0, (od,), (od,)
    copy_fields(od, reply.values[0])
    if defaults is not None and len(reply.values) > 1 and reply.values[1] is not None:
        defaults[reply.hobj] = reply.values[1]
    return reply.hobj


def _sub(sd: Any, hobj: int) -> Exchange[tuple[int, int]]:
    """MQSUB (mqpy.fap.pubsubflows): (the destination's Hobj, the Hsub)."""
    reply = yield _T.MQSUB, [sd, hobj], 0, (), ()
    copy_fields(sd, reply.values[0])
    strings = reply.values[0].__dict__.get("_vs_strings_")
    if strings:  # the MQSD's MQCHARV strings as the queue manager returned them
        sd.__dict__.setdefault("_vs_strings_", {}).update(strings)
    return reply.values[1], reply.hobj


def _subrq(hsub: int, action: int, sro: Any) -> Exchange[Any]:
    """MQSUBRQ: the MQSRO as the queue manager filled it."""
    reply = yield _T.MQSUBRQ, [action, sro], hsub, (), ()
    copy_fields(sro, reply.values[0])
    return sro


def _close(hobj: int, options: int) -> Exchange[None]:
    """A warning (a group or a logical message left unfinished: MQRC_INCOMPLETE_GROUP) is
    raised: the handle is closed all the same, as IBM's MQCLOSE with MQCC_WARNING."""
    reply = yield _T.MQCLOSE, [options], hobj, (), ()
    if reply.comp == _WARNING:
        raise MQMIError(reply.comp, reply.reason)


def _put(hobj: int, md: Any, pmo: Any, data: bytes) -> Exchange[int]:
    reply = yield _T.MQPUT, [md, pmo, data], hobj, (md, pmo), (md, pmo)
    return put_done(md, pmo, reply)


def put_done(md: Any, pmo: Any, reply: mqiflows.Decoded) -> int:
    """What an MQPUT's reply gives its caller (the exchange's end, for a driver that calls
    it without the generator: :meth:`MQIVerbs.put`)."""
    warning = _warning(reply)
    if reply.values is not None:  # (an asynchronous put's OK may come without a body)
        copy_fields(md, reply.values[0])
        copy_fields(pmo, reply.values[1])
    return warning


def _put1(od: Any, md: Any, pmo: Any, data: bytes) -> Exchange[int]:
    reply = yield _T.MQPUT1, [od, md, pmo, data], 0, (od, md, pmo), \
        (od, md, pmo)
    warning = _warning(reply)
    for dst, src in zip((od, md, pmo), reply.values or (od, md, pmo), strict=True):
        copy_fields(dst, src)
    return warning


def _get(hobj: int, md: Any, gmo: Any, max_length: int | None,
         request_md: Any = None) -> Exchange[bytes]:
    """Truncation warnings are raised as the engine raises them: 2079 and 2080 with
    ``.message`` (the part that fitted) and ``.original_length``. ``md`` None: a fresh MQMD
    goes on the wire (it is an input too) and the one that comes back is dropped. ``request_md``: the MQMD the request
    carries instead of ``md`` (one packed once, mqiparams.Packed, for a channel's every
    get); ``md`` still takes the one that comes back."""
    if md is None:
        md = MD()
    sent = md if request_md is None else request_md
    reply = yield (_T.MQGET, [sent, gmo, _buffer_length(max_length)], hobj, (), (md, gmo))
    return get_done(md, gmo, reply)


def _buffer_length(max_length: int | None) -> int:
    """An MQGET request's BufferLength: mqiflows.WHOLE_MESSAGE for None (any length); a
    negative ``max_length`` is the call's MQRC_BUFFER_LENGTH_ERROR, as the engine has it."""
    if max_length is None:
        return mqiflows.WHOLE_MESSAGE
    if max_length < 0:
        raise MQMIError(CMQC.MQCC_FAILED, CMQC.MQRC_BUFFER_LENGTH_ERROR)
    return max_length


def get_done(md: Any, gmo: Any, reply: mqiflows.Decoded) -> bytes:
    """What an MQGET's reply gives its caller (see :func:`put_done`)."""
    _warning(reply)
    reply_md, reply_gmo, original_length, data = reply.values
    copy_fields(md, reply_md)
    copy_fields(gmo, reply_gmo)
    if reply.comp == _WARNING:
        # (pymqi's Queue.get: message= and original_length= with either truncation)
        raise MQMIError(reply.comp, reply.reason, message=data,
                        original_length=original_length)
    return data


def _simple(verb: SegmentType) -> Exchange[None]:
    yield verb, (), 0, (), ()


def _inquire(hobj: int, selectors: Sequence[int]) -> Exchange[list[int | bytes]]:
    """MQINQ of ``selectors`` (``hobj`` 0: of the queue manager): their values, in order."""
    reply = yield _T.MQINQ, [list(selectors)], hobj, (), ()
    _warning(reply)
    return list(reply.values[0])


def _set(hobj: int, settings: Sequence[tuple[int, int | bytes | str]]) -> Exchange[None]:
    """MQSET of one or more attributes: the queue manager sets all or none."""
    yield _T.MQSET, [[s for s, _ in settings], [v for _, v in settings]], hobj, (), ()


def _resolve(luwid: bytes, commit: bool, wait: bool = True) -> Exchange[None]:
    """SPI RESOLVE of an in-doubt unit of work; ``wait`` False: a commit answered before its
    log force (mqiflows.RESOLVE_NO_WAIT)."""
    yield _T.SPI, mqiflows.resolve_values(luwid, commit, wait), 0, (), ()


#: The verbs :func:`run_in_order` takes, by method name.
_EXCHANGES = {"put": _put, "put1": _put1, "get": _get, "resolve": _resolve}
#: Those whose result is only a reason, so that their output structures may go unread.
_QUIET = frozenset({"put", "put1"})


def _request(exchange: Exchange[Any]) -> Request:
    return next(exchange)


def _finish(exchange: Exchange[T], reply: mqiflows.Decoded) -> T:
    try:
        exchange.send(reply)
    except StopIteration as done:
        return done.value
    raise RuntimeError("an MQI verb is one request and one reply")


# -- drivers --------------------------------------------------------------------------------

class MQIVerbs:
    """The MQI over a blocking ``_exchange(verb, values, hobj, into, targets)`` that returns
    the decoded reply (a successful one decoded into ``targets``, the caller's structures)
    and raises MQMIError on MQCC_FAILED."""

    qmgr_name: str

    def _call(self, verb: SegmentType, values: Any = (), *, hobj: int = 0,
              into: tuple[Any, ...] = (), targets: tuple[Any, ...] = ()) -> mqiflows.Decoded:
        """One MQI call, in the process's trace if strmqtrc asks for it (mqpy/trace.py).
        A structure that cannot be packed (a Version mqpy does not know) fails the call
        with its reason, MQRC_MD_ERROR ..., before anything is sent."""
        try:
            if TRACER.spec_for(self.qmgr_name) is None:
                return self._exchange(verb, values, hobj, into, targets)
            return TRACER.call(self.qmgr_name, verb.name, hobj, values,
                               lambda: self._exchange(verb, values, hobj, into, targets))
        except StructError as e:
            raise MQMIError(CMQC.MQCC_FAILED, e.reason) from None

    def _exchange(self, verb: SegmentType, values: Any, hobj: int,
                  into: tuple[Any, ...], targets: tuple[Any, ...] = ()) -> mqiflows.Decoded:
        """Send one request, return its decoded reply (MQMIError on MQCC_FAILED); a reply
        that did not fail may be decoded straight into ``targets`` (see ``Request``)."""
        raise NotImplementedError

    def _check_length(self, data: bytes) -> None:
        """Refuse a message longer than the transport carries (MQRC_DATA_LENGTH_ERROR)."""

    def _run(self, exchange: Exchange[T]) -> T:
        verb, values, hobj, into, targets = _request(exchange)
        return _finish(exchange, self._call(verb, values, hobj=hobj, into=into,
                                            targets=targets))

    def _call_run(self, requests: list[Request], limit: int,
                  quiet: frozenset[int] = frozenset()) -> list[mqiflows.Decoded]:
        """The replies to ``requests``, made in order up to the first that fails: here one
        call each; a transport that can carry them as one overrides this (and need not
        decode the structures of the replies whose index is in ``quiet``)."""
        replies: list[mqiflows.Decoded] = []
        carried = 0
        for verb, values, hobj, into, targets in requests:
            try:
                reply = self._call(verb, values, hobj=hobj, into=into, targets=targets)
            except MQMIError as e:
                replies.append(mqiflows.Decoded(verb, e.comp, e.reason, hobj, None))
                break
            replies.append(reply)
            if verb == _T.MQGET and reply.comp == CMQC.MQCC_OK:
                carried += len(reply.values[3])
            if mqiflows.run_stops(verb, reply.comp, carried, limit):
                break
        return replies

    def run(self, steps: list[Step], limit: int = 0) -> list[Any]:
        """:func:`run_in_order` through this connection's transport."""
        exchanges = [_EXCHANGES[step[0]](*step[1]) for step in steps]
        requests = [_request(ex) for ex in exchanges]
        quiet = frozenset(i for i, step in enumerate(steps)
                          if len(step) > 2 and not step[2] and step[0] in _QUIET)
        replies = self._call_run(requests, limit, quiet)
        out: list[Any] = []
        for i, (request, exchange, reply) in enumerate(
                zip(requests, exchanges, replies, strict=False)):  # fewer replies: stopped
            if i in quiet and reply.comp != CMQC.MQCC_FAILED:
                out.append(reply.reason if reply.comp == _WARNING else 0)
                continue
            if reply.comp == CMQC.MQCC_FAILED:
                out.append(failure(reply, request[3]))
                break
            try:
                out.append(_finish(exchange, reply))
            except MQMIError as e:
                out.append(e)
                break
        return out

    #: the handles whose object's DEFPRESP is ASYNC, as their MQOPEN reply said
    _async_default: frozenset[int] | set[int] = frozenset()

    #: the opened objects' defaults by handle, as their MQOPEN replies carried them
    opened_defaults: dict[int, Any]

    def open(self, od: Any, options: int) -> int:
        defaults = self.__dict__.setdefault("opened_defaults", {})
        hobj = self._run(_open(od, options, defaults))
        found = defaults.get(hobj)
        if found is not None:  # the queue's DEFPRESP, for an MQPUT1 naming it (put1)
            self.__dict__.setdefault("async_names", {})[_object_key(od)] = \
                found.asynchronous_put
        if found is not None and found.asynchronous_put:
            if type(self._async_default) is frozenset:
                self._async_default = set()
            self._async_default.add(hobj)  # type: ignore[union-attr]
        return hobj

    def close(self, hobj: int, options: int = CMQC.MQCO_NONE) -> None:
        self._run(_close(hobj, options))
        self.__dict__.get("opened_defaults", {}).pop(hobj, None)
        if hobj in self._async_default:
            self._async_default.discard(hobj)  # type: ignore[union-attr]

    def sub(self, sd: Any, hobj: int = CMQC.MQHO_NONE) -> tuple[int, int]:
        """MQSUB: (the destination's Hobj, the subscription handle)."""
        return self._run(_sub(sd, hobj))

    def subrq(self, hsub: int, action: int, sro: Any) -> Any:
        """MQSUBRQ: the MQSRO as filled in."""
        return self._run(_subrq(hsub, action, sro))

    def put(self, hobj: int, md: Any, pmo: Any, data: bytes) -> int:
        """MQPUT; returns 0 or the reason of the warning the call completed with. ``md`` or
        ``pmo`` None: a default one goes (the caller keeps none to be filled in)."""
        data = bytes(data)
        self._check_length(data)
        # _put's exchange, without a generator: a message's every call comes here
        md = MD() if md is None else md
        pmo = PMO() if pmo is None else pmo
        if asyncput.is_async(pmo.Options) if pmo.Options & _RESPONSE_OPTIONS \
                else hobj in self._async_default:  # MQPMO_RESPONSE_AS_Q_DEF: the FOPA's
            return self._put_async(_T.MQPUT, hobj, None, md, pmo, data)
        return put_done(md, pmo, self._call(_T.MQPUT, [md, pmo, data], hobj=hobj,
                                             into=(md, pmo), targets=(md, pmo)))

    def put1(self, od: Any, md: Any, pmo: Any, data: bytes) -> int:
        data = bytes(data)
        self._check_length(data)
        if asyncput.is_async(pmo.Options) if pmo.Options & _RESPONSE_OPTIONS \
                else self.__dict__.get("async_names", {}).get(_object_key(od), False):
            # MQPMO_RESPONSE_AS_Q_DEF: the queue's DEFPRESP, as an MQOPEN reply of this
            # connection gave it (unknown: the call waits, the queue manager decides)
            return self._put_async(_T.MQPUT1, 0, od, md, pmo, data)
        return self._run(_put1(od, md, pmo, data))

    def _put_async(self, verb: SegmentType, hobj: int, od: Any, md: Any, pmo: Any,
                   data: bytes) -> int:
        """An asynchronous MQPUT / MQPUT1 (``mqpy.asyncput``): sent, not waited for."""
        sent = asyncput.prepare(md, pmo, self.qmgr_name)
        values = [md, sent, data] if od is None else [od, md, sent, data]
        try:
            self._send_only(verb, values, hobj)
        except StructError as e:  # (as _call)
            raise MQMIError(CMQC.MQCC_FAILED, e.reason) from None
        return 0

    def _send_only(self, verb: SegmentType, values: Any, hobj: int) -> None:
        """Send one request whose reply nobody waits for; a transport that cannot leave a
        reply to come waits for it here."""
        self._call(verb, values, hobj=hobj)

    def stat(self, status_type: int, sts: Any = None) -> Any:
        """MQSTAT: the MQSTS ``sts`` (a new one if None) as the queue manager fills it."""
        sts = STS() if sts is None else sts
        reply = self._call(_T.MQSTAT, [status_type, sts])
        copy_fields(sts, reply.values[1])
        return sts

    def get(self, hobj: int, md: Any, gmo: Any, max_length: int | None) -> bytes:
        """MQGET; a wait happens at the queue manager. ``md`` or ``gmo`` None: as put."""
        # _get's exchange, without a generator (see put)
        md = MD() if md is None else md
        gmo = GMO() if gmo is None else gmo
        return get_done(md, gmo, self._call(
            _T.MQGET, [md, gmo, _buffer_length(max_length)], hobj=hobj, targets=(md, gmo)))

    def commit(self) -> None:
        self._run(_simple(_T.MQCMIT))

    def backout(self) -> None:
        self._run(_simple(_T.MQBACK))

    def inquire(self, hobj: int, selector: int) -> int | bytes:
        return self._run(_inquire(hobj, (selector,)))[0]

    def inquire_all(self, hobj: int, selectors: Sequence[int]) -> list[int | bytes]:
        return self._run(_inquire(hobj, selectors))

    def inquire_qmgr(self, selector: int) -> int | bytes:
        return self.inquire(0, selector)

    def set(self, hobj: int, selector: int, value: int | bytes | str) -> None:
        self._run(_set(hobj, ((selector, value),)))

    def set_many(self, hobj: int, settings: Sequence[tuple[int, int | bytes | str]]) -> None:
        self._run(_set(hobj, list(settings)))


def _object_key(od: Any) -> tuple[bytes, bytes]:
    """An MQOD's queue as named: (ObjectName, ObjectQMgrName) without their padding."""
    return tuple(  # type: ignore[return-value]
        (v.encode("latin-1", "replace") if isinstance(v, str) else bytes(v)).rstrip(b" \0")
        for v in (od.ObjectName, od.ObjectQMgrName))


class AsyncMQIVerbs:
    """The same MQI over an awaitable ``_call``, for trio code (the channel initiator)."""

    async def _call(self, verb: SegmentType, values: Any = (), *, hobj: int = 0,
                    into: tuple[Any, ...] = ()) -> mqiflows.Decoded:
        raise NotImplementedError

    async def _run(self, exchange: Exchange[T]) -> T:
        verb, values, hobj, into, _targets = _request(exchange)
        try:
            reply = await self._call(verb, values, hobj=hobj, into=into)
        except StructError as e:  # (as MQIVerbs._call)
            raise MQMIError(CMQC.MQCC_FAILED, e.reason) from None
        return _finish(exchange, reply)

    #: the opened objects' defaults by handle, as their MQOPEN replies carried them
    opened_defaults: dict[int, Any]

    async def open(self, od: Any, options: int) -> int:
        defaults = self.__dict__.setdefault("opened_defaults", {})
        return await self._run(_open(od, options, defaults))

    async def close(self, hobj: int, options: int = CMQC.MQCO_NONE) -> None:
        await self._run(_close(hobj, options))
        self.__dict__.get("opened_defaults", {}).pop(hobj, None)

    async def sub(self, sd: Any, hobj: int = CMQC.MQHO_NONE) -> tuple[int, int]:
        return await self._run(_sub(sd, hobj))

    async def subrq(self, hsub: int, action: int, sro: Any) -> Any:
        return await self._run(_subrq(hsub, action, sro))

    async def put(self, hobj: int, md: Any, pmo: Any, data: bytes) -> int:
        return await self._run(_put(hobj, MD() if md is None else md,
                                    PMO() if pmo is None else pmo, bytes(data)))

    async def put1(self, od: Any, md: Any, pmo: Any, data: bytes) -> int:
        return await self._run(_put1(od, md, pmo, bytes(data)))

    async def get(self, hobj: int, md: Any, gmo: Any, max_length: int | None) -> bytes:
        return await self._run(_get(hobj, md, GMO() if gmo is None else gmo, max_length))

    async def commit(self) -> None:
        await self._run(_simple(_T.MQCMIT))

    async def backout(self) -> None:
        await self._run(_simple(_T.MQBACK))

    async def inquire(self, hobj: int, selector: int) -> int | bytes:
        return (await self._run(_inquire(hobj, (selector,))))[0]

    async def inquire_all(self, hobj: int, selectors: Sequence[int]) -> list[int | bytes]:
        return await self._run(_inquire(hobj, selectors))

    async def inquire_qmgr(self, selector: int) -> int | bytes:
        return await self.inquire(0, selector)

    async def set(self, hobj: int, selector: int, value: int | bytes | str) -> None:
        await self._run(_set(hobj, ((selector, value),)))

    async def set_many(self, hobj: int,
                       settings: Sequence[tuple[int, int | bytes | str]]) -> None:
        await self._run(_set(hobj, list(settings)))

    async def stat(self, status_type: int, sts: Any = None) -> Any:
        sts = STS() if sts is None else sts
        reply = await self._call(_T.MQSTAT, [status_type, sts])
        copy_fields(sts, reply.values[1])
        return sts


def run_in_order(handle: Any, steps: list[Step], limit: int = 0) -> list[Any]:
    """MQPUT / MQPUT1 / MQGET calls on ``handle`` (any connection with the engine
    Connection's methods), in order, until one fails: their results, the failure last as its
    MQMIError (returned, not raised). A step ``("resolve", (luwid, commit, wait))`` resolves
    an in-doubt unit of work (a sending MCA's confirmed batch, before the next batch's
    gets). The calls left after a failure are not made, so each
    call means what it means alone; over a bindings connection they cost one round trip
    (mqiflows.SpiVerb.RUN), which is what a channel's batch needs. With ``limit`` > 0 the
    calls stop after the message got that brings the bytes got to ``limit`` or more (a
    channel's BATCHLIM; the calls not made are left to the caller). A put step with a third
    item False (``("put1", args, False)``) may leave its MQMD / MQPMO / MQOD as they were:
    its caller keeps nothing of them (a receiving MCA's arrivals), so a transport need not
    decode them from the reply; such a put may pass its structures already packed
    (mqiparams.Packed: a bindings flow carries them as they are, a connection in process
    decodes them)."""
    if isinstance(handle, MQIVerbs):
        return handle.run(steps, limit)
    out: list[Any] = []
    carried = 0
    for step in steps:
        name, args = step[0], step[1]
        if name == "get" and len(args) > 4:
            args = args[:4]  # request_md is md's content packed: md itself is the input here
        if any(type(a) is mqiparams.Packed for a in args):  # structures passed on as bytes:
            args = tuple(a.unpacked() if type(a) is mqiparams.Packed else a for a in args)
        try:
            result = getattr(handle, name)(*args)
        except MQMIError as e:
            out.append(e)
            break
        out.append(result)
        if isinstance(result, bytes):
            carried += len(result)
            if 0 < limit <= carried:
                break
    return out
