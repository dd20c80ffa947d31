"""Whatever bytes an application sends on its bindings socket, the queue manager's busy
thread serving MQPUT, MQGET, MQCMIT and MQBACK from the bytes read (``bindings_thread.
_Pipelined.from_bytes``: ``asyncput_stream``, ``syncput_stream``, ``syncget_stream``,
``engine.packed``; ``_Pipelined.take``) answers exactly what the general path answers (each
request through the segment reader's event, ``mqiflows.decode_request`` and the engine's
general calls): the same reply bytes, the same requests left for the event loop (and the
same protocol error), the same messages on the queues, MQSTAT, statistics and accounting.

The requests are of the common form, then changed as a hostile or unusual application
changes them (``tests.support.mqi_mutations``: a field of the TSH, the API header, the
MQMD, the MQPMO / MQGMO or the lengths after them given another value or a bit flipped,
cut short, extended, lengths made to add up again), several piled in one read or cut
across reads. Each example runs on two queue managers, one each way, that it leaves as it
found them (``tests.support.differential``).
"""

from __future__ import annotations

import os

import pytest
from hypothesis import assume
from hypothesis import strategies as st

import mqpy
from mqpy import CMQC, bindings, bindings_thread, syncget_stream, syncput_stream
from mqpy.engine import fastpath
from mqpy.engine.qmgr import QueueManagerEngine
from mqpy.fap import mqiflows
from mqpy.fap.framing import SegmentReader
from mqpy.fap.statuscodes import ProtocolError
from mqpy.fap.tsh import SegmentType
from tests.performance_paths.test_async_put_stream import _md, _plain, _Session
from tests.support.differential import EnginePair, fixed_clock, pair_fixture, untraced
from tests.support.mqi_mutations import (
    MUTATIONS,
    left_out,
    mutated,
    pmo_pointers_set,
    reads,
    run_examples,
)
from tests.support.queue_contents import counting_calls, got_back, served_one_read_each

_T = SegmentType
_WHOLE = mqiflows.WHOLE_MESSAGE
_OUT, _IN = CMQC.MQOO_OUTPUT, CMQC.MQOO_INPUT_SHARED
_HANDLES = ("Q", "IN", "SETALL", "FULL", "BROWSE")


def _puts() -> list:
    """(handle, MQMD, MQPMO, message) of puts of the common form."""
    pmo = mqpy.PMO
    return [("Q", mqpy.MD(), pmo(), b"plain"),
            ("Q", _md(1, Persistence=CMQC.MQPER_PERSISTENT), pmo(Options=CMQC.MQPMO_SYNCPOINT),
             b"p" * 300),
            ("Q", _md(2, Version=1), pmo(Version=1, Options=CMQC.MQPMO_NO_SYNCPOINT), b""),
            ("Q", mqpy.MD(), pmo(Options=CMQC.MQPMO_ASYNC_RESPONSE), b"async"),
            ("Q", _md(3), pmo(Version=2, Options=CMQC.MQPMO_NEW_MSG_ID), b"v2"),
            ("Q", mqpy.MD(), pmo(Version=3, Options=CMQC.MQPMO_ASYNC_RESPONSE
                                 | CMQC.MQPMO_SYNCPOINT), b"v3 async"),
            ("SETALL", _md(4, UserIdentifier=b"alice", PutDate=b"20260101"),
             pmo(Options=CMQC.MQPMO_SET_ALL_CONTEXT), b"set all"),
            ("FULL", mqpy.MD(), pmo(), b"full")]


