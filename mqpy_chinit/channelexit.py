"""Channel exits: IBM's security, message, send, receive and message-retry exits
(SCYEXIT/SCYDATA, MSGEXIT/MSGDATA, SENDEXIT/SENDDATA, RCVEXIT/RCVDATA, MREXIT/MRDATA), as
Python exit programs.

IBM's exits are C functions in a library named ``library(function)``; mqpy loads a Python
function named ``module(function)`` (an importable module) or ``path/file.py(function)`` (a
source file). Each is called as IBM calls its exit, ``function(cxp, cd, buffer)``: ``cxp`` is
its :class:`MQCXP` (ExitId, ExitReason MQXR_INIT / MQXR_MSG / MQXR_XMIT / MQXR_INIT_SEC /
MQXR_RETRY / MQXR_TERM, ExitData from the ...DATA attribute, ExitUserArea kept from call to
call; it sets ExitResponse and may set Feedback), ``cd`` the channel definition (IBM's MQCD, read only),
``buffer`` the agent buffer (a message with its MQXQH, or a transmission with its TSH), or
None at MQXR_INIT and MQXR_TERM. It returns None (the agent buffer as it was) or the bytes to
use instead (IBM's exit buffer, MQXR2_USE_EXIT_BUFFER).

Sans-IO: an :class:`ExitChain` calls one attribute's exits in order and says what the MCA is
to do (:class:`Outcome`); the MCAs call it at IBM's points (docs/channels.md). An exit that
cannot be loaded or raises ends the channel with AMQ9535E, one that asks for it with
AMQ9536E, a response that is no exit response with AMQ9181S (ChannelEnded, as every other
end of a channel; the channel stops); never a traceback.
"""

from __future__ import annotations

import importlib
import importlib.util
import os
import re
import sys
import time
from collections.abc import Callable, Mapping
from types import MappingProxyType
from typing import Any

import attrs

from mqpy import CMQC, CMQXC
from mqpy.fap.messagedata import XQH_WITH_MD_LENGTH, MessageData
from mqpy_chinit.conversation import ChannelEnded

#: an exit attribute's exits, with their ExitId: (exit attribute, data attribute, ExitId)
SECURITY = ("SCYEXIT", "SCYDATA", CMQXC.MQXT_CHANNEL_SEC_EXIT)
MESSAGE = ("MSGEXIT", "MSGDATA", CMQXC.MQXT_CHANNEL_MSG_EXIT)
SEND = ("SENDEXIT", "SENDDATA", CMQXC.MQXT_CHANNEL_SEND_EXIT)
RECEIVE = ("RCVEXIT", "RCVDATA", CMQXC.MQXT_CHANNEL_RCV_EXIT)
MSG_RETRY = ("MREXIT", "MRDATA", CMQXC.MQXT_CHANNEL_MSG_RETRY_EXIT)

_NAME = re.compile(r"^\s*(?P<where>[^()]+?)\s*\(\s*(?P<function>[A-Za-z_]\w*)\s*\)\s*$")
_RESPONSES = frozenset({CMQXC.MQXCC_OK, CMQXC.MQXCC_SUPPRESS_FUNCTION,
                        CMQXC.MQXCC_SUPPRESS_EXIT, CMQXC.MQXCC_CLOSE_CHANNEL,
                        CMQXC.MQXCC_SEND_SEC_MSG, CMQXC.MQXCC_SEND_AND_REQUEST_SEC_MSG})
_loaded: dict[str, Any] = {}  # source file -> its module, loaded once


