"""Gets that skip the messages already got under syncpoint (MessageQueue.got_prefix).

A channel's batch gets 50 messages under syncpoint before it commits any; each get used to
walk past all those got before it. The queue now remembers how far its head is only messages
got under syncpoint, and a get starts after them. Whatever interleaving of puts (any
priority), gets, commits and backouts of several connections, every get must take exactly
the message a walk from the head would: these tests hold the engine to a model of the queue.
"""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import mqpy
from mqpy import CMQC, inprocess

QUEUES = {"PRIO.Q": True, "FIFO.Q": False}  # MSGDLVSQ(PRIORITY) / MSGDLVSQ(FIFO)


@pytest.fixture(scope="module")
def engine(tmp_path_factory):
    root = str(tmp_path_factory.mktemp("gotprefix"))
    mqpy.embedded("GOTPFX", data_path=root).disconnect()
    eng = inprocess.running("GOTPFX", root)
    eng.define("QLOCAL", "PRIO.Q", {"MSGDLVSQ": "PRIORITY"})
    eng.define("QLOCAL", "FIFO.Q", {"MSGDLVSQ": "FIFO"})
    yield eng
    inprocess.stop("GOTPFX", root)


class Model:
    """The queue as a list, each get walking it from the head."""

    def __init__(self, by_priority: bool) -> None:
        self.by_priority = by_priority
        self.msgs: list[dict] = []
        self.seq = 0

    def put(self, conn: int, prio: int, sync: bool, data: bytes) -> None:
        self.seq += 1
        self.msgs.append({"seq": self.seq, "prio": prio, "data": data,
                          "state": ("PUT", conn) if sync else "AVAILABLE", "own": False})

    def get(self, conn: int, sync: bool) -> bytes | None:
        order = sorted(self.msgs, key=lambda m: ((-m["prio"]) if self.by_priority else 0,
                                                 m["seq"]))
        for m in order:
            if m["state"] == "AVAILABLE" or m["state"] == ("PUT", conn):
                if m["state"] == ("PUT", conn):
                    m["own"] = True  # got back in the unit of work that put it
                    m["state"] = ("GOT", conn)
                elif sync:
                    m["state"] = ("GOT", conn)
                else:
                    self.msgs.remove(m)
                return m["data"]
        return None

    def end(self, conn: int, commit: bool) -> None:
        for m in list(self.msgs):
            if m["state"] == ("PUT", conn):
                if commit:
                    m["state"] = "AVAILABLE"
                else:
                    self.msgs.remove(m)
            elif m["state"] == ("GOT", conn):
                if commit or m["own"]:
                    self.msgs.remove(m)
                else:
                    m["state"] = "AVAILABLE"


op_st = st.one_of(
    st.tuples(st.just("put"), st.integers(0, 2), st.integers(0, 9), st.booleans(),
              st.booleans()),
    st.tuples(st.just("get"), st.integers(0, 2), st.booleans()),
    st.tuples(st.just("get"), st.integers(0, 2), st.just(True)),  # gets under syncpoint: often
    st.tuples(st.just("commit"), st.integers(0, 2)),
    st.tuples(st.just("backout"), st.integers(0, 2)),
)


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(queue=st.sampled_from(sorted(QUEUES)), ops=st.lists(op_st, max_size=60))
def test_every_get_takes_what_a_walk_from_the_head_would(engine, queue, ops):
    """Given any interleaving of puts (priorities 0-9, in or outside syncpoint, persistent
    or not), gets, commits and backouts by three connections on a PRIORITY and a FIFO
    queue, when each get is made, then it returns the message a walk of the queue from its
    head finds first (or 2033 when there is none), as the model says."""
    model = Model(QUEUES[queue])
    conns = [engine.connect() for _ in range(3)]
    hobjs = [c.open(mqpy.OD(ObjectName=queue.encode()),
                    CMQC.MQOO_INPUT_SHARED | CMQC.MQOO_OUTPUT) for c in conns]
    try:
        for n, op in enumerate(ops):
            kind, c = op[0], op[1]
            conn, hobj = conns[c], hobjs[c]
            if kind == "put":
                _, _, prio, sync, persistent = op
                data = b"%03d" % n
                conn.put(hobj, mqpy.MD(Priority=prio, Persistence=int(persistent)),
                         mqpy.PMO(Options=CMQC.MQPMO_SYNCPOINT if sync
                                  else CMQC.MQPMO_NO_SYNCPOINT), data)
                model.put(c, prio, sync, data)
            elif kind == "get":
                sync = op[2]
                expected = model.get(c, sync)
                try:
                    got = conn.get(hobj, mqpy.MD(), mqpy.GMO(
                        Options=CMQC.MQGMO_SYNCPOINT if sync else CMQC.MQGMO_NO_SYNCPOINT),
                        None)
                except mqpy.MQMIError as e:
                    assert e.reason == CMQC.MQRC_NO_MSG_AVAILABLE
                    got = None
                assert got == expected, f"op {n}: {op}"
            else:
                (conn.commit if kind == "commit" else conn.backout)()
                model.end(c, kind == "commit")
    finally:
        for conn in conns:
            conn.backout()
            conn.disconnect()
        drain = engine.connect()
        hobj = drain.open(mqpy.OD(ObjectName=queue.encode()), CMQC.MQOO_INPUT_SHARED)
        try:
            while True:
                drain.get(hobj, mqpy.MD(), mqpy.GMO(), None)
        except mqpy.MQMIError:
            pass
        drain.disconnect()


