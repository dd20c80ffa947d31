"""Proxy subscriptions are named from what another queue manager of the cluster sent
(``SYSTEM.PROXY.<qmgr> <cluster> <topic string>``); the publish/subscribe task removes them
through MQSC (a RESYNC or UNSUBSCRIBE request). A topic string holding a quote or a line break
is removed as any other, whether the task reads its queue manager in its own process
(``EngineAdmin``) or through the command server (``MQSCAdmin``), and nothing else is."""

from __future__ import annotations

import json
import types

import pytest

import mqpy
from mqpy import cmdserver, inprocess
from mqpy.mqsc.processor import MQSCProcessor
from mqpy.mqsc.writer import command_text
from mqpy.pubsub import admin as subscriptions
from mqpy.pubsub.interqmgr import PUBSUB_DAEMON_APPL
from mqpy_chinit.admin import MQSCAdmin
from mqpy_chinit.cluster.pubsubdaemon import PubSubDaemon
from mqpy_chinit.engineadmin import EngineAdmin

HOSTILE_TOPICS = ("bad\ntopic", "it's/x", "a\nAMQ8096I: IBM MQ subscription inquired.",
                  "x')  SUBTYPE(USER", "tab\there")


@pytest.fixture(scope="module")
def engine(tmp_path_factory):
    root = str(tmp_path_factory.mktemp("proxies"))
    mqpy.embedded("QM1", data_path=root)
    eng = inprocess.running("QM1", root)
    assert MQSCProcessor(eng).execute_text("DEFINE QLOCAL(QM2) USAGE(XMITQ)").ok
    assert MQSCProcessor(eng).execute_text("DEFINE QLOCAL(QM3) USAGE(XMITQ)").ok
    cmdserver.start_command_server("QM1", root)
    try:
        yield eng
    finally:
        cmdserver.stop_command_server("QM1", root)
        mqpy.stop_embedded("QM1", data_path=root)


@pytest.fixture(params=["engine", "command server"])
def task(request, engine):
    """The publish/subscribe task's control handling, its admin one of the two, and its
    connection as the task's (so that its subscriptions are SUBTYPE(PROXY))."""
    qm = mqpy.QueueManager(None)
    qm._conn = engine.connect(PUBSUB_DAEMON_APPL)
    qm._name = "QM1"
    admin = EngineAdmin(engine) if request.param == "engine" else MQSCAdmin(qm, wait=10)
    daemon = PubSubDaemon(types.SimpleNamespace(
        qmgr="QM1", chinit=types.SimpleNamespace(admin=admin)))
    yield daemon, qm
    if isinstance(admin, MQSCAdmin):
        admin.close()
    for row in _proxies(engine):
        MQSCProcessor(engine).execute_text(
            command_text("DELETE", "SUB", None, {"SUBID": str(row["SUBID"])}))
    qm.disconnect()


def _request(daemon: PubSubDaemon, qm: mqpy.QueueManager, **fields: str) -> None:
    daemon._on_request(json.dumps(fields).encode(), qm)


def _proxies(engine) -> list[dict[str, object]]:
    """The proxy subscriptions' rows (their names as stored, not as DISPLAY shows them)."""
    return [r for r in subscriptions.rows(engine, "*", True)
            if subscriptions.subtype_shown(r, "PROXY")]


def _names(engine) -> list[str]:
    return sorted(str(r["SUB"]) for r in _proxies(engine))


def test_a_resync_removes_every_proxy_of_its_queue_manager_whatever_its_topic(task, engine):
    """Given proxy subscriptions for QM2 whose topic strings hold quotes, line breaks and
    forged MQSC, and one for QM3, when QM2 asks for a RESYNC, then each of QM2's is removed
    and QM3's stays."""
    daemon, qm = task
    for topic in ("ok/topic", *HOSTILE_TOPICS):
        _request(daemon, qm, qmgr="QM2", request="SUBSCRIBE", cluster="CL", topicstr=topic)
    _request(daemon, qm, qmgr="QM3", request="SUBSCRIBE", cluster="CL", topicstr="ok/topic")
    assert len(_names(engine)) == 2 + len(HOSTILE_TOPICS)
    _request(daemon, qm, qmgr="QM2", request="RESYNC")
    assert _names(engine) == ["SYSTEM.PROXY.QM3 CL ok/topic"]


@pytest.mark.parametrize("topic", HOSTILE_TOPICS)
def test_an_unsubscribe_removes_that_proxy_alone(task, engine, topic):
    """Given a proxy subscription whose topic string is hostile and another, when its
    queue manager unsubscribes, then it alone is removed."""
    daemon, qm = task
    _request(daemon, qm, qmgr="QM2", request="SUBSCRIBE", cluster="CL", topicstr=topic)
    _request(daemon, qm, qmgr="QM2", request="SUBSCRIBE", cluster="CL", topicstr="ok/topic")
    _request(daemon, qm, qmgr="QM2", request="UNSUBSCRIBE", cluster="CL", topicstr=topic)
    assert _names(engine) == ["SYSTEM.PROXY.QM2 CL ok/topic"]
