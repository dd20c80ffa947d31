"""pymqi 1.12.11's calls as a program makes them over a connection, embedded, bindings and
client alike: pymqi's parameter names and positions, and pymqi's class-level settings."""

from __future__ import annotations

import pytest

import mqpy as pymqi
from mqpy import CMQC
from tests.pymqi_compat.conftest import QUEUE


def test_queue_set_takes_pymqis_keywords(qmgr):
    """Given a queue, when a program calls ``set(attribute=..., arg=...)`` with pymqi's
    parameter names, then the attribute is set (MQSET), as a positional call sets it."""
    q = pymqi.Queue(qmgr, QUEUE, CMQC.MQOO_SET | CMQC.MQOO_INQUIRE)
    try:
        q.set(attribute=CMQC.MQIA_INHIBIT_PUT, arg=CMQC.MQQA_PUT_INHIBITED)
        assert q.inquire(CMQC.MQIA_INHIBIT_PUT) == CMQC.MQQA_PUT_INHIBITED
        q.set(CMQC.MQIA_INHIBIT_PUT, CMQC.MQQA_PUT_ALLOWED)
        assert q.inquire(CMQC.MQIA_INHIBIT_PUT) == CMQC.MQQA_PUT_ALLOWED
    finally:
        q.close()


def test_get_no_jms_takes_max_length_by_name(qmgr):
    """Given a message of 10 bytes, when a program calls ``get_no_jms(max_length=4)`` with
    pymqi's parameter name, then the get is limited to 4 bytes: MQRC_TRUNCATED_MSG_FAILED,
    and the message stays on the queue for a whole get."""
    q = pymqi.Queue(qmgr, QUEUE, CMQC.MQOO_OUTPUT | CMQC.MQOO_INPUT_SHARED)
    try:
        q.put(b"0123456789")
        try:
            q.get_no_jms(max_length=4)
            raise AssertionError("a 10-byte message fitted in 4 bytes")
        except pymqi.MQMIError as e:
            assert e.reason == CMQC.MQRC_TRUNCATED_MSG_FAILED
        assert q.get_no_jms(max_length=None) == b"0123456789"
    finally:
        q.close()


def test_a_str_put_is_encoded_as_the_positional_encoding_says(env):
    """Given ``QueueManager(None, True, 'iso-8859-1', 819)`` (pymqi's four parameters by
    position) connected later, when it puts a str, then the message is that text in
    ISO-8859-1 and its MQMD says CCSID 819, MQFMT_STRING."""
    qm = pymqi.QueueManager(None, True, "iso-8859-1", 819)
    qm.connect_tcp_client(env.name, pymqi.CD(), "SYSTEM.DEF.SVRCONN", env.conn_info)
    try:
        pymqi.Queue(qm, QUEUE).put("caf\u00e9")
        md = pymqi.MD()
        assert pymqi.Queue(qm, QUEUE).get(None, md) == "caf\u00e9".encode("iso-8859-1")
        assert (md.CodedCharSetId, md.Format) == (819, CMQC.MQFMT_STRING)
    finally:
        qm.disconnect()


def test_message_property_get_takes_pymqis_positional_parameters(qmgr):
    """Given a message handle with a string property, when a program inquires it with
    pymqi's six positional parameters (name, default, max_value_length, impo_options, pd,
    property_type), then the value comes back."""
    handle = pymqi.MessageHandle(qmgr)
    handle.properties.set("colour", "blue")
    got = handle.properties.get("colour", None, 100, CMQC.MQIMPO_INQ_FIRST, CMQC.MQPD_NONE,
                                CMQC.MQTYPE_AS_SET)
    assert got == "blue"  # a string property is a str, as pymqi's MQINQMP gives it


