"""The programs of pymqi's documentation (its examples page, docs/examples.rst, and the
programs of its code/examples directory), each written as a pymqi user writes it from that
page, with ``import mqpy as pymqi`` as the only change: connecting (client, with user and
password, bindings, with an MQCD, to a host that does not exist), putting and getting (text,
bytes_encoding and default_ccsid, waiting for one or many messages, without JMS headers,
message priority, dynamic reply-to queues, replying, correlating by CorrelId, an alternate
user id, message properties), topics (publishing, subscribing with CREATE + RESUME), PCF
(defining a channel and a queue, displaying channels and queues, query filters, pinging the
queue manager), MQRC_ALREADY_CONNECTED avoided both documented ways, is_connected, SSL &
TLS; and, beside the page, what pymqi's API offers for queue depth, browsing, put1,
BackoutCount, channel status and MQRCCF errors.

Each test asserts what the page says happens. Where the page and IBM's command server
disagree (two filters in one inquiry; the reason for a channel name nothing matches) the
test asserts IBM's answer and says so. The queue manager is tests/client's: QM1 with
its channel initiator serving APP.SVRCONN on a port of 127.0.0.1, shared by the module.

what pymqi users rely on: "pymqi compatibility": a program of pymqi's documentation runs
with only its import changed.
"""

from __future__ import annotations

import os
import subprocess
import sys
import threading
from collections.abc import Iterator

import pytest
import trustme

import mqpy as pymqi
from tests.client.conftest import CHANNEL, Env, drain
from tests.pymqi_compat.conftest import QMGR, QUEUE, program_env
from tests.support.site import key_repository

pytestmark = pytest.mark.timeout(120)

MODES = ("bindings", "client")
#: a CipherSpec of IBM MQ 9 that mqpy's channels speak
TLS_CIPHER = "ECDHE_ECDSA_AES_128_GCM_SHA256"


@pytest.fixture(scope="module")
def env(tmp_path_factory) -> Iterator[Env]:
    """QM1, its channel initiator and its command server, shared by the module's tests: each
    leaves APP.Q empty and deletes what it made. MQPY_DATA_PATH is QM1's data path, so that
    ``pymqi.connect('QM1')`` finds it as a program's MQCONN does."""
    yield from program_env(tmp_path_factory, "documented")


@pytest.fixture
def empty(env: Env) -> Iterator[Env]:
    """The queue manager, APP.Q emptied after the test."""
    yield env
    with _connect(env, "client") as qmgr:
        drain(qmgr)


def _connect(env: Env, mode: str, **kw) -> pymqi.QueueManager:
    """``pymqi.connect`` as the page writes it: a queue manager name, and for a client its
    channel and ``host(port)``."""
    if mode == "client":
        return pymqi.connect(QMGR, CHANNEL, env.conn_info, **kw)
    return pymqi.connect(QMGR, **kw)


def _reason(call) -> tuple[int, int]:
    with pytest.raises(pymqi.MQMIError) as err:
        call()
    return err.value.comp, err.value.reason


# -- connecting -----------------------------------------------------------------------------

@pytest.mark.parametrize("mode", MODES)
def test_connecting_with_connect_as_a_context_manager(env, mode):
    """Given the page's "Connecting in client mode" and "in bindings mode", when the
    program connects in a ``with`` block, then it is connected inside and disconnected after
    it."""
    with _connect(env, mode) as qmgr:
        assert qmgr.is_connected
    assert not qmgr.is_connected


#: the page's program with credentials, run in a process of its own against a QM1 whose
#: security is on (CONNAUTH checking passwords): the module's queue manager runs without it
CREDENTIALS_PROGRAM = """
import pathlib, sys
import pytest
import mqpy as pymqi
from mqpy.security.policy import install, set_authority
from mqpy.security.users import UserFile, users_path
from tests.client.conftest import CHANNEL, env_in

with pytest.MonkeyPatch.context() as monkeypatch:
    for env in env_in(pathlib.Path(sys.argv[1]), monkeypatch):
        install(env.engine, env.engine.qmdir)
        UserFile(users_path(env.engine.qmdir)).add("app", "mypassword", ("apps",))
        set_authority(env.engine, "qmgr", "QM1", ["+connect"], principal="app")
        with pymqi.connect("QM1", CHANNEL, env.conn_info, "app", "mypassword") as qmgr:
            print("connected", qmgr.is_connected)
        try:
            pymqi.connect("QM1", CHANNEL, env.conn_info, "app", "wrong")
        except pymqi.MQMIError as e:
            print("wrong password", e.comp, e.reason)
"""


def test_connecting_in_client_mode_with_user_and_password(tmp_path):
    """Given "Connecting in client mode with username/password credentials", when the
    program passes user and password positionally after conn_info to a queue manager that
    checks them, then it connects; with a wrong password the connect is MQCC_FAILED
    MQRC_NOT_AUTHORIZED (2035)."""
    repo = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    proc = subprocess.run([sys.executable, "-c", CREDENTIALS_PROGRAM, str(tmp_path)],
                          cwd=repo, capture_output=True, text=True, timeout=100,
                          env={**os.environ, "PYTHONPATH": repo})
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert proc.stdout.splitlines() == [
        "connected True",
        f"wrong password {pymqi.CMQC.MQCC_FAILED} {pymqi.CMQC.MQRC_NOT_AUTHORIZED}"]


