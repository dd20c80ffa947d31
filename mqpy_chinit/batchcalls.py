"""An MCA's runs of MQI calls packed by hand: a sending MCA's transmission-queue gets, the
MQMDs kept packed, and a receiving MCA's puts of its arrivals.

A sending MCA gets a message only to pass it on: the data (MQXQH, the message's own MQMD,
its data) goes into MESSAGE_DATA as it is, and of the transmission-queue message's own MQMD
only PutDate and PutTime are read (XQTIME), and the whole of it only for the rare message
the channel cannot carry (dead-lettered at the sender). So the replies of a run of gets
(mqiflows.SpiVerb.RUN, one round trip) are not decoded into MQMD and MQGMO objects and
copied field by field into the caller's, as ``verbs.run_in_order`` does for any caller:
the MQMD stays as it came (``mqiparams.Packed``), the MQGMO is skipped, the data is sliced
out. The request is the one run_in_order sends (the same flow for every get, packed once),
so the queue manager serves it as any run.

A receiving MCA keeps nothing of its puts' output structures (the MQMD goes as it arrived,
the MQPMO is one packed once): :func:`run_quiet` sends a batch's puts (and its sync
record's MQGET and MQPUT) as one SPI RUN_QUIET of request flows encoded here, and reads of
each reply only its completion code and reason -- what ``verbs.run_in_order`` returns for a
quiet put -- without an exchange, a decoded reply and a result object per message.

Both are made from the event loop when they can be (:func:`call_in_loop`: the request
written and the reply read on the bindings socket without blocking, no worker thread), else
in a worker thread. Over a connection that is not a bindings socket (an engine in the same
process) both go through ``verbs.run_in_order`` and the MQMDs are the objects it fills in:
callers take either (:func:`put_stamp`, :func:`unpacked`).
"""

from __future__ import annotations

import socket
import struct
from typing import Any

import trio

import mqpy
from mqpy import CMQC
from mqpy.bindings import BindingsConnection
from mqpy.errors import MQMIError
from mqpy.fap import mqiflows, mqiparams
from mqpy.fap.apiheader import MQIReply, MQIRequest, build_mqi_request
from mqpy.fap.mqicalls import Step, run_in_order
from mqpy.fap.statuscodes import ProtocolError
from mqpy.fap.tsh import ByteOrder, SegmentType
from mqpy.trace import TRACER

_T = SegmentType
_LONG = struct.Struct("<i")
_PUT_DATE = slice(mqpy.MD.offset_of("PutDate"), mqpy.MD.offset_of("PutDate") + 8)
_PUT_TIME = slice(mqpy.MD.offset_of("PutTime"), mqpy.MD.offset_of("PutTime") + 8)

#: a message got: its MQMD (an MD, or the MQMD as it came, mqiparams.Packed) and its data
Got = tuple[Any, bytes]


def put_stamp(md: Any) -> tuple[bytes, bytes]:
    """PutDate and PutTime of a got message's MQMD, packed or not."""
    if type(md) is mqiparams.Packed:
        return md.raw[_PUT_DATE], md.raw[_PUT_TIME]
    return md.PutDate, md.PutTime


def unpacked(md: Any) -> mqpy.MD:
    """A got message's MQMD as an MD object."""
    return md.unpacked() if type(md) is mqiparams.Packed else md


