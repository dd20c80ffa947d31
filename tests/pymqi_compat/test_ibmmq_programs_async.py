"""IBM ``ibmmq``'s example programs of asynchronous consume (async_consume.py), asynchronous
put (put_async_message.py), message properties (message_properties.py), request and reply
by CorrelId on two threads (put_get_correl_id.py) and publish / subscribe
(publish_message.py with subscribe.py), with ``import mqpy as mq`` as the only change, over
bindings and over a client connection (tests/pymqi_compat/_ibmmq_programs.py).

what ibmmq users rely on: "a pymqi or ibmmq program runs with only its import changed".
"""

from __future__ import annotations

import threading
import time
import uuid
from collections.abc import Iterator

import pytest

import mqpy as mq
from mqpy import CMQC
from tests.client.conftest import Env
from tests.pymqi_compat._ibmmq_programs import (
    MODES,
    QMGR,
    QUEUE_1,
    QUEUE_2,
    Where,
    module_env,
    where_in,
)

pytestmark = pytest.mark.timeout(120)

user = "app"
password = "password"


@pytest.fixture(scope="module")
def env(tmp_path_factory) -> Iterator[Env]:
    yield from module_env(tmp_path_factory, "ibmmq-async")


@pytest.fixture(params=MODES)
def where(request, env) -> Iterator[Where]:
    yield from where_in(env, request.param)


def test_async_consume_with_a_callback(where, capsys):
    """Given async_consume.py, when the program registers one CBD as the queue's message
    consumer, then changes the same CBD into the connection's event handler and registers
    that, starts consumption with an MQCTLO's ConnectionArea, and sleeps until its callback
    sees a reason, then the two messages on the queue come to the consumer (its own
    CallbackArea, the connection's ConnectionArea, the queue and queue manager named),
    and once the wait passes with none (a second here, not the example's three),
    MQRC_NO_MSG_AVAILABLE ends the loop;
    stopping, deregistering, closing and disconnecting then succeed. (The example's
    sleep loop waits for its callback only, two seconds a turn; here it looks every tenth of a
    second and also gives up after 30 seconds, so that a consumer never called fails the
    test instead of hanging it.)"""

    class Status:
        ok = True
        connBroken = False  # noqa: N815 - the example's name

    def cb_func(**kwargs):
        msg = kwargs["msg"]
        cbc = kwargs["cbc"]
        obj = kwargs["queue"]
        qmgr = kwargs["queue_manager"]
        print(f"In CB Func: QMgr={qmgr.get_name()} Q={obj.get_name() if obj else '<<None>>'} "
              f"Msg={msg[:cbc.DataLength] if msg else '<<NONE>>'}")
        print(f"    CallType      = {cbc.CallType} [{mq.CMQSTRC.MQCBCT_DICT[cbc.CallType]}]")
        print(f"    CallbackArea  = {cbc.CallbackArea}")
        print(f"    ConnectionArea= {cbc.ConnectionArea}")
        if cbc.Reason != mq.CMQC.MQRC_NONE:
            print(f"Reason: {cbc.Reason} [{mq.CMQSTRC.MQRC_DICT[cbc.Reason]}]")
            if (cbc.CallType == mq.CMQC.MQCBCT_EVENT_CALL
                    and cbc.Reason != mq.CMQC.MQRC_NO_MSG_AVAILABLE):
                Status.connBroken = True
            Status.ok = False

    csp = mq.CSP()
    csp.CSPUserId = user
    csp.CSPPassword = password
    qmgr = mq.connect(QMGR, where.channel(), where.conn_info, csp=csp)
    for n in (1, 2):
        qmgr.put1(QUEUE_1, f"message {n}")

    od = mq.OD()
    od.ObjectName = QUEUE_1
    q = mq.Queue(qmgr, od, mq.CMQC.MQOO_INPUT_AS_Q_DEF)
    md = mq.MD()
    gmo = mq.GMO()
    gmo.Options = mq.CMQC.MQGMO_NO_SYNCPOINT
    gmo.Options |= mq.CMQC.MQGMO_WAIT
    gmo.WaitInterval = 1 * 1000

    cbd = mq.CBD()
    cbd.CallbackFunction = cb_func
    cbd.CallbackArea = b"My CB Area"
    cbd.CallbackType = mq.CMQC.MQCBT_MESSAGE_CONSUMER
    q.cb(operation=mq.CMQC.MQOP_REGISTER, cbd=cbd, md=md, gmo=gmo)

    cbd.CallbackFunction = cb_func
    cbd.CallbackType = mq.CMQC.MQCBT_EVENT_HANDLER
    cbd.CallbackArea = b"MY QGMGR CB AREA"
    qmgr.cb(operation=mq.CMQC.MQOP_REGISTER, cbd=cbd)

    ctlo = mq.CTLO()
    ctlo.ConnectionArea = b"My Connection Area"
    qmgr.ctl(mq.CMQC.MQOP_START, ctlo)

    deadline = time.monotonic() + 30
    while Status.ok and time.monotonic() < deadline:
        print("Sleeping ...")
        time.sleep(0.1)

    if not Status.connBroken:
        qmgr.ctl(mq.CMQC.MQOP_STOP, ctlo)
        q.cb(operation=mq.CMQC.MQOP_DEREGISTER)
        q.close()
        qmgr.disconnect()
    print("Done.")

    out = [line for line in capsys.readouterr().out.splitlines() if line != "Sleeping ..."]
    assert not Status.ok and not Status.connBroken
    removed = f"{CMQC.MQCBCT_MSG_REMOVED} [MQCBCT_MSG_REMOVED]"
    assert out[:8] == [
        f"In CB Func: QMgr={QMGR} Q={QUEUE_1} Msg=b'message 1'",
        f"    CallType      = {removed}",
        "    CallbackArea  = b'My CB Area'",
        "    ConnectionArea= b'My Connection Area'",
        f"In CB Func: QMgr={QMGR} Q={QUEUE_1} Msg=b'message 2'",
        f"    CallType      = {removed}",
        "    CallbackArea  = b'My CB Area'",
        "    ConnectionArea= b'My Connection Area'",
    ]
    assert out[8].startswith(f"In CB Func: QMgr={QMGR} Q={QUEUE_1} Msg=<<NONE>>")
    assert out[10:] == ["    CallbackArea  = b'My CB Area'",
                        "    ConnectionArea= b'My Connection Area'",
                        f"Reason: {CMQC.MQRC_NO_MSG_AVAILABLE} [MQRC_NO_MSG_AVAILABLE]",
                        "Done."]