def test_is_connected_before_and_after_disconnect(env):
    """Given code/examples/is_connected.py, when the program connects and reads
    qmgr.is_connected, then it is True, and False once it has disconnected."""
    qmgr = pymqi.connect(QMGR, CHANNEL, env.conn_info)
    assert qmgr.is_connected is True
    qmgr.disconnect()
    assert qmgr.is_connected is False


def test_checking_completion_and_reason_codes_of_a_host_that_does_not_exist(env):
    """Given "How to check completion- and reason codes", when the program connects to
    localhost.invalid, then MQMIError's comp is MQCC_FAILED and its reason
    MQRC_HOST_NOT_AVAILABLE (2538)."""
    assert _reason(lambda: pymqi.connect(QMGR, CHANNEL, "localhost.invalid(1414)")) == (
        pymqi.CMQC.MQCC_FAILED, pymqi.CMQC.MQRC_HOST_NOT_AVAILABLE)


def test_avoiding_already_connected_with_handle_share_block(empty):
    """Given the first way of "How to avoid MQRC_ALREADY_CONNECTED", when the program calls
    connect_with_options twice ten times with an MQCD (ChannelName, ConnectionName,
    MQCHT_CLNTCONN, MQXPT_TCP) and opts=MQCNO_HANDLE_SHARE_BLOCK, then none fails, and the
    message it then puts is on the queue."""
    cd = pymqi.CD()
    cd.ChannelName = CHANNEL
    cd.ConnectionName = empty.conn_info
    cd.ChannelType = pymqi.CMQC.MQCHT_CLNTCONN
    cd.TransportType = pymqi.CMQC.MQXPT_TCP
    qmgr = pymqi.QueueManager(None)
    for _ in range(10):
        qmgr.connect_with_options(QMGR, cd=cd, opts=pymqi.CMQC.MQCNO_HANDLE_SHARE_BLOCK)
        qmgr.connect_with_options(QMGR, cd=cd, opts=pymqi.CMQC.MQCNO_HANDLE_SHARE_BLOCK)
    with pymqi.Queue(qmgr, QUEUE) as queue:
        queue.put("Hello from Python!")
    qmgr.disconnect()
    assert empty.depth() == 1


def test_avoiding_already_connected_by_catching_the_warning(empty):
    """Given the second way, when a connected QueueManager connects again with
    connect_tcp_client, then MQMIError says MQCC_WARNING MQRC_ALREADY_CONNECTED (2002), and
    the first connection still puts."""
    qmgr = pymqi.QueueManager(None)
    qmgr.connect_tcp_client(QMGR, pymqi.CD(), CHANNEL, empty.conn_info)
    assert _reason(lambda: qmgr.connect_tcp_client(QMGR, pymqi.CD(), CHANNEL,
                                                   empty.conn_info)) == (
        pymqi.CMQC.MQCC_WARNING, pymqi.CMQC.MQRC_ALREADY_CONNECTED)
    with pymqi.Queue(qmgr, QUEUE) as queue:
        queue.put("Hello from Python!")
    qmgr.disconnect()
    assert empty.depth() == 1


# -- putting and getting --------------------------------------------------------------------

@pytest.mark.parametrize("mode", MODES)
def test_put_a_message_and_get_it_off_the_queue(empty, mode):
    """Given "How to put the message on a queue" and "How to get the message off a queue",
    when a str is put and got in ``with`` blocks, then the get answers its UTF-8 bytes; a
    get of the empty queue is MQMIError MQRC_NO_MSG_AVAILABLE (2033)."""
    with _connect(empty, mode) as qmgr:
        with pymqi.Queue(qmgr, QUEUE) as queue:
            queue.put("Hello from Python!")
        with pymqi.Queue(qmgr, QUEUE) as queue:
            message = queue.get()
            assert message == b"Hello from Python!"
            assert _reason(queue.get) == (pymqi.CMQC.MQCC_FAILED,
                                          pymqi.CMQC.MQRC_NO_MSG_AVAILABLE)


def test_unicode_with_bytes_encoding_and_default_ccsid(empty):
    """Given "Sending Unicode data vs. bytes", when the program connects with
    bytes_encoding='iso-8859-1' and default_ccsid=819 and puts a str, then the message is
    the str in ISO-8859-1 with CodedCharSetId 819 and Format MQSTR; bytes are put as
    they are."""
    with pymqi.connect(QMGR, CHANNEL, empty.conn_info, bytes_encoding="iso-8859-1",
                       default_ccsid=819) as qmgr:
        with pymqi.Queue(qmgr, QUEUE) as queue:
            queue.put("My Unicode data \u00e9")
            queue.put(b"\xc3\xa9 as bytes")
        md = pymqi.MD()
        with pymqi.Queue(qmgr, QUEUE) as queue:
            assert queue.get(None, md) == b"My Unicode data \xe9"
            assert (md.CodedCharSetId, md.Format) == (819, pymqi.CMQC.MQFMT_STRING)
            assert queue.get() == b"\xc3\xa9 as bytes"