class XmitqGets:
    """Runs of MQGETs of one transmission queue handle, with the same MQMD and MQGMO in
    every request (a fresh MQMD, or a cluster sender's with its CorrelId)."""

    def __init__(self, hobj: int, request_md: mqiparams.Packed, gmo: mqiparams.Packed,
                 correl_id: bytes | None = None) -> None:
        self.hobj = hobj
        self.request_md = request_md
        self.gmo = gmo
        self.correl_id = correl_id
        self._flow = b""  # one get's request flow, packed once

    def run(self, handle: Any, count: int, limit: int,
            resolve: tuple[bytes, bool, bool] | None = None) -> list[Got]:
        """In a worker thread: ``resolve`` (an SPI RESOLVE's luwid, commit, wait) first, its
        failure raised as MQMIError; then up to ``count`` gets in the same round trip,
        stopping at the first that does not complete (none left, a truncation: the message
        stays for the next single MQGET) and after the one that brings the data got to
        ``limit`` bytes (0: RUN_BYTES)."""
        limit = min(limit or mqiflows.RUN_BYTES, mqiflows.RUN_BYTES)
        if type(handle) is not BindingsConnection:
            return self._run_in_order(handle, count, limit, resolve)
        if resolve is None and count < 1:
            return []
        reply = handle._call(_T.SPI, [mqiflows.SpiVerb.RUN, self._flows(count, resolve), limit])
        return self._got(handle, reply.values[0], resolve)

    async def run_in_loop(self, handle: Any, count: int, limit: int,
                          resolve: tuple[bytes, bool, bool] | None = None
                          ) -> list[Got] | None:
        """:meth:`run` from the event loop, its round trip made without a worker thread
        (:func:`call_in_loop`); None, nothing done, when it cannot be (as for
        :func:`run_quiet_in_loop`): the caller then calls run in one."""
        limit = min(limit or mqiflows.RUN_BYTES, mqiflows.RUN_BYTES)
        if not in_loop(handle):
            return None
        if resolve is None and count < 1:
            return []
        reply = await call_in_loop(handle, _T.SPI, [mqiflows.SpiVerb.RUN,
                                                    self._flows(count, resolve), limit])
        if reply is None:
            return None
        return self._got(handle, reply.values[0], resolve)

    def _flows(self, count: int, resolve: tuple[bytes, bool, bool] | None) -> bytes:
        """The run's request flows: the resolve, then ``count`` gets."""
        flows = self._get_flow() * count
        if resolve is not None:
            flows = mqiflows.pack_flows([mqiflows.encode_request(
                _T.SPI, mqiflows.resolve_values(*resolve))]) + flows
        return flows

    @staticmethod
    def _got(handle: Any, flows: list[bytes], resolve: tuple[bytes, bool, bool] | None
             ) -> list[Got]:
        """The messages of a run's reply flows, as they came (the resolve's first, raised if
        it failed). Each flow of a get is read in place (:func:`_got_in_place`), without
        an event and a copy of its body; a run whose flows are not all such plain replies
        is taken apart as ``BindingsConnection.run_flows`` takes it."""
        try:
            out: list[Got] = []
            if resolve is not None:
                first = _reply(handle, flows[0])  # (none: IndexError, out of step)
                if first.comp == CMQC.MQCC_FAILED:
                    raise MQMIError(first.comp, first.reason)
                flows = flows[1:]
            for i, flow in enumerate(flows):
                got = _got_in_place(flow)
                if got is None or (got is _NOT_GOT and i < len(flows) - 1):
                    break  # (a run ends at its first get that does not complete)
                if got is _NOT_GOT:
                    return out  # its message (if any) stays: the next single MQGET says why
                out.append(got)
            else:
                return out
            # anything else: every flow taken apart as a bindings run does
            replies = mqiflows.unpack_flows(b"".join(flows))
            out = []
            for event in replies:
                if event.comp != CMQC.MQCC_OK:
                    break
                out.append(_message(event.body))
            return out
        except ProtocolError:
            raise handle.out_of_step() from None
        except (ValueError, IndexError, KeyError, struct.error):
            raise handle.out_of_step() from None  # as a bindings run does

    def _get_flow(self) -> bytes:
        flow = self._flow
        if not flow:
            flow = self._flow = mqiflows.pack_flows([mqiflows.encode_request(
                _T.MQGET, [self.request_md, self.gmo, mqiflows.RUN_BYTES], hobj=self.hobj)])
        return flow

    def _run_in_order(self, handle: Any, count: int, limit: int,
                      resolve: tuple[bytes, bool, bool] | None) -> list[Got]:
        """Any other connection: run_in_order's gets, MQMDs filled in."""
        mds = [mqpy.MD(CorrelId=self.correl_id) if self.correl_id else mqpy.MD()
               for _ in range(count)]
        steps: list[Step] = [("resolve", resolve)] if resolve is not None else []
        steps += [("get", (self.hobj, md, self.gmo, mqiflows.RUN_BYTES, self.request_md))
                  for md in mds]
        if not steps:
            return []
        done = run_in_order(handle, steps, limit)
        if resolve is not None:
            if isinstance(done[0], MQMIError):
                raise done[0]
            done = done[1:]
        return [(md, data) for md, data in zip(mds, done, strict=False)
                if not isinstance(data, MQMIError)]


_GET_REPLY = int(mqiflows.reply_type(_T.MQGET))
_MQI_HEAD = 28 + 16  # TSH and API header before an MQI flow's body
_FIRST_LAST = 0x30  # TSH flags: FIRST and LAST segment
_NOT_GOT = object()  # a get's reply that did not complete: the run's messages end there