def _gets() -> list:
    """(handle, MQMD, MQGMO, BufferLength) of gets of the common form."""
    gmo = mqpy.GMO
    return [("IN", mqpy.MD(), gmo(), _WHOLE),
            ("IN", mqpy.MD(), gmo(Options=CMQC.MQGMO_SYNCPOINT, Version=3), _WHOLE),
            ("IN", mqpy.MD(), gmo(Options=CMQC.MQGMO_NO_SYNCPOINT, Version=1), 100),
            ("IN", mqpy.MD(), gmo(Version=4), 3),
            ("IN", mqpy.MD(), gmo(Options=CMQC.MQGMO_ACCEPT_TRUNCATED_MSG, Version=2), 4),
            ("IN", mqpy.MD(Version=1), gmo(), _WHOLE),
            # waiting (the waiting path's: the thread's, as the loop's)
            ("IN", mqpy.MD(), gmo(Options=CMQC.MQGMO_WAIT, WaitInterval=0), _WHOLE),
            ("IN", mqpy.MD(), gmo(Options=CMQC.MQGMO_WAIT | CMQC.MQGMO_NO_SYNCPOINT,
                                  WaitInterval=1, Version=2), _WHOLE),
            ("IN", mqpy.MD(), gmo(Options=CMQC.MQGMO_WAIT, WaitInterval=-5), _WHOLE),  # 2090
            ("BROWSE", mqpy.MD(), gmo(Options=CMQC.MQGMO_BROWSE_NEXT), _WHOLE),
            *_gets_by_ids()]


#: the CorrelIds of :func:`_filled`'s messages: the first's its own, the others' one shared
_ONE, _SHARED = b"CORREL ONE".ljust(24, b"."), b"SHARED"


def _gets_by_ids() -> list:
    """(handle, MQMD, MQGMO, BufferLength) of gets by CorrelId and MsgId (a requester's of
    its reply), waiting or not: one carried by one message, one that two carry (their order:
    the general path's), none carries; both ids; MatchOptions mixed; a buffer too small."""
    gmo = mqpy.GMO
    by_correl = {"Version": 2, "MatchOptions": CMQC.MQMO_MATCH_CORREL_ID}
    wait = CMQC.MQGMO_WAIT
    return [("IN", mqpy.MD(CorrelId=_ONE), gmo(**by_correl), _WHOLE),
            ("IN", mqpy.MD(CorrelId=_ONE), gmo(Options=wait, WaitInterval=0, **by_correl),
             _WHOLE),
            ("IN", mqpy.MD(CorrelId=_SHARED), gmo(Options=wait | CMQC.MQGMO_SYNCPOINT,
                                                  WaitInterval=1, **by_correl), _WHOLE),
            ("IN", mqpy.MD(CorrelId=b"NONE CARRIES IT"),
             gmo(Options=wait, WaitInterval=0, **by_correl), _WHOLE),
            ("IN", mqpy.MD(CorrelId=_ONE), gmo(Options=wait, WaitInterval=-5, **by_correl),
             _WHOLE),  # 2090
            ("IN", _md(100, CorrelId=_ONE), gmo(), _WHOLE),  # (MQGMO version 1: both ids)
            ("IN", _md(101, CorrelId=_ONE), gmo(Options=wait, WaitInterval=0), _WHOLE),
            ("IN", _md(101), gmo(Version=2, MatchOptions=CMQC.MQMO_MATCH_MSG_ID), _WHOLE),
            ("IN", mqpy.MD(CorrelId=_ONE), gmo(Version=2, MatchOptions=CMQC.MQMO_MATCH_CORREL_ID
                                               | CMQC.MQMO_MATCH_GROUP_ID), _WHOLE),
            ("IN", mqpy.MD(CorrelId=_ONE), gmo(Version=2, MatchOptions=CMQC.MQMO_NONE), _WHOLE),
            ("IN", mqpy.MD(CorrelId=_ONE), gmo(**by_correl), 2)]


def _request(kind: int, h: dict[str, int]) -> tuple[bytes, str]:
    """Request ``kind`` (modulo the forms there are) as the application packs it, and its
    second structure's name."""
    flows = bindings.Flows()
    puts, gets = _puts(), _gets()
    kind %= len(puts) + len(gets) + 2
    if kind < len(puts):
        name, md, pmo, data = puts[kind]
        return flows.request(_T.MQPUT, [md, pmo, data], h[name]), "PMO"
    kind -= len(puts)
    if kind < len(gets):
        name, md, gmo, length = gets[kind]
        return flows.request(_T.MQGET, [md, gmo, length], h[name]), "GMO"
    verb = _T.MQCMIT if kind == len(gets) else _T.MQBACK
    return flows.request(verb, (), 0), ""


