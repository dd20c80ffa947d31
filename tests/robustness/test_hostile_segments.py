"""A hostile putter of message groups and segments (MQMF_SEGMENT, MQMF_MSG_IN_GROUP and
their fields given by the application, not in logical order), against getters asking for
groups and logical messages (MQGMO_COMPLETE_MSG, MQGMO_ALL_SEGMENTS_AVAILABLE,
MQGMO_ALL_MSGS_AVAILABLE: ``engine.groups``, ``engine.groupcalls``), through the bindings
socket of a queue manager started by strmqm.

Each call gets IBM's reason code; no message is lost or duplicated; what one MQGET costs the
queue manager (its CPU, under the engine's lock, and its memory) stays bounded whatever the
putter made of its Offsets and MsgSeqNumbers: a logical message larger than the getter's
buffer is not read whole to say so, and a scan of thousands of segments or group messages
costs each get a pass over them, not a pass for each of them."""

from __future__ import annotations

import os

import pytest

import mqpy
from mqpy import CMQC
from tests.support.installation import Installation, started

pytestmark = pytest.mark.timeout(300)

_Q = "SEGMENTS.Q"
_NO_WAIT = CMQC.MQGMO_NO_WAIT | CMQC.MQGMO_NO_SYNCPOINT
_SEGMENT, _LAST_SEGMENT = CMQC.MQMF_SEGMENT, CMQC.MQMF_LAST_SEGMENT
_IN_GROUP, _LAST_IN_GROUP = CMQC.MQMF_MSG_IN_GROUP, CMQC.MQMF_LAST_MSG_IN_GROUP


@pytest.fixture(scope="module")
def running(tmp_path_factory):
    inst = Installation(str(tmp_path_factory.mktemp("hostile_segments")))
    inst.create(queues=(_Q,))
    yield from started(inst)


@pytest.fixture
def queue(running):
    """SEGMENTS.Q open for input and output on a bindings connection, emptied after."""
    qm = mqpy.connect("QM1")
    q = mqpy.Queue(qm, _Q, CMQC.MQOO_INPUT_AS_Q_DEF | CMQC.MQOO_OUTPUT)
    try:
        yield q
    finally:
        _drain(q)
        qm.disconnect()


def _drain(q: mqpy.Queue) -> list[bytes]:
    got = []
    while True:
        try:
            got.append(q.get(None, mqpy.MD(Version=2), mqpy.GMO(Options=_NO_WAIT)))
        except mqpy.MQMIError as e:
            assert e.reason == CMQC.MQRC_NO_MSG_AVAILABLE
            return got


def _put(q: mqpy.Queue, data: bytes, flags: int, *, offset: int = 0, seq: int = 1,
         group: bytes = b"G" * 24, persistent: bool = False) -> None:
    md = mqpy.MD(Version=2, GroupId=group, MsgFlags=flags, Offset=offset, MsgSeqNumber=seq,
                 Persistence=CMQC.MQPER_PERSISTENT if persistent
                 else CMQC.MQPER_NOT_PERSISTENT)
    q.put(data, md, mqpy.PMO(Options=CMQC.MQPMO_NO_SYNCPOINT))


def _get(q: mqpy.Queue, options: int, length: int | None = None) -> bytes:
    return q.get(length, mqpy.MD(Version=2), mqpy.GMO(Version=2, Options=options | _NO_WAIT))


def _cpu(pid: int) -> float:
    """The process's CPU seconds (user and system)."""
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _peak_rss(pid: int) -> int:
    """The process's peak resident set (VmHWM), in bytes."""
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) * 1024
    raise AssertionError("no VmHWM")


