"""Publishing and subscribing over embedded, bindings and client connections: a copy for
each matching subscription in the publisher's unit of work, managed and provided
destinations, durable and non-durable subscriptions, named subscriptions created, resumed
and altered, retained publications and MQSUBRQ, and IBM's reason codes."""

from __future__ import annotations

import itertools

import mqpy
from mqpy import CMQC
from tests.mqi._support import raises_mq

WAIT = CMQC.MQGMO_NO_SYNCPOINT
_names = itertools.count()


def _topic() -> str:
    """A topic string no other test of the module uses (the daemon is shared)."""
    return f"pubsub/test{next(_names)}"


def _subscribe(qm, topic: str, options: int = CMQC.MQSO_CREATE | CMQC.MQSO_MANAGED,
               name: str | None = None, queue: mqpy.Queue | None = None
               ) -> tuple[mqpy.Subscription, mqpy.SD]:
    sd = mqpy.SD(Options=options)
    sd.set_vs("ObjectString", topic)
    if name:
        sd.set_vs("SubName", name)
    sub = mqpy.Subscription(qm)
    sub.sub(sub_desc=sd, sub_queue=queue)
    return sub, sd


def _publish(qm, topic: str, data: bytes, options: int = 0, md: mqpy.MD | None = None) -> None:
    t = mqpy.Topic(qm, topic_string=topic)
    t.open(open_opts=CMQC.MQOO_OUTPUT)
    try:
        t.pub(data, md or mqpy.MD(), mqpy.PMO(Options=options | CMQC.MQPMO_NO_SYNCPOINT))
    finally:
        t.close()


def _got(sub: mqpy.Subscription, md: mqpy.MD | None = None) -> bytes:
    return sub.get(None, md or mqpy.MD(), mqpy.GMO(Options=WAIT))


def _nothing(sub: mqpy.Subscription) -> None:
    with raises_mq(CMQC.MQRC_NO_MSG_AVAILABLE):
        _got(sub)


def test_given_a_managed_subscription_when_published_then_it_gets_a_copy_with_its_correl_id(
        mode):
    qm = mode.connect()
    topic = _topic()
    try:
        sub, sd = _subscribe(qm, topic)
        assert sd.get_vs("ResObjectString") == topic.encode()
        _publish(qm, topic, b"hello")
        md = mqpy.MD()
        assert _got(sub, md) == b"hello"
        assert md.CorrelId == sd.SubCorrelId and md.CorrelId != CMQC.MQCI_NONE
        _nothing(sub)
        sub.close(sub_close_options=CMQC.MQCO_NONE, close_sub_queue=True)
        with raises_mq(CMQC.MQRC_NO_SUBS_MATCHED, CMQC.MQCC_WARNING):  # it ended at close
            _publish(qm, topic, b"later", CMQC.MQPMO_WARN_IF_NO_SUBS_MATCHED)
    finally:
        qm.disconnect()


def test_given_several_subscriptions_then_each_gets_its_own_copy(mode):
    qm = mode.connect()
    topic = _topic()
    try:
        subs = [_subscribe(qm, topic)[0] for _ in range(3)]
        wild = _subscribe(qm, topic.rsplit("/", 1)[0] + "/#")[0]
        other = _subscribe(qm, topic + "/deeper")[0]
        _publish(qm, topic, b"fan out")
        for sub in [*subs, wild]:
            assert _got(sub) == b"fan out"
        _nothing(other)
    finally:
        qm.disconnect()


def test_given_a_publication_in_syncpoint_then_subscribers_see_it_only_when_committed(mode):
    qm = mode.connect()
    publisher = mode.connect()
    topic = _topic()
    try:
        sub = _subscribe(qm, topic)[0]
        t = mqpy.Topic(publisher, topic_string=topic, open_opts=CMQC.MQOO_OUTPUT)
        t.pub(b"backed out", mqpy.MD(), mqpy.PMO(Options=CMQC.MQPMO_SYNCPOINT))
        _nothing(sub)
        publisher.backout()
        _nothing(sub)
        t.pub(b"committed", mqpy.MD(), mqpy.PMO(Options=CMQC.MQPMO_SYNCPOINT))
        _nothing(sub)
        publisher.commit()
        assert _got(sub) == b"committed"
        t.close()
    finally:
        publisher.disconnect()
        qm.disconnect()


