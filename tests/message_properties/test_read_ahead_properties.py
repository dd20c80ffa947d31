"""Given non-persistent messages put with properties on a queue of each PROPCTL, when a
bindings or client application gets them through a handle opened for read ahead, then they
are streamed to its buffer with their properties (the queue is empty after the first get),
and each MQGET returns what a synchronous MQGET with the same options returns: the data, the
MQMD's Format, the properties in the message handle, as an MQRFH2 or not at all."""

from __future__ import annotations

import pytest

import mqpy
from mqpy import CMQC
from tests.mqi._support import depth, drain

pytestmark = pytest.mark.system

G = CMQC
PROPCTLS = ("ALL", "COMPAT", "NONE", "FORCE", "V6COMPAT")
SENT = 3  # messages each handle gets
PROPS = {"usr.colour": ("blue", G.MQTYPE_STRING), "mq_usr.n": (7, G.MQTYPE_INT32)}


@pytest.fixture(scope="module")
def queues(site):
    """A queue of each PROPCTL on the modes' daemon."""
    site.mqsc("".join(f"DEFINE QLOCAL(PR.{p}) PROPCTL({p}) REPLACE\n" for p in PROPCTLS))
    return site


def _put(qm: mqpy.QueueManager, queue: str, count: int) -> None:
    handle = mqpy.MessageHandle(qm, mqpy.CMHO())
    for name, (value, ptype) in PROPS.items():
        handle.properties.set(name, value, property_type=ptype)
    pmo = mqpy.PMO(Version=G.MQPMO_VERSION_3)
    pmo.OriginalMsgHandle = handle.msg_handle
    out = mqpy.Queue(qm, queue, G.MQOO_OUTPUT)
    for i in range(count):
        out.put(b"body%d" % i, mqpy.MD(Format=G.MQFMT_STRING,
                                       Persistence=G.MQPER_NOT_PERSISTENT), pmo)
    out.close()


def _property(handle: mqpy.MessageHandle, name: str) -> object:
    try:
        return handle.properties.get(name)
    except mqpy.MQMIError as e:
        return e.reason


def _seen(handle: mqpy.MessageHandle | None, md: mqpy.MD, data: bytes) -> tuple:
    """What a get returned: the MQMD's description of the data, what came in front of the
    message's own data (an MQRFH2 or nothing), the handle's properties."""
    props = {name: _property(handle, name) for name in PROPS} if handle else None
    assert data[-len(b"bodyN"):-1] == b"body"
    return md.Format, md.Encoding, md.CodedCharSetId, data[:-len(b"bodyN")], props


def _gets(qm: mqpy.QueueManager, queue: str, open_options: int, gmo_options: int,
          with_handle: bool, streamed: mqpy.QueueManager | None = None) -> list[tuple]:
    """SENT gets of ``queue`` through one handle; with ``streamed``, the queue's depth seen
    from that connection after the first: 0 (all in the buffer)."""
    q = mqpy.Queue(qm, queue, G.MQOO_INPUT_SHARED | open_options)
    handle = mqpy.MessageHandle(qm, mqpy.CMHO()) if with_handle else None
    out = []
    for i in range(SENT):
        gmo = mqpy.GMO(Version=G.MQGMO_VERSION_4, Options=G.MQGMO_NO_WAIT | gmo_options)
        if handle is not None:
            gmo.MsgHandle = handle.msg_handle
        md = mqpy.MD()
        data = q.get(None, md, gmo)
        if handle is not None:
            assert gmo.MsgHandle == handle.msg_handle
        out.append(_seen(handle, md, data))
        if i == 0 and streamed is not None:
            assert depth(streamed, queue) == 0
    q.close()
    return out


CASES = [  # (PROPCTL, MQGMO_PROPERTIES_*, a message handle given)
    ("COMPAT", G.MQGMO_PROPERTIES_IN_HANDLE, True),
    ("COMPAT", G.MQGMO_PROPERTIES_AS_Q_DEF, False),
    ("COMPAT", G.MQGMO_PROPERTIES_COMPATIBILITY, False),
    ("COMPAT", G.MQGMO_PROPERTIES_FORCE_MQRFH2, True),
    ("COMPAT", G.MQGMO_NO_PROPERTIES, True),
    ("ALL", G.MQGMO_PROPERTIES_AS_Q_DEF, False),
    ("ALL", G.MQGMO_PROPERTIES_AS_Q_DEF, True),
    ("NONE", G.MQGMO_PROPERTIES_AS_Q_DEF, False),
    ("FORCE", G.MQGMO_PROPERTIES_AS_Q_DEF, True),
    ("V6COMPAT", G.MQGMO_PROPERTIES_AS_Q_DEF, False),
]


