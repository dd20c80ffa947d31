"""A hostile or broken queue manager's SOCKET_ACTION and TSHC flows to mqpy's client on a
shared channel instance: between the client and a real queue manager (strmqm) a relay
(``tests.client.test_reading_replies.Relay``) goes silent once the client's call has gone
on, and flows of its own reach the client in its place. Whatever comes, the client's call
ends with an MQ reason code -- never a hang nor an exception that is not MQMIError."""

from __future__ import annotations

import threading

import pytest

import mqpy
from mqpy import CMQC
from mqpy.fap import sockact, tshc
from mqpy.fap.framing import SegmentWriter
from mqpy.fap.sockact import SocketAction, SocketActionType
from mqpy.fap.tsh import ControlFlags1, OtherSegment, SegmentType
from tests.client.test_reading_replies import Relay, _in_thread
from tests.support.site import CHANNEL, QM
from tests.support.site import QUEUE as ELSEWHERE  # the second connection's
from tests.support.site_here import QUEUE, here_started_site

pytestmark = [pytest.mark.system, pytest.mark.timeout(120)]

_A = SocketActionType
_WAIT = mqpy.GMO(Options=CMQC.MQGMO_WAIT | CMQC.MQGMO_NO_SYNCPOINT, WaitInterval=30000)


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    yield from here_started_site(str(tmp_path_factory.mktemp("hostileqm") / "data"))


@pytest.fixture
def relay(site):
    r = Relay(site.port)
    yield r
    r.close()


def _action(kind: SocketActionType | int, conv_id: int = 1,
            flags: ControlFlags1 = ControlFlags1.NONE) -> bytes:
    """A queue manager's SOCKET_ACTION ``kind`` for ``conv_id`` in a TSHC."""
    return tshc.connection_level(SegmentWriter().send(
        sockact.event(SocketAction(conv_id, kind), True, flags)))


def _get_meets(relay: Relay, flows: bytes) -> list:
    """A waiting MQGET of the instance's first conversation; once it has gone on to the
    queue manager, the relay goes silent and ``flows`` reach the client instead: what the
    get ended with (within 15 s, else the test fails: it hung)."""
    qm = mqpy.connect(QM, CHANNEL, relay.conn_info)
    queue = mqpy.Queue(qm, QUEUE, CMQC.MQOO_INPUT_AS_Q_DEF)

    def inject() -> None:
        assert relay.wait_passed(SegmentType.MQGET)
        relay.silent = True
        relay.sockets[0].sendall(flows)

    threading.Thread(target=inject, daemon=True).start()
    return _in_thread(lambda: queue.get(None, mqpy.MD(), _WAIT), timeout=15)


def test_a_queue_managers_end_conv_fails_the_waiting_call_of_that_conversation(relay):
    """Given a client conversation waiting in an MQGET, when the queue manager ends the
    conversation with END_CONV (asking for confirmation, as it ends one conversation of a
    shared instance) and sends no reply, then the get fails MQRC_CONNECTION_BROKEN at once,
    not never."""
    [outcome] = _get_meets(relay, _action(_A.END_CONV, flags=ControlFlags1.CONFIRM_REQUEST))
    assert isinstance(outcome, mqpy.MQMIError), outcome
    assert outcome.reason == CMQC.MQRC_CONNECTION_BROKEN


@pytest.mark.parametrize("kind", [_A.STOP_QUIESCE, _A.QM_QUIESCE, _A.RECONNECT_CLIENTS, 77],
                         ids=["stop-quiesce", "qm-quiesce", "reconnect", "unknown"])