def _got_in_place(flow: bytes) -> Got | object | None:
    """A get's reply flow as it came (a whole little-endian one-segment MQGET reply, what
    the queue manager sends): its message, read in place, or _NOT_GOT when the get did not
    complete; None for anything else (taken apart the general way, with its checks)."""
    if (len(flow) < _MQI_HEAD or flow[:4] != b"TSH " or flow[8] != 2
            or flow[9] != _GET_REPLY or flow[10] & _FIRST_LAST != _FIRST_LAST
            or int.from_bytes(flow[4:8], "big") != len(flow)):
        return None
    if _LONG.unpack_from(flow, 32)[0] != CMQC.MQCC_OK:
        return _NOT_GOT
    md_size = mqiflows.size_at(flow, _MQI_HEAD, mqiflows.MD_SIZES)
    gmo_size = md_size and mqiflows.size_at(flow, _MQI_HEAD + md_size, mqiflows.GMO_SIZES)
    if not gmo_size:
        return None
    pos = _MQI_HEAD + md_size + gmo_size + 4  # + DataLength
    if pos + 4 > len(flow):
        return None
    (length,) = _LONG.unpack_from(flow, pos)
    pos += 4
    if length < 0 or pos + length != len(flow):
        return None
    return mqiparams.Packed(mqpy.MD, flow[_MQI_HEAD:_MQI_HEAD + md_size]), flow[pos:]


def _message(body: bytes) -> Got:
    """An MQGET reply's body (MQMD, MQGMO, DataLength, data): the MQMD as it came, and the
    data."""
    md_size = mqiflows.size_at(body, 0, mqiflows.MD_SIZES)
    gmo_size = md_size and mqiflows.size_at(body, md_size, mqiflows.GMO_SIZES)
    if not gmo_size:
        raise ValueError("MQGET reply: no MQMD and MQGMO where expected")
    pos = md_size + gmo_size + 4  # + DataLength
    (length,) = _LONG.unpack_from(body, pos)
    pos += 4
    if length < 0 or pos + length != len(body):
        raise ValueError("MQGET reply: message data length does not match")
    return mqiparams.Packed(mqpy.MD, body[:md_size]), body[pos:]


# ---------------------------------------------------------------- a receiving MCA's puts

_QUIET_OK = 0
_REPLIES = {verb: mqiflows.reply_type(verb)
            for verb in (_T.MQPUT, _T.MQPUT1, _T.MQGET, _T.SPI)}
_COMMIT = mqiflows.pack_flows([mqiflows.encode_request(_T.MQCMIT)])
_COMMIT_REPLY = mqiflows.reply_type(_T.MQCMIT)
_LITTLE = ByteOrder.LITTLE


#: the reply flow of a quiet MQPUT or MQPUT1 that completed without a warning, by verb
_QUIET_OK_FLOWS = {verb: mqiflows.pack_flows([mqiflows.encode_reply(verb)])
                   for verb in (_T.MQPUT, _T.MQPUT1)}


def _reply(handle: Any, flow: bytes) -> MQIReply:
    """One reply flow of a run taken apart; one that is not is out of step."""
    try:
        events = mqiflows.unpack_flows(flow)
    except ProtocolError:
        raise handle.out_of_step() from None
    if len(events) != 1 or type(events[0]) is not MQIReply:
        raise handle.out_of_step()
    return events[0]


def _flow(request: MQIRequest) -> bytes:
    return mqiflows.pack_flows([request])


def _put_flow(hobj: int, md: Any, pmo: Any, data: bytes) -> bytes | None:
    """An arrival's MQPUT request flow, packed here in one join when its MQMD and MQPMO are
    already packed little-endian (mqiparams.Packed: an arrival from a little-endian partner,
    the MQPMO packed once): the bytes ``mqiflows.pack_flows`` makes of
    ``encode_request(MQPUT, [md, pmo, data])``, without the event and the general packer
    (tests/channels/test_fast_paths.py holds the two to the same bytes). None for anything
    else (the general way)."""
    if (type(md) is not mqiparams.Packed or type(pmo) is not mqiparams.Packed
            or md.cls is not mqpy.MD or pmo.cls is not mqpy.PMO or md.byte_order != _LITTLE
            or pmo.byte_order != _LITTLE or type(data) is not bytes
            or len(data) > mqiflows.RUN_BYTES):
        return None
    return build_mqi_request(_T.MQPUT, hobj, (md.raw, pmo.raw, _LONG.pack(len(data)), data))