def test_get_without_jms_headers(empty):
    """Given "How to get a message without JMS (MQRFH2) headers", when a message with an
    MQRFH2 header is got with get_no_jms, and another with get_no_rfh2, then each answers
    only the body."""
    rfh2 = pymqi.RFH2(Format=pymqi.CMQC.MQFMT_STRING)
    rfh2.add_folder(b"<mcd><Msd>jms_text</Msd></mcd>")
    rfh2.add_folder(b"<usr><Colour>blue</Colour></usr>")
    with pymqi.connect(QMGR, CHANNEL, empty.conn_info) as qmgr:
        with pymqi.Queue(qmgr, QUEUE) as queue:
            for body in (b"first body", b"second body"):
                queue.put_rfh2(body, pymqi.MD(Format=pymqi.CMQC.MQFMT_RF_HEADER_2),
                               pymqi.PMO(), [rfh2])
        with pymqi.Queue(qmgr, QUEUE) as queue:
            assert queue.get_no_jms() == b"first body"
            assert queue.get_no_rfh2() == b"second body"


def _put_later(env: Env, message: str, delay: float) -> threading.Thread:
    def put() -> None:
        with pymqi.connect(QMGR, CHANNEL, env.conn_info) as qmgr:
            qmgr.put1(QUEUE, message)

    thread = threading.Timer(delay, put)
    thread.start()
    return thread


def test_wait_for_a_single_message(empty):
    """Given "How to wait for a single message", when the program gets with a default MD
    and a GMO of MQGMO_WAIT | MQGMO_FAIL_IF_QUIESCING and WaitInterval 5000, then a message
    put a moment later is answered; with none, MQRC_NO_MSG_AVAILABLE after the interval."""
    md = pymqi.MD()
    gmo = pymqi.GMO()
    gmo.Options = pymqi.CMQC.MQGMO_WAIT | pymqi.CMQC.MQGMO_FAIL_IF_QUIESCING
    gmo.WaitInterval = 5000
    later = _put_later(empty, "arrives later", 0.3)
    with pymqi.connect(QMGR, CHANNEL, empty.conn_info) as qmgr:
        with pymqi.Queue(qmgr, QUEUE) as queue:
            assert queue.get(None, md, gmo) == b"arrives later"
            later.join()
            gmo.WaitInterval = 200
            assert _reason(lambda: queue.get(None, pymqi.MD(), gmo)) == (
                pymqi.CMQC.MQCC_FAILED, pymqi.CMQC.MQRC_NO_MSG_AVAILABLE)


def test_wait_for_multiple_messages_resetting_the_md(empty):
    """Given "How to wait for multiple messages", when the program gets in a loop with one
    MD, resetting its MsgId, CorrelId and GroupId to MQMI_NONE, MQCI_NONE and MQGI_NONE
    after each message and passing over MQCC_FAILED MQRC_NO_MSG_AVAILABLE, then it gets
    every message put, in order."""
    with pymqi.connect(QMGR, CHANNEL, empty.conn_info) as qmgr:
        for n in range(3):
            qmgr.put1(QUEUE, f"message {n}")
        md = pymqi.MD()
        gmo = pymqi.GMO()
        gmo.Options = pymqi.CMQC.MQGMO_WAIT | pymqi.CMQC.MQGMO_FAIL_IF_QUIESCING
        gmo.WaitInterval = 100
        got, misses = [], 0
        with pymqi.Queue(qmgr, QUEUE) as queue:
            while misses < 2:
                try:
                    got.append(queue.get(None, md, gmo))
                    md.MsgId = pymqi.CMQC.MQMI_NONE
                    md.CorrelId = pymqi.CMQC.MQCI_NONE
                    md.GroupId = pymqi.CMQC.MQGI_NONE
                except pymqi.MQMIError as e:
                    if e.comp == pymqi.CMQC.MQCC_FAILED and \
                            e.reason == pymqi.CMQC.MQRC_NO_MSG_AVAILABLE:
                        misses += 1
                    else:
                        raise
    assert got == [b"message 0", b"message 1", b"message 2"]


@pytest.mark.parametrize("mode", MODES)
def test_set_and_get_the_message_priority(empty, mode):
    """Given "How to set and get the message priority", when a message is put with an MD
    of Priority 2 and got with a fresh MD, then that MD's Priority is 2."""
    put_md = pymqi.MD()
    put_md.Priority = 2
    with _connect(empty, mode) as qmgr:
        with pymqi.Queue(qmgr, QUEUE) as put_queue:
            put_queue.put("Hello from Python!", put_md)
        get_md = pymqi.MD()
        with pymqi.Queue(qmgr, QUEUE) as get_queue:
            assert get_queue.get(None, get_md) == b"Hello from Python!"
    assert get_md.Priority == 2


@pytest.mark.parametrize("mode", MODES)
def test_dynamic_reply_to_queue_and_the_reply(empty, mode):
    """Given "How to specify dynamic reply-to queues" and "How to send responses to
    reply-to queues", when the requester opens SYSTEM.DEFAULT.MODEL.QUEUE with
    DynamicQName 'MY.REPLIES.*' (str fields), then the OD's ObjectName is the new queue's
    name (MY.REPLIES. and more); the request put with that ReplyToQ is got by the responder,
    whose MD's ReplyToQ.strip() names the queue its reply goes to, and the requester gets
    the reply there."""
    with _connect(empty, mode) as qmgr:
        dyn_od = pymqi.OD()
        dyn_od.ObjectName = "SYSTEM.DEFAULT.MODEL.QUEUE"
        dyn_od.DynamicQName = "MY.REPLIES.*"
        with pymqi.Queue(qmgr, dyn_od, pymqi.CMQC.MQOO_INPUT_EXCLUSIVE) as dyn_queue:
            dyn_queue_name = dyn_od.ObjectName.strip()
            assert dyn_queue_name.startswith(b"MY.REPLIES.") and len(dyn_queue_name) > 11
            md = pymqi.MD()
            md.ReplyToQ = dyn_queue_name
            with pymqi.Queue(qmgr, QUEUE) as queue:
                queue.put("Please reply to a dynamic queue, thanks.", md)

            request_md = pymqi.MD()
            with pymqi.Queue(qmgr, QUEUE) as queue:
                message = queue.get(None, request_md)
            reply_to_queue_name = request_md.ReplyToQ.strip()
            assert reply_to_queue_name == dyn_queue_name
            with pymqi.Queue(qmgr, reply_to_queue_name) as reply_to_queue:
                reply_to_queue.put(message)
            assert dyn_queue.get() == b"Please reply to a dynamic queue, thanks."