class _Recording(_Session):
    """A session whose engine faults are recorded (the FDCs the server would write)."""

    def __init__(self, conn: object, engine: object) -> None:
        super().__init__(conn, engine, b"")
        self.faults: list[str] = []
        # a get that waits polls the socket with its waker: one that never has data
        self.sock.fileno = lambda: _QUIET

    def on_unexpected(self, exc: BaseException) -> None:
        self.faults.append(repr(exc))


#: the socket a waiting get polls here (``_Recording``): an eventfd nothing sets
_QUIET = os.eventfd(0, os.EFD_CLOEXEC)


def _engine(root: str) -> tuple[QueueManagerEngine, object, dict[str, int]]:
    """Queue manager QM with a queue Q and a queue FULL of MAXDEPTH 1; a connection and its
    handles (_HANDLES)."""
    eng = QueueManagerEngine.create(os.path.join(root, "qmgrs", "QM"), "QM")
    eng.define("QLOCAL", "Q", {"DEFPSIST": "YES", "DEFPRTY": 3})
    eng.define("QLOCAL", "FULL", {"MAXDEPTH": 1})
    conn = eng.connect("stream")
    opens = {"Q": ("Q", _OUT), "IN": ("Q", _IN), "BROWSE": ("Q", _IN | CMQC.MQOO_BROWSE),
             "SETALL": ("Q", _OUT | CMQC.MQOO_SET_ALL_CONTEXT), "FULL": ("FULL", _OUT)}
    h = {name: conn.open(mqpy.OD(ObjectName=q), options) for name, (q, options) in opens.items()}
    return eng, conn, h


def _filled(conn, h: dict[str, int]) -> None:
    """Three messages on Q (the first with a CorrelId of its own, the others sharing one, the
    third of a higher priority), FULL full."""
    for i, data in enumerate((b"first", b"second message", b"third" * 20)):
        conn.put(h["Q"], _md(100 + i, CorrelId=_SHARED if i else _ONE, Priority=5 if i == 2
                             else CMQC.MQPRI_PRIORITY_AS_Q_DEF), mqpy.PMO(), data)
    conn.put(h["FULL"], mqpy.MD(), mqpy.PMO(), b"fills FULL")


def _run(engine: tuple, build) -> list:
    """The reads ``build(handles)`` gives served by the busy thread as they come, on a new
    session of ``engine``'s connection (its queues filled); then what was replied and left
    for the loop, the reader's state (but the segments it counted: see
    :func:`test_a_waiting_get_after_a_put_is_counted_once`), the faults, MQSTAT, the queues
    (emptied) and the counts."""
    eng, conn, h = engine
    _filled(conn, h)
    session = _Recording(conn, eng)
    ids: dict[bytes, int] = {}
    seen = served_one_read_each(bindings_thread._serve_spell, session, build(h), ids)
    reader = session.reader
    seen.append((reader.buffered, reader.reassembling, session.faults))
    sts = conn.stat(CMQC.MQSTAT_TYPE_ASYNC_ERROR)
    seen.append((sts.CompCode, sts.Reason, sts.PutSuccessCount, sts.PutFailureCount))
    conn.backout()
    seen += got_back(conn, ("Q", "FULL"), ids)
    seen.append((_plain(eng.stats.mqi), _plain(conn.accounting.mqi)))
    return seen


def _patch(monkeypatch: pytest.MonkeyPatch, general: bool) -> None:
    """One clock for both runs; ``general``: every request through the segment reader, the
    general decoder and the engine's general calls. A waiting get waits no time on the
    thread (PARK_S 0: what it would wait for is tests/daemon/test_bindings_busy_wait.py's)."""
    fixed_clock(monkeypatch)
    monkeypatch.setattr(bindings_thread, "PARK_S", 0)
    if general:
        monkeypatch.setattr(bindings_thread._Pipelined, "from_bytes", lambda *args: False)
        monkeypatch.setattr(bindings_thread._Pipelined, "take", lambda *args: None)
        monkeypatch.setattr(fastpath, "ENABLED", False)
        monkeypatch.setattr(bindings_thread, "_bare", _unkept_bare)