def test_given_a_provided_queue_and_a_durable_subscription_then_it_outlives_its_handle(mode):
    qm = mode.connect()
    topic = _topic()
    name = f"durable {topic}"
    queue = f"PS.DEST.{next(_names)}"
    try:
        mode.mqsc(f"DEFINE QLOCAL('{queue}')\n")
        q = mqpy.Queue(qm, queue, CMQC.MQOO_INPUT_AS_Q_DEF)
        sub, sd = _subscribe(qm, topic, CMQC.MQSO_CREATE | CMQC.MQSO_DURABLE, name, q)
        sub.close(sub_close_options=CMQC.MQCO_KEEP_SUB)
        _publish(qm, topic, b"while closed")
        assert q.get(None, mqpy.MD(), mqpy.GMO(Options=WAIT)) == b"while closed"
        with raises_mq(CMQC.MQRC_SUB_ALREADY_EXISTS):
            _subscribe(qm, topic, CMQC.MQSO_CREATE | CMQC.MQSO_DURABLE, name, q)
        again, _ = _subscribe(qm, topic, CMQC.MQSO_RESUME | CMQC.MQSO_DURABLE, name, q)
        with raises_mq(CMQC.MQRC_SUBSCRIPTION_IN_USE):
            _subscribe(qm, topic, CMQC.MQSO_RESUME | CMQC.MQSO_DURABLE, name, q)
        again.close(sub_close_options=CMQC.MQCO_REMOVE_SUB)
        with raises_mq(CMQC.MQRC_NO_SUBSCRIPTION):
            _subscribe(qm, topic, CMQC.MQSO_RESUME | CMQC.MQSO_DURABLE, name, q)
        q.close()
    finally:
        qm.disconnect()


def test_given_a_retained_publication_then_new_and_on_request_subscribers_get_it(mode):
    qm = mode.connect()
    topic = _topic()
    try:
        _publish(qm, topic, b"first", CMQC.MQPMO_RETAIN)
        _publish(qm, topic, b"retained", CMQC.MQPMO_RETAIN)
        assert _got(_subscribe(qm, topic)[0]) == b"retained"
        fresh = _subscribe(qm, topic, CMQC.MQSO_CREATE | CMQC.MQSO_MANAGED
                           | CMQC.MQSO_NEW_PUBLICATIONS_ONLY)[0]
        _nothing(fresh)
        asked = _subscribe(qm, topic, CMQC.MQSO_CREATE | CMQC.MQSO_MANAGED
                           | CMQC.MQSO_PUBLICATIONS_ON_REQUEST)[0]
        _nothing(asked)
        _publish(qm, topic, b"not retained")
        _nothing(asked)  # on request only
        assert asked.subrq().NumPubs == 1
        assert _got(asked) == b"retained"
        none = _subscribe(qm, _topic(), CMQC.MQSO_CREATE | CMQC.MQSO_MANAGED
                          | CMQC.MQSO_PUBLICATIONS_ON_REQUEST)[0]
        with raises_mq(CMQC.MQRC_NO_RETAINED_MSG):
            none.subrq()
    finally:
        qm.disconnect()


def test_given_not_own_subs_and_suppress_replyto_then_copies_follow_the_options(mode):
    qm = mode.connect()
    other = mode.connect()
    topic = _topic()
    try:
        mine = _subscribe(qm, topic)[0]
        theirs = _subscribe(other, topic)[0]
        md = mqpy.MD(ReplyToQ=b"SOME.REPLY.Q", ReplyToQMgr=b"SOMEQM")
        _publish(qm, topic, b"not mine", CMQC.MQPMO_NOT_OWN_SUBS | CMQC.MQPMO_SUPPRESS_REPLYTO,
                 md)
        _nothing(mine)
        got = mqpy.MD()
        assert _got(theirs, got) == b"not mine"
        assert got.ReplyToQ.strip() == b""
    finally:
        other.disconnect()
        qm.disconnect()


