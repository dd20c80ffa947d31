"""Message properties on publications, as IBM sets them: each copy carries the publication's
own properties and MQTopicString (MQRFH2 ``mqps.Top``), MQSubUserData (``mqps.Sud``) when the
subscription has user data, MQIsRetained (``mqps.Ret``) when it is a retained publication;
they reach the subscriber in a message handle or as an MQRFH2, and a subscription's selection
string selects on them."""

from __future__ import annotations

import mqpy
from mqpy import CMQC
from mqpy.rfh2 import RFH2
from tests.mqi._support import raises_mq

from .test_publish_subscribe import _nothing, _publish, _subscribe, _topic

HANDLE_GMO = CMQC.MQGMO_NO_SYNCPOINT | CMQC.MQGMO_PROPERTIES_IN_HANDLE


def _with_handle(qm, sub: mqpy.Subscription) -> tuple[bytes, mqpy.MessageHandle]:
    handle = mqpy.MessageHandle(qm, mqpy.CMHO())
    gmo = mqpy.GMO(Version=CMQC.MQGMO_VERSION_4, Options=HANDLE_GMO)
    gmo.MsgHandle = handle.msg_handle
    return sub.get(None, mqpy.MD(), gmo), handle


def _publish_with(qm, topic: str, data: bytes, props: dict[str, str], options: int = 0) -> None:
    handle = mqpy.MessageHandle(qm, mqpy.CMHO())
    for name, value in props.items():
        handle.properties.set(name, value)
    pmo = mqpy.PMO(Version=CMQC.MQPMO_VERSION_3, Options=options | CMQC.MQPMO_NO_SYNCPOINT)
    pmo.OriginalMsgHandle = handle.msg_handle
    t = mqpy.Topic(qm, topic_string=topic)
    t.open(open_opts=CMQC.MQOO_OUTPUT)
    try:
        t.pub(data, mqpy.MD(Format=CMQC.MQFMT_STRING), pmo)
    finally:
        t.close()


def _prop(handle: mqpy.MessageHandle, name: str):
    return handle.properties.get(name)


def test_given_a_publication_with_properties_then_the_copy_has_them_and_the_topic_string(mode):
    qm = mode.connect()
    topic = _topic()
    try:
        sub = _subscribe(qm, topic)[0]
        _publish_with(qm, topic, b"priced", {"colour": "red"})
        data, handle = _with_handle(qm, sub)
        assert data == b"priced"
        assert _prop(handle, "MQTopicString") == topic
        assert _prop(handle, "colour") == "red"
        with raises_mq(CMQC.MQRC_PROPERTY_NOT_AVAILABLE):
            _prop(handle, "MQIsRetained")
        sub.close()
    finally:
        qm.disconnect()


def test_given_force_rfh2_then_the_copy_starts_with_an_mqrfh2_with_the_mqps_folder(qmgr):
    topic = _topic()
    sub = _subscribe(qmgr.qm, topic)[0]
    _publish(qmgr.qm, topic, b"plain", md=mqpy.MD(Format=CMQC.MQFMT_STRING))
    md = mqpy.MD()
    gmo = mqpy.GMO(Version=CMQC.MQGMO_VERSION_4,
                   Options=CMQC.MQGMO_NO_SYNCPOINT | CMQC.MQGMO_PROPERTIES_FORCE_MQRFH2)
    data = sub.get(None, md, gmo)
    assert md.Format == CMQC.MQFMT_RF_HEADER_2
    header = RFH2()
    header.unpack(data, md.Encoding)
    folders = b"".join(f if isinstance(f, bytes) else f.encode() for f in header.folders())
    assert b"<mqps><Top>" + topic.encode() + b"</Top></mqps>" in folders
    assert header.Format == CMQC.MQFMT_STRING
    assert data.endswith(b"plain")
    sub.close()