def test_a_queue_managers_other_socket_action_leaves_the_call_answered(relay, kind):
    """Given a client conversation waiting 2 s in an MQGET on an empty queue, when the queue
    manager's SOCKET_ACTION of another type (a quiesce, a reconnect, a type no one names)
    comes before the reply, then the get ends with its own reply, MQRC_NO_MSG_AVAILABLE."""
    qm = mqpy.connect(QM, CHANNEL, relay.conn_info)
    queue = mqpy.Queue(qm, QUEUE, CMQC.MQOO_INPUT_AS_Q_DEF)

    def inject() -> None:
        assert relay.wait_passed(SegmentType.MQGET)
        relay.sockets[0].sendall(_action(kind))

    threading.Thread(target=inject, daemon=True).start()
    gmo = mqpy.GMO(Options=CMQC.MQGMO_WAIT | CMQC.MQGMO_NO_SYNCPOINT, WaitInterval=2000)
    [outcome] = _in_thread(lambda: queue.get(None, mqpy.MD(), gmo), timeout=15)
    assert isinstance(outcome, mqpy.MQMIError), outcome
    assert outcome.reason == CMQC.MQRC_NO_MSG_AVAILABLE
    qm.disconnect()


@pytest.mark.parametrize("flows", [
    tshc.connection_level(SegmentWriter().send(OtherSegment(
        segment_type=SegmentType.SOCKET_ACTION, body=b"\x00" * 7))) + b"\x00" * 8,
    b"TSHC\x00\x00\x00\x0a" + b"\x00" * 20,
    b"TSHC\x7f\xff\xff\xff" + b"\x02" * 40,
], ids=["short-socket-action-then-garbage", "length-inside-header", "length-beyond-max"])
def test_a_malformed_tshc_fails_the_call_with_an_mq_reason(relay, flows):
    """Given a client conversation waiting in an MQGET, when the queue manager's next bytes
    are a TSHC that lies (a body too short, then garbage; a length shorter than the header;
    a length beyond any transmission size) and then silence, then the get fails with an MQ
    reason code (the instance is lost: MQRC_CONNECTION_BROKEN), not a Python exception or a
    hang."""
    [outcome] = _get_meets(relay, flows)
    assert isinstance(outcome, mqpy.MQMIError), repr(outcome)
    assert outcome.reason == CMQC.MQRC_CONNECTION_BROKEN


def test_a_queue_managers_end_conv_leaves_the_instances_other_conversation_working(relay):
    """Given two connections sharing one client instance, the first waiting 30 s in an
    MQGET, when the queue manager ends the first conversation with END_CONV, then the
    first's get and its next call fail MQRC_CONNECTION_BROKEN at once, and the second
    connection's put and get go on, on the same instance."""
    first = mqpy.connect(QM, CHANNEL, relay.conn_info)
    second = mqpy.connect(QM, CHANNEL, relay.conn_info)
    assert len(relay.sockets) == 2, "the two connections share one instance"
    waiting = mqpy.Queue(first, QUEUE, CMQC.MQOO_INPUT_AS_Q_DEF)

    def inject() -> None:
        assert relay.wait_passed(SegmentType.MQGET)
        relay.sockets[0].sendall(_action(_A.END_CONV, flags=ControlFlags1.CONFIRM_REQUEST))

    threading.Thread(target=inject, daemon=True).start()
    [outcome] = _in_thread(lambda: waiting.get(None, mqpy.MD(), _WAIT), timeout=10)
    assert isinstance(outcome, mqpy.MQMIError), outcome
    assert outcome.reason == CMQC.MQRC_CONNECTION_BROKEN
    [later] = _in_thread(lambda: waiting.close(), timeout=10)
    assert isinstance(later, mqpy.MQMIError) and later.reason == CMQC.MQRC_CONNECTION_BROKEN
    # (the relay's queue manager never ended the first conversation: its get still waits
    # there on QUEUE, so the second uses another queue)
    queue = mqpy.Queue(second, ELSEWHERE, CMQC.MQOO_INPUT_AS_Q_DEF | CMQC.MQOO_OUTPUT)
    queue.put(b"second goes on")
    assert queue.get() == b"second goes on"
    queue.close()
    second.disconnect()