def run_quiet(handle: Any, steps: list[Step], commit: bool = False,
              prepare: bytes | None = None) -> tuple[list[Any], bool]:
    """In a worker thread: ``verbs.run_in_order(handle, steps)`` for steps that are all
    quiet puts (``("put", args, False)``, ``("put1", args, False)``: a receiving MCA's
    arrivals, its sync record's MQPUT) and plain MQGETs whose output nobody reads (the sync
    record's MQGET of the record it replaces), and resolves (``("resolve", (luwid, commit,
    wait))``, a sending MCA's commit of its batch before). Over a bindings socket the calls
    go as one SPI RUN_QUIET of flows encoded here and each reply is read for its codes
    only: a completed put or get is 0, or the reason of the warning it completed with (a
    get's warning, a truncation, ends the run as a failure, as run_in_order's does), and the
    first failure ends the list as its MQMIError. Anything else goes by run_in_order.

    ``commit``: an MQCMIT ends the same round trip, made (by the queue manager) only if
    every call completed (mqiflows.RUN_LAST_VERBS); ``prepare``: an SPI PREPARE of the unit
    of work under that key ends it instead (RUN_LAST_SPI_VERBS). Its failure is raised.
    Returns the results and whether that commit or prepare was made (never over
    run_in_order: the caller makes it, as it must when a call failed)."""
    quiet = _quiet_run(handle, steps, commit, prepare)
    if quiet is None:
        return run_in_order(handle, steps), False
    flows, verbs = quiet
    if not flows:
        return [], False
    replies = handle._call(_T.SPI, [mqiflows.SpiVerb.RUN_QUIET, flows, 0]).values[0]
    return _quiet_results(handle, replies, verbs, commit, prepare is not None)


async def run_quiet_in_loop(handle: Any, steps: list[Step], commit: bool = False,
                            prepare: bytes | None = None) -> tuple[list[Any], bool] | None:
    """:func:`run_quiet` from the event loop, its round trip made on the bindings socket
    without a worker thread (:func:`call_in_loop`); None, nothing done, when it cannot be
    (not a bindings connection or not quiet steps, a call of another thread in progress,
    strmqtrc tracing the connection's calls): the caller then calls run_quiet in one."""
    quiet = _quiet_run(handle, steps, commit, prepare) if in_loop(handle) else None
    if quiet is None or not quiet[0]:
        return None
    flows, verbs = quiet
    reply = await call_in_loop(handle, _T.SPI, [mqiflows.SpiVerb.RUN_QUIET, flows, 0])
    if reply is None:
        return None
    return _quiet_results(handle, reply.values[0], verbs, commit, prepare is not None)


def _quiet_run(handle: Any, steps: list[Step], commit: bool, prepare: bytes | None
               ) -> tuple[bytes, list[SegmentType]] | None:
    """The SPI RUN_QUIET request flows of :func:`run_quiet`'s ``steps`` (the MQCMIT or SPI
    PREPARE that ends it included) and each step's verb; None when they are not quiet
    steps over a bindings socket (run_in_order's)."""
    if type(handle) is not BindingsConnection or not all(
            len(step) > 2 and step[2] is False for step in steps
            if step[0] not in ("get", "resolve")):
        return None
    verbs: list[SegmentType] = []  # each call's, in order
    flows: list[bytes] = []
    for step in steps:
        name, args = step[0], step[1]
        if name == "put":
            hobj, md, pmo, data = args
            flow = _put_flow(hobj, md, pmo, data)
            flows.append(flow if flow is not None else _flow(mqiflows.encode_request(
                _T.MQPUT, [md, pmo, data], hobj=hobj)))
            verbs.append(_T.MQPUT)
        elif name == "put1":
            flows.append(_flow(mqiflows.encode_request(_T.MQPUT1, list(args))))
            verbs.append(_T.MQPUT1)
        elif name == "resolve":
            flows.append(_flow(mqiflows.encode_request(_T.SPI, mqiflows.resolve_values(*args))))
            verbs.append(_T.SPI)
        elif name == "get" and len(args) == 4:
            hobj, md, gmo, max_length = args
            flows.append(_flow(mqiflows.encode_request(
                _T.MQGET, [md, gmo, -1 if max_length is None else max_length], hobj=hobj)))
            verbs.append(_T.MQGET)
        else:
            return None
    if not flows:
        return b"", verbs
    if commit:
        flows.append(_COMMIT)
    elif prepare is not None:
        flows.append(_flow(mqiflows.encode_request(
            _T.SPI, [mqiflows.SpiVerb.PREPARE, prepare, 0])))
    return b"".join(flows), verbs