@pytest.mark.parametrize(("flags", "seq", "offset", "reason"), [
    (_SEGMENT, 1, -10, CMQC.MQRC_OFFSET_ERROR),
    (_LAST_SEGMENT, 1, 1_000_000_000, CMQC.MQRC_OFFSET_ERROR),
    (_SEGMENT, 1, 0x7FFF_FFFF, CMQC.MQRC_OFFSET_ERROR),
    (_IN_GROUP, 0, 0, CMQC.MQRC_MSG_SEQ_NUMBER_ERROR),
    (_LAST_IN_GROUP, -3, 0, CMQC.MQRC_MSG_SEQ_NUMBER_ERROR),
    (_IN_GROUP | _SEGMENT, 1_000_000_000, 0, CMQC.MQRC_MSG_SEQ_NUMBER_ERROR),
], ids=["offset-negative", "offset-beyond", "offset-max", "seq-zero", "seq-negative",
        "seq-beyond"])
def test_a_segment_or_group_message_with_fields_out_of_range_is_refused(
        queue, flags, seq, offset, reason):
    """Given a putter not in logical order, when it puts a segment or a message in a group
    whose Offset is below 0 or above 999 999 999, or whose MsgSeqNumber is below 1 or above
    999 999 999, then the put fails with IBM's MQRC_OFFSET_ERROR or
    MQRC_MSG_SEQ_NUMBER_ERROR and nothing is put."""
    with pytest.raises(mqpy.MQMIError) as refused:
        _put(queue, b"data", flags, offset=offset, seq=seq)
    assert (refused.value.comp, refused.value.reason) == (CMQC.MQCC_FAILED, reason)
    assert _drain(queue) == []


def test_a_logical_message_far_larger_than_the_buffer_is_not_read_whole(running, queue):
    """Given a logical message of 64 segments of 1 MiB each, when a getter asks
    for it whole (MQGMO_COMPLETE_MSG) with a 1000-byte buffer, then the get fails
    MQRC_TRUNCATED_MSG_FAILED with the whole message's length, nothing is removed, and the
    queue manager's peak memory grows by far less than the message; then, accepting
    truncation, the getter has its first 1000 bytes and every segment is removed."""
    piece = b"s" * (1 << 20)
    for i in range(64):
        _put(queue, piece, _LAST_SEGMENT if i == 63 else _SEGMENT, offset=i << 20)
    pid = running.pid()
    assert pid is not None
    before = _peak_rss(pid)
    with pytest.raises(mqpy.MQMIError) as refused:
        _get(queue, CMQC.MQGMO_COMPLETE_MSG, 1000)
    assert refused.value.reason == CMQC.MQRC_TRUNCATED_MSG_FAILED
    assert refused.value.original_length == 64 << 20
    with pytest.raises(mqpy.MQMIError) as accepted:
        _get(queue, CMQC.MQGMO_COMPLETE_MSG | CMQC.MQGMO_ACCEPT_TRUNCATED_MSG, 1000)
    assert accepted.value.reason == CMQC.MQRC_TRUNCATED_MSG_ACCEPTED
    assert accepted.value.message == b"s" * 1000
    grown = _peak_rss(pid) - before
    assert grown < 24 << 20, f"the queue manager's peak memory grew {grown >> 20} MiB"
    assert _drain(queue) == []


def test_thousands_of_segments_cost_each_get_one_pass(running, queue):
    """Given 4000 segments of one logical message whose last segment never comes, when a
    getter asks three times for a complete logical message, and three times for one whose
    segments are all there, then each finds none (MQRC_NO_MSG_AVAILABLE) at the cost of one
    pass over the queue: the queue manager's CPU for the six gets is a fraction of a
    second (a pass for each segment took seconds), and every segment is still there."""
    for i in range(4000):
        _put(queue, b"0123456789", _SEGMENT, offset=i * 10)
    pid = running.pid()
    assert pid is not None
    began = _cpu(pid)
    for options in [CMQC.MQGMO_COMPLETE_MSG] * 3 + [CMQC.MQGMO_ALL_SEGMENTS_AVAILABLE] * 3:
        with pytest.raises(mqpy.MQMIError) as none:
            _get(queue, options, 100)
        assert none.value.reason == CMQC.MQRC_NO_MSG_AVAILABLE
    spent = _cpu(pid) - began
    assert spent < 1.0, f"{spent:.2f} CPU seconds for six gets"
    assert len(_drain(queue)) == 4000