def test_correlate_request_and_response_by_correl_id(empty):
    """Given "How to correlate request and response messages using CorrelationId", when a
    requester (connect_with_options with opts=MQCNO_HANDLE_SHARE_NO_BLOCK and cd=) puts a
    MQMT_REQUEST with ReplyToQ and ReplyToQMgr set by item, and a responder thread answers
    with CorrelId = the request's MsgId, then the requester's get matching that CorrelId
    (GMO Version 2, MQMO_MATCH_CORREL_ID, WaitInterval) answers the response, not another
    reply ahead of it on the reply queue."""
    def connected() -> pymqi.QueueManager:
        cd = pymqi.CD()
        cd.ChannelName = CHANNEL
        cd.ConnectionName = empty.conn_info
        cd.ChannelType = pymqi.CMQC.MQCHT_CLNTCONN
        cd.TransportType = pymqi.CMQC.MQXPT_TCP
        qm = pymqi.QueueManager(None)
        qm.connect_with_options(QMGR, opts=pymqi.CMQC.MQCNO_HANDLE_SHARE_NO_BLOCK, cd=cd)
        return qm

    def respond(qm: pymqi.QueueManager) -> None:
        request_md = pymqi.MD()
        gmo = pymqi.GMO()
        gmo.Options = pymqi.CMQC.MQGMO_WAIT | pymqi.CMQC.MQGMO_FAIL_IF_QUIESCING
        gmo.WaitInterval = 5000
        with pymqi.Queue(qm, QUEUE) as queue:
            request = queue.get(None, request_md, gmo)
        response_md = pymqi.MD()
        response_md.CorrelId = request_md.MsgId
        with pymqi.Queue(qm, request_md.ReplyToQ.strip()) as replyto_queue:
            replyto_queue.put(b"Response to message " + request, response_md)
        qm.disconnect()

    qm = connected()
    qm.put1("APP.REPLY", b"another's reply", pymqi.MD(CorrelId=b"another request".ljust(24)))
    responder = threading.Thread(target=respond, args=(connected(),))
    responder.start()
    put_mqmd = pymqi.MD()
    put_mqmd["MsgType"] = pymqi.CMQC.MQMT_REQUEST
    put_mqmd["ReplyToQ"] = "APP.REPLY"
    put_mqmd["ReplyToQMgr"] = QMGR
    put_opts = pymqi.PMO(Options=pymqi.CMQC.MQPMO_NO_SYNCPOINT
                         + pymqi.CMQC.MQPMO_FAIL_IF_QUIESCING)
    with pymqi.Queue(qm, QUEUE) as req_queue:
        req_queue.put("Test Data. 1", put_mqmd, put_opts)
    get_mqmd = pymqi.MD()
    get_mqmd["CorrelId"] = put_mqmd["MsgId"]
    get_opts = pymqi.GMO(Options=pymqi.CMQC.MQGMO_NO_SYNCPOINT
                         + pymqi.CMQC.MQGMO_FAIL_IF_QUIESCING + pymqi.CMQC.MQGMO_WAIT)
    get_opts["Version"] = pymqi.CMQC.MQGMO_VERSION_2
    get_opts["MatchOptions"] = pymqi.CMQC.MQMO_MATCH_CORREL_ID
    get_opts["WaitInterval"] = 5000
    with pymqi.Queue(qm, "APP.REPLY", pymqi.CMQC.MQOO_INPUT_SHARED) as replyto_queue:
        response = replyto_queue.get(None, get_mqmd, get_opts)
    responder.join(10)
    assert drain(qm, "APP.REPLY") == [b"another's reply"]
    qm.disconnect()
    assert response == b"Response to message Test Data. 1"
    assert get_mqmd.CorrelId == put_mqmd.MsgId != pymqi.CMQC.MQMI_NONE


def test_alternate_user_id(empty):
    """Given "How to use an alternate user ID", when the program opens a Queue made with no
    descriptor by ``queue.open(od, MQOO_OUTPUT | MQOO_ALTERNATE_USER_AUTHORITY)`` with the
    OD's ObjectName and AlternateUserId set (str), and puts, then the message is on the
    queue (this queue manager checks no authority, as one whose security is off)."""
    with pymqi.connect(QMGR, CHANNEL, empty.conn_info) as qmgr:
        od = pymqi.OD()
        od.ObjectName = QUEUE
        od.AlternateUserId = "myuser"
        with pymqi.Queue(qmgr) as queue:
            queue.open(od, pymqi.CMQC.MQOO_OUTPUT | pymqi.CMQC.MQOO_ALTERNATE_USER_AUTHORITY)
            queue.put("Hello from Python!")
    assert empty.depth() == 1


