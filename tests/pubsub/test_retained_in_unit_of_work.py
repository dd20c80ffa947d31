"""A retained publication put under syncpoint belongs to the publisher's unit of work, as its
copies do: MQCMIT makes it the topic's retained publication, MQBACK leaves the one before."""

from __future__ import annotations

import mqpy
from mqpy import CMQC

from .test_publish_subscribe import _got, _nothing, _publish, _subscribe, _topic

RETAIN_IN_UOW = CMQC.MQPMO_SYNCPOINT | CMQC.MQPMO_RETAIN


def _publish_in_uow(qm, topic: str, data: bytes) -> None:
    t = mqpy.Topic(qm, topic_string=topic)
    t.open(open_opts=CMQC.MQOO_OUTPUT)
    try:
        t.pub(data, mqpy.MD(), mqpy.PMO(Options=RETAIN_IN_UOW))
    finally:
        t.close()


def test_given_a_retained_publication_backed_out_then_the_earlier_one_stays_retained(qmgr):
    topic = _topic()
    _publish(qmgr.qm, topic, b"first", CMQC.MQPMO_RETAIN)
    _publish_in_uow(qmgr.qm, topic, b"backed out")
    qmgr.qm.backout()
    sub = _subscribe(qmgr.qm, topic)[0]
    assert _got(sub) == b"first"
    _nothing(sub)
    sub.close()


def test_given_a_retained_publication_committed_then_new_subscribers_get_it(qmgr):
    topic = _topic()
    _publish_in_uow(qmgr.qm, topic, b"committed")
    other = qmgr.connect()
    try:
        early = _subscribe(other, topic)[0]
        _nothing(early)  # not retained before the commit
        early.close()
        qmgr.qm.commit()
        sub = _subscribe(other, topic)[0]
        assert _got(sub) == b"committed"
        sub.close()
    finally:
        other.disconnect()


def test_given_nothing_retained_when_a_retained_publication_is_backed_out_then_none(qmgr):
    topic = _topic()
    _publish_in_uow(qmgr.qm, topic, b"never")
    qmgr.qm.backout()
    sub = _subscribe(qmgr.qm, topic)[0]
    _nothing(sub)
    sub.close()