@attrs.define
class MQCXP:
    """IBM's channel exit parameter structure: the fields a Python exit reads and sets."""

    ExitId: int
    ExitReason: int = CMQXC.MQXR_INIT
    ExitResponse: int = CMQXC.MQXCC_OK
    ExitResponse2: int = CMQXC.MQXR2_USE_AGENT_BUFFER
    Feedback: int = CMQC.MQFB_NONE
    ExitData: str = ""
    ExitUserArea: bytearray = attrs.field(
        factory=lambda: bytearray(CMQC.MQ_EXIT_USER_AREA_LENGTH))
    ExitNumber: int = 1
    PartnerName: str = ""
    MsgRetryCount: int = 0  # a message-retry exit's: how many times called for the message
    MsgRetryInterval: int = 0  # milliseconds before the retry (MRTMR; the exit may change it)
    MsgRetryReason: int = 0  # the reason code of the failed put
    StrucId: bytes = CMQXC.MQCXP_STRUC_ID


def exit_failed(msgid: str, text: str) -> ChannelEnded:
    """A channel exit ended the channel: the channel stops (no retry: the exit is the
    operator's to mend) with ``msgid``."""
    return ChannelEnded(msgid, text, False)


@attrs.frozen
class RetryDecision:
    """A message-retry exit's answer: retry (after ``interval`` seconds, the message as
    ``buffer``, whose MQXQH may name another destination), or not (MQXCC_SUPPRESS_FUNCTION:
    the arrival is refused as if no retry were left)."""

    retry: bool
    interval: float
    buffer: bytes


@attrs.frozen
class Outcome:
    """What the exits said: the buffer to use, and whether the function is suppressed
    (a message exit's SUPPRESS_FUNCTION: the message is not sent or put; ``feedback``
    says why)."""

    buffer: bytes | None
    suppressed: bool = False
    feedback: int = CMQC.MQFB_NONE


def load(name: str) -> Callable[..., Any]:
    """The exit program ``name`` names (``module(function)``, ``path/file.py(function)``);
    ChannelEnded (AMQ9535E) when it cannot be loaded."""
    m = _NAME.match(name)
    if m is None:
        raise exit_failed("AMQ9535E", f"User exit not valid: '{name}' is not module(function) "
                          f"or path/file.py(function).")
    where, function = m["where"], m["function"]
    try:
        module = _from_file(where) if where.endswith(".py") or os.sep in where \
            else importlib.import_module(where)
        program = getattr(module, function)
    except Exception as exc:  # noqa: BLE001 - whatever loading the user's code raised
        raise exit_failed("AMQ9535E", f"User exit not valid: '{name}' could not be loaded "
                          f"({type(exc).__name__}: {exc}).") from None
    if not callable(program):
        raise exit_failed("AMQ9535E", f"User exit not valid: '{name}' is not a function.")
    return program


def _from_file(path: str) -> Any:
    """The module a Python source file defines, loaded once."""
    path = os.path.abspath(path)
    if path not in _loaded:
        spec = importlib.util.spec_from_file_location(
            f"mqpy_channel_exit_{len(_loaded)}", path)
        if spec is None or spec.loader is None:
            raise ImportError(f"no Python source at {path}")
        module = importlib.util.module_from_spec(spec)
        sys.modules[spec.name] = module
        spec.loader.exec_module(module)
        _loaded[path] = module
    return _loaded[path]


def _names(value: object) -> list[str]:
    """An exit or data attribute's values (one string, or IBM's list of them)."""
    if isinstance(value, (list, tuple)):
        return [str(v).strip() for v in value]
    return [str(value or "").strip()]


@attrs.define
class _Exit:
    name: str
    program: Callable[..., Any]
    cxp: MQCXP
    active: bool = True  # False once it answered MQXCC_SUPPRESS_EXIT


