"""A sending MCA's runs of transmission-queue gets, the messages' MQMDs kept packed.

A sending MCA gets a message only to pass it on: the data (MQXQH, the message's own MQMD,
its data) goes into MESSAGE_DATA as it is, and of the transmission-queue message's own MQMD
only PutDate and PutTime are read (XQTIME), and the whole of it only for the rare message
the channel cannot carry (dead-lettered at the sender). So the replies of a run of gets
(mqiproto.SpiVerb.RUN, one round trip) are not decoded into MQMD and MQGMO objects and
copied field by field into the caller's, as ``verbs.run_in_order`` does for any caller:
the MQMD stays as it came (``mqiproto.Packed``), the MQGMO is skipped, the data is sliced
out. The request is the one run_in_order sends (the same flow for every get, packed once),
so the queue manager serves it as any run.

Over a connection that is not a bindings socket (an engine in the same process) the gets
go through ``verbs.run_in_order`` and the MQMDs are the objects it fills in: callers take
either (:func:`put_stamp`, :func:`unpacked`).
"""

from __future__ import annotations

import struct
from typing import Any

import mqpy
from mqpy import CMQC, mqiproto
from mqpy.bindings import BindingsConnection
from mqpy.errors import MQMIError
from mqpy.verbs import Step, run_in_order
from mqpy_chinit.wire import SegmentType

_T = SegmentType
_LONG = struct.Struct("<i")
#: packed sizes of an MQMD and an MQGMO by Version (little-endian, as the bindings flows)
_MD_SIZES = {v: mqpy.MD(Version=v).packed_size() for v in (1, 2)}
_GMO_SIZES = {v: mqpy.GMO(Version=v).packed_size() for v in (1, 2, 3, 4)}
_PUT_DATE = slice(mqpy.MD.offset_of("PutDate"), mqpy.MD.offset_of("PutDate") + 8)
_PUT_TIME = slice(mqpy.MD.offset_of("PutTime"), mqpy.MD.offset_of("PutTime") + 8)

#: a message got: its MQMD (an MD, or the MQMD as it came, mqiproto.Packed) and its data
Got = tuple[Any, bytes]


def put_stamp(md: Any) -> tuple[bytes, bytes]:
    """PutDate and PutTime of a got message's MQMD, packed or not."""
    if type(md) is mqiproto.Packed:
        return md.raw[_PUT_DATE], md.raw[_PUT_TIME]
    return md.PutDate, md.PutTime


def unpacked(md: Any) -> mqpy.MD:
    """A got message's MQMD as an MD object."""
    return md.unpacked() if type(md) is mqiproto.Packed else md


class XmitqGets:
    """Runs of MQGETs of one transmission queue handle, with the same MQMD and MQGMO in
    every request (a fresh MQMD, or a cluster sender's with its CorrelId)."""

    def __init__(self, hobj: int, request_md: mqiproto.Packed, gmo: mqiproto.Packed,
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
        limit = min(limit or mqiproto.RUN_BYTES, mqiproto.RUN_BYTES)
        if type(handle) is not BindingsConnection:
            return self._run_in_order(handle, count, limit, resolve)
        if resolve is None and count < 1:
            return []
        flows = self._get_flow() * count
        if resolve is not None:
            flows = mqiproto.pack_flows([mqiproto.encode_request(
                _T.SPI, mqiproto.resolve_values(*resolve))]) + flows
        replies = handle.run_flows(flows, limit)
        try:
            if resolve is not None:
                first = replies.pop(0)
                if first.comp == CMQC.MQCC_FAILED:
                    raise MQMIError(first.comp, first.reason)
            out: list[Got] = []
            for event in replies:
                if event.comp != CMQC.MQCC_OK:
                    break  # its message (if any) stays: the next single MQGET says why
                out.append(_message(event.body))
            return out
        except (ValueError, IndexError, KeyError, struct.error):
            raise handle.out_of_step() from None  # as a bindings run does

    def _get_flow(self) -> bytes:
        flow = self._flow
        if not flow:
            flow = self._flow = mqiproto.pack_flows([mqiproto.encode_request(
                _T.MQGET, [self.request_md, self.gmo, mqiproto.RUN_BYTES], hobj=self.hobj)])
        return flow

    def _run_in_order(self, handle: Any, count: int, limit: int,
                      resolve: tuple[bytes, bool, bool] | None) -> list[Got]:
        """Any other connection: run_in_order's gets, MQMDs filled in."""
        mds = [mqpy.MD(CorrelId=self.correl_id) if self.correl_id else mqpy.MD()
               for _ in range(count)]
        steps: list[Step] = [("resolve", resolve)] if resolve is not None else []
        steps += [("get", (self.hobj, md, self.gmo, mqiproto.RUN_BYTES, self.request_md))
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


def _message(body: bytes) -> Got:
    """An MQGET reply's body (MQMD, MQGMO, DataLength, data): the MQMD as it came, and the
    data."""
    md_size = _MD_SIZES[_LONG.unpack_from(body, 4)[0]]
    pos = md_size + _GMO_SIZES[_LONG.unpack_from(body, md_size + 4)[0]] + 4  # + DataLength
    (length,) = _LONG.unpack_from(body, pos)
    pos += 4
    if length < 0 or pos + length != len(body):
        raise ValueError("MQGET reply: message data length does not match")
    return mqiproto.Packed(mqpy.MD, body[:md_size]), body[pos:]