def test_put_async_message_and_stat(where, capsys):
    """Given put_async_message.py, when the program puts ten messages with
    MQPMO_ASYNC_RESPONSE to a queue whose put it allows, then ten more once it has set
    the queue put-inhibited (``queue.set`` of a dict), reading MQSTAT's async error counts
    after each ten, then the first ten succeed and the second ten fail, and no put raises.
    Over bindings the program connects with an MQCNO of MQCNO_STANDARD_BINDING and no
    MQCD (the example's MQCD and MQCNO_CLIENT_BINDING are a client's)."""
    cno = mq.CNO()
    csp = mq.CSP()
    csp.CSPUserId = user
    csp.CSPPassword = password
    if where.client:
        cd = mq.CD()
        cd.ConnectionName = where.conn_info
        cd.ChannelName = where.channel()
        cno.Options = mq.CMQC.MQCNO_CLIENT_BINDING
        qmgr = mq.connect(QMGR, cd=cd, csp=csp, cno=cno)
    else:
        cno.Options = mq.CMQC.MQCNO_STANDARD_BINDING
        qmgr = mq.connect(QMGR, csp=csp, cno=cno)

    od = mq.OD()
    od.ObjectName = QUEUE_1
    queue = mq.Queue(qmgr, od, mq.CMQC.MQOO_SET | mq.CMQC.MQOO_OUTPUT)
    pmo = mq.PMO()
    pmo.Options = mq.CMQC.MQPMO_NO_SYNCPOINT | mq.CMQC.MQPMO_ASYNC_RESPONSE
    for opt in (mq.CMQC.MQQA_PUT_ALLOWED, mq.CMQC.MQQA_PUT_INHIBITED):
        selectors = {mq.CMQC.MQIA_INHIBIT_PUT: opt}
        queue.set(selectors)
        for i in range(0, 10):
            md = mq.MD()
            queue.put("Hello from Python: message " + str(i), md, pmo)
        sts = qmgr.stat(mq.CMQC.MQSTAT_TYPE_ASYNC_ERROR)
        print("Queue: ", mq.CMQSTRC.MQQA_PUT_DICT[opt])
        print(f"Put Success: {sts.PutSuccessCount}")
        print(f"Put Failure: {sts.PutFailureCount}")
    queue.set({mq.CMQC.MQIA_INHIBIT_PUT: mq.CMQC.MQQA_PUT_ALLOWED})
    queue.close()
    qmgr.disconnect()
    assert capsys.readouterr().out.splitlines() == [
        "Queue:  MQQA_PUT_ALLOWED", "Put Success: 10", "Put Failure: 0",
        "Queue:  MQQA_PUT_INHIBITED", "Put Success: 0", "Put Failure: 10"]
    assert where.env.depth(QUEUE_1) == 10


