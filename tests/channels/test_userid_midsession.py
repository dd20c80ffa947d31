"""The user-id flows of a client channel (USERID_DATA, CONAUTH_INFO) sent on a running
message channel, to the receiver (RCVR) of a queue manager started by strmqm, by a sender
crafted by hand over a real socket.

A sending MCA never sends them: once the channel has started they are a protocol error, as
any flow a receiver does not take there. The receiver tells its partner with STATUS
(PROTOCOL_SEGMENT_TYPE, IBM's failure type 10) and closes the connection, logs AMQ9504E
naming the channel and the flow, and the batch in progress is backed out -- a message not yet
confirmed is not delivered, and is delivered once when the sender starts again; what an
earlier batch committed stays. The channel is not left in use: it starts again at once."""

from __future__ import annotations

import itertools
import socket
import time

import pytest

import mqpy
from mqpy import CMQC
from mqpy.fap import userid
from mqpy.fap.controlflows import Status
from mqpy.fap.framing import SegmentReader, SegmentWriter
from mqpy.fap.initialdata import InitialData
from mqpy.fap.messagedata import MessageData
from mqpy.fap.statuscodes import StatusCode
from mqpy.fap.tsh import ControlFlags1, OtherSegment
from mqpy_chinit.mca import our_id, status_error
from tests.client.conftest import drain_site
from tests.support.site import QM
from tests.support.site_here import HereSite

pytestmark = [pytest.mark.system, pytest.mark.timeout(180)]

RCVR = "TO.QMS"  #: the receivers the crafted senders start: TO.QMS.1, TO.QMS.2 ...
_NUMBERS = itertools.count(1)
PARTNER = "QM0"  #: the queue manager the crafted sender says it is
TARGET = "MIDSESSION.Q"
#: the longest a receiver takes to answer a flow (it answers at once; a receiver that
#: ignores the flow answers nothing, and the test fails after this)
_ANSWER = 10.0


@pytest.fixture(scope="module")
def qms(tmp_path_factory):
    """QMS started by strmqm, its listener taking RCVR's starts, TARGET its destination."""
    s = HereSite(str(tmp_path_factory.mktemp("midsession") / "data"))
    try:
        s.start()
        s.mqsc(f"DEFINE QLOCAL({TARGET})\n")
        yield s
    finally:
        s.stop()


def _drain(site) -> list[bytes]:
    return drain_site(site, TARGET)


@pytest.fixture(autouse=True)
def empty_target(qms):
    _drain(qms)


@pytest.fixture
def rcvr(qms) -> str:
    """A receiver of its own (its sequence numbers start at 1)."""
    name = f"{RCVR}.{next(_NUMBERS)}"
    # (the tests run as the installation's owner, whom the default back-stop rule blocks
    # on a channel with no rule of its own)
    qms.mqsc(f"DEFINE CHANNEL({name}) CHLTYPE(RCVR) TRPTYPE(TCP)\n"
             f"SET CHLAUTH({name}) TYPE(BLOCKUSER) USERLIST('nobody')\n")
    return name


class Sender:
    """A sending MCA spoken by hand: INITIAL_DATA agreed, then the flows a test writes."""

    def __init__(self, site, channel: str) -> None:
        self.sock = socket.create_connection(("127.0.0.1", site.port), timeout=_ANSWER)
        self.writer = SegmentWriter()
        self.reader = SegmentReader.before_negotiation()
        self.send(our_id(channel, {}, PARTNER))
        [agreed] = self.answers(1)
        assert isinstance(agreed, InitialData) and not agreed.init_error_flags1, agreed
        self.reader = SegmentReader()

    def send(self, event) -> None:
        self.sock.sendall(self.writer.send(event))

    def message(self, seq: int, data: bytes, *, confirm: bool) -> None:
        """Message ``seq`` (persistent, for TARGET); ``confirm``: it ends its batch."""
        md = mqpy.MD(Persistence=CMQC.MQPER_PERSISTENT)
        xqh = mqpy.XQH(RemoteQName=TARGET.encode(), RemoteQMgrName=QM.encode(), MsgDesc=md)
        self.send(MessageData(
            seqnum=seq, xqh=xqh.pack(CMQC.MQENC_INTEGER_REVERSED), data=data,
            luwid=seq.to_bytes(8, "big") if confirm else bytes(8),
            flags=ControlFlags1.CONFIRM_REQUEST if confirm else ControlFlags1.NONE))

    def answers(self, count: int) -> list:
        """The next ``count`` flows of the receiver (the test fails when they do not come
        within _ANSWER seconds)."""
        events: list = []
        deadline = time.monotonic() + _ANSWER
        while len(events) < count:
            self.sock.settimeout(max(0.01, deadline - time.monotonic()))
            try:
                data = self.sock.recv(65536)
            except TimeoutError:
                raise AssertionError(f"the receiver answered {events}, not {count} flows, "
                                     f"in {_ANSWER}s") from None
            assert data, f"the receiver closed the connection after {events}"
            events += self.reader.feed(data)
        return events

    def closed(self) -> bool:
        """The receiver closes the connection, with nothing more, within _ANSWER seconds."""
        self.sock.settimeout(_ANSWER)
        try:
            return self.sock.recv(65536) == b""
        except ConnectionResetError:
            return True
        except TimeoutError:
            return False

    def close(self) -> None:
        self.sock.close()


