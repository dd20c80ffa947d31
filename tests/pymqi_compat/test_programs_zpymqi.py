"""zpymqi's publish/subscribe programs (colinpaicemq/zpymqi on GitHub, tests/publish.py and
tests/prop.py), whose MQI calls are pymqi's, written as they make them with ``import mqpy
as pymqi`` as the only change (zpymqi's own extras -- set_debug, Subscription.getSD,
MessageHandle.get_all_properties, its PCF class -- are not pymqi's and are left out).

publish.py connects, makes a ``pymqi.MessageHandle(qmgr)``, fills an ``SD()`` by item
(``sub_desc['Options'] = MQSO_CREATE + MQSO_RESUME + MQSO_DURABLE + MQSO_MANAGED``,
``sub_desc['SubLevel'] = 9``, ``set_vs('SubName', ...)``, ``set_vs('ObjectString', ...)``),
subscribes with ``Subscription(qmgr).sub(sub_desc=sub_desc)``, publishes with
``md["Persistence"] = MQPER_NOT_PERSISTENT`` and ``PMO(Version=MQPMO_VERSION_3)`` whose
``PubLevel`` is 9 and Options MQPMO_NO_SYNCPOINT + MQPMO_FAIL_IF_QUIESCING + MQPMO_RETAIN on
a Topic opened MQOO_OUTPUT + MQOO_PASS_ALL_CONTEXT, commits, and gets through the
subscription with ``GMO(MsgHandle=hMsg.msg_handle, Options=... MQGMO_PROPERTIES_IN_HANDLE
... MQGMO_WAIT)``, ``get_opts['WaitInterval'] = 1000``. prop.py is the same subscription
and get, reading the publication's properties. A program like these runs again and
again: its second run resumes the durable subscription its first made.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

import mqpy as pymqi
from tests.client.conftest import CHANNEL, Env
from tests.pymqi_compat.conftest import QMGR, program_env

pytestmark = pytest.mark.timeout(120)

MODES = ("bindings", "client")
TOPIC = "/currency/rate/EUR/USD"


@pytest.fixture(scope="module")
def env(tmp_path_factory) -> Iterator[Env]:
    yield from program_env(tmp_path_factory, "zpymqi")


def _connect(env: Env, mode: str) -> pymqi.QueueManager:
    if mode == "client":
        return pymqi.connect(QMGR, CHANNEL, env.conn_info)
    return pymqi.connect(QMGR)


def _subscription(qmgr: pymqi.QueueManager, name: str, topic: str = TOPIC
                  ) -> tuple[pymqi.SD, pymqi.Subscription]:
    sub_desc = pymqi.SD()
    sub_desc["Options"] = pymqi.CMQC.MQSO_CREATE + pymqi.CMQC.MQSO_RESUME + \
        pymqi.CMQC.MQSO_DURABLE + pymqi.CMQC.MQSO_MANAGED
    sub_desc["SubLevel"] = 9
    sub_desc.set_vs("SubName", name)
    sub_desc.set_vs("ObjectString", topic)
    sub = pymqi.Subscription(qmgr)
    sub.sub(sub_desc=sub_desc)
    return sub_desc, sub


def _publish(qmgr: pymqi.QueueManager, msg: bytes, topic_string: str = TOPIC
             ) -> tuple[pymqi.MD, pymqi.PMO]:
    md = pymqi.md()
    md["Persistence"] = pymqi.CMQC.MQPER_NOT_PERSISTENT
    pmo = pymqi.PMO(Version=pymqi.CMQC.MQPMO_VERSION_3)
    pmo["PubLevel"] = 9
    pmo["Options"] = pymqi.CMQC.MQPMO_NO_SYNCPOINT + pymqi.CMQC.MQPMO_FAIL_IF_QUIESCING + \
        pymqi.CMQC.MQPMO_RETAIN
    topic = pymqi.Topic(qmgr, topic_string=topic_string)
    topic.open(open_opts=pymqi.CMQC.MQOO_OUTPUT + pymqi.CMQC.MQOO_PASS_ALL_CONTEXT)
    topic.pub(msg, md, pmo)
    topic.close()
    qmgr.commit()
    return md, pmo


def _get(sub: pymqi.Subscription, handle: pymqi.MessageHandle, wait: int = 1000
         ) -> tuple[bytes, pymqi.MD, pymqi.GMO]:
    get_opts = pymqi.GMO(
        MsgHandle=handle.msg_handle,
        Options=pymqi.CMQC.MQGMO_NO_SYNCPOINT + pymqi.CMQC.MQGMO_CONVERT
        + pymqi.CMQC.MQGMO_PROPERTIES_IN_HANDLE + pymqi.CMQC.MQGMO_FAIL_IF_QUIESCING
        + pymqi.CMQC.MQGMO_WAIT)
    get_opts["WaitInterval"] = wait
    md = pymqi.md()
    return sub.get(None, md, get_opts), md, get_opts


def _remove(env: Env, name: str) -> None:
    """The durable subscription the programs leave, removed through the MQI."""
    qmgr = pymqi.connect(QMGR)
    try:
        sd = pymqi.SD(Options=pymqi.CMQC.MQSO_RESUME)
        sd.set_vs("SubName", name)
        sub = pymqi.Subscription(qmgr)
        sub.sub(sub_desc=sd)
        sub.close(sub_close_options=pymqi.CMQC.MQCO_REMOVE_SUB, close_sub_queue=True)
    finally:
        qmgr.disconnect()


@pytest.mark.parametrize("mode", MODES)
def test_publish_then_get_with_a_message_handle(env, mode):
    """Given publish.py, when it runs once, then the SD reads back SubLevel 9, the put
    filled the PMO's and MD's output fields (a new MsgId), and the get has the publication
    (bytes), its MD of Persistence MQPER_NOT_PERSISTENT, and in the message handle the
    MQTopicString property; a property the publication lacks is MQRC_PROPERTY_NOT_AVAILABLE
    (and ``properties[...]`` of it a KeyError or that MQMIError), and the connection goes
    on."""
    name = f"MYSUB.{mode}"
    qmgr = _connect(env, mode)
    try:
        handle = pymqi.MessageHandle(qmgr)
        sub_desc, sub = _subscription(qmgr, name)
        assert sub_desc["SubLevel"] == 9
        md, pmo = _publish(qmgr, b"1.3961")
        assert md.MsgId != pymqi.CMQC.MQMI_NONE and pmo["PubLevel"] == 9
        data, got_md, get_opts = _get(sub, handle)
        assert data == b"1.3961"
        assert got_md.Persistence == pymqi.CMQC.MQPER_NOT_PERSISTENT
        assert get_opts.MsgHandle == handle.msg_handle
        assert handle.properties.get("MQTopicString") == TOPIC
        assert handle.properties["MQTopicString"] == TOPIC
        with pytest.raises(pymqi.MQMIError) as err:
            handle.properties.get("NoSuchProperty")
        assert err.value.reason == pymqi.CMQC.MQRC_PROPERTY_NOT_AVAILABLE
        with pytest.raises((KeyError, pymqi.MQMIError)):
            handle.properties["NoSuchProperty"]  # noqa: B018 - the look-up is the check
        sub.close()
    finally:
        qmgr.disconnect()
        _remove(env, name)


@pytest.mark.parametrize("mode", MODES)
def test_the_program_run_twice_resumes_its_durable_subscription(env, mode):
    """Given publish.py run once and disconnected, when it runs again (CREATE + RESUME of
    the same SubName), then the subscription is resumed, not refused: the second run gets
    its own publication first in line, after none left by the first run; and a new
    subscriber to the topic is sent the retained publication, flagged MQIsRetained."""
    name, topic = f"MYSUB.TWICE.{mode}", f"{TOPIC}/{mode}"  # no retained publication yet
    try:
        for price in (b"1.3961", b"1.4002"):
            qmgr = _connect(env, mode)
            try:
                handle = pymqi.MessageHandle(qmgr)
                _, sub = _subscription(qmgr, name, topic)
                _publish(qmgr, price, topic)
                data, _, _ = _get(sub, handle)
                assert data == price
                with pytest.raises(pymqi.MQMIError) as err:
                    _get(sub, handle, wait=0)
                assert err.value.reason == pymqi.CMQC.MQRC_NO_MSG_AVAILABLE
                sub.close()
            finally:
                qmgr.disconnect()
        qmgr = _connect(env, mode)
        try:
            handle = pymqi.MessageHandle(qmgr)
            late = pymqi.Subscription(qmgr)
            late.sub(sub_opts=pymqi.CMQC.MQSO_CREATE | pymqi.CMQC.MQSO_NON_DURABLE
                     | pymqi.CMQC.MQSO_MANAGED, topic_string=topic)
            data, _, _ = _get(late, handle)
            assert data == b"1.4002"
            assert handle.properties.get("MQIsRetained") in (1, True)
            late.close(close_sub_queue=True)
        finally:
            qmgr.disconnect()
    finally:
        _remove(env, name)


def test_properties_read_through_pymqis_properties_class(env):
    """Given prop.py's read of a publication's properties through
    ``pymqi.MessageHandle._Properties(<the Hconn>, hMsg.msg_handle)`` (it passes
    ``qmgr.get_handle``; pymqi needs the call's int), when it gets MQTopicString, then it
    has the topic, as through ``hMsg.properties``."""
    name = "MYSUB.PROPERTIES"
    qmgr = _connect(env, "bindings")
    try:
        handle = pymqi.MessageHandle(qmgr)
        _, sub = _subscription(qmgr, name, f"{TOPIC}/properties")
        _publish(qmgr, b"1.3961", f"{TOPIC}/properties")
        _get(sub, handle)
        sub.close()
        properties = pymqi.MessageHandle._Properties(qmgr.get_handle(), handle.msg_handle)
        assert properties.get("MQTopicString") == f"{TOPIC}/properties"
    finally:
        qmgr.disconnect()
        _remove(env, name)