def _unkept_bare(bare: dict, writer: object, verb: _T, comp: int, reason: int) -> bytes | None:
    """A reply without a body packed each time (none kept)."""
    return bindings_thread._packed(writer, verb, [], comp, reason)


def _pair(root) -> EnginePair:
    return EnginePair(root, _engine, _run, _patch)


pair = pair_fixture(_engine, _run, _patch)


def _draw_reads(data: st.DataObject, repeats: int = 1):
    """A ``build(handles)`` of one to four requests, each changed or not, cut into reads;
    ``repeats``: each sent up to that many times, each repeat changed or not."""
    kinds = data.draw(st.lists(st.integers(0, 100), min_size=1, max_size=4), label="requests")
    changes = [[data.draw(MUTATIONS, label=f"changes {i}")] if repeats == 1 else
               data.draw(st.lists(MUTATIONS, min_size=1, max_size=repeats), label=f"changes {i}")
               for i in range(len(kinds))]
    cut = data.draw(st.booleans(), label="cut across reads")
    draw = data.draw

    def build(h: dict[str, int]) -> list[bytes]:
        handles = tuple(h.values()) + (0, 99)
        segments = []
        for kind, each in zip(kinds, changes, strict=True):
            request, second = _request(kind, h)
            segments += [mutated(request, change, second, handles) for change in each]
        assume(not left_out(segments))
        joined = b"".join(segments)
        return reads(draw, joined) if cut else [joined]

    return build


def _refused_after_a_segment(chunks: list[bytes]) -> bool:
    """Whether the segment reader refuses one of ``chunks`` (a protocol error) in which a
    segment ends before: the fault of :func:`test_a_read_refused_after_a_whole_put_puts_
    nothing`, left out of the runs."""
    stream = b"".join(chunks)
    ends, pos = [], 0
    while pos + 8 <= len(stream) and (total := int.from_bytes(stream[pos + 4:pos + 8],
                                                              "big")) >= 28:
        pos += total
        ends.append(pos)
    reader = SegmentReader(bindings.MAX_TRANSMISSION_SIZE, max_msg_size=bindings.MAX_MSG_SIZE)
    start = 0
    for chunk in chunks:
        try:
            reader.feed(chunk)
        except ProtocolError:
            return any(start < end <= start + len(chunk) for end in ends)
        start += len(chunk)
    return False


def _check(pair: EnginePair, data: st.DataObject) -> None:
    chunks = _draw_reads(data)(pair.handles())
    assume(not _refused_after_a_segment(chunks))
    fast, general = pair.both_ways(lambda h: chunks)
    assert fast == general


def _changed_requests(request, pair: EnginePair, monkeypatch, examples: int) -> None:
    """:func:`_check` on ``examples`` examples; the shares served from bytes asserted."""
    untraced(monkeypatch, pair.root, bindings_thread)
    from_bytes = pair.count_served(monkeypatch, (bindings_thread._Pipelined, "from_bytes", False))
    taken = pair.count_served(monkeypatch, (bindings_thread._Pipelined, "take"))
    run_examples(request, examples, lambda data: _check(pair, data))
    assert from_bytes.served >= from_bytes.examples // 3, from_bytes
    assert taken.served >= taken.examples // 4, taken


def test_changed_requests_get_what_the_general_path_gives_them(request, pair, monkeypatch):
    """Given one to four MQPUTs, MQGETs, MQCMITs and MQBACKs of the common form, changed in
    their headers, structures or lengths, piled in one read or cut across reads, when the
    busy thread serves them from their bytes on one queue manager and each the general
    way on another, then the replies, what is left for the loop, the faults, MQSTAT, the
    queues and the counts are the same (250 examples, hypothesis' fixed seed); and it
    served an MQPUT or MQGET from its bytes in a third of the examples at least, and
    took a request of the common form without the segment reader in a quarter."""
    _changed_requests(request, pair, monkeypatch, 250)


@pytest.mark.soak
@pytest.mark.timeout(1800)
def test_changed_requests_get_what_the_general_path_gives_them_at_length(request, pair,
                                                                         monkeypatch):
    """As above, 10,000 examples (``make soak``)."""
    _changed_requests(request, pair, monkeypatch, 10000)


