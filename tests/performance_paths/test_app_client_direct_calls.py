"""A client connection's usual MQPUT and MQGET made at once (``clientcalls.PackedClientCalls``'
``put`` and ``get``: the kept request, the reply read against the last, without the layers
on the way): what the application gets -- an answer, a warning, a failure with its
structures, truncation -- and the bytes sent are the general path's, and a call that
strmqtrc traces takes the general path."""

from __future__ import annotations

from typing import Any

import pytest

import mqpy
from mqpy import CMQC
from mqpy.fap import mqicalls
from tests.performance_paths.test_bindings_templates import _message_md
from tests.performance_paths.test_client_templates import (
    _connections,
    _failed,
    _get_reply,
    _put_reply,
)

_OK, _WARNING, _FAILED = CMQC.MQCC_OK, CMQC.MQCC_WARNING, CMQC.MQCC_FAILED


def _answered(i: int, comp: int, reason: int, **fields: Any):
    """A put's reply of CompCode ``comp`` and Reason ``reason`` with its structures."""
    return lambda request: ([_message_md(i, **fields), mqpy.PMO(ResolvedQName=b"Q")],
                            comp, reason)


def _script() -> list[tuple]:
    """(verb, the call's arguments, the reply) of an application's calls: runs of the same
    structures broken by warnings and failures, each coming in a run and after one."""
    pmo, gmo = mqpy.PMO(Options=CMQC.MQPMO_NO_SYNCPOINT), mqpy.GMO(Version=3)
    calls: list[tuple] = []
    for i in range(4):
        calls.append(("put", (5, mqpy.MD, pmo, b"m"), _put_reply(i)))
    for i in range(3):  # a warning with the structures: returned, as the general path does
        calls.append(("put", (5, mqpy.MD, pmo, b"m"),
                      _answered(10 + i, _WARNING, CMQC.MQRC_PRIORITY_EXCEEDS_MAXIMUM)))
    calls.append(("put", (5, mqpy.MD, pmo, b"m"), _put_reply(13)))
    calls.append(("put", (5, mqpy.MD, pmo, b"m"),
                  _answered(14, _FAILED, CMQC.MQRC_Q_FULL, Priority=4)))
    calls.append(("put", (5, mqpy.MD, pmo, b"m"), _failed(CMQC.MQRC_PUT_INHIBITED)))
    calls.append(("put", (5, mqpy.MD, pmo, b"m"), _put_reply(15)))
    for i in range(3):
        calls.append(("get", (6, mqpy.MD, gmo, 100), _get_reply(20 + i, b"d%d" % i)))
    for i in range(2):
        calls.append(("get", (6, mqpy.MD, gmo, 2), _get_reply(
            30 + i, b"tr", _WARNING, CMQC.MQRC_TRUNCATED_MSG_ACCEPTED, 5)))
    calls.append(("get", (6, mqpy.MD, gmo, 2),
                  _get_reply(32, b"", _FAILED, CMQC.MQRC_TRUNCATED_MSG_FAILED, 5)))
    calls.append(("get", (6, mqpy.MD, gmo, 100), _failed(CMQC.MQRC_NO_MSG_AVAILABLE)))
    calls.append(("get", (6, mqpy.MD, gmo, None), _get_reply(33, b"d" * 9)))
    calls.append(("get", (6, mqpy.MD, gmo, None), _get_reply(34, b"d" * 9)))
    return calls


def _run(general: bool) -> tuple[list, list]:
    """The script on one client connection: what the application saw and the bytes sent."""
    sock, (conn,) = _connections(1)
    if general:
        conn._packable = lambda: False  # type: ignore[method-assign]
    seen: list = []
    for verb, (hobj, md_of, opts, extra), reply in _script():
        sock.script.append(reply)
        md = md_of()
        try:
            seen.append(getattr(conn, verb)(hobj, md, opts, extra))
        except mqpy.MQMIError as e:
            seen.append((e.comp, e.reason, getattr(e, "original_length", None)))
        seen.append((dict(md.__dict__), dict(opts.__dict__)))
    return seen, sock.sent


def test_calls_made_at_once_answer_warnings_and_failures_as_the_general_path():
    """Given an application's puts and gets answered now as usual, now with a warning (a
    priority past the queue's, a message truncated and accepted) or a failure (with its
    structures, without), when it runs with the calls made at once and then with the
    general path only, then it sees the same answers and structures, and the same bytes
    are sent."""
    fast = _run(general=False)
    assert CMQC.MQRC_PRIORITY_EXCEEDS_MAXIMUM in fast[0]
    assert _run(general=True) == fast


class _Tracing:
    """A tracer by which strmqtrc traces every call: the verbs it traced."""

    untraced_until = float("-inf")

    def __init__(self) -> None:
        self.traced: list[str] = []

    def spec_for(self, qmgr: str | None) -> object:
        return self

    def call(self, qmgr: str, verb: str, hobj: int, values: Any, exchange: Any) -> Any:
        self.traced.append(verb)
        return exchange()


@pytest.mark.parametrize("traced", [False, True])
def test_a_traced_call_takes_the_general_path(monkeypatch, traced):
    """Given a client connection, when strmqtrc traces its calls (or not), then each put and
    get goes through the trace (or none does)."""
    sock, (conn,) = _connections(1)
    tracer = _Tracing()
    if traced:
        monkeypatch.setattr(mqicalls, "TRACER", tracer)
    pmo, gmo = mqpy.PMO(), mqpy.GMO(Version=3)
    for i in range(3):
        sock.script.append(_put_reply(i))
        conn.put(5, mqpy.MD(), pmo, b"m")
        sock.script.append(_get_reply(i, b"d"))
        conn.get(6, mqpy.MD(), gmo, 100)
    assert tracer.traced == (["MQPUT", "MQGET"] * 3 if traced else [])