def _committed(sender: Sender, seq: int, data: bytes) -> None:
    """Message ``seq`` sent as a batch of one, confirmed by the receiver (STATUS 0)."""
    sender.message(seq, data, confirm=True)
    [confirmed] = sender.answers(1)
    assert isinstance(confirmed, Status) and confirmed.code == 0, confirmed


def _user_id_flow() -> OtherSegment:
    return userid.userid_event("mallory")


def _conauth_flow() -> OtherSegment:
    return userid.conauth_event(userid.Credentials("mallory", "secret"))


FLOWS = pytest.mark.parametrize("flow, name", [
    (_user_id_flow, "USERID_DATA"), (_conauth_flow, "CONAUTH_INFO"),
], ids=["userid", "conauth"])


@FLOWS
def test_a_user_id_flow_after_a_batch_ends_the_channel_with_a_protocol_error(qms, rcvr, flow,
                                                                             name):
    """Given a receiver that has committed a batch, when its sender sends a user-id flow of
    a client channel, then the receiver answers STATUS PROTOCOL_SEGMENT_TYPE and closes the
    connection, AMQ9504E names the channel and the flow, the committed message stays, and
    the channel starts again at once and goes on from its sequence number."""
    mark = qms.mark()
    sender = Sender(qms, rcvr)
    try:
        _committed(sender, 1, b"first")
        sender.send(flow())
        [refused] = sender.answers(1)
        assert isinstance(refused, Status) and refused.code == StatusCode.PROTOCOL_SEGMENT_TYPE
        assert refused.flags & ControlFlags1.ERROR
        assert sender.closed()
    finally:
        sender.close()
    logged = qms.wait_for_log("AMQ9504E", since=mark)
    assert rcvr in logged and name in logged, logged
    again = Sender(qms, rcvr)
    try:
        _committed(again, 2, b"second")
    finally:
        again.close()
    assert _drain(qms) == [b"first", b"second"]


@FLOWS
def test_a_user_id_flow_inside_a_batch_backs_the_batch_out(qms, rcvr, flow, name):
    """Given a receiver holding a batch not yet confirmed (a persistent message), when its
    sender sends a user-id flow, then the channel ends with STATUS PROTOCOL_SEGMENT_TYPE
    and the batch is backed out: the message is not on the queue, and sent again by the
    restarted sender (the same sequence number) it is delivered once."""
    sender = Sender(qms, rcvr)
    try:
        _committed(sender, 1, b"before")
        sender.message(2, b"in the batch", confirm=False)
        sender.send(flow())
        [refused] = sender.answers(1)
        assert isinstance(refused, Status) and refused.code == StatusCode.PROTOCOL_SEGMENT_TYPE
        assert sender.closed()
    finally:
        sender.close()
    assert _drain(qms) == [b"before"]
    again = Sender(qms, rcvr)
    try:
        _committed(again, 2, b"in the batch")
    finally:
        again.close()
    assert _drain(qms) == [b"in the batch"]


@pytest.mark.parametrize("code", [StatusCode.PROTOCOL_SEGMENT_TYPE,
                                  StatusCode.PROTOCOL_GENERAL])
def test_a_sender_told_of_a_protocol_error_logs_amq9523e(code):
    """Given a sending MCA whose partner answers STATUS with a protocol error (as the
    receiver above does), then the channel ends with AMQ9523E, IBM's "remote host detected
    a protocol error", naming the status, and may be retried."""
    ended = status_error(Status(code=code, flags=ControlFlags1.ERROR))
    assert (ended.msgid, ended.retry, ended.status_code) == ("AMQ9523E", True, code)
    assert "protocol error" in ended.text and code.name in ended.text
