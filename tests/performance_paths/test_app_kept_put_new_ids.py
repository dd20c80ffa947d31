"""A synchronous MQPUT of an MQMD put again -- which holds what the reply to the put before
left in it: its identifiers, its time -- made from the request kept for its handle
(``bindings_templates``: the fields a reply changes left out of the comparison, the MQMD's
own carried in their place), with MQPMO_NEW_MSG_ID, MQPMO_NEW_CORREL_ID or neither: the
bytes sent and the MQMD left to the application are the general path's, over a bindings
connection and a client one."""

from __future__ import annotations

from typing import Any

import pytest

import mqpy
from mqpy import CMQC, bindings, bindings_templates
from mqpy.bindings_templates import Templates
from mqpy.fap import mqiflows
from mqpy.fap.apiheader import build_mqi_reply, build_mqi_request, one_mqi_flow
from mqpy.fap.tsh import ByteOrder, SegmentType
from tests.performance_paths.test_client_templates import _connections

_T = SegmentType
_NEW_MSG_ID, _NEW_CORREL_ID = CMQC.MQPMO_NEW_MSG_ID, CMQC.MQPMO_NEW_CORREL_ID
_NONE = CMQC.MQMI_NONE


def _answered(md: mqpy.MD, pmo: mqpy.PMO, count: int) -> list[Any]:
    """The reply a queue manager gives the put of ``md`` with ``pmo`` (its ``count``-th):
    the MQMD with the identifiers the put makes made, its time; the MQPMO resolved."""
    if pmo.Options & _NEW_MSG_ID or md.MsgId.rstrip(b"\0") == b"":
        md.MsgId = b"%024d" % count
    if pmo.Options & _NEW_CORREL_ID:
        md.CorrelId = b"c%023d" % count
    md.PutDate, md.PutTime = b"20261129", b"%08d" % count
    pmo.ResolvedQName = b"Q"
    return [md, pmo]


class _PutAnswering:
    """A bindings socket whose queue manager answers each MQPUT at once (``_answered``):
    the requests as they came (``sent``)."""

    def __init__(self) -> None:
        self.sent: list[bytes] = []
        self.out: list[bytes] = []

    def sendall(self, data: bytes) -> None:
        self.sent.append(bytes(data))
        segment_type, _, _, hobj, body = one_mqi_flow(data)
        md, pmo, _ = mqiflows.common_request(_T.MQPUT, body)
        reply = mqiflows.common_reply_body(_T.MQPUT, _answered(md, pmo, len(self.sent)))
        self.out.append(build_mqi_reply(mqiflows.reply_type(_T.MQPUT), CMQC.MQCC_OK, 0, hobj,
                                        (reply,), ByteOrder.LITTLE, 273, 1208, 0, None, None))

    def recv(self, n: int, *flags: int) -> bytes:
        return self.out.pop(0)

    def close(self) -> None:
        pass


def _forms() -> list:
    """Makers of (hobj, MQMD, MQPMO) of a synchronous put, each put again and again; the
    MQMDs put again made once (an application's)."""
    new_msg_id, new_both = mqpy.MD(), mqpy.MD(Persistence=1)
    new_correl_id, given_again = mqpy.MD(CorrelId=b"c" * 24), mqpy.MD()
    short_id = mqpy.MD()
    viewed = mqpy.MD()

    def shortened():
        short_id.MsgId = short_id.MsgId[:8]  # (packed padded: not carried as it is)
        return 5, short_id, mqpy.PMO(Options=_NEW_MSG_ID)

    def as_view():
        viewed.__dict__["MsgId"] = memoryview(b"v" * 24)  # (past its checks: as long as
        # a MsgId, not bytes; never equal to one packed before)
        return 5, viewed, mqpy.PMO(Options=_NEW_MSG_ID)

    return [
        lambda: (5, new_msg_id, mqpy.PMO(Options=_NEW_MSG_ID)),
        lambda: (5, new_both, mqpy.PMO(Options=_NEW_MSG_ID | _NEW_CORREL_ID)),
        lambda: (6, new_correl_id, mqpy.PMO(Options=_NEW_CORREL_ID)),
        lambda: (6, given_again, mqpy.PMO()),  # its MsgId made once, then given
        lambda: (5, mqpy.MD(), mqpy.PMO(Options=_NEW_MSG_ID)),  # a fresh MQMD each time
        lambda: (5, mqpy.MD(MsgId=b"m" * 24), mqpy.PMO(Options=_NEW_MSG_ID)),
        lambda: (5, mqpy.MD(MsgId=b"m" * 24, Priority=3), mqpy.PMO(Options=_NEW_MSG_ID)),
        lambda: (5, mqpy.MD(MsgId=b"m" * 24), mqpy.PMO(Options=_NEW_CORREL_ID)),
        lambda: (5, mqpy.MD(CorrelId=b"k" * 24), mqpy.PMO(Options=_NEW_MSG_ID)),
        shortened,
        as_view,
    ]


