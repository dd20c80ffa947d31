"""A client's MQPUT or MQGET whose bytes are those of the last one its conversation had served
from bytes, but for its ConvId and RequestId (an MQPUT's MQMD and message too), is not read
again (``svrconn_packed.Kept``): the replies, queues, channel counters and statistics are
still the receiver's way's, whatever comes between -- another form, a handle, a length, a
read of several, a request the bytes path leaves, a changed MAXMSGL."""

from __future__ import annotations

import pytest

import mqpy
from mqpy import CMQC, syncget_stream
from mqpy.fap import mqiflows
from mqpy.fap.tsh import SegmentType
from mqpy_chinit import svrconn_packed
from tests.performance_paths import test_client_packed_serving as serving
from tests.performance_paths.test_async_put_stream import _md
from tests.performance_paths.test_client_packed_serving import _MAXMSGL, _request, _run
from tests.support.queue_contents import alike_three_ways

_T = SegmentType
_WHOLE = mqiflows.WHOLE_MESSAGE
_NO_SYNC = CMQC.MQPMO_NO_SYNCPOINT


def _again(h: dict[str, int]) -> list:
    """Puts and gets, most of them the request before again, each a read (or a few in one
    read), with requests of other forms, handles and lengths between."""
    q, out, pmo, gmo = h["Q"], h["OUT"], mqpy.PMO, mqpy.GMO
    rid = iter(range(1, 1000))

    def put(md: mqpy.MD, data: bytes, hobj: int = out, **opts: object) -> bytes:
        return _request(_T.MQPUT, [md, pmo(**{"Options": _NO_SYNC, **opts}), data], hobj,
                        next(rid))

    def get(hobj: int = q, length: int = _WHOLE, md: mqpy.MD | None = None, **opts: object
            ) -> bytes:
        return _request(_T.MQGET, [md or mqpy.MD(),
                                   gmo(**{"Options": CMQC.MQGMO_NO_SYNCPOINT, **opts}), length],
                        hobj, next(rid))

    return [
        put(mqpy.MD(), b"a" * 100), put(mqpy.MD(), b"b" * 100), put(mqpy.MD(), b"c" * 100),
        put(_md(1), b"d" * 100),  # another MQMD: its MsgId kept
        put(_md(2, Persistence=CMQC.MQPER_PERSISTENT), b"e" * 100),  # (a log force)
        put(mqpy.MD(), b"f" * 7),  # another length
        put(mqpy.MD(), b"g" * 7),
        put(mqpy.MD(Version=1), b"h" * 7),  # another MQMD version
        put(mqpy.MD(), b"i" * 7),
        put(mqpy.MD(), b"j" * 7, Options=CMQC.MQPMO_SYNCPOINT),  # another MQPMO
        "commit",
        put(mqpy.MD(), b"k" * 7, q),  # a handle not open for output: the general path
        put(mqpy.MD(), b"l" * 7, q),
        put(mqpy.MD(), b"m" * 7, 99),  # no such handle
        put(mqpy.MD(), b"n" * 7),
        put(mqpy.MD(Persistence=7), b"s" * 7),  # the kept form, an MQMD the engine refuses
        put(mqpy.MD(Priority=-5), b"t" * 7),
        put(mqpy.MD(), b"o" * 7) + put(mqpy.MD(), b"p" * 7) + get() + get(),  # one read
        get(), get(), get(length=50), get(length=50),  # truncation refused: the general path
        get(length=5000), get(length=5000),
        get(md=mqpy.MD(MsgId=b"X" * 24)),  # a selection: read, and the get after it read again
        get(length=5000),
        get(q, 5000, None, Options=CMQC.MQGMO_ACCEPT_TRUNCATED_MSG),
        get(h["EMPTY"]), get(h["EMPTY"]),  # none there: the general path, twice
        get(length=5000), get(length=5000), get(), get(), get(), get(),
        get(h["BROWSE"], Options=CMQC.MQGMO_BROWSE_FIRST),
        put(mqpy.MD(), b"q" * 3000), put(mqpy.MD(), b"r" * 3000), get(), get(),
        get(length=-5), get(length=-5),  # a bad BufferLength
        get(), get(),
    ]


def test_requests_again_are_served_from_what_the_last_was_read_as_as_the_receiver_serves_them(
        tmp_path, monkeypatch):
    """Given puts and gets of a conversation, most of them the one before again (the same
    structures, another message or MQMD), others of other forms, handles and lengths between
    them, when the poller serves each read from its bytes and then the receiver's way, then
    the replies, queues, counters and statistics are the same, and the requests served again
    were not read again."""
    reads = {"put": 0, "get": 0}
    put_request, selecting = svrconn_packed.put_request, syncget_stream.selecting

    def counted_put(*args):
        reads["put"] += 1
        return put_request(*args)

    def counted_selecting(*args):
        reads["get"] += 1
        return selecting(*args)

    monkeypatch.setattr(svrconn_packed, "put_request", counted_put)
    monkeypatch.setattr(syncget_stream, "selecting", counted_selecting)
    alike_three_ways(lambda root: _run(root, monkeypatch, _again), tmp_path, monkeypatch,
                     svrconn_packed, "serve", 25)
    assert reads == {"put": 9, "get": 13}  # of 20 puts and 29 gets: the rest kept


@pytest.mark.parametrize("max_msg_size", [_MAXMSGL, 2000])
def test_a_changed_maxmsgl_reads_the_request_again(tmp_path, monkeypatch, max_msg_size):
    """Given puts and gets served from what the last was read as, when the channel's MAXMSGL
    becomes 2,000 (a put or get of 3,000 bytes then too long) or stays, then each outcome
    is the receiver's way's."""
    instances: list = []

    class _Recorded(serving._Instance):
        def __init__(self, *args: object) -> None:
            super().__init__(*args)
            instances.append(self)

    monkeypatch.setattr(serving, "_Instance", _Recorded)

    def reads(h):  # (a generator: the MAXMSGL changes between two reads)
        get = _request(_T.MQGET, [mqpy.MD(), mqpy.GMO(), _WHOLE], h["Q"], 3)
        put = _request(_T.MQPUT, [mqpy.MD(), mqpy.PMO(), b"x" * 3000], h["OUT"], 1)
        yield from (put, put, put, get)
        instances[-1].max_msg_size = max_msg_size
        yield from (put, get, get, put, get)

    def run(root: str) -> list:
        return _run(root, monkeypatch, reads)

    fast = run(str(tmp_path / "fast"))
    monkeypatch.setattr(svrconn_packed, "serve", lambda *args: None)
    assert run(str(tmp_path / "general")) == fast