def test_given_a_retained_publication_then_a_new_subscriber_sees_mqisretained(qmgr):
    topic = _topic()
    _publish(qmgr.qm, topic, b"kept", CMQC.MQPMO_RETAIN)
    sub = _subscribe(qmgr.qm, topic)[0]
    data, handle = _with_handle(qmgr.qm, sub)
    assert data == b"kept"
    assert _prop(handle, "MQIsRetained") is True
    assert _prop(handle, "MQTopicString") == topic
    sub.close()


def test_given_subscription_user_data_then_each_copy_has_mqsubuserdata(qmgr):
    topic = _topic()
    sd = mqpy.SD(Options=CMQC.MQSO_CREATE | CMQC.MQSO_MANAGED)
    sd.set_vs("ObjectString", topic)
    sd.set_vs("SubUserData", "mine")
    sub = mqpy.Subscription(qmgr.qm)
    sub.sub(sub_desc=sd)
    _publish(qmgr.qm, topic, b"x")
    _data, handle = _with_handle(qmgr.qm, sub)
    assert _prop(handle, "MQSubUserData") == "mine"
    sub.close()


def test_given_a_selection_string_on_properties_then_only_selected_publications_arrive(mode):
    qm = mode.connect()
    topic = _topic()
    try:
        sd = mqpy.SD(Options=CMQC.MQSO_CREATE | CMQC.MQSO_MANAGED)
        sd.set_vs("ObjectString", topic)
        sd.set_vs("SelectionString", "colour = 'red'")
        sub = mqpy.Subscription(qm)
        sub.sub(sub_desc=sd)
        _publish_with(qm, topic, b"blue one", {"colour": "blue"})
        _publish_with(qm, topic, b"red one", {"colour": "red"})
        data, _handle = _with_handle(qm, sub)
        assert data == b"red one"
        _nothing(sub)
        sub.close()
    finally:
        qm.disconnect()


def _get_with_handle(qm, queue: str) -> tuple[bytes, mqpy.MessageHandle]:
    handle = mqpy.MessageHandle(qm, mqpy.CMHO())
    gmo = mqpy.GMO(Version=CMQC.MQGMO_VERSION_4, Options=HANDLE_GMO)
    gmo.MsgHandle = handle.msg_handle
    q = mqpy.Queue(qm, queue, CMQC.MQOO_INPUT_AS_Q_DEF)
    try:
        return q.get(None, mqpy.MD(), gmo), handle
    finally:
        q.close()


def test_given_psprop_none_then_the_copy_has_no_publish_subscribe_properties(qmgr):
    """Given DEFINE SUB ... PSPROP(NONE) (IBM: "do not add publish/subscribe properties to
    the message"), then its copy has the publication's own properties and no
    MQTopicString / MQSubUserData; a subscription with the default PSPROP(MSGPROP) has
    them."""
    qmgr.mqsc("DEFINE QLOCAL(PLAIN.Q)\nDEFINE QLOCAL(PROPS.Q)\n"
              "DEFINE SUB(PLAIN.SUB) TOPICSTR('ps/prop') DEST(PLAIN.Q) PSPROP(NONE) "
              "USERDATA('ud')\n"
              "DEFINE SUB(PROPS.SUB) TOPICSTR('ps/prop') DEST(PROPS.Q) USERDATA('ud')\n")
    shown = "\n".join(qmgr.mqsc("DISPLAY SUB(PLAIN.SUB) PSPROP\n"))
    assert "PSPROP(NONE)" in shown
    _publish_with(qmgr.qm, "ps/prop", b"bare", {"colour": "red"})
    data, handle = _get_with_handle(qmgr.qm, "PLAIN.Q")
    assert data == b"bare" and _prop(handle, "colour") == "red"
    for name in ("MQTopicString", "MQSubUserData"):
        with raises_mq(CMQC.MQRC_PROPERTY_NOT_AVAILABLE):
            _prop(handle, name)
    data, handle = _get_with_handle(qmgr.qm, "PROPS.Q")
    assert _prop(handle, "MQTopicString") == "ps/prop" and _prop(handle, "MQSubUserData") == "ud"