@pytest.mark.parametrize("mode", ["bindings", "client"])
@pytest.mark.parametrize("propctl,options,with_handle", CASES)
def test_read_ahead_gets_return_properties_as_synchronous_gets(queues, mode, propctl, options,
                                                               with_handle):
    connect = queues.bindings if mode == "bindings" else queues.client
    qm, other = connect(), queues.bindings()
    queue = f"PR.{propctl}"
    try:
        drain(other, queue)
        _put(qm, queue, 2 * SENT)
        synchronous = _gets(qm, queue, G.MQOO_NO_READ_AHEAD, options, with_handle)
        ahead = _gets(qm, queue, G.MQOO_READ_AHEAD, options, with_handle, streamed=other)
        assert ahead == synchronous
        assert depth(other, queue) == 0
    finally:
        qm.disconnect()
        other.disconnect()


def _truncated(qm: mqpy.QueueManager, queue: str, open_options: int) -> list[tuple]:
    """SENT gets into a handle with a 3-byte buffer, truncation accepted: what each
    returned (its reason, the data, the handle's properties)."""
    q = mqpy.Queue(qm, queue, G.MQOO_INPUT_SHARED | open_options)
    handle = mqpy.MessageHandle(qm, mqpy.CMHO())
    out = []
    for _ in range(SENT):
        gmo = mqpy.GMO(Version=G.MQGMO_VERSION_4, Options=G.MQGMO_NO_WAIT
                       | G.MQGMO_ACCEPT_TRUNCATED_MSG | G.MQGMO_PROPERTIES_IN_HANDLE)
        gmo.MsgHandle = handle.msg_handle
        with pytest.raises(mqpy.MQMIError) as e:
            q.get(3, mqpy.MD(), gmo)
        out.append((e.value.reason, e.value.message, gmo.ReturnedLength,
                    {name: _property(handle, name) for name in PROPS}))
    q.close()
    return out


@pytest.mark.parametrize("mode", ["bindings", "client"])
def test_a_truncated_read_ahead_get_fills_the_handle_as_a_synchronous_one(queues, mode):
    connect = queues.bindings if mode == "bindings" else queues.client
    qm = connect()
    try:
        drain(qm, "PR.COMPAT")
        _put(qm, "PR.COMPAT", 2 * SENT)
        synchronous = _truncated(qm, "PR.COMPAT", G.MQOO_NO_READ_AHEAD)
        assert synchronous[0] == (G.MQRC_TRUNCATED_MSG_ACCEPTED, b"bod", 3,
                                  {"usr.colour": "blue", "mq_usr.n": 7})
        assert _truncated(qm, "PR.COMPAT", G.MQOO_READ_AHEAD) == synchronous
    finally:
        qm.disconnect()


@pytest.mark.parametrize("mode", ["bindings", "client"])
@pytest.mark.parametrize("options,reason", [
    (G.MQGMO_PROPERTIES_IN_HANDLE, G.MQRC_HMSG_ERROR),
    (G.MQGMO_NO_PROPERTIES | G.MQGMO_PROPERTIES_FORCE_MQRFH2, G.MQRC_OPTIONS_ERROR)])
def test_read_ahead_gets_check_the_property_options_as_synchronous_gets(queues, mode, options,
                                                                        reason):
    """Given messages without properties, MQGMO_PROPERTIES_IN_HANDLE without a handle and
    two property options fail as a synchronous MQGET fails, and the message stays."""
    connect = queues.bindings if mode == "bindings" else queues.client
    qm = connect()
    try:
        drain(qm, "PR.ALL")
        out = mqpy.Queue(qm, "PR.ALL", G.MQOO_OUTPUT)
        for i in range(2):
            out.put(b"plain%d" % i, mqpy.MD(Persistence=G.MQPER_NOT_PERSISTENT))
        out.close()
        for open_options in (G.MQOO_NO_READ_AHEAD, G.MQOO_READ_AHEAD):
            q = mqpy.Queue(qm, "PR.ALL", G.MQOO_INPUT_SHARED | open_options)
            for _ in range(2):
                with pytest.raises(mqpy.MQMIError) as e:
                    q.get(None, mqpy.MD(), mqpy.GMO(Options=G.MQGMO_NO_WAIT | options))
                assert e.value.reason == reason
            q.close()
        assert drain(qm, "PR.ALL") == [b"plain0", b"plain1"]
    finally:
        qm.disconnect()