def _bindings_run(kept: bool, order: list[int], forms: Any = _forms) -> tuple[list, list]:
    """The puts of the forms in ``order`` on one bindings connection, with kept requests or
    only packed (``kept``): the requests sent and each MQMD after its put."""
    sock = _PutAnswering()
    conn = bindings.BindingsConnection(sock, "QM")
    if not kept:
        conn._templates.requests = _Never()
    made = forms()
    after = []
    for i in order:
        hobj, md, pmo = made[i]()
        after.append(_put(conn, hobj, md, pmo, b"message %d" % i))
    return sock.sent, after


def _put(conn: Any, hobj: int, md: mqpy.MD, pmo: mqpy.PMO, data: bytes) -> tuple:
    """What the put answered (or its failure's codes), and the MQMD after it."""
    try:
        answer: Any = conn.put(hobj, md, pmo, data)
    except mqpy.MQMIError as e:
        answer = (e.comp, e.reason)
    return answer, {k: bytes(v) if type(v) is memoryview else v for k, v in md.__dict__.items()}


class _Never(dict):
    """Kept requests that are never kept: every put packed."""

    def __setitem__(self, key: Any, value: Any) -> None:
        pass


def _client_run(kept: bool, order: list[int], forms: Any = _forms) -> tuple[list, list]:
    """As :func:`_bindings_run`, over a client connection."""
    sock, (conn,) = _connections(1)
    if not kept:
        conn._templates.requests = _Never()
    made = forms()
    after = []
    for i in order:
        hobj, md, pmo = made[i]()
        sock.script.append(lambda request: (
            _answered(*mqiflows.decode_request(request).values[:2], len(sock.sent)),
            CMQC.MQCC_OK, 0))
        after.append(_put(conn, hobj, md, pmo, b"message %d" % i))
    return sock.sent, after


@pytest.fixture
def served(monkeypatch) -> list:
    """Whether each put's request was made from a kept one, with the MQMD's fields in place
    of the free ones it was packed from (``_Request.with_fields``), from now on."""
    answers: list = []
    original = bindings_templates._Request.with_fields

    def counted(self, md_fields):
        answers.append(original(self, md_fields))
        return answers[-1]

    monkeypatch.setattr(bindings_templates._Request, "with_fields", counted)
    return answers


@pytest.mark.parametrize("run", [_bindings_run, _client_run])
def test_an_mqmd_put_again_with_new_ids_sends_what_packing_sends(run, served):
    """Given synchronous puts of many forms, each again and again (one MQMD put again with
    MQPMO_NEW_MSG_ID, with both new identifiers, with MQPMO_NEW_CORREL_ID, with neither; a
    fresh MQMD; identifiers given; a MsgId shortened or a memoryview), when put with kept
    requests and then each packed, then the same bytes are sent and each MQMD is left the
    same, and the MQMDs put again were served by kept requests."""
    order = [i for i in range(len(_forms())) for _ in range(5)]
    fast = run(True, order)
    hits = len([s for s in served if s is not None])
    assert run(False, order) == fast
    assert hits >= 4 * 3  # (each MQMD put again, from its third put at least)