def test_a_read_refused_after_a_whole_put_puts_nothing(tmp_path):
    """Given one read holding a whole persistent MQPUT of the common form and then a segment
    whose StrucId is not a TSH's, when the busy thread reads it, then (as the segment
    reader, which refuses the whole read, has it) the connection ends with the protocol
    error and the message is not put -- nor put without its reply sent."""
    def build(h: dict[str, int]) -> list[bytes]:
        put, _ = _request(0, h)
        return [put + b"XXXX" + put[4:]]

    fast, general = _pair(tmp_path).once(build)
    assert "ProtocolError" in general[1] and "ProtocolError" in fast[1]
    assert fast == general


def test_a_waiting_get_after_a_put_is_counted_once(tmp_path):
    """Given one read holding an MQPUT and then an MQGET with MQGMO_WAIT, when the busy
    thread reads it, then the segment reader has counted two segments, as the general path
    counts them (the get served too: waiting gets are the thread's as well)."""
    counted = []

    def build(h: dict[str, int]) -> list[bytes]:
        flows = bindings.Flows()
        put, _ = _request(0, h)
        get = flows.request(_T.MQGET, [mqpy.MD(), mqpy.GMO(Options=CMQC.MQGMO_WAIT), _WHOLE],
                            h["IN"])
        return [put + get]

    original = _Recording.__init__

    def recording(self, *args) -> None:
        original(self, *args)
        counted.append(self.reader)

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(_Recording, "__init__", recording)
        fast, general = _pair(tmp_path).once(build)
    assert fast == general
    assert [reader.segments for reader in counted] == [2, 2]


def test_a_reply_carries_no_pointer_the_request_gave(tmp_path):
    """Given an MQPUT with an MQPMO version 2 whose PutMsgRecPtr and ResponseRecPtr are not
    zero (an application's own addresses), when the busy thread serves it, then its reply
    is the general path's: the MQPMO's pointers 0."""
    def build(h: dict[str, int]) -> list[bytes]:
        put, _ = _request(4, h)  # (an MQPMO version 2)
        at = 28 + 16 + 364 + 144
        assert not pmo_pointers_set(put)
        put = put[:at] + b"\x01" * 16 + put[at + 16:]
        assert pmo_pointers_set(put)
        return [put]

    fast, general = _pair(tmp_path).once(build)
    assert fast == general


def test_requests_in_two_byte_orders_are_each_read_in_their_own(tmp_path):
    """Given one read holding three little-endian MQPUTs and then an MQGET whose TSH says
    big-endian, when the busy thread reads it, then the outcome is the general path's."""
    def build(h: dict[str, int]) -> list[bytes]:
        put, _ = _request(0, h)
        get, _ = _request(len(_puts()), h)
        return [put * 3 + get[:8] + b"\x01" + get[9:]]

    fast, general = _pair(tmp_path).once(build)
    assert fast == general


def test_repeated_requests_get_what_the_general_path_gives_them(request, pair, monkeypatch):
    """Given MQPUTs, MQGETs, MQCMITs and MQBACKs of the common form each sent up to four times,
    a repeat changed or not in its headers, structures or lengths (what the busy thread
    keeps of the last put and get read, ``syncput_stream.KeptPut``, ``syncget_stream.
    KeptGet``, then meets a request that starts alike and differs, or is cut short), when
    it serves them from their bytes on one queue manager and each the general way on
    another, then the outcome is the same (120 examples, hypothesis' fixed seed); and it
    served a put or a get as it kept the last one read, not reading it again, in a sixth
    of the examples at least."""
    _repeated_requests(request, pair, monkeypatch, 120)


@pytest.mark.soak
@pytest.mark.timeout(1800)
def test_repeated_requests_get_what_the_general_path_gives_them_at_length(request, pair,
                                                                          monkeypatch):
    """As above, 3,000 examples (``make soak``)."""
    _repeated_requests(request, pair, monkeypatch, 3000)


