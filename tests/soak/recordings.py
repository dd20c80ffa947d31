"""Three real sessions against a ``tests.support.site.Site``, recorded through a
``RecordingRelay``: a client over a SVRCONN channel, a sender channel's session to a receiver
of the site's queue manager, and an application over the bindings socket.

Each makes MQCONN, MQOPEN, MQPUT, MQGET, MQINQ, MQCMIT, the newer calls (properties, a selection
string, asynchronous put and MQSTAT, MQSUB and a publication, read ahead, MQCB/MQCTL) and MQDISC
(the two MQI ones), or
INITIAL_DATA, RESET, RESYNC, message batches, heartbeats and the channel's close (the
sender, an in-process queue manager whose sender was RESET first: a replay then resets the
receiver to where the recording started, so its batches' numbers are in sequence again).
"""

from __future__ import annotations

import contextlib
import os
import socket
import tempfile
import time

import trio

import mqpy
from mqpy import CMQC, bindings, inprocess
from mqpy.mqsc.processor import MQSCProcessor
from mqpy_chinit.chinit import ChannelInitiator
from mqpy_chinit.engineadmin import EngineAdmin
from tests.support.site import ADMIT_OWNER, CHANNEL, QM, Site

from .sessions import Conversation, RecordingRelay, conversation

SENDER_QM = "QMFUZZSRC"
MESSAGE_CHANNEL = "FUZZ.TO.QMS"
TARGET = "FUZZ.TARGET"  # the sender's messages' queue at the site
APP_QUEUE = "FUZZ.APP.Q"  # the MQI sessions' queue
NORMAL_QUEUE = "FUZZ.NORMAL.Q"  # the normal applications' queue, between batches
HBINT = 1  # seconds: the sender's session holds heartbeats

#: what the site needs for the recordings and their replays: the owner admitted as a client,
#: a receiver whose MCA user may put to TARGET, queues too deep to fill
SITE_MQSC = ADMIT_OWNER + f"""
DEFINE QLOCAL({TARGET}) MAXDEPTH(999999999)
DEFINE QLOCAL({APP_QUEUE}) MAXDEPTH(999999999)
DEFINE QLOCAL({NORMAL_QUEUE}) MAXDEPTH(999999999)
DEFINE CHANNEL({MESSAGE_CHANNEL}) CHLTYPE(RCVR) MCAUSER('bob') HBINT({HBINT})
SET AUTHREC PROFILE({TARGET}) OBJTYPE(QUEUE) PRINCIPAL('bob') AUTHADD(PUT)
"""


def _tcp_relay(port: int) -> RecordingRelay:
    listener = socket.create_server(("127.0.0.1", 0))
    return RecordingRelay(listener,
                          lambda: socket.create_connection(("127.0.0.1", port))).start()


def _only(relay: RecordingRelay, kind: str) -> Conversation:
    relay.stop()
    assert len(relay.connections) == 1, f"{kind}: {len(relay.connections)} connections"
    return conversation(kind, relay.connections[0])


def mqi_calls(qm: mqpy.QueueManager) -> None:
    """MQOPEN, MQPUT (in syncpoint), MQCMIT, MQGET, MQINQ, MQCMIT, MQDISC."""
    q = mqpy.Queue(qm, APP_QUEUE, CMQC.MQOO_OUTPUT | CMQC.MQOO_INPUT_AS_Q_DEF
                   | CMQC.MQOO_INQUIRE)
    q.put(b"recorded message", mqpy.MD(), mqpy.PMO(Options=CMQC.MQPMO_SYNCPOINT))
    qm.commit()
    assert q.get(None, mqpy.MD(), mqpy.GMO(Options=CMQC.MQGMO_SYNCPOINT)) == b"recorded message"
    q.inquire(CMQC.MQIA_CURRENT_Q_DEPTH)
    qm.commit()
    q.close()
    newer_calls(qm)
    qm.disconnect()