class ExitChain:
    """One exit attribute's exits on one channel instance, called in order (IBM's chain)."""

    def __init__(self, exits: list[_Exit], cd: Mapping[str, object], channel: str) -> None:
        self.exits = exits
        self.cd = MappingProxyType(dict(cd))
        self.channel = channel
        self.exit_time = 0.0  # seconds spent in the exits (EXITTIME)

    @classmethod
    def of(cls, definition: Mapping[str, object], kind: tuple[str, str, int],
           partner: str = "") -> ExitChain | None:
        """The chain a channel definition names for ``kind`` (SECURITY, MESSAGE, SEND,
        RECEIVE, MSG_RETRY), loaded; None when it names none; ChannelEnded (AMQ9535E) if
        one cannot be loaded."""
        exit_attr, data_attr, exit_id = kind
        names = [n for n in _names(definition.get(exit_attr)) if n]
        if not names:
            return None
        datas = _names(definition.get(data_attr))
        channel = str(definition.get("CHANNEL") or "").strip()
        exits = [_Exit(name, load(name),
                       MQCXP(exit_id, ExitData=datas[i] if i < len(datas) else "",
                             ExitNumber=i + 1, PartnerName=partner))
                 for i, name in enumerate(names)]
        return cls(exits, definition, channel)

    def call(self, reason: int, buffer: bytes | None = None) -> Outcome:
        """Each active exit with ``reason`` and the buffer the one before left: the
        outcome; ChannelEnded when an exit raised, answered what is no exit response, or
        closed the channel."""
        for ex in self.exits:
            if not ex.active:
                continue
            ex.cxp.ExitReason, ex.cxp.ExitResponse = reason, CMQXC.MQXCC_OK
            ex.cxp.ExitResponse2 = CMQXC.MQXR2_USE_AGENT_BUFFER
            started = time.perf_counter()
            try:
                out = ex.program(ex.cxp, self.cd, buffer)
            except Exception as exc:  # noqa: BLE001 - the user's exit failed: the channel ends
                raise exit_failed("AMQ9535E", f"User exit not valid: channel program "
                                  f"'{self.channel}' ended because user exit '{ex.name}' "
                                  f"raised {type(exc).__name__}: {exc}.") from None
            finally:
                self.exit_time += time.perf_counter() - started
            buffer = self._answer(ex, reason, out, buffer)
            if ex.cxp.ExitResponse == CMQXC.MQXCC_SUPPRESS_FUNCTION:
                return Outcome(buffer, True, ex.cxp.Feedback)
        return Outcome(buffer)

    def _answer(self, ex: _Exit, reason: int, out: object, buffer: bytes | None
                ) -> bytes | None:
        """What one exit's answer means for the chain: the buffer after it."""
        response = ex.cxp.ExitResponse
        if response not in _RESPONSES or (out is not None and not isinstance(out, bytes)):
            raise exit_failed("AMQ9181S", f"The response set by the exit is not valid: user "
                              f"exit '{ex.name}' of channel '{self.channel}' returned "
                              f"ExitResponse {response} and a {type(out).__name__} buffer.")
        if response == CMQXC.MQXCC_CLOSE_CHANNEL:
            raise exit_failed("AMQ9536E", f"Channel ended by an exit: channel program "
                              f"'{self.channel}' was ended by user exit '{ex.name}' "
                              f"(ExitReason {reason}).")
        if response == CMQXC.MQXCC_SUPPRESS_EXIT:
            ex.active = False
        return buffer if out is None else out

    def init(self) -> None:
        """MQXR_INIT: each exit's first call, when the channel starts."""
        self.call(CMQXC.MQXR_INIT)

    def term(self) -> None:
        """MQXR_TERM: each exit's last call, when the channel ends (its failure changes
        nothing: the channel is ending)."""
        try:
            self.call(CMQXC.MQXR_TERM)
        except ChannelEnded:
            pass


@attrs.frozen(kw_only=True)
class SuppressedArrival(MessageData):
    """An arrival a receiver's message exit suppressed: not put, but refused with the exit's
    ``feedback`` (else MQRC_SUPPRESSED_BY_EXIT) as its reason."""

    feedback: int = CMQC.MQRC_SUPPRESSED_BY_EXIT