def _repeated_requests(request, pair: EnginePair, monkeypatch, examples: int) -> None:
    """:func:`test_repeated_requests_get_what_the_general_path_gives_them` on ``examples``
    examples; the share served as the last one read was kept asserted."""
    untraced(monkeypatch, pair.root, bindings_thread)
    put_reads = counting_calls(monkeypatch, syncput_stream, "put_request")
    get_reads = counting_calls(monkeypatch, syncget_stream, "selecting")
    kept = pair.count_served(monkeypatch, (syncput_stream, "serve", None, put_reads),
                             (syncget_stream, "_get_kept", None, get_reads))

    def check(data: st.DataObject) -> None:
        chunks = _draw_reads(data, repeats=4)(pair.handles())
        assume(not _refused_after_a_segment(chunks))
        fast, general = pair.both_ways(lambda h: chunks)
        assert fast == general

    run_examples(request, examples, check)
    assert kept.served >= kept.examples // 6, kept


def _repeated(h: dict[str, int]) -> list[bytes]:
    """One synchronous MQPUT and one MQGET of the common form five times each, then the put
    with a longer message, then the first put again, whole then cut across two reads, then
    the get twice in one read, then the put with MsgIds of its own, then with an MQMD
    version 1."""
    flows = bindings.Flows()
    put = flows.request(_T.MQPUT, [mqpy.MD(), mqpy.PMO(), b"x" * 1024], h["Q"])
    longer = flows.request(_T.MQPUT, [mqpy.MD(), mqpy.PMO(), b"y" * 1025], h["Q"])
    get = flows.request(_T.MQGET, [mqpy.MD(), mqpy.GMO(), _WHOLE], h["IN"])
    other_mds = [flows.request(_T.MQPUT, [_md(i), mqpy.PMO(), b"x" * 1024], h["Q"])
                 for i in range(3)]  # (MsgIds of their own: read as the put before them)
    version_1 = flows.request(_T.MQPUT, [_md(3, Version=1), mqpy.PMO(), b"x" * 1024], h["Q"])
    return [put, get] * 5 + [longer, put, put[:-3], put[-3:], get * 2, *other_mds, version_1]


def test_a_put_and_a_get_repeated_are_answered_as_the_general_path_answers_them(tmp_path):
    """Given :func:`_repeated`'s requests, when the busy thread serves them from their
    bytes, then the outcome is the general path's."""
    fast, general = _pair(tmp_path).once(_repeated)
    assert fast == general


def test_a_put_and_a_get_repeated_are_read_once(tmp_path, monkeypatch):
    """Given :func:`_repeated`'s requests, when the busy thread serves them from their
    bytes, then it reads the first put and the first get, the longer put, the put after it,
    the put cut short (not whole: the segment reader's then) and the put with an MQMD of
    another version, and none of the repeats (those with other MsgIds included)."""
    put_reads = counting_calls(monkeypatch, syncput_stream, "put_request")
    get_reads = counting_calls(monkeypatch, syncget_stream, "selecting")
    fixed_clock(monkeypatch)
    engine = _engine(str(tmp_path))
    try:
        _run(engine, _repeated)
    finally:
        engine[0].close()
    assert put_reads == [True, True, True, False, True]
    assert get_reads == [True]


def _roomy(root: str) -> tuple[QueueManagerEngine, object, dict[str, int]]:
    """:func:`_engine`'s, FULL with room for more."""
    eng, conn, h = _engine(root)
    eng.alter("QLOCAL", "FULL", {"MAXDEPTH": 5000})
    return eng, conn, h


def test_the_same_put_to_two_queues_is_answered_with_each_queue_s_name(tmp_path):
    """Given the same synchronous MQPUT bytes but for their Hobj sent to two queues in turn,
    when the busy thread serves them from their bytes, then each reply's MQPMO carries its
    own queue's ResolvedQName, as the general path's."""
    def build(h: dict[str, int]) -> list[bytes]:
        flows = bindings.Flows()
        puts = [flows.request(_T.MQPUT, [mqpy.MD(), mqpy.PMO(), b"m"], h[name])
                for name in ("Q", "FULL")]
        return puts * 3

    fast, general = EnginePair(tmp_path, _roomy, _run, _patch).once(build)
    assert fast == general
    assert all(b"FULL" + b" " * 44 in reply for reply in fast[0][1::2])