@pytest.mark.parametrize("run", [_bindings_run, _client_run])
@pytest.mark.parametrize("seed", range(3))
def test_an_mqmd_put_again_in_any_order_sends_what_packing_sends(run, served, seed):
    """Given the same forms mixed at random (a handle's kept request left by one form for
    another), when put with kept requests and each packed, then the same bytes are sent and
    each MQMD is left the same."""
    import random

    rng = random.Random(seed)
    order = [rng.randrange(len(_forms())) for _ in range(200)]
    assert run(True, order) == run(False, order)


def _one_mqmd(options: int) -> Any:
    def forms() -> list:
        md = mqpy.MD(Persistence=1)
        return [lambda: (5, md, mqpy.PMO(Options=options))]
    return forms


@pytest.mark.parametrize("run", [_bindings_run, _client_run])
@pytest.mark.parametrize("options", [_NEW_MSG_ID, _NEW_MSG_ID | _NEW_CORREL_ID, _NEW_CORREL_ID,
                                     CMQC.MQPMO_NO_SYNCPOINT])
def test_every_put_of_one_mqmd_after_the_first_is_made_from_the_kept_request(run, served,
                                                                            options):
    """Given one MQMD put again and again (with new identifiers or without), when put with
    kept requests, then each put after the first two is made from the kept request with
    the MQMD's identifiers and time in place, and each sends what packing sends."""
    order = [0] * 20
    fast = run(True, order, _one_mqmd(options))
    assert len([s for s in served if s is not None]) >= 18
    assert run(False, order, _one_mqmd(options)) == fast


def test_a_kept_put_takes_the_mqmds_own_ids_and_time_as_long_as_their_fields():
    """Given a synchronous MQPUT request kept, when the next put's MQMD differs from the
    one it was packed from in its MsgId, CorrelId, PutDate or PutTime only, then its
    request is the packer's (with those); one of those not as long as its field, another
    field changed (or equal but of another type), or the options: none."""
    templates = Templates()
    data = b"d" * 10
    pmo = mqpy.PMO(Options=_NEW_MSG_ID | CMQC.MQPMO_SYNCPOINT)

    def packed(md: mqpy.MD, opts: mqpy.PMO = pmo) -> bytes:
        body = mqiflows.common_request_body(_T.MQPUT, [md, opts, data])
        return build_mqi_request(_T.MQPUT, 5, (body,))

    md = mqpy.MD(Persistence=1)
    templates.keep_request(_T.MQPUT, 5, md, pmo, len(data), packed(md)[:-len(data)])
    for fields in ({"MsgId": b"x" * 24}, {"MsgId": _NONE}, {"MsgId": b"\xff" * 24},
                   {"CorrelId": b"y" * 24}, {"PutDate": b"20261129", "PutTime": b"17350000"},
                   {"MsgId": b"x" * 24, "CorrelId": b"y" * 24, "PutTime": b"12345678"}):
        other = mqpy.MD(Persistence=1, **fields)
        for length in (len(data), 3):
            assert templates.put_request(5, other, pmo, data[:length], 1 << 16) \
                == packed(other)[:-len(data)] + data[:length] \
                or length != len(data)
        assert templates.put_request(5, other, pmo, data, 1 << 16) == packed(other)
    assert templates.request(_T.MQPUT, 5, mqpy.MD(Persistence=1), pmo, len(data)) \
        == packed(md)[:-len(data)]  # (and the kept one itself, as it was)
    misses = [(mqpy.MD(Persistence=1, MsgId=b"short"), pmo),
              (mqpy.MD(Persistence=2, MsgId=b"x" * 24), pmo),
              (mqpy.MD(Persistence=1, CorrelId=b"y" * 23), pmo),
              (mqpy.MD(Persistence=1, PutTime=b"1234"), pmo),
              (mqpy.MD(Persistence=1, MsgId=b"x" * 24), mqpy.PMO(Options=CMQC.MQPMO_SYNCPOINT))]
    floated = mqpy.MD(Persistence=1, MsgId=b"x" * 24)
    floated.__dict__["Persistence"] = 1.0  # (equal, another type: past the structure's checks)
    misses.append((floated, pmo))
    for other, opts in misses:
        assert templates.put_request(5, other, opts, data, 1 << 16) is None