def test_a_group_missing_a_message_late_costs_each_get_one_pass(running, queue):
    """Given a group whose last message says 2000 with messages 1 to 1998 and 2001 to 4000
    there (1999 never comes), when a getter asks three times for a message of a complete
    group (MQGMO_ALL_MSGS_AVAILABLE), then each finds none at the cost of one pass, and every
    message is still there."""
    for seq in [*range(1, 1999), *range(2000, 4001)]:
        _put(queue, b"m", _LAST_IN_GROUP if seq == 2000 else _IN_GROUP, seq=seq)
    pid = running.pid()
    assert pid is not None
    began = _cpu(pid)
    for _ in range(3):
        with pytest.raises(mqpy.MQMIError) as none:
            _get(queue, CMQC.MQGMO_ALL_MSGS_AVAILABLE, 100)
        assert none.value.reason == CMQC.MQRC_NO_MSG_AVAILABLE
    spent = _cpu(pid) - began
    assert spent < 1.0, f"{spent:.2f} CPU seconds for three gets"
    assert len(_drain(queue)) == 3999


def test_overlapping_and_extra_segments_are_neither_lost_nor_duplicated(queue):
    """Given segments at Offsets 0 (10 bytes), 5 (10 bytes, overlapping), 10 (the last),
    then 20 (after the last) and a second segment at Offset 0, when a getter asks for the
    complete logical message, then it has the chain 0, 10 (20 bytes) once, and the
    segments not in the chain are left, each got once by plain gets."""
    _put(queue, b"A" * 10, _SEGMENT, offset=0)
    _put(queue, b"B" * 10, _SEGMENT, offset=5)
    _put(queue, b"C" * 10, _LAST_SEGMENT, offset=10)
    _put(queue, b"D" * 10, _SEGMENT, offset=20)
    _put(queue, b"E" * 10, _SEGMENT, offset=0)
    assert _get(queue, CMQC.MQGMO_COMPLETE_MSG) == b"A" * 10 + b"C" * 10
    with pytest.raises(mqpy.MQMIError) as none:
        _get(queue, CMQC.MQGMO_COMPLETE_MSG)
    assert none.value.reason == CMQC.MQRC_NO_MSG_AVAILABLE
    assert sorted(_drain(queue)) == [b"B" * 10, b"D" * 10, b"E" * 10]


def test_a_logical_message_without_its_first_segment_is_never_complete(queue):
    """Given only the second and last segments of a logical message (Offset 10 onwards),
    when a getter asks for a complete logical message, then there is none; a plain get has
    each segment once."""
    _put(queue, b"B" * 10, _SEGMENT, offset=10)
    _put(queue, b"C" * 10, _LAST_SEGMENT, offset=20)
    for options in (CMQC.MQGMO_COMPLETE_MSG, CMQC.MQGMO_ALL_SEGMENTS_AVAILABLE):
        with pytest.raises(mqpy.MQMIError) as none:
            _get(queue, options)
        assert none.value.reason == CMQC.MQRC_NO_MSG_AVAILABLE
    assert _drain(queue) == [b"B" * 10, b"C" * 10]


def test_segments_of_mixed_persistence_are_got_whole_once(queue):
    """Given a logical message whose segments alternate persistent and not, when a getter
    asks for it complete outside syncpoint, then it has all of it once and nothing is left."""
    for i in range(6):
        _put(queue, bytes([65 + i]) * 8, _LAST_SEGMENT if i == 5 else _SEGMENT, offset=i * 8,
             persistent=bool(i % 2))
    assert _get(queue, CMQC.MQGMO_COMPLETE_MSG) == b"".join(bytes([65 + i]) * 8
                                                           for i in range(6))
    assert _drain(queue) == []
