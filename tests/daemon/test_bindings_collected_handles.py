"""A bindings application's Queue collected while open: its MQCLOSE is made by the
connection's next call, never by the collector's finalizer, which may run on a thread inside
a call on the same connection (its lock held) and must not wait there for that lock."""

from __future__ import annotations

import gc
import threading

import pytest

import mqpy
from mqpy import CMQC
from tests.support.handles import open_input_count
from tests.support.installation import QM, Installation, started

QUEUE = "COLLECTED.Q"
TOPIC = "collected/news"
PROMPTLY = 5.0  #: seconds: a call whose collection makes no call returns well within this


@pytest.fixture(scope="module")
def running(tmp_path_factory):
    inst = Installation(str(tmp_path_factory.mktemp("collected")))
    inst.create(queues=(QUEUE,))
    yield from started(inst)


def _left_in_a_cycle(qm: mqpy.QueueManager) -> None:
    """An open Queue that only the cycle collector can free."""
    holder: dict[str, object] = {"queue": mqpy.Queue(qm, QUEUE, CMQC.MQOO_INPUT_SHARED)}
    holder["self"] = holder


def _collect_inside_the_next_call(qm: mqpy.QueueManager) -> None:
    """The connection's next call (an MQINQ, on a thread) runs the collector while it holds
    the connection's lock; it must come back promptly."""
    flows = qm.connection()._flows
    feed = flows.feed
    collected: list[int] = []

    def collect_then_feed(data: bytes) -> None:
        if not collected:
            collected.append(gc.collect())  # inside the call: the connection's lock held
        feed(data)

    flows.feed = collect_then_feed
    try:
        thread = threading.Thread(target=lambda: qm.inquire(CMQC.MQCA_Q_MGR_NAME),
                                  daemon=True)
        thread.start()
        thread.join(PROMPTLY)
        assert not thread.is_alive(), "the collector's MQCLOSE waited for its own call's lock"
        assert collected
    finally:
        del flows.feed


def test_collected_during_a_call_on_the_same_connection(running):
    """Given a bindings application's open Queue left in a reference cycle, when the
    collector runs in the application's thread while it is inside a call on the same
    connection, then the call completes, and the call after it closes the handle."""
    qm = mqpy.connect(QM)
    watcher = mqpy.connect(QM)
    gc.collect()
    _left_in_a_cycle(qm)
    assert open_input_count(watcher, QUEUE) == 1
    _collect_inside_the_next_call(qm)
    qm.inquire(CMQC.MQCA_Q_MGR_NAME)  # the next call closes the collected handle
    assert open_input_count(watcher, QUEUE) == 0
    qm.disconnect()
    watcher.disconnect()


def test_a_queue_let_go_by_its_last_reference_is_closed_at_once(running):
    """Given a bindings application's open Queue, when its last reference goes (``del``),
    then it is closed at once, as pymqi's."""
    qm, watcher = mqpy.connect(QM), mqpy.connect(QM)
    queue = mqpy.Queue(qm, QUEUE, CMQC.MQOO_INPUT_SHARED)
    assert open_input_count(watcher, QUEUE) == 1
    del queue
    assert open_input_count(watcher, QUEUE) == 0
    qm.disconnect()
    watcher.disconnect()


def _publish_warns_no_subscriber(qm: mqpy.QueueManager) -> bool:
    topic = mqpy.Topic(qm, topic_string=TOPIC)
    topic.open(open_opts=CMQC.MQOO_OUTPUT)
    try:
        topic.pub(b"news", mqpy.MD(), mqpy.PMO(Options=CMQC.MQPMO_NO_SYNCPOINT
                                                | CMQC.MQPMO_WARN_IF_NO_SUBS_MATCHED))
        return False
    except mqpy.MQMIError as e:
        assert e.reason == CMQC.MQRC_NO_SUBS_MATCHED, e
        return True
    finally:
        topic.close()


def test_a_subscription_collected_during_a_call_is_closed_by_the_next(running):
    """Given a managed non-durable Subscription left in a reference cycle, when the
    collector runs inside a call on its connection, then that call completes, and the call
    after it closes the subscription (a publication then matches no subscriber)."""
    qm, watcher = mqpy.connect(QM), mqpy.connect(QM)
    gc.collect()
    sd = mqpy.SD(Options=CMQC.MQSO_CREATE | CMQC.MQSO_MANAGED | CMQC.MQSO_NON_DURABLE)
    sd.set_vs("ObjectString", TOPIC)
    sub = mqpy.Subscription(qm)
    sub.sub(sub_desc=sd)
    holder: dict[str, object] = {"sub": sub}
    holder["self"] = holder
    del sub, holder
    assert not _publish_warns_no_subscriber(watcher)
    _collect_inside_the_next_call(qm)
    qm.inquire(CMQC.MQCA_Q_MGR_NAME)  # the next call closes it
    assert _publish_warns_no_subscriber(watcher)
    qm.disconnect()
    watcher.disconnect()