def test_message_properties_set_read_by_wildcard_and_name_and_deleted(where, capsys):
    """Given message_properties.py, when the program sets a str, an MQTYPE_INT32 and an
    MQTYPE_FLOAT64 property on a message handle, puts with a version-3 PMO, gets under
    syncpoint with MQGMO_PROPERTIES_IN_HANDLE, reads the properties with 'usr.%' (INQ_FIRST
    then INQ_NEXT until MQRC_PROPERTY_NOT_AVAILABLE), by name, deletes one and reads again,
    then each read answers the value as set (as (value, name) for the wildcard), and the
    second wildcard pass has two."""

    def read_props_wildcard():
        props_to_read = True
        opts = mq.CMQC.MQIMPO_INQ_FIRST
        while props_to_read:
            try:
                property_value, prop_name = get_msg_h.properties.get("usr.%",
                                                                     impo_options=opts)
                print(f"  {prop_name} = {property_value!r} {type(property_value).__name__}")
                opts = mq.CMQC.MQIMPO_INQ_NEXT
            except mq.MQMIError as e:
                if e.reason == mq.CMQC.MQRC_PROPERTY_NOT_AVAILABLE:
                    print("No more properties")
                    props_to_read = False
                else:
                    raise e

    qmgr = mq.connect(QMGR, where.channel(), where.conn_info, user, password)
    put_msg_h = mq.MessageHandle(qmgr)
    p = ["Property_0", "Property_1", "Property_2"]
    put_msg_h.properties.set(p[0], "MyStringPropVal")
    put_msg_h.properties.set(p[1], 42, property_type=mq.CMQC.MQTYPE_INT32)
    put_msg_h.properties.set(p[2], 3.13, property_type=mq.CMQC.MQTYPE_FLOAT64)
    pmo = mq.PMO(Version=mq.CMQC.MQPMO_VERSION_3)
    pmo.OriginalMsgHandle = put_msg_h.msg_handle
    put_md = mq.MD(Version=mq.CMQC.MQMD_CURRENT_VERSION)
    put_queue = mq.Queue(qmgr, QUEUE_1, mq.CMQC.MQOO_OUTPUT)
    put_queue.put(b"Property testing", put_md, pmo)

    get_msg_h = mq.MessageHandle(qmgr)
    gmo = mq.GMO(Version=mq.CMQC.MQGMO_CURRENT_VERSION)
    gmo.Options = mq.CMQC.MQGMO_PROPERTIES_IN_HANDLE + mq.CMQC.MQGMO_SYNCPOINT
    gmo.MsgHandle = get_msg_h.msg_handle
    get_md = mq.MD()
    get_queue = mq.Queue(qmgr, QUEUE_1)
    message_body = get_queue.get(None, get_md, gmo)
    read_props_wildcard()
    for prop in p:
        property_value = get_msg_h.properties.get(prop)
        print(f"  {prop}: {property_value!r}")
    get_msg_h.properties.dlt(p[1])
    read_props_wildcard()
    put_msg_h.dlt()
    get_msg_h.dlt()
    put_queue.close()
    get_queue.close()
    qmgr.commit()
    qmgr.disconnect()

    assert message_body == b"Property testing"
    assert capsys.readouterr().out.splitlines() == [
        "  b'Property_0' = 'MyStringPropVal' str",
        "  b'Property_1' = 42 int",
        "  b'Property_2' = 3.13 float",
        "No more properties",
        "  Property_0: 'MyStringPropVal'",
        "  Property_1: 42",
        "  Property_2: 3.13",
        "  b'Property_0' = 'MyStringPropVal' str",
        "  b'Property_2' = 3.13 float",
        "No more properties",
    ]
    assert where.env.depth(QUEUE_1) == 0