def newer_calls(qm: mqpy.QueueManager) -> None:
    """A put with a message property, an asynchronous put and MQSTAT, an MQOPEN with a
    selection string and a get into a message handle, MQSUB (a managed subscription), a
    retained publication and its get, read ahead, and a consumer started by MQCB/MQCTL: the
    flows a hostile peer can mutate beyond the first calls."""
    handle = mqpy.MessageHandle(qm, mqpy.CMHO())
    handle.properties.set("colour", "red", property_type=CMQC.MQTYPE_STRING)
    out = mqpy.Queue(qm, APP_QUEUE, CMQC.MQOO_OUTPUT)
    out.put(b"with a property", mqpy.MD(), mqpy.PMO(Version=CMQC.MQPMO_VERSION_3,
                                                   OriginalMsgHandle=handle.msg_handle))
    out.put(b"asynchronous", mqpy.MD(), mqpy.PMO(Options=CMQC.MQPMO_ASYNC_RESPONSE))
    qm.stat(CMQC.MQSTAT_TYPE_ASYNC_ERROR)
    od = mqpy.OD(Version=CMQC.MQOD_VERSION_4, ObjectName=APP_QUEUE.encode())
    od.set_vs("SelectionString", "colour = 'red'")
    selecting = mqpy.Queue(qm, od, CMQC.MQOO_INPUT_SHARED)
    got = mqpy.MessageHandle(qm, mqpy.CMHO())
    selecting.get(None, mqpy.MD(), mqpy.GMO(Version=CMQC.MQGMO_VERSION_4,
                                            Options=CMQC.MQGMO_PROPERTIES_IN_HANDLE,
                                            MsgHandle=got.msg_handle))
    selecting.close()
    sd = mqpy.SD(Options=CMQC.MQSO_CREATE | CMQC.MQSO_MANAGED)
    sd.set_vs("ObjectString", "fuzz/topic")
    sub = mqpy.Subscription(qm)
    sub.sub(sub_desc=sd)
    topic = mqpy.Topic(qm, topic_string="fuzz/topic")
    topic.open(open_opts=CMQC.MQOO_OUTPUT)
    topic.pub(b"publication", mqpy.MD(), mqpy.PMO(Options=CMQC.MQPMO_RETAIN))
    topic.close()
    sub.get(None, mqpy.MD(), mqpy.GMO(Options=CMQC.MQGMO_WAIT, WaitInterval=5000))
    sub.close(sub_close_options=CMQC.MQCO_REMOVE_SUB)
    out.put(b"read ahead")
    ahead = mqpy.Queue(qm, APP_QUEUE, CMQC.MQOO_INPUT_SHARED | CMQC.MQOO_READ_AHEAD)
    ahead.get(None, mqpy.MD(), mqpy.GMO(Options=CMQC.MQGMO_WAIT | CMQC.MQGMO_NO_SYNCPOINT,
                                        WaitInterval=5000))
    ahead.close()
    out.put(b"consumed")
    out.close()
    _consume_one(qm)


def _consume_one(qm: mqpy.QueueManager) -> None:
    """MQCB registers a consumer of APP_QUEUE, MQCTL starts it; it stops at its message."""
    got: list[bytes] = []

    def consumer(*, queue_manager, queue, md, gmo, msg, cbc):
        if msg is not None:
            got.append(msg)
            queue_manager.ctl(CMQC.MQOP_STOP)

    q = mqpy.Queue(qm, APP_QUEUE, CMQC.MQOO_INPUT_SHARED)
    q.cb(operation=CMQC.MQOP_REGISTER, cbd=mqpy.CBD(CallbackFunction=consumer),
         gmo=mqpy.GMO(Options=CMQC.MQGMO_NO_SYNCPOINT))
    qm.ctl(CMQC.MQOP_START_WAIT)
    assert got == [b"consumed"], got
    q.cb(operation=CMQC.MQOP_DEREGISTER)
    q.close()