def test_channel_compression_list_of_the_mqcd(empty):
    """Given "How to use channel compression", when the program sets the second element of
    cd.MsgCompList to CMQXC.MQCOMPRESS_ZLIBHIGH, then the MQCD keeps it (a list of 16, the
    first MQCOMPRESS_NONE), and the long message is put."""
    cd = pymqi.CD()
    cd.MsgCompList[1] = pymqi.CMQXC.MQCOMPRESS_ZLIBHIGH
    assert cd.MsgCompList[:2] == [pymqi.CMQXC.MQCOMPRESS_NONE, pymqi.CMQXC.MQCOMPRESS_ZLIBHIGH]
    assert len(cd.MsgCompList) == 16
    with pymqi.connect(QMGR, CHANNEL, empty.conn_info, cd=cd) as qmgr:
        with pymqi.Queue(qmgr, QUEUE) as queue:
            queue.put("Hello from Python!" * 10000)
    assert empty.depth() == 1


def test_set_and_get_a_message_property(empty):
    """Given code/examples/message_property_set.py, when a property is set on a
    MessageHandle (a string by default), put with a PMO of version 3 whose OriginalMsgHandle
    is the handle's msg_handle and an MD of MQMD_CURRENT_VERSION, and the message is got
    with MQGMO_PROPERTIES_IN_HANDLE into another handle, then that handle's
    properties.get answers the value, a str as pymqi answers a string property."""
    with pymqi.connect(QMGR, CHANNEL, empty.conn_info) as qmgr:
        put_msg_h = pymqi.MessageHandle(qmgr)
        put_msg_h.properties.set("Propertie_1", "Hello from Python!")
        pmo = pymqi.PMO(Version=pymqi.CMQC.MQPMO_VERSION_3)
        pmo.OriginalMsgHandle = put_msg_h.msg_handle
        put_md = pymqi.MD(Version=pymqi.CMQC.MQMD_CURRENT_VERSION)
        put_queue = pymqi.Queue(qmgr, QUEUE)
        put_queue.put(b"", put_md, pmo)

        get_msg_h = pymqi.MessageHandle(qmgr)
        gmo = pymqi.GMO(Version=pymqi.CMQC.MQGMO_CURRENT_VERSION)
        gmo.Options = pymqi.CMQC.MQGMO_PROPERTIES_IN_HANDLE
        gmo.MsgHandle = get_msg_h.msg_handle
        get_queue = pymqi.Queue(qmgr, QUEUE)
        assert get_queue.get(None, pymqi.MD(), gmo) == b""
        assert get_msg_h.properties.get("Propertie_1") == "Hello from Python!"
        put_queue.close()
        get_queue.close()


# -- topics ---------------------------------------------------------------------------------

def test_publish_and_subscribe_with_create_and_resume(env):
    """Given "How to subscribe to topics (and avoid MQRC_SUB_ALREADY_EXISTS)" and "How to
    publish messages on topics", when a program connected in ``with
    qmgr.connect_tcp_client(...)`` subscribes durably with MQSO_CREATE + MQSO_RESUME +
    MQSO_DURABLE + MQSO_MANAGED (SD set by item and set_vs), and another publishes on the
    topic string in ``with pymqi.Topic(...)``, then sub.get answers the publication;
    subscribing again with the same options resumes (no MQRC_SUB_ALREADY_EXISTS)."""
    topic_string = "/currency/rate/EUR/USD"

    def subscribed(qmgr: pymqi.QueueManager) -> pymqi.Subscription:
        sub_desc = pymqi.SD()
        sub_desc["Options"] = pymqi.CMQC.MQSO_CREATE + pymqi.CMQC.MQSO_RESUME + \
            pymqi.CMQC.MQSO_DURABLE + pymqi.CMQC.MQSO_MANAGED
        sub_desc.set_vs("SubName", "MySub")
        sub_desc.set_vs("ObjectString", topic_string)
        sub = pymqi.Subscription(qmgr)
        sub.sub(sub_desc=sub_desc)
        return sub

    qmgr = pymqi.QueueManager(None)
    with qmgr.connect_tcp_client(QMGR, pymqi.CD(), CHANNEL, env.conn_info):
        sub = subscribed(qmgr)
        sub.close(sub_close_options=pymqi.CMQC.MQCO_KEEP_SUB, close_sub_queue=True)
        sub = subscribed(qmgr)  # resumed

        publisher = pymqi.QueueManager(None)
        with publisher.connect_tcp_client(QMGR, pymqi.CD(), CHANNEL, env.conn_info):
            with pymqi.Topic(publisher, topic_string=topic_string) as topic:
                topic.open(open_opts=pymqi.CMQC.MQOO_OUTPUT)
                topic.pub("1.3961")

        get_opts = pymqi.GMO(Options=pymqi.CMQC.MQGMO_NO_SYNCPOINT
                             + pymqi.CMQC.MQGMO_FAIL_IF_QUIESCING + pymqi.CMQC.MQGMO_WAIT)
        get_opts["WaitInterval"] = 15000
        data = sub.get(None, pymqi.md(), get_opts)
        sub.close(sub_close_options=pymqi.CMQC.MQCO_REMOVE_SUB, close_sub_queue=True)
    assert data == b"1.3961"
    assert not qmgr.is_connected