def test_request_and_reply_by_correl_id_on_two_threads(where):
    """Given put_get_correl_id.py, when a requester thread and a responder thread each
    connect with connect_with_options (an MQCD, MQCNO_HANDLE_SHARE_NO_BLOCK) and the
    requester puts requests (MQMT_REQUEST, ReplyToQ and ReplyToQMgr) and gets the reply
    whose CorrelId is its request's MsgId within half a second, then every request has its
    own reply. The example loops until interrupted: here the requester makes five
    requests, after which the responder is told to stop; over bindings the MQCD has no
    ConnectionName (so the connection is MQCONNX's bindings one)."""
    replies: list[tuple[bytes, bytes]] = []
    stop = threading.Event()
    failures: list[BaseException] = []

    class Producer(threading.Thread):
        def __init__(self):
            threading.Thread.__init__(self)
            self.daemon = True
            cd = mq.CD()
            if where.client:
                cd.ChannelName = where.channel()
                cd.ConnectionName = where.conn_info
            cd.ChannelType = mq.CMQXC.MQCHT_CLNTCONN
            cd.TransportType = mq.CMQXC.MQXPT_TCP
            self.qm = mq.QueueManager(None)
            self.qm.connect_with_options(QMGR, opts=mq.CMQC.MQCNO_HANDLE_SHARE_NO_BLOCK,
                                         cd=cd)
            self.req_queue = mq.Queue(self.qm, QUEUE_1)
            self.replyto_queue = mq.Queue(self.qm, QUEUE_2)

        def run(self):
            try:
                self.body()
            except BaseException as exc:  # the test reads what a thread raised
                failures.append(exc)

    class RequestProducer(Producer):
        def body(self):
            for _ in range(5):
                put_mqmd = mq.MD()
                put_mqmd["MsgType"] = mq.CMQC.MQMT_REQUEST
                put_mqmd["ReplyToQ"] = QUEUE_2
                put_mqmd["ReplyToQMgr"] = QMGR
                put_opts = mq.PMO(Options=mq.CMQC.MQPMO_NO_SYNCPOINT
                                  + mq.CMQC.MQPMO_FAIL_IF_QUIESCING)
                message = "Test Data. " + uuid.uuid4().hex
                self.req_queue.put(message, put_mqmd, put_opts)
                get_mqmd = mq.MD()
                get_mqmd["CorrelId"] = put_mqmd["MsgId"]
                get_opts = mq.GMO(Options=mq.CMQC.MQGMO_NO_SYNCPOINT
                                  + mq.CMQC.MQGMO_FAIL_IF_QUIESCING + mq.CMQC.MQGMO_WAIT)
                get_opts["Version"] = mq.CMQC.MQGMO_VERSION_2
                get_opts["MatchOptions"] = mq.CMQC.MQMO_MATCH_CORREL_ID
                get_opts["WaitInterval"] = 500
                replyto_queue = mq.Queue(self.qm, QUEUE_2, mq.CMQC.MQOO_INPUT_SHARED)
                response_message = replyto_queue.get(None, get_mqmd, get_opts)
                replies.append((message.encode(), response_message))
            stop.set()

    class ResponseProducer(Producer):
        def body(self):
            request_md = mq.MD()
            gmo = mq.GMO()
            gmo.Options = mq.CMQC.MQGMO_WAIT | mq.CMQC.MQGMO_FAIL_IF_QUIESCING
            gmo.WaitInterval = 500
            queue = mq.Queue(self.qm, QUEUE_1)
            while not stop.is_set():
                try:
                    request_message = queue.get(None, request_md, gmo)
                    response_md = mq.MD()
                    response_md.CorrelId = request_md.MsgId
                    response_message = "Response to message %s" % request_message
                    self.replyto_queue.put(response_message, response_md)
                    request_md.MsgId = mq.CMQC.MQMI_NONE
                    request_md.CorrelId = mq.CMQC.MQCI_NONE
                    request_md.GroupId = mq.CMQC.MQGI_NONE
                except mq.MQMIError as e:
                    if not (e.comp == mq.CMQC.MQCC_FAILED
                            and e.reason == mq.CMQC.MQRC_NO_MSG_AVAILABLE):
                        raise

    req = RequestProducer()
    resp = ResponseProducer()
    req.start()
    resp.start()
    req.join(60)
    stop.set()
    resp.join(10)
    req.qm.disconnect()
    resp.qm.disconnect()
    assert failures == []
    assert [reply for _, reply in replies] == [
        f"Response to message {request!r}".encode() for request, _ in replies]
    assert len(replies) == 5