class ChannelExits:
    """A channel instance's exits, from its initial data agreed to its end: each chain
    initialised (MQXR_INIT), the security exit's agreement asked (MQXR_INIT_SEC), the send
    and receive exits put on the conversation, the message exits called by the MCA for
    each message (:meth:`message`), every exit's MQXR_TERM at the end (:meth:`end`)."""

    def __init__(self, chains: dict[tuple[str, str, int], ExitChain], conv: Any,
                 status: Any = None) -> None:
        self.chains = chains
        self.message_chain = chains.get(MESSAGE)
        self.retry_chain = chains.get(MSG_RETRY)
        self.status = status  # the channel's status: its MONITOR's EXITTIME
        self._sampled = 0.0  # exit time already given to EXITTIME
        security_check(chains.get(SECURITY))
        if SEND in chains or RECEIVE in chains:
            conv.exits = Transmissions(chains.get(SEND), chains.get(RECEIVE))

    @classmethod
    def start(cls, name: str, definition: Mapping[str, object], partner: str, conv: Any,
              status: Any = None) -> ChannelExits | None:
        """The exits channel ``name``'s definition names, started on ``conv`` once the
        initial data is agreed with ``partner`` (``status``: the channel's, for EXITTIME);
        None when it names none."""
        found = {}
        named = {**definition, "CHANNEL": name}
        try:
            for kind in (SECURITY, MESSAGE, SEND, RECEIVE, MSG_RETRY):
                chain = ExitChain.of(named, kind, partner)
                if chain is not None:
                    found[kind] = chain
                    chain.init()
            return cls(found, conv, status) if found else None
        except ChannelEnded:
            for chain in found.values():
                chain.term()
            raise

    def message(self, buffer: bytes) -> Outcome:
        """A message (its MQXQH and data) through the message exits (MQXR_MSG)."""
        if self.message_chain is None:
            return Outcome(buffer)
        outcome = self.message_chain.call(CMQXC.MQXR_MSG, buffer)
        self._sample()
        return outcome if outcome.buffer is not None else attrs.evolve(outcome, buffer=buffer)

    def message_retry(self, reason: int, count: int, buffer: bytes, interval_ms: int
                      ) -> RetryDecision | None:
        """An arrival's put failed with ``reason`` (a retry may help): the message-retry
        exit's decision (MQXR_RETRY, its ``count``-th call for this message, MRTMR as
        ``interval_ms``); None without MREXIT (MRRTY and MRTMR decide)."""
        chain = self.retry_chain
        if chain is None:
            return None
        for ex in chain.exits:
            ex.cxp.MsgRetryCount, ex.cxp.MsgRetryReason = count, reason
            ex.cxp.MsgRetryInterval = interval_ms
        outcome = chain.call(CMQXC.MQXR_RETRY, buffer)
        self._sample()
        wait = max(0, chain.exits[-1].cxp.MsgRetryInterval) / 1000.0
        return RetryDecision(not outcome.suppressed, wait, outcome.buffer or buffer)

    def _sample(self) -> None:
        """The exits' time since the last message, as one EXITTIME sample (monitoring)."""
        monitor = getattr(self.status, "monitor", None)
        spent, self._sampled = self.exit_time - self._sampled, self.exit_time
        if monitor is not None:
            monitor.exit_called(int(spent * 1e6))

    def arrival(self, ev: MessageData) -> MessageData:
        """A receiving MCA's arrival through the message exits (MQXR_MSG), before it is
        put: as they leave it; one an exit suppressed (SUPPRESS_FUNCTION) is a
        :class:`SuppressedArrival`, which the MCA does not put (it goes the undeliverable
        way: report, dead-letter queue, with the exit's Feedback as the reason)."""
        if self.message_chain is None:
            return ev
        outcome = self.message(ev.xqh + ev.data)
        if outcome.suppressed:
            return SuppressedArrival(seqnum=ev.seqnum, xqh=ev.xqh, data=ev.data,
                                     byte_order=ev.byte_order, flags=ev.flags,
                                     luwid=ev.luwid, feedback=outcome.feedback
                                     or CMQC.MQRC_SUPPRESSED_BY_EXIT)
        buffer = outcome.buffer or b""
        if buffer == ev.xqh + ev.data:
            return ev
        if len(buffer) < XQH_WITH_MD_LENGTH:
            raise exit_failed("AMQ9181S", f"The response set by the exit is not valid: a "
                              f"message exit of channel '{self.message_chain.channel}' left "
                              f"a message without its transmission header.")
        return attrs.evolve(ev, xqh=buffer[:XQH_WITH_MD_LENGTH],
                            data=buffer[XQH_WITH_MD_LENGTH:])

    @property
    def exit_time(self) -> float:
        """Seconds spent in the exits so far (DISPLAY CHSTATUS EXITTIME)."""
        return sum(chain.exit_time for chain in self.chains.values())

    def end(self) -> None:
        """MQXR_TERM for every exit: the channel instance has ended."""
        for chain in self.chains.values():
            chain.term()