# -- PCF ------------------------------------------------------------------------------------

@pytest.mark.parametrize("mode", MODES)
def test_define_a_channel_and_a_queue(env, mode):
    """Given "How to define a channel" and "How to define a queue", when
    MQCMD_CREATE_CHANNEL and MQCMD_CREATE_Q are sent with str names (MQCHT_SVRCONN from
    pymqi.CMQXC; MQQT_LOCAL with MAXDEPTH 123456), then the channel and the queue exist as
    DEFINE CHANNEL(MYCHANNEL.1) CHLTYPE(SVRCONN) and DEFINE QLOCAL(MYQUEUE.1)
    MAXDEPTH(123456) make them."""
    with _connect(env, mode) as qmgr:
        pcf = pymqi.PCFExecute(qmgr)
        pcf.MQCMD_CREATE_CHANNEL({pymqi.CMQCFC.MQCACH_CHANNEL_NAME: "MYCHANNEL.1",
                                  pymqi.CMQCFC.MQIACH_CHANNEL_TYPE: pymqi.CMQXC.MQCHT_SVRCONN})
        pcf.MQCMD_CREATE_Q({pymqi.CMQC.MQCA_Q_NAME: "MYQUEUE.1",
                            pymqi.CMQC.MQIA_Q_TYPE: pymqi.CMQC.MQQT_LOCAL,
                            pymqi.CMQC.MQIA_MAX_Q_DEPTH: 123456})
        try:
            (channel,) = pcf.MQCMD_INQUIRE_CHANNEL(
                {pymqi.CMQCFC.MQCACH_CHANNEL_NAME: "MYCHANNEL.1"})
            (queue,) = pcf.MQCMD_INQUIRE_Q({pymqi.CMQC.MQCA_Q_NAME: "MYQUEUE.1"})
        finally:
            pcf.MQCMD_DELETE_CHANNEL({pymqi.CMQCFC.MQCACH_CHANNEL_NAME: "MYCHANNEL.1"})
            pcf.MQCMD_DELETE_Q({pymqi.CMQC.MQCA_Q_NAME: "MYQUEUE.1"})
    assert channel[pymqi.CMQCFC.MQIACH_CHANNEL_TYPE] == pymqi.CMQXC.MQCHT_SVRCONN
    assert queue[pymqi.CMQC.MQIA_Q_TYPE] == pymqi.CMQC.MQQT_LOCAL
    assert queue[pymqi.CMQC.MQIA_MAX_Q_DEPTH] == 123456


@pytest.mark.parametrize("mode", MODES)
def test_display_channels_by_prefix(env, mode):
    """Given "How to display channels", when MQCMD_INQUIRE_CHANNEL asks for 'SYSTEM.*',
    then it answers a list of dicts, each with its MQCACH_CHANNEL_NAME, among them
    SYSTEM.DEF.SVRCONN. A prefix nothing matches fails as IBM's command server fails it,
    MQCC_FAILED MQRCCF_CHANNEL_NOT_FOUND (4032): the page's program expects
    MQRC_UNKNOWN_OBJECT_NAME there (its "no channels matched" branch), which IBM answers for
    queues, not channels."""
    with _connect(env, mode) as qmgr:
        pcf = pymqi.PCFExecute(qmgr)
        response = pcf.MQCMD_INQUIRE_CHANNEL({pymqi.CMQCFC.MQCACH_CHANNEL_NAME: "SYSTEM.*"})
        names = [info[pymqi.CMQCFC.MQCACH_CHANNEL_NAME].strip() for info in response]
        assert b"SYSTEM.DEF.SVRCONN" in names
        assert all(name.startswith(b"SYSTEM.") for name in names)
        assert _reason(lambda: pcf.MQCMD_INQUIRE_CHANNEL(
            {pymqi.CMQCFC.MQCACH_CHANNEL_NAME: "NO.SUCH.*"})) == (
            pymqi.CMQC.MQCC_FAILED, pymqi.CMQCFC.MQRCCF_CHANNEL_NOT_FOUND)


@pytest.mark.parametrize("mode", MODES)
def test_display_queues_by_prefix_and_type(env, mode):
    """Given "How to display queues", when MQCMD_INQUIRE_Q asks for 'SYSTEM.*' of type
    MQQT_MODEL, then it answers the model queues (SYSTEM.DEFAULT.MODEL.QUEUE among them),
    each with its MQCA_Q_NAME; none of another type."""
    with _connect(env, mode) as qmgr:
        pcf = pymqi.PCFExecute(qmgr)
        response = pcf.MQCMD_INQUIRE_Q({pymqi.CMQC.MQCA_Q_NAME: "SYSTEM.*",
                                        pymqi.CMQC.MQIA_Q_TYPE: pymqi.CMQC.MQQT_MODEL})
    names = [info[pymqi.CMQC.MQCA_Q_NAME].strip() for info in response]
    assert b"SYSTEM.DEFAULT.MODEL.QUEUE" in names
    assert {info[pymqi.CMQC.MQIA_Q_TYPE] for info in response} == {pymqi.CMQC.MQQT_MODEL}