def test_message_handle_default_value_length_set_on_the_class_applies(qmgr, monkeypatch):
    """Given ``pymqi.MessageHandle.default_value_length`` set to 4 by the program, when a
    property of 10 bytes is inquired without a length, then MQINQMP is given 4 bytes:
    MQRC_PROPERTY_VALUE_TOO_BIG; with the class's 64 again, the value comes back."""
    handle = pymqi.MessageHandle(qmgr)
    handle.properties.set("name", "0123456789")
    monkeypatch.setattr(pymqi.MessageHandle, "default_value_length", 4)
    try:
        handle.properties.get("name")
        raise AssertionError("a 10-byte value fitted in 4 bytes")
    except pymqi.MQMIError as e:
        assert e.reason == CMQC.MQRC_PROPERTY_VALUE_TOO_BIG
    monkeypatch.undo()
    assert handle.properties.get("name") == "0123456789"


def test_a_subscription_takes_its_queue_as_an_object_handle(qmgr):
    """Given a queue opened for input and a subscription made with ``sub_queue`` its object
    handle (an int, as pymqi takes it) and no MQSO_MANAGED, when a publication is put on the
    topic, then it arrives on that queue, read through the subscription."""
    q = pymqi.Queue(qmgr, QUEUE, CMQC.MQOO_INPUT_SHARED)
    sub = pymqi.Subscription(qmgr)
    sub.sub(sub_queue=q.get_handle(), topic_string="surface/handle",
            sub_opts=CMQC.MQSO_CREATE | CMQC.MQSO_NON_DURABLE)
    try:
        assert sub.get_sub_queue().get_handle() == q.get_handle()
        topic = pymqi.Topic(qmgr, topic_string="surface/handle")
        topic.pub(b"hello")
        topic.close()
        assert q.get() == b"hello"
    finally:
        sub.close()
        q.close()


def test_an_unknown_pcf_command_is_a_key_error(pcf_exec):
    """Given a PCFExecute, when a program calls an MQCMD_ name CMQCFC has not, then
    KeyError, as pymqi's look-up in CMQCFC raises it (an AttributeError too)."""
    with pytest.raises(KeyError):
        pcf_exec.MQCMD_NO_SUCH_COMMAND()
    with pytest.raises(AttributeError):
        pcf_exec.MQCMD_NO_SUCH_COMMAND({})


def test_a_message_of_a_transmission_header_without_its_mqmd_is_still_refused(qmgr):
    """Given pymqi's 104-byte XQH unpacks on its own (``XQH().unpack(msg[:104])``), when a
    program puts a message of those 104 bytes alone with Format MQXMIT, then the put still
    fails MQRC_XQH_ERROR: a transmission header in message data carries its MQMD."""
    header = pymqi.XQH(RemoteQName=b"Q", RemoteQMgrName=b"QM").pack()[:104]
    assert pymqi.XQH().unpack(header).RemoteQName.rstrip() == b"Q"
    q = pymqi.Queue(qmgr, QUEUE, CMQC.MQOO_OUTPUT)
    try:
        with pytest.raises(pymqi.MQMIError) as failed:
            q.put(header, pymqi.MD(Format=CMQC.MQFMT_XMIT_Q_HEADER))
        assert failed.value.reason == CMQC.MQRC_XQH_ERROR
    finally:
        q.close()


def _connect_like(qmgr, env):
    """A new connection of the same kind as ``qmgr``, made by a public connect call."""
    if qmgr.get_name() and getattr(qmgr, "_embedded", False):
        qm = pymqi.QueueManager(None)
        qm.connect(env.name, data_path=env.root)
        return qm
    if getattr(qmgr.connection(), "is_client", False):
        return pymqi.connect(env.name, "SYSTEM.DEF.SVRCONN", env.conn_info)
    return env.bindings()


def test_a_dropped_queue_manager_disconnects(qmgr, env):
    """Given a program that connects, puts a message under syncpoint and drops its
    QueueManager without committing or disconnecting, then the connection is disconnected
    as pymqi's ``__del__`` does with disconnect_on_exit (MQDISC, which commits): the message
    can be got at once."""
    def work() -> None:
        qm = _connect_like(qmgr, env)
        pymqi.Queue(qm, QUEUE).put(b"left behind", pymqi.MD(),
                                   pymqi.PMO(Options=CMQC.MQPMO_SYNCPOINT))

    work()  # its QueueManager's last reference goes as it returns
    assert pymqi.Queue(qmgr, QUEUE).get() == b"left behind"
