"""The replies of a sending MCA's SPI RUN of gets, served by the queue manager's bindings
server with the MQMDs kept packed (mqpy.bindings_run, engine.packed): byte for byte the flows the
usual MQGET's reply makes (an MD and GMO filled in, the reply event packed)."""

from __future__ import annotations

import socket

import pytest
import trio

import mqpy
from mqpy import CMQC, loopcalls
from mqpy.bindings_listener import BindingsServer, _Session
from mqpy.bindings_run import _RUN_WRITER
from mqpy.engine.qmgr import QueueManagerEngine
from mqpy.fap import mqiflows, mqiparams
from mqpy.fap.tsh import SegmentType
from mqpy_chinit import batchcalls

SYNCPOINT = CMQC.MQGMO_SYNCPOINT | CMQC.MQGMO_FAIL_IF_QUIESCING


def _engine(root, name: str) -> QueueManagerEngine:
    """A queue manager with queue Q holding the same six messages as every other one made
    here (set-all context: every MQMD field the same), of 0 bytes to 64 KB."""
    eng = QueueManagerEngine.create(str(root / name), "QM")
    eng.define("QLOCAL", "Q", {})
    conn = eng.connect("putter")
    hobj = conn.open(mqpy.OD(ObjectName=b"Q"), CMQC.MQOO_OUTPUT | CMQC.MQOO_SET_ALL_CONTEXT)
    for i, size in enumerate((0, 1, 1024, 4000, 1 << 16, 10)):
        md = mqpy.MD(MsgId=bytes([i + 1]) * 24, Persistence=i % 2, Priority=i % 3,
                     Format=CMQC.MQFMT_STRING, PutApplName=b"test", UserIdentifier=b"mqm",
                     PutDate=b"20260101", PutTime=b"12000000")
        conn.put(hobj, md, mqpy.PMO(Options=CMQC.MQPMO_SET_ALL_CONTEXT), b"m" * size)
    conn.disconnect()
    return eng


@pytest.fixture
def session(tmp_path):
    eng = _engine(tmp_path, "run")
    server = BindingsServer(eng, str(tmp_path / "qm.sock"))
    ours, theirs = socket.socketpair()
    s = _Session(server, ours)
    s.conn = eng.connect("run")
    s.verbs = loopcalls.EngineVerbs(s.conn, server.limiter, s.gone)
    yield s
    s.conn.disconnect()
    eng.close()
    ours.close()
    theirs.close()


def _run_of_gets(session: _Session, count: int, limit: int) -> list[bytes]:
    """The reply flows of an SPI RUN of ``count`` gets of Q, as a sending MCA asks for
    them (batchcalls.XmitqGets), served as the daemon serves the request."""
    hobj = session.conn.open(mqpy.OD(ObjectName=b"Q"), CMQC.MQOO_INPUT_AS_Q_DEF)
    gets = batchcalls.XmitqGets(hobj, mqiparams.Packed.of(mqpy.MD()),
                              mqiparams.Packed.of(mqpy.GMO(Options=SYNCPOINT)))
    request = mqiflows.encode_request(SegmentType.SPI, [mqiflows.SpiVerb.RUN,
                                                        gets._get_flow() * count, limit])
    reply = trio.run(session._dispatch, request)
    return mqiflows.decode_reply(reply).values[0]


def _usual_gets(tmp_path, count: int) -> list[bytes]:
    """What the usual MQGET of each message answers (an MD and a GMO filled in, the reply
    event packed as a run packs it), from a twin queue manager: the last a 2033."""
    eng = _engine(tmp_path, "usual")
    conn = eng.connect("usual")
    hobj = conn.open(mqpy.OD(ObjectName=b"Q"), CMQC.MQOO_INPUT_AS_Q_DEF)
    flows = []
    for _ in range(count):
        md, gmo = mqpy.MD(), mqpy.GMO(Options=SYNCPOINT)
        try:
            data = conn.get(hobj, md, gmo, None)
        except mqpy.MQMIError as e:
            reply = mqiflows.encode_reply(SegmentType.MQGET, comp=e.comp, reason=e.reason)
        else:
            reply = mqiflows.encode_reply(SegmentType.MQGET, [md, gmo, len(data), data])
        flows.append(_RUN_WRITER.send(reply))
    conn.disconnect()
    eng.close()
    return flows


def test_a_run_of_gets_answers_each_get_as_the_usual_get_does(session, tmp_path):
    """Given a queue of messages of 0 bytes to 64 KB, when a run of more gets than
    messages is served, then each get's reply flow is the usual MQGET's, byte for byte,
    and the run ends with the get that found none (2033)."""
    flows = _run_of_gets(session, 8, 0)
    assert flows == _usual_gets(tmp_path, 7)


def test_a_run_of_gets_ends_at_its_byte_limit(session, tmp_path):
    """Given the same queue, when a run of gets with a limit of 4,000 bytes is served,
    then it ends with the get that brought the data got to the limit (the fourth)."""
    flows = _run_of_gets(session, 8, 4000)
    assert flows == _usual_gets(tmp_path, 4)


def _flow(verb: SegmentType, values: list, hobj: int = 0) -> bytes:
    return mqiflows.pack_flows([mqiflows.encode_request(verb, values, hobj=hobj)])


@pytest.mark.parametrize("shape", ["gets", "gets+commit", "resolve+gets", "puts",
                                   "same puts+other", "commits", "two gets", "one get"])
def test_a_run_of_repeated_calls_is_read_as_every_flow_is(shape):
    """Given an SPI RUN's flows where one call may repeat (a sending MCA's gets), when the
    bindings server reads them, then it has the events mqiflows.unpack_flows reads, in the
    same order."""
    from mqpy.bindings_run import _run_requests

    get = _flow(SegmentType.MQGET, [mqpy.MD(), mqpy.GMO(Options=SYNCPOINT), -1], hobj=3)
    commit = _flow(SegmentType.MQCMIT, [])
    resolve = _flow(SegmentType.SPI, mqiflows.resolve_values(b"L" * 8, True))

    def put(i: int) -> bytes:
        return _flow(SegmentType.MQPUT, [mqpy.MD(MsgId=bytes([i]) * 24), mqpy.PMO(), b"d"],
                     hobj=4)

    flows = {"gets": get * 50, "gets+commit": get * 50 + commit,
             "resolve+gets": resolve + get * 5, "puts": b"".join(put(i) for i in range(5)),
             "same puts+other": put(1) * 3 + put(2) + put(1), "commits": commit * 3,
             "two gets": get * 2, "one get": get}[shape]
    assert _run_requests(flows) == mqiflows.unpack_flows(flows)


def test_a_run_whose_repeated_call_is_cut_short_is_refused_as_every_flow_is():
    """Given a run of repeated gets whose last is cut short, when the server reads it, then
    it is refused (ProtocolError, which ends the connection), as unpack_flows refuses it."""
    from mqpy.bindings_run import _run_requests
    from mqpy.fap.statuscodes import ProtocolError

    get = _flow(SegmentType.MQGET, [mqpy.MD(), mqpy.GMO(), -1], hobj=3)
    for flows in (get * 3 + get[:-5], get * 2 + b"junk"):
        with pytest.raises(ProtocolError):
            mqiflows.unpack_flows(flows)
        with pytest.raises(ProtocolError):
            _run_requests(flows)