def test_a_batch_got_then_backed_out_is_got_again_from_its_first_message(engine):
    """Given 5 messages, 3 got under syncpoint (the queue now starts its gets after them),
    when the unit of work is backed out, then the next get takes the first message again;
    and a higher-priority message put while messages are got is taken before the rest.
    spec: aliases-channels-storage 4.43"""
    conn = engine.connect()
    hobj = conn.open(mqpy.OD(ObjectName=b"PRIO.Q"), CMQC.MQOO_INPUT_SHARED | CMQC.MQOO_OUTPUT)
    sync = mqpy.GMO(Options=CMQC.MQGMO_SYNCPOINT)
    for i in range(5):
        conn.put(hobj, mqpy.MD(Priority=0), mqpy.PMO(), b"m%d" % i)
    assert [conn.get(hobj, mqpy.MD(), sync, None) for _ in range(3)] == [b"m0", b"m1", b"m2"]
    conn.backout()
    assert conn.get(hobj, mqpy.MD(), sync, None) == b"m0"
    assert conn.get(hobj, mqpy.MD(), sync, None) == b"m1"
    other = engine.connect()
    ohobj = other.open(mqpy.OD(ObjectName=b"PRIO.Q"), CMQC.MQOO_OUTPUT)
    other.put(ohobj, mqpy.MD(Priority=9), mqpy.PMO(), b"urgent")
    other.disconnect()
    assert conn.get(hobj, mqpy.MD(), sync, None) == b"urgent"
    assert conn.get(hobj, mqpy.MD(), sync, None) == b"m2"
    conn.commit()
    assert [conn.get(hobj, mqpy.MD(), mqpy.GMO(), None) for _ in range(2)] == [b"m3", b"m4"]
    conn.disconnect()


def _put(engine, queue: bytes, *messages: tuple[int, bytes]) -> None:
    conn = engine.connect()
    hobj = conn.open(mqpy.OD(ObjectName=queue), CMQC.MQOO_OUTPUT)
    for prio, data in messages:
        conn.put(hobj, mqpy.MD(Priority=prio), mqpy.PMO(), data)
    conn.disconnect()


def _getter(engine, queue: bytes):
    conn = engine.connect()
    hobj = conn.open(mqpy.OD(ObjectName=queue), CMQC.MQOO_INPUT_SHARED)
    return conn, (lambda: conn.get(hobj, mqpy.MD(), mqpy.GMO(Options=CMQC.MQGMO_SYNCPOINT),
                                   None))


def test_messages_another_connection_backs_out_are_got_before_later_ones(engine):
    """Given A holding the first message got under syncpoint and B the next two, when B
    backs out, then the next get (A's) takes B's first message again, not the fourth."""
    _put(engine, b"FIFO.Q", *[(0, b"n%d" % i) for i in range(5)])
    a, get_a = _getter(engine, b"FIFO.Q")
    b, get_b = _getter(engine, b"FIFO.Q")
    assert get_a() == b"n0"
    assert (get_b(), get_b()) == (b"n1", b"n2")
    b.backout()
    assert (get_a(), get_a(), get_a(), get_a()) == (b"n1", b"n2", b"n3", b"n4")
    a.commit()
    a.disconnect()
    b.disconnect()


def test_a_message_of_higher_priority_than_those_got_is_taken_before_the_rest(engine):
    """Given a priority 9 message and priority 0 ones, the first three got under syncpoint,
    when a priority 5 message is put, then the next get takes it (behind the got priority 9
    head, ahead of the remaining priority 0 messages).  spec: aliases-channels-storage 4.43"""
    _put(engine, b"PRIO.Q", (9, b"high"), *[(0, b"p%d" % i) for i in range(4)])
    a, get_a = _getter(engine, b"PRIO.Q")
    assert (get_a(), get_a(), get_a()) == (b"high", b"p0", b"p1")
    _put(engine, b"PRIO.Q", (5, b"middle"))
    assert (get_a(), get_a(), get_a()) == (b"middle", b"p2", b"p3")
    a.commit()
    a.disconnect()
