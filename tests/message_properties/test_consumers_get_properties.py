"""Given messages put with properties, when an asynchronous consumer registered with MQCB
gets them, then it has them as an MQGET with the same MQGMO would: in the message handle its
MQGMO.MsgHandle names (pymqi's ``properties.get``, ``ibmmq``'s ``properties.inq``), the data
without them; without a handle as an MQRFH2, or not at all, as the MQGMO_PROPERTIES_* options
say; in every mode, and over read ahead."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

import mqpy
from mqpy import CMQC
from tests.mqi._modes import QUEUE, drain

from .test_put_get_with_handles import _put_with

#: how long a consumer waits for a message before it is told there is none (and stops)
IDLE_MS = 2000


def consume(qm: mqpy.QueueManager, gmo: mqpy.GMO, count: int,
            seen: Callable[..., Any], open_options: int = CMQC.MQOO_INPUT_SHARED) -> list:
    """Register a consumer of QUEUE with ``gmo`` (waiting at most IDLE_MS), run it with
    MQOP_START_WAIT until it had ``count`` messages (or none came): what ``seen(md, gmo,
    msg)`` said of each, as the function was called."""
    out: list = []

    def function(*, queue_manager, queue, md, gmo, msg, cbc):
        if cbc.CallType == CMQC.MQCBCT_MSG_REMOVED:
            out.append(seen(md, gmo, msg))
        if len(out) == count or cbc.Reason == CMQC.MQRC_NO_MSG_AVAILABLE:
            queue_manager.ctl(CMQC.MQOP_STOP)

    gmo.Options |= CMQC.MQGMO_WAIT | CMQC.MQGMO_NO_SYNCPOINT
    gmo.WaitInterval = IDLE_MS
    q = mqpy.Queue(qm, QUEUE, open_options)
    q.cb(operation=CMQC.MQOP_REGISTER, cbd=mqpy.CBD(CallbackFunction=function),
         md=mqpy.MD(), gmo=gmo)
    qm.ctl(CMQC.MQOP_START_WAIT)
    q.close()
    return out


def _put_coloured(qm: mqpy.QueueManager, colours: list[str]) -> None:
    for i, colour in enumerate(colours):
        _put_with(qm, {"colour": (colour, CMQC.MQTYPE_STRING),
                       "mq_usr.n": (i, CMQC.MQTYPE_INT32)}, data=b"m%d" % i,
                  md=mqpy.MD(Format=CMQC.MQFMT_STRING, Persistence=CMQC.MQPER_NOT_PERSISTENT))


def _handle_gmo(handle: mqpy.MessageHandle, options: int) -> mqpy.GMO:
    gmo = mqpy.GMO(Version=CMQC.MQGMO_VERSION_4, Options=options)
    gmo.MsgHandle = handle.msg_handle
    return gmo


@pytest.mark.parametrize("read_ahead", [0, CMQC.MQOO_READ_AHEAD], ids=["sync", "read_ahead"])
def test_a_consumer_has_the_properties_in_its_message_handle(connect, read_ahead):
    """pymqi's shape: ``MessageHandle(qm, CMHO())`` given as MQGMO.MsgHandle on MQCB."""
    qm = connect()
    try:
        drain(qm)
        _put_coloured(qm, ["blue", "red", "green"])
        handle = mqpy.MessageHandle(qm, mqpy.CMHO())
        gmo = _handle_gmo(handle, CMQC.MQGMO_PROPERTIES_IN_HANDLE)
        got = consume(qm, gmo, 3, lambda md, gmo, msg: (
            msg, md.Format, gmo.MsgHandle == handle.msg_handle,
            handle.properties.get("colour"), handle.properties.get("mq_usr.n")),
            CMQC.MQOO_INPUT_SHARED | read_ahead)
        assert got == [(b"m0", CMQC.MQFMT_STRING, True, "blue", 0),
                       (b"m1", CMQC.MQFMT_STRING, True, "red", 1),
                       (b"m2", CMQC.MQFMT_STRING, True, "green", 2)]
    finally:
        qm.disconnect()


def test_an_ibmmq_consumer_inquires_its_handle_as_queue_propctl_says(connect):
    """``ibmmq``'s shape: the handle's ``properties.inq``, MQGMO_PROPERTIES_AS_Q_DEF (the
    queue's PROPCTL(COMPAT) with a handle: in the handle)."""
    qm = connect()
    try:
        drain(qm)
        _put_coloured(qm, ["blue"])
        handle = mqpy.MessageHandle(qm, mqpy.CMHO())
        gmo = _handle_gmo(handle, CMQC.MQGMO_PROPERTIES_AS_Q_DEF)
        got = consume(qm, gmo, 1, lambda md, gmo, msg: (
            msg, handle.properties.inq("colour"), handle.properties.inq("mq_usr.%")))
        assert got == [(b"m0", "blue", (0, b"mq_usr.n"))]
    finally:
        qm.disconnect()


@pytest.mark.parametrize("read_ahead", [0, CMQC.MQOO_READ_AHEAD], ids=["sync", "read_ahead"])
@pytest.mark.parametrize("options,rfh2", [(CMQC.MQGMO_PROPERTIES_FORCE_MQRFH2, True),
                                          (CMQC.MQGMO_NO_PROPERTIES, False)])
def test_a_consumer_without_a_handle_has_them_as_the_options_say(connect, options, rfh2,
                                                                 read_ahead):
    qm = connect()
    try:
        drain(qm)
        _put_coloured(qm, ["blue"])
        got = consume(qm, mqpy.GMO(Options=options), 1,
                      lambda md, gmo, msg: (md.Format, msg),
                      CMQC.MQOO_INPUT_SHARED | read_ahead)
        assert len(got) == 1
        fmt, msg = got[0]
        if rfh2:
            assert fmt == CMQC.MQFMT_RF_HEADER_2 and msg.startswith(b"RFH ")
            assert b"<colour>blue</colour>" in msg and msg.endswith(b"m0")
        else:
            assert (fmt, msg) == (CMQC.MQFMT_STRING, b"m0")
    finally:
        qm.disconnect()
