"""Durable subscriptions survive a restart and a SIGKILL of the queue manager's process, and
so do the persistent publications already delivered to them: nothing lost, nothing
duplicated; non-durable subscriptions end with the process."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap

import pytest

import mqpy
from mqpy import CMQC
from tests.mqi._support import raises_mq

from .conftest import QM
from .test_publish_subscribe import _got, _nothing, _publish

_REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
DURABLE = CMQC.MQSO_DURABLE | CMQC.MQSO_MANAGED
PERSISTENT = mqpy.MD(Persistence=CMQC.MQPER_PERSISTENT)


def _resume(qm, name: str) -> mqpy.Subscription:
    sd = mqpy.SD(Options=CMQC.MQSO_RESUME | DURABLE)
    sd.set_vs("SubName", name)
    sub = mqpy.Subscription(qm)
    sub.sub(sub_desc=sd)
    return sub


def _all(sub: mqpy.Subscription) -> list[bytes]:
    out = []
    while True:
        try:
            out.append(_got(sub))
        except mqpy.MQMIError as e:
            assert e.reason == CMQC.MQRC_NO_MSG_AVAILABLE
            return out


def test_given_a_durable_subscription_then_it_and_its_publications_survive_a_restart(qmgr):
    sd = mqpy.SD(Options=CMQC.MQSO_CREATE | DURABLE)
    sd.set_vs("ObjectString", "restart/topic")
    sd.set_vs("SubName", "kept over restart")
    sub = mqpy.Subscription(qmgr.qm)
    sub.sub(sub_desc=sd)
    correl = sd.SubCorrelId
    sub.close()
    temporary = mqpy.Subscription(qmgr.qm)
    temporary.sub(sub_desc=_non_durable("restart/topic"))
    _publish(qmgr.qm, "restart/topic", b"persistent", md=PERSISTENT.copy())
    qm = qmgr.restart()
    again = _resume(qm, "kept over restart")
    md = mqpy.MD()
    assert _got(again, md) == b"persistent" and md.CorrelId == correl
    _nothing(again)
    again.close(sub_close_options=CMQC.MQCO_REMOVE_SUB)
    with raises_mq(CMQC.MQRC_NO_SUBS_MATCHED, CMQC.MQCC_WARNING):  # the non-durable one too
        _publish(qm, "restart/topic", b"x", CMQC.MQPMO_WARN_IF_NO_SUBS_MATCHED)


def _non_durable(topic: str) -> mqpy.SD:
    sd = mqpy.SD(Options=CMQC.MQSO_CREATE | CMQC.MQSO_MANAGED)
    sd.set_vs("ObjectString", topic)
    return sd


_CHILD = """
import os, signal
import mqpy
from mqpy import CMQC
qm = mqpy.embedded({qm!r}, data_path={root!r}, create=False)
def sub(name):
    sd = mqpy.SD(Options=CMQC.MQSO_CREATE | CMQC.MQSO_DURABLE | CMQC.MQSO_MANAGED)
    sd.set_vs("ObjectString", "crash/topic")
    sd.set_vs("SubName", name)
    s = mqpy.Subscription(qm)
    s.sub(sub_desc=sd)
    return s
def pub(data, opts=CMQC.MQPMO_NO_SYNCPOINT):
    t = mqpy.Topic(qm, topic_string="crash/topic", open_opts=CMQC.MQOO_OUTPUT)
    t.pub(data, mqpy.MD(Persistence=CMQC.MQPER_PERSISTENT), mqpy.PMO(Options=opts))
    t.close()
"""


@pytest.mark.system
def test_given_durable_subscriptions_when_the_process_is_killed_then_nothing_is_lost(qmgr):
    """Two durable subscriptions made, publications committed outside and inside units of
    work (one backed out, one left in flight), then SIGKILL: after restart both resume and
    each has exactly the committed publications, in order."""
    mqpy.stop_embedded(QM, data_path=qmgr.root)
    body = textwrap.dedent("""
        a = sub("crash A"); b = sub("crash B")
        pub(b"1")
        pub(b"2", CMQC.MQPMO_SYNCPOINT); pub(b"3", CMQC.MQPMO_SYNCPOINT); qm.commit()
        pub(b"gone", CMQC.MQPMO_SYNCPOINT); qm.backout()
        c = sub("crash C")
        pub(b"4")
        pub(b"in flight", CMQC.MQPMO_SYNCPOINT)
    """)
    script = _CHILD.format(qm=QM, root=qmgr.root) + body + \
        "\nos.kill(os.getpid(), signal.SIGKILL)\n"
    proc = subprocess.run([sys.executable, "-c", script], cwd=_REPO, capture_output=True,
                          timeout=120)
    assert proc.returncode == -signal.SIGKILL, proc.stderr.decode()
    qm = qmgr.restart()
    assert _all(_resume(qm, "crash A")) == [b"1", b"2", b"3", b"4"]
    assert _all(_resume(qm, "crash B")) == [b"1", b"2", b"3", b"4"]
    assert _all(_resume(qm, "crash C")) == [b"4"]


def test_given_retained_publications_then_a_persistent_one_survives_a_restart(qmgr):
    _publish(qmgr.qm, "kept/retained", b"old", CMQC.MQPMO_RETAIN, PERSISTENT.copy())
    _publish(qmgr.qm, "kept/retained", b"persistent", CMQC.MQPMO_RETAIN, PERSISTENT.copy())
    _publish(qmgr.qm, "lost/retained", b"not persistent", CMQC.MQPMO_RETAIN)
    qm = qmgr.restart()
    sd = _non_durable("kept/retained")
    sub = mqpy.Subscription(qm)
    sub.sub(sub_desc=sd)
    assert _all(sub) == [b"persistent"]  # the last one only
    lost = mqpy.Subscription(qm)
    lost.sub(sub_desc=_non_durable("lost/retained"))
    _nothing(lost)