def test_query_filters(empty):
    """Given "How to use query filters", when MQCMD_INQUIRE_Q asks for every local queue
    with MQIACF_Q_ATTRS a single selector (MQCA_Q_NAME, not a list) and a string filter
    (MQCA_Q_DESC like 'IBM MQ *') or an integer one (MQIA_CURRENT_Q_DEPTH greater than 2),
    then only the queues it selects are answered. The page passes both filters at once
    ("AND-joined"); IBM's command server takes one filter a command and refuses two with
    MQRCCF_TOO_MANY_FILTERS (3248), as mqpy does."""
    with pymqi.connect(QMGR, CHANNEL, empty.conn_info) as qmgr:
        pcf = pymqi.PCFExecute(qmgr)
        pcf.MQCMD_CHANGE_Q({pymqi.CMQC.MQCA_Q_NAME: QUEUE,
                            pymqi.CMQC.MQIA_Q_TYPE: pymqi.CMQC.MQQT_LOCAL,
                            pymqi.CMQC.MQCA_Q_DESC: "IBM MQ application queue"})
        for n in range(3):
            qmgr.put1(QUEUE, f"message {n}")
        try:
            attrs = {pymqi.CMQC.MQCA_Q_NAME: "*",
                     pymqi.CMQC.MQIA_Q_TYPE: pymqi.CMQC.MQQT_LOCAL,
                     pymqi.CMQCFC.MQIACF_Q_ATTRS: pymqi.CMQC.MQCA_Q_NAME}
            filter1 = pymqi.Filter(pymqi.CMQC.MQCA_Q_DESC).like("IBM MQ *")
            filter2 = pymqi.Filter(pymqi.CMQC.MQIA_CURRENT_Q_DEPTH).greater(2)
            by_desc = pcf.MQCMD_INQUIRE_Q(attrs, [filter1])
            by_depth = pcf.MQCMD_INQUIRE_Q(attrs, [filter2])
            both = _reason(lambda: pcf.MQCMD_INQUIRE_Q(attrs, [filter1, filter2]))
        finally:
            pcf.MQCMD_CHANGE_Q({pymqi.CMQC.MQCA_Q_NAME: QUEUE,
                                pymqi.CMQC.MQIA_Q_TYPE: pymqi.CMQC.MQQT_LOCAL,
                                pymqi.CMQC.MQCA_Q_DESC: ""})
    assert QUEUE.encode() in [q[pymqi.CMQC.MQCA_Q_NAME].strip() for q in by_desc]
    assert all(q[pymqi.CMQC.MQCA_Q_DESC].startswith(b"IBM MQ ") for q in by_desc)
    assert [(q[pymqi.CMQC.MQCA_Q_NAME].strip(), q[pymqi.CMQC.MQIA_CURRENT_Q_DEPTH])
            for q in by_depth] == [(QUEUE.encode(), 3)]
    assert both == (pymqi.CMQC.MQCC_FAILED, pymqi.CMQCFC.MQRCCF_TOO_MANY_FILTERS)


@pytest.mark.parametrize("mode", MODES)
def test_ping_the_queue_manager(env, mode):
    """Given "How to ping the queue manager", when MQCMD_PING_Q_MGR is called with no
    arguments, then it returns without error."""
    with _connect(env, mode) as qmgr:
        pymqi.PCFExecute(qmgr).MQCMD_PING_Q_MGR()


def test_ssl_and_tls(env, tmp_path):
    """Given "How to use SSL & TLS", when the program fills an MQCD (ChannelName,
    ConnectionName, MQCHT_CLNTCONN, MQXPT_TCP, SSLCipherSpec the channel's SSLCIPH) and an
    MQSCO (KeyRepository) and connects in ``with qmgr.connect_with_options(queue_manager,
    cd, sco):``, then it puts and gets its message over TLS, and is disconnected after the
    block. (The page's TLS_RSA_WITH_AES_256_CBC_SHA is a CipherSpec IBM MQ 9 disables; the
    program is run with an ECDHE one.)"""
    ca = trustme.CA(organization_name="mqpy test CA")
    qm_repo = key_repository(str(tmp_path / "qmkeys"), ca,
                             ca.issue_cert("qm1.example", common_name=QMGR))
    app_repo = key_repository(str(tmp_path / "client"), ca,
                              ca.issue_cert("app.example", common_name="app"))
    env.engine.alter_qmgr({"SSLKEYR": qm_repo})
    env.define("CHANNEL", "SSL.SVRCONN.1", CHLTYPE="SVRCONN", SSLCIPH=TLS_CIPHER,
               SSLCAUTH="REQUIRED")
    cd = pymqi.CD()
    cd.ChannelName = "SSL.SVRCONN.1"
    cd.ConnectionName = env.conn_info
    cd.ChannelType = pymqi.CMQC.MQCHT_CLNTCONN
    cd.TransportType = pymqi.CMQC.MQXPT_TCP
    cd.SSLCipherSpec = TLS_CIPHER
    sco = pymqi.SCO()
    sco.KeyRepository = app_repo
    qmgr = pymqi.QueueManager(None)
    with qmgr.connect_with_options(QMGR, cd, sco):
        with pymqi.Queue(qmgr, QUEUE) as put_queue:
            put_queue.put("Hello from Python!")
        with pymqi.Queue(qmgr, QUEUE) as get_queue:
            message = get_queue.get()
    assert message == b"Hello from Python!"
    assert not qmgr.is_connected


# -- what pymqi's API and its own tests show besides the examples page ---------------------