def security_check(chain: ExitChain | None) -> None:
    """The security exit after the initial data: MQXR_INIT_SEC. It must agree (MQXCC_OK)
    before messages flow; a refusal (SUPPRESS_FUNCTION, CLOSE_CHANNEL) ends the channel
    (AMQ9536E). mqpy carries no security messages: an exit asking to send one
    (MQXCC_SEND_SEC_MSG, MQXCC_SEND_AND_REQUEST_SEC_MSG) ends it too (AMQ9181S)."""
    if chain is None:
        return
    outcome = chain.call(CMQXC.MQXR_INIT_SEC)
    if outcome.suppressed:
        raise exit_failed("AMQ9536E", f"Channel ended by an exit: the security exit of "
                          f"channel '{chain.channel}' refused the partner.")
    for ex in chain.exits:
        if ex.cxp.ExitResponse in (CMQXC.MQXCC_SEND_SEC_MSG,
                                   CMQXC.MQXCC_SEND_AND_REQUEST_SEC_MSG):
            raise exit_failed("AMQ9181S", f"The response set by the exit is not valid: "
                              f"security exit '{ex.name}' of channel '{chain.channel}' asked "
                              f"to send a security message, which mqpy does not carry.")


class Transmissions:
    """Send and receive exits on a conversation's transmissions (IBM's MQXR_XMIT): each
    TSH segment written goes through the send exits, each one read through the receive
    exits before it is decoded. A segment's first 8 bytes (its TSH id and length) are the
    agent's: an exit that changes the length ends the channel (AMQ9181S)."""

    def __init__(self, send: ExitChain | None, receive: ExitChain | None) -> None:
        self.send = send
        self.receive = receive
        self._held = b""  # a received segment not yet complete

    def sent(self, data: bytes) -> bytes:
        """``data`` (whole segments) as the send exits leave it."""
        if self.send is None:
            return data
        return b"".join(self._through(self.send, seg) for seg in _segments(data))

    def received(self, data: bytes) -> bytes:
        """The complete segments ``data`` ends, as the receive exits leave them (a
        segment's start is held until the rest of it is read)."""
        if self.receive is None:
            return data
        buf = self._held + data
        out, at = [], 0
        while len(buf) - at >= 8:
            length = int.from_bytes(buf[at + 4:at + 8], "big")
            if length < 8 or len(buf) - at < length:
                break
            out.append(self._through(self.receive, buf[at:at + length]))
            at += length
        self._held = buf[at:]
        return b"".join(out)

    @staticmethod
    def _through(chain: ExitChain, segment: bytes) -> bytes:
        outcome = chain.call(CMQXC.MQXR_XMIT, segment)
        out = segment if outcome.buffer is None else outcome.buffer
        if len(out) != len(segment) or out[:8] != segment[:8]:
            raise exit_failed("AMQ9181S", f"The response set by the exit is not valid: an "
                              f"exit of channel '{chain.channel}' changed a transmission's "
                              f"header or length.")
        return out


def _segments(data: bytes) -> list[bytes]:
    """Whole TSH segments, one after another, by their lengths (bytes 4 to 8)."""
    out, at = [], 0
    while at < len(data):
        length = int.from_bytes(data[at + 4:at + 8], "big") or len(data) - at
        out.append(bytes(data[at:at + length]))
        at += length
    return out