def test_given_put1_to_a_topic_then_it_is_a_publication(mode):
    qm = mode.connect()
    topic = _topic()
    try:
        sub = _subscribe(qm, topic)[0]
        od = mqpy.OD(Version=CMQC.MQOD_VERSION_4, ObjectType=CMQC.MQOT_TOPIC)
        od.set_vs("ObjectString", topic)
        qm.put1(od, b"put1", mqpy.MD(), mqpy.PMO(Options=CMQC.MQPMO_NO_SYNCPOINT))
        assert _got(sub) == b"put1"
    finally:
        qm.disconnect()


def test_given_bad_subscriptions_then_mqsub_fails_with_ibms_reasons(mode):
    qm = mode.connect()
    topic = _topic()
    try:
        with raises_mq(CMQC.MQRC_OPTIONS_ERROR):  # none of CREATE, RESUME, ALTER
            _subscribe(qm, topic, CMQC.MQSO_MANAGED)
        with raises_mq(CMQC.MQRC_SUB_NAME_ERROR):  # durable without a name
            _subscribe(qm, topic, CMQC.MQSO_CREATE | CMQC.MQSO_MANAGED | CMQC.MQSO_DURABLE)
        with raises_mq(CMQC.MQRC_UNKNOWN_OBJECT_NAME):  # no topic at all
            _subscribe(qm, "")
        with raises_mq(CMQC.MQRC_HOBJ_ERROR):  # not managed, and no queue given
            _subscribe(qm, topic, CMQC.MQSO_CREATE)
        with raises_mq(CMQC.MQRC_OPTION_NOT_VALID_FOR_TYPE):  # a topic is not for input
            mqpy.Topic(qm, topic_string=topic, open_opts=CMQC.MQOO_INPUT_AS_Q_DEF)
    finally:
        qm.disconnect()


def test_given_a_managed_durable_subscription_closed_then_an_administrator_may_delete_it(mode):
    qm = mode.connect()
    topic = _topic()
    name = f"closed then deleted {topic}"
    try:
        sub, _ = _subscribe(qm, topic, CMQC.MQSO_CREATE | CMQC.MQSO_MANAGED
                            | CMQC.MQSO_DURABLE, name)
        _publish(qm, topic, b"m")
        gmo = mqpy.GMO(Options=CMQC.MQGMO_NO_SYNCPOINT | CMQC.MQGMO_WAIT, WaitInterval=5000)
        assert sub.get(None, mqpy.MD(), gmo) == b"m"
        sub.close(sub_close_options=0, close_sub_queue=True)
        out = mode.mqsc(f"DELETE SUB('{name}')\n")
        assert "AMQ8093I" in (out if isinstance(out, str) else "\n".join(out)), out
    finally:
        qm.disconnect()


def test_given_a_stopped_connection_then_its_non_durable_subscriptions_end(qmgr):
    """STOP CONN of a subscriber: its non-durable subscription ends (no more copies, its
    managed queue gone), its durable one stays."""
    subscriber = qmgr.connect()
    kept = [_subscribe(subscriber, "stopped/conn"),  # (held: not closed by the collector)
            _subscribe(subscriber, "stopped/conn", CMQC.MQSO_CREATE | CMQC.MQSO_MANAGED
                       | CMQC.MQSO_DURABLE, "STAYS")]
    subscriber.connection().stop()
    _publish(qmgr.qm, "stopped/conn", b"one")
    assert "SUBCOUNT(1)" in "".join(qmgr.mqsc("DISPLAY TPSTATUS('stopped/conn') SUBCOUNT\n"))
    del kept
