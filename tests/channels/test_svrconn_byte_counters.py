"""DISPLAY CHSTATUS of a server-connection channel counts its conversation's bytes as a message
channel's status does: BYTSSENT and BYTSRCVD are every byte the instance sent and received,
control information (TSH headers, the MQI call structures, the ID and MQCONN flows) included,
and BUFSSENT and BUFSRCVD every transmission; so they equal what crossed the socket."""

from __future__ import annotations

import trio

import mqpy
from mqpy import CMQC
from mqpy_chinit import svrconn
from tests.support.channel_pair import finish
from tests.support.proxy import TapProxy

CHANNEL = "APP.SVRCONN"


def _client_work(port: int) -> mqpy.QueueManager:
    """A client application: connect, put 300 and 700 bytes, get them both; still
    connected."""
    qm = mqpy.QueueManager(None)
    qm.connect_tcp_client("QM1", mqpy.CD(), CHANNEL, f"127.0.0.1({port})")
    queue = mqpy.Queue(qm, "APP.Q", CMQC.MQOO_OUTPUT | CMQC.MQOO_INPUT_AS_Q_DEF)
    queue.put(b"a" * 300)
    queue.put(b"b" * 700)
    assert queue.get() == b"a" * 300
    assert queue.get() == b"b" * 700
    queue.close()
    return qm


async def test_svrconn_counters_are_every_byte_of_the_conversation(qm1):
    """Given SVRCONN APP.SVRCONN served by QM1's channel initiator behind a proxy that
    records every segment, when a client connects, puts 300 and 700 bytes and gets them back,
    then DISPLAY CHSTATUS(APP.SVRCONN) shows BYTSRCVD and BUFSRCVD equal to the bytes and
    segments the proxy saw going to the queue manager, and BYTSSENT and BUFSSENT equal to
    those it saw coming back (each more than the 1,000 bytes of message data)."""
    qm1.define("CHANNEL", CHANNEL, CHLTYPE="SVRCONN")
    qm1.define("QLOCAL", "APP.Q")
    async with trio.open_nursery() as nursery:
        chinit = qm1.make_chinit()
        chinit.svrconn_handler = svrconn.serve_client
        await nursery.start(chinit.run, [("127.0.0.1", 0)])
        tap = TapProxy(chinit.ports[0])
        await nursery.start(tap.run)
        client = await trio.to_thread.run_sync(_client_work, tap.port)
        [status] = [s for s in chinit.statuses.values() if s.channel == CHANNEL]
        shown = status.as_mqsc()
        to_qm = [s for s in tap.segments if s.direction == "s2r"]
        to_client = [s for s in tap.segments if s.direction == "r2s"]
        await trio.to_thread.run_sync(client.disconnect)
        finish(nursery)
    assert (shown["BYTSRCVD"], shown["BUFSRCVD"]) == \
        (sum(len(s.data) for s in to_qm), len(to_qm)), shown
    assert (shown["BYTSSENT"], shown["BUFSSENT"]) == \
        (sum(len(s.data) for s in to_client), len(to_client)), shown
    assert shown["BYTSRCVD"] > 1000 and shown["BYTSSENT"] > 1000