def record_client(site: Site) -> Conversation:
    relay = _tcp_relay(site.port)
    port = relay.listener.getsockname()[1]
    mqi_calls(mqpy.connect(QM, CHANNEL, f"127.0.0.1({port})"))
    return _only(relay, "svrconn")


@contextlib.contextmanager
def _bindings_socket_at(path: str):
    """bindings.connect reaches ``path`` instead of a queue manager's own socket."""
    real = bindings.socket_path
    bindings.socket_path = lambda qmdir: path
    try:
        yield
    finally:
        bindings.socket_path = real


def record_bindings(site: Site) -> Conversation:
    directory = tempfile.mkdtemp(prefix="fuzzrec")  # a short path: sun_path is 108 bytes
    path = os.path.join(directory, "relay.sock")
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    listener.bind(path)
    listener.listen()
    real = bindings.socket_path(site.qmdir)
    relay = RecordingRelay(listener, lambda: unix_connection(real)).start()
    try:
        with _bindings_socket_at(path):
            mqi_calls(site.bindings())
        return _only(relay, "bindings")
    finally:
        os.unlink(path)
        os.rmdir(directory)


def unix_connection(path: str) -> socket.socket:
    """A fresh connection to the bindings socket at ``path``."""
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    with bindings.bind_address(path) as address:
        sock.connect(address)
    return sock


def record_sender(site: Site, root: str) -> Conversation:
    """An in-process queue manager's SDR, RESET to 1, sends 12 messages (batches of 5, some
    persistent) to the site's RCVR, idles through two heartbeats and is stopped."""
    relay = _tcp_relay(site.port)
    port = relay.listener.getsockname()[1]
    inprocess.create(SENDER_QM, root)
    engine = inprocess.start(SENDER_QM, root)
    try:
        lines, code = MQSCProcessor(engine).run_script(f"""
DEFINE QLOCAL({QM}) USAGE(XMITQ)
DEFINE CHANNEL({MESSAGE_CHANNEL}) CHLTYPE(SDR) CONNAME('127.0.0.1({port})') XMITQ({QM}) +
       HBINT({HBINT}) BATCHSZ(5)
RESET CHANNEL({MESSAGE_CHANNEL}) SEQNUM(1)
""")
        assert code == 0, "\n".join(lines)
        qm = mqpy.embedded(SENDER_QM, data_path=root, create=False)
        for i in range(12):
            md = mqpy.MD(Persistence=CMQC.MQPER_PERSISTENT if i % 3 else
                         CMQC.MQPER_NOT_PERSISTENT)
            qm.put1(mqpy.OD(ObjectName=TARGET.encode(), ObjectQMgrName=QM.encode()),
                    b"batch message %02d" % i, md)
        qm.disconnect()
        log: list[tuple[str, str]] = []

        async def run() -> None:
            chinit = ChannelInitiator(
                SENDER_QM, lambda: mqpy.embedded(SENDER_QM, data_path=root, create=False),
                EngineAdmin(engine), log=lambda msgid, text: log.append((msgid, text)))
            async with trio.open_nursery() as nursery:
                await nursery.start(chinit.run)
                assert chinit.start_channel(MESSAGE_CHANNEL) is None
                with trio.fail_after(60):
                    while engine.queue_status(QM)["CURDEPTH"]:
                        await trio.sleep(0.05)
                    await trio.sleep(2.5 * HBINT)  # two heartbeats each way
                    chinit.stop_channel(MESSAGE_CHANNEL)
                    while MESSAGE_CHANNEL in chinit.running:
                        await trio.sleep(0.05)
                nursery.cancel_scope.cancel()

        trio.run(run)
    finally:
        inprocess.stop(SENDER_QM, root)
    deadline = time.monotonic() + 10
    while not relay.connections and time.monotonic() < deadline:
        time.sleep(0.05)
    return _only(relay, "sender")
