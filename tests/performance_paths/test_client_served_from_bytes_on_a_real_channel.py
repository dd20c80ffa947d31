"""A channel initiator's client host serving MQPUTs and MQGETs from their bytes
(``mqpy_chinit.svrconn_packed``) on a real SVRCONN -- conversations sharing an instance, a
getter waiting on one of them, an MCAUSER, the channel's MAXMSGL -- gives what the
receiver's way gives: the messages, their context, the reasons and the channel's
counters."""

from __future__ import annotations

import threading
import time

import mqpy
from mqpy import CMQC
from mqpy_chinit import svrconn_packed
from tests.client.conftest import env  # noqa: F401 - the fixture
from tests.client.test_client_poller import poller  # noqa: F401 - the fixture
from tests.support.queue_contents import counting_calls

_WAIT = CMQC.MQGMO_WAIT | CMQC.MQGMO_NO_SYNCPOINT
_PERSISTENCES = (CMQC.MQPER_NOT_PERSISTENT, CMQC.MQPER_PERSISTENT) * 2


def _waiting_getter(queue: mqpy.Queue, got: list) -> threading.Thread:
    """A thread getting len(_PERSISTENCES) messages, each with a wait: (data, UserIdentifier,
    Persistence, when) each, or the reason a get failed."""
    def run() -> None:
        for _ in _PERSISTENCES:
            md = mqpy.MD()
            try:
                data = queue.get(None, md, mqpy.GMO(Options=_WAIT, WaitInterval=5000))
                got.append((data, md.UserIdentifier, md.Persistence, time.monotonic()))
            except mqpy.MQMIError as e:
                got.append(e.reason)
    thread = threading.Thread(target=run)
    thread.start()
    return thread


def _calls(env, queue: str, channel: str) -> list:  # noqa: F811 - the fixture's value
    """Two conversations of one instance: one waits for each message the other puts
    (persistent and not); then puts within and beyond MAXMSGL and gets (whole, truncated);
    what each saw and the channel's MSGS, BYTSSENT and BYTSRCVD."""
    waiting = env.client(channel=channel, SharingConversations=10)
    putting = env.client(channel=channel, SharingConversations=10)
    seen: list = []
    try:
        inq = mqpy.Queue(waiting, queue, CMQC.MQOO_INPUT_AS_Q_DEF)
        both = mqpy.Queue(putting, queue, CMQC.MQOO_OUTPUT | CMQC.MQOO_INPUT_AS_Q_DEF)
        got: list = []
        thread = _waiting_getter(inq, got)
        sent = []
        for i, persistence in enumerate(_PERSISTENCES):
            time.sleep(0.2)  # (the getter waiting by then)
            sent.append(time.monotonic())
            both.put(b"m%d" % i, mqpy.MD(Persistence=persistence),
                     mqpy.PMO(Options=CMQC.MQPMO_NO_SYNCPOINT))
        thread.join(30)
        seen.append([g[:3] if type(g) is tuple else g for g in got])
        seen.append(all(type(g) is tuple and g[3] - at < 1.0 for g, at in zip(got, sent,
                                                                               strict=True)))
        for size in (100, 3000):  # MAXMSGL(2000)
            try:
                both.put(b"x" * size)
                seen.append(("put", size))
            except mqpy.MQMIError as e:
                seen.append(("put", size, e.reason))
        for length in (10, None, None):
            try:
                seen.append(both.get(length, mqpy.MD(),
                                     mqpy.GMO(Options=CMQC.MQGMO_ACCEPT_TRUNCATED_MSG)))
            except mqpy.MQMIError as e:
                seen.append((e.reason, getattr(e, "message", None)))
        both.put(b"y" * 100)
        both.get()
        time.sleep(0.2)  # (the last reply counted)
        seen.append([(s["MSGS"], s["BYTSSENT"], s["BYTSRCVD"])
                     for s in env.chinit.svrconn_statuses(channel)])
    finally:
        waiting.disconnect()
        putting.disconnect()
    return seen


def test_a_real_channels_calls_served_from_bytes_are_the_receivers_ways(env, poller,  # noqa: F811
                                                                        monkeypatch):
    """Given a SVRCONN with MCAUSER, MAXMSGL(2000) and shared conversations, when one
    conversation waits for each message another puts (persistent and not), then puts within
    and beyond MAXMSGL and gets whole and truncated, then the messages, their context, the
    reasons, how soon the waiter has each and the channel's counters are the same with the
    bytes path as without it, and the bytes path served some."""
    for channel in ("BYTES.SVRCONN", "EVENTS.SVRCONN"):
        env.define("CHANNEL", channel, CHLTYPE="SVRCONN", MCAUSER="mapped", MAXMSGL=2000,
                   SHARECNV=10)
    for queue in ("BYTES.Q", "EVENTS.Q"):
        env.define("QLOCAL", queue, DEFPSIST="NO")
    served = counting_calls(monkeypatch, svrconn_packed, "serve")
    fast = _calls(env, "BYTES.Q", "BYTES.SVRCONN")
    assert sum(served) >= 5
    assert fast[0][0][1].rstrip() == b"mapped" and fast[1] is True
    monkeypatch.setattr(svrconn_packed, "serve", lambda *args: None)
    assert _calls(env, "EVENTS.Q", "EVENTS.SVRCONN") == fast