@pytest.mark.parametrize("mode", MODES)
def test_queue_depth_browse_and_put1(empty, mode):
    """Given three messages put with QueueManager.put1 (each MD's MsgId then set by the
    queue manager), when the queue is opened for inquire and browse, then
    inquire(MQIA_CURRENT_Q_DEPTH) answers 3, MQGMO_BROWSE_FIRST then MQGMO_BROWSE_NEXT
    answer them in order and then MQRC_NO_MSG_AVAILABLE, and the depth is still 3."""
    with _connect(empty, mode) as qmgr:
        ids = []
        for n in range(3):
            md = pymqi.MD()
            qmgr.put1(QUEUE, f"message {n}", md)
            ids.append(md.MsgId)
        assert pymqi.CMQC.MQMI_NONE not in ids and len(set(ids)) == 3
        queue = pymqi.Queue(qmgr, QUEUE,
                            pymqi.CMQC.MQOO_BROWSE | pymqi.CMQC.MQOO_INQUIRE)
        assert queue.inquire(pymqi.CMQC.MQIA_CURRENT_Q_DEPTH) == 3
        gmo = pymqi.GMO(Options=pymqi.CMQC.MQGMO_BROWSE_FIRST)
        browsed = []
        while True:
            md = pymqi.MD()
            try:
                browsed.append((queue.get(None, md, gmo), md.MsgId))
            except pymqi.MQMIError as e:
                assert e.reason == pymqi.CMQC.MQRC_NO_MSG_AVAILABLE
                break
            gmo.Options = pymqi.CMQC.MQGMO_BROWSE_NEXT
        assert browsed == [(f"message {n}".encode(), ids[n]) for n in range(3)]
        assert queue.inquire(pymqi.CMQC.MQIA_CURRENT_Q_DEPTH) == 3
        queue.close()


@pytest.mark.parametrize("mode", MODES)
def test_backout_count_tells_a_message_backed_out(empty, mode):
    """Given a message got under syncpoint and backed out (qmgr.backout), when it is got
    again, then its MD's BackoutCount is 1 (0 the first time): what a program reads to
    avoid a message loop."""
    with _connect(empty, mode) as qmgr:
        qmgr.put1(QUEUE, "poison")
        gmo = pymqi.GMO(Options=pymqi.CMQC.MQGMO_SYNCPOINT)
        counts = []
        with pymqi.Queue(qmgr, QUEUE) as queue:
            for _ in range(2):
                md = pymqi.MD()
                assert queue.get(None, md, gmo) == b"poison"
                counts.append(md.BackoutCount)
                qmgr.backout()
            assert queue.get() == b"poison"
    assert counts == [0, 1]


def test_channel_status_of_a_running_svrconn(env):
    """Given a client connected through APP.SVRCONN, when MQCMD_INQUIRE_CHANNEL_STATUS asks
    for that channel, then an instance answers with MQIACH_CHANNEL_STATUS MQCHS_RUNNING; for
    a channel with no status the command fails with MQRCCF_CHL_STATUS_NOT_FOUND (3065),
    which MQMIError names."""
    with pymqi.connect(QMGR, CHANNEL, env.conn_info) as qmgr:
        pcf = pymqi.PCFExecute(qmgr)
        response = pcf.MQCMD_INQUIRE_CHANNEL_STATUS(
            {pymqi.CMQCFC.MQCACH_CHANNEL_NAME: CHANNEL})
        assert response
        assert {s[pymqi.CMQCFC.MQIACH_CHANNEL_STATUS] for s in response} == {
            pymqi.CMQCFC.MQCHS_RUNNING}
        with pytest.raises(pymqi.MQMIError) as err:
            pcf.MQCMD_INQUIRE_CHANNEL_STATUS(
                {pymqi.CMQCFC.MQCACH_CHANNEL_NAME: "SYSTEM.DEF.SVRCONN"})
    assert (err.value.comp, err.value.reason) == (pymqi.CMQC.MQCC_FAILED,
                                                  pymqi.CMQCFC.MQRCCF_CHL_STATUS_NOT_FOUND)
    assert "MQRCCF_CHL_STATUS_NOT_FOUND" in str(err.value)


@pytest.mark.parametrize("mode", MODES)
def test_handling_an_mqrccf_error(env, mode):
    """Given a queue that exists, when MQCMD_CREATE_Q makes it again without MQRP_YES,
    then MQMIError says MQCC_FAILED MQRCCF_OBJECT_ALREADY_EXISTS (4001) and errorAsString
    names it; with MQIACF_REPLACE MQRP_YES it succeeds."""
    args = {pymqi.CMQC.MQCA_Q_NAME: QUEUE, pymqi.CMQC.MQIA_Q_TYPE: pymqi.CMQC.MQQT_LOCAL}
    with _connect(env, mode) as qmgr:
        pcf = pymqi.PCFExecute(qmgr)
        with pytest.raises(pymqi.MQMIError) as err:
            pcf.MQCMD_CREATE_Q(args)
        pcf.MQCMD_CREATE_Q({**args, pymqi.CMQCFC.MQIACF_REPLACE: pymqi.CMQCFC.MQRP_YES})
    assert (err.value.comp, err.value.reason) == (pymqi.CMQC.MQCC_FAILED,
                                                  pymqi.CMQCFC.MQRCCF_OBJECT_ALREADY_EXISTS)
    assert err.value.errorAsString() == "FAILED: MQRCCF_OBJECT_ALREADY_EXISTS"