def test_subscribe_then_publish_message(where, capsys):
    """Given subscribe.py and publish_message.py, when the subscriber makes a managed
    non-durable subscription to 'dev/' (set_vs of ObjectString) and the publisher opens a
    Topic by topic_string for MQOO_OUTPUT and publishes a str, then the subscriber's get
    loop receives the publication and ends at MQRC_NO_MSG_AVAILABLE when its wait passes
    (a second here, not the example's five); closing the subscription ends it. The two run in one process here, the
    publisher between the subscriber's subscribe and its first get."""
    topic_string = "dev/"
    md = mq.MD()
    gmo = mq.GMO()
    gmo.Options = mq.CMQC.MQGMO_WAIT | mq.CMQC.MQGMO_FAIL_IF_QUIESCING
    gmo.MatchOptions = mq.CMQC.MQMO_NONE
    gmo.WaitInterval = 1000
    qmgr = mq.connect(QMGR, where.channel(), where.conn_info, user, password)
    sub_desc = mq.SD()
    sub_desc.Options = mq.CMQC.MQSO_CREATE
    sub_desc.Options |= mq.CMQC.MQSO_MANAGED
    sub_desc.set_vs("ObjectString", topic_string)
    sub = mq.Subscription(qmgr)
    sub.sub(sub_desc=sub_desc)

    publisher = mq.connect(QMGR, where.channel(), where.conn_info, user, password)
    topic = mq.Topic(publisher, topic_string=topic_string)
    topic.open(open_opts=mq.CMQC.MQOO_OUTPUT)
    topic.pub("Hello from Python! Published at now")
    print("Message published OK")
    topic.close()
    publisher.disconnect()

    keep_running = True
    while keep_running:
        try:
            message = sub.get(None, md, gmo)
            print("Received publication: ", message)
            md.MsgId = mq.CMQC.MQMI_NONE
            md.CorrelId = mq.CMQC.MQCI_NONE
            md.GroupId = mq.CMQC.MQGI_NONE
        except mq.MQMIError as e:
            if e.comp == mq.CMQC.MQCC_FAILED and e.reason == mq.CMQC.MQRC_NO_MSG_AVAILABLE:
                print("No more messages.")
                keep_running = False
            else:
                raise
    sub.close()
    qmgr.disconnect()
    assert capsys.readouterr().out.splitlines() == [
        "Message published OK",
        "Received publication:  b'Hello from Python! Published at now'",
        "No more messages."]