def _quiet_results(handle: Any, replies: list[bytes], verbs: list[SegmentType],
                   commit: bool, prepare: bool) -> tuple[list[Any], bool]:
    """:func:`run_quiet`'s results from the replies of its SPI RUN_QUIET, as they came (one
    flow each): a put that completed is its verb's one reply (codes only, an empty body),
    told by its bytes without being taken apart. ``commit``, ``prepare``: the run ends
    with an MQCMIT, an SPI PREPARE (one reply more)."""
    calls = len(verbs)
    if len(replies) > calls + (commit or prepare):
        raise handle.out_of_step()
    committed = len(replies) > calls
    if committed:
        event = _reply(handle, replies.pop())
        if event.segment_type != (_COMMIT_REPLY if commit else _REPLIES[_T.SPI]):
            raise handle.out_of_step()
        if event.comp == CMQC.MQCC_FAILED:
            raise MQMIError(event.comp, event.reason)
    out: list[Any] = []
    for verb, flow in zip(verbs, replies, strict=False):
        if flow == _QUIET_OK_FLOWS.get(verb):
            out.append(_QUIET_OK)
            continue
        event = _reply(handle, flow)
        if event.segment_type != _REPLIES[verb]:
            raise handle.out_of_step()  # as a bindings run does with a reply it cannot read
        comp = event.comp
        if comp == CMQC.MQCC_OK:
            out.append(_QUIET_OK)
        elif comp == CMQC.MQCC_WARNING and verb != _T.MQGET:
            out.append(event.reason)
        else:
            out.append(MQMIError(comp, event.reason))
            break
    return out, committed


# ------------------------------------------------- a call from the event loop, no thread

#: what breaks a call in the loop: the connection is dropped (MQRC_CONNECTION_BROKEN)
_BROKEN = (OSError, ProtocolError, EOFError)


def in_loop(handle: Any) -> bool:
    """Can :func:`call_in_loop` make ``handle``'s calls (a bindings connection whose calls
    strmqtrc does not trace: a traced call goes by the connection's own ``_call``)?"""
    return type(handle) is BindingsConnection and TRACER.spec_for(handle.qmgr_name) is None


async def call_in_loop(handle: BindingsConnection, verb: SegmentType, values: Any
                       ) -> mqiflows.Decoded | None:
    """One call on a (blocking) bindings connection made from the event loop: the request
    written and the reply read without blocking (MSG_DONTWAIT), trio waiting for the socket
    in between, so that an MCA's run costs no trip to a worker thread and back -- the
    connection's ``_call`` (``BindingsConnection._exchange``), in the loop, under the same
    lock (``BindingsConnection.exchange_here``). None, nothing done, when another thread's call holds the connection. MQMIError
    for a reply that failed, and MQRC_CONNECTION_BROKEN, the connection dropped, for a
    socket that breaks under the call, as ``_exchange`` does. As a worker thread's call is,
    it is not cut off half-way: a cancellation waits for the reply."""
    try:
        with handle.exchange_here() as here:
            if here is None:
                return None
            sock, flows = here
            request = flows.request(verb, values, 0)
            with trio.CancelScope(shield=True):
                with memoryview(request) as view:
                    sent = 0
                    while sent < len(view):
                        try:
                            sent += sock.send(view[sent:], socket.MSG_DONTWAIT)
                        except BlockingIOError:
                            await trio.lowlevel.wait_writable(sock)
                while (reply := flows.reply()) is None:
                    await trio.lowlevel.wait_readable(sock)
                    try:
                        data = sock.recv(_RECEIVE_SIZE, socket.MSG_DONTWAIT)
                    except BlockingIOError:
                        continue
                    flows.feed(data)  # EOFError when the queue manager closed its end
    except _BROKEN:  # (the connection was dropped on the way out of the block)
        raise MQMIError(CMQC.MQCC_FAILED, CMQC.MQRC_CONNECTION_BROKEN) from None
    if reply.comp == CMQC.MQCC_FAILED:
        raise MQMIError(reply.comp, reply.reason)
    return reply


_RECEIVE_SIZE = 1 << 16  # one read, as BindingsConnection's
