"""IBM's developer samples for Python (mq-dev-patterns, its Python directory: BasicPut /
BasicGet, BasicPublish / BasicSubscribe, BasicRequest / BasicResponse), as they are
written for the ``ibmmq`` package, with ``import mqpy as mq`` as the only change.

The samples read their settings through their ``utils.env.EnvStore`` (env.json's values
put into the environment); ``EnvStore`` here is a small stand-in with the same calls,
reading the environment the test sets. Each sample runs three ways: as a client with the
MQCD the sample builds from HOST and PORT; through a JSON CCDT named by MQCCDTURL (the
sample's other branch, its MQCD left None; MQ_CONNECT_TYPE=CLIENT, as on a machine with
only the MQ client); and over bindings, the MQCD left None as that branch leaves it and
no MQCCDTURL set, so that MQCONNX connects locally.

what ibmmq users rely on: "a pymqi or ibmmq program runs with only its import changed".
"""

from __future__ import annotations

import datetime
import json
import math
import os
import random
import threading
from collections.abc import Iterator
from urllib.parse import urlparse

import pytest

import mqpy as mq
from tests.client.conftest import Env
from tests.client.test_connecting import _ccdt
from tests.pymqi_compat._ibmmq_programs import APP_CHANNEL, QMGR, QUEUE_1, module_env, where_in

pytestmark = pytest.mark.timeout(120)

WAIT_INTERVAL = 5  # seconds, as the samples wait for a message that is to come
#: seconds: how long a sample's loop waits for one more message before it ends; the samples
#: wait five (WAIT_INTERVAL), here a second ends their loops sooner, as in BasicGet's
END_WAIT = 1


class EnvStore:
    """The samples' EnvStore calls, over the environment."""

    QMGR, QUEUE_NAME, CHANNEL, HOST, PORT = "QMGR", "QUEUE_NAME", "CHANNEL", "HOST", "PORT"
    TOPIC_NAME, MODEL_QUEUE_NAME = "TOPIC_NAME", "MODEL_QUEUE_NAME"
    DYNAMIC_QUEUE_PREFIX, BACKOUT_QUEUE = "DYNAMIC_QUEUE_PREFIX", "BACKOUT_QUEUE"
    APP_USER, APP_PASSWORD, USER, PASSWORD = "APP_USER", "APP_PASSWORD", "USER", "PASSWORD"
    KEY_REPOSITORY, CIPHER, CCDT = "KEY_REPOSITORY", "CIPHER", "MQCCDTURL"
    use_ccdt = False  # the bindings run: the sample's CCDT branch (its MQCD None)

    @staticmethod
    def getenv_value(key: str) -> str | None:
        return os.getenv(key) or None

    @staticmethod
    def get_connection(host: str, port: str) -> str:
        return "%s(%s)" % (os.getenv(host), os.getenv(port))

    @staticmethod
    def is_ccdt_available() -> bool:
        url = EnvStore.getenv_value(EnvStore.CCDT)
        return EnvStore.use_ccdt or bool(url and os.path.isfile(urlparse(url).path))


@pytest.fixture(scope="module")
def env(tmp_path_factory) -> Iterator[Env]:
    yield from module_env(tmp_path_factory, "ibmmq-dev-patterns")


@pytest.fixture(params=["client", "ccdt", "bindings"])
def settings(request, env, tmp_path, monkeypatch) -> Iterator[str]:
    """The sample's env.json values in the environment."""
    host, port = env.conn_info.rstrip(")").split("(")
    for key, value in {"QMGR": QMGR, "QUEUE_NAME": QUEUE_1, "CHANNEL": APP_CHANNEL,
                       "HOST": host, "PORT": port, "TOPIC_NAME": "dev/",
                       "MODEL_QUEUE_NAME": "SYSTEM.DEFAULT.MODEL.QUEUE",
                       "DYNAMIC_QUEUE_PREFIX": "APP.REPLIES.*", "BACKOUT_QUEUE": "DEV.QUEUE.2",
                       "APP_USER": "app", "APP_PASSWORD": "passw0rd"}.items():
        monkeypatch.setenv(key, value)
    for key in ("KEY_REPOSITORY", "CIPHER"):
        monkeypatch.delenv(key, raising=False)
    monkeypatch.setattr(EnvStore, "use_ccdt", request.param == "bindings")
    if request.param == "ccdt":
        monkeypatch.setenv("MQCCDTURL", _ccdt(tmp_path / "ccdt.json",
                                              [(APP_CHANNEL, env.chinit.port, QMGR)]))
        monkeypatch.setenv("MQ_CONNECT_TYPE", "CLIENT")
    yield from where_in(env, request.param)


def connect(details: dict) -> mq.QueueManager | None:
    """The samples' connect(): an MQCD from the settings unless a CCDT is there, an MQSCO,
    an MQCSP from APP_USER / APP_PASSWORD, connect_with_options(csp=, cd=, sco=)."""
    try:
        cd = None
        if not EnvStore.is_ccdt_available():
            cd = mq.CD(Version=mq.CMQXC.MQCD_VERSION_11)
            cd.ChannelName = details[EnvStore.CHANNEL]
            cd.ConnectionName = EnvStore.get_connection(EnvStore.HOST, EnvStore.PORT)
            cd.ChannelType = mq.CMQXC.MQCHT_CLNTCONN
            cd.TransportType = mq.CMQXC.MQXPT_TCP
            if details[EnvStore.CIPHER]:
                cd.SSLCipherSpec = details[EnvStore.CIPHER]
        sco = mq.SCO()
        if details[EnvStore.KEY_REPOSITORY]:
            sco.KeyRepository = details[EnvStore.KEY_REPOSITORY]
        csp = mq.CSP()
        csp.CSPUserId = EnvStore.getenv_value(EnvStore.APP_USER)
        csp.CSPPassword = EnvStore.getenv_value(EnvStore.APP_PASSWORD)
        if csp.CSPUserId is None:
            csp = None
        qmgr = mq.QueueManager(None)
        qmgr.connect_with_options(details[EnvStore.QMGR], csp=csp, cd=cd, sco=sco)
        return qmgr
    except mq.MQMIError as e:
        print("Error connecting:", e)
        return None


def build_mq_details(keys: list[str]) -> dict:
    return {key: EnvStore.getenv_value(key) for key in keys}


BASE = [EnvStore.QMGR, EnvStore.CHANNEL, EnvStore.HOST, EnvStore.PORT,
        EnvStore.KEY_REPOSITORY, EnvStore.CIPHER]


def basic_put(details: dict) -> None:
    """BasicPut: a queue opened by an OD for MQOO_OUTPUT, a JSON str put with an MD
    of Format MQFMT_STRING."""
    qmgr = connect(details)
    queue = mq.Queue(qmgr)
    od = mq.OD()
    od.ObjectName = details[EnvStore.QUEUE_NAME]
    queue.open(od, mq.CMQC.MQOO_OUTPUT)
    md = mq.MD()
    md.Format = mq.CMQC.MQFMT_STRING
    queue.put(str(json.dumps({"Greeting": "Hello from Python! "
                                          + str(datetime.datetime.now())})), md)
    queue.close()
    qmgr.disconnect()


def basic_get(details: dict) -> list[dict]:
    """BasicGet: gets with MQGMO_WAIT until MQRC_NO_MSG_AVAILABLE, resetting the MD's ids."""
    got = []
    qmgr = connect(details)
    queue = mq.Queue(qmgr)
    od = mq.OD()
    od.ObjectName = details[EnvStore.QUEUE_NAME]
    queue.open(od, mq.CMQC.MQOO_INPUT_AS_Q_DEF)
    md = mq.MD()
    gmo = mq.GMO()
    gmo.Options = mq.CMQC.MQGMO_WAIT | mq.CMQC.MQGMO_FAIL_IF_QUIESCING
    gmo.WaitInterval = 1000
    keep_running = True
    while keep_running:
        try:
            message = queue.get(None, md, gmo)
            got.append(json.loads(message.decode()))
            md.MsgId = mq.CMQC.MQMI_NONE
            md.CorrelId = mq.CMQC.MQCI_NONE
            md.GroupId = mq.CMQC.MQGI_NONE
        except mq.MQMIError as e:
            if e.comp == mq.CMQC.MQCC_FAILED and e.reason == mq.CMQC.MQRC_NO_MSG_AVAILABLE:
                keep_running = False
            else:
                raise
    queue.close()
    qmgr.disconnect()
    return got


def test_basic_put_then_basic_get(settings):
    """Given BasicPut and BasicGet, when BasicPut runs twice and then BasicGet, then
    BasicGet reads both JSON messages and ends when none is left. (BasicGet's wait is a
    second here, not five, to keep the run short.)"""
    details = build_mq_details([*BASE, EnvStore.QUEUE_NAME])
    basic_put(details)
    basic_put(details)
    got = basic_get(details)
    assert [m["Greeting"][:19] for m in got] == ["Hello from Python! "] * 2


def test_basic_publish_to_basic_subscribe(settings, capsys):
    """Given BasicSubscribe and BasicPublish, when the subscriber makes its managed
    non-durable subscription to TOPIC_NAME, the publisher opens a Topic by topic_string and
    publishes a JSON str with an MD of Format MQFMT_STRING, then the subscriber's gets
    (MQGMO_NO_PROPERTIES, waiting: a second here, not five) read it and end at
    MQRC_NO_MSG_AVAILABLE, and close(close_sub_queue=True) ends the subscription."""
    sub_details = build_mq_details([*BASE, EnvStore.TOPIC_NAME])
    qmgr = connect(sub_details)
    sub_desc = mq.SD()
    sub_desc.Options = mq.CMQC.MQSO_CREATE + mq.CMQC.MQSO_MANAGED
    sub_desc.set_vs("ObjectString", sub_details[EnvStore.TOPIC_NAME])
    subscription = mq.Subscription(qmgr)
    subscription.sub(sub_desc=sub_desc)

    pub_details = build_mq_details([*BASE, EnvStore.TOPIC_NAME])
    publisher = connect(pub_details)
    topic = mq.Topic(publisher, topic_string=pub_details[EnvStore.TOPIC_NAME])
    topic.open(open_opts=mq.CMQC.MQOO_OUTPUT)
    md = mq.MD()
    md.Format = mq.CMQC.MQFMT_STRING
    topic.pub(str(json.dumps({"Greeting": "Hello from Python!"})), md)
    topic.close()
    publisher.disconnect()

    get_options = mq.CMQC.MQGMO_NO_SYNCPOINT + mq.CMQC.MQGMO_FAIL_IF_QUIESCING + \
        mq.CMQC.MQGMO_WAIT + mq.CMQC.MQGMO_NO_PROPERTIES
    gmo = mq.GMO(Options=get_options)
    gmo.WaitInterval = END_WAIT * 1000
    md = mq.MD()
    keep_running = True
    while keep_running:
        try:
            md.MsgId = mq.CMQC.MQMI_NONE
            md.CorrelId = mq.CMQC.MQCI_NONE
            md.GroupId = mq.CMQC.MQGI_NONE
            message = subscription.get(None, md, gmo)
            print("Have publication on topic:", message.decode())
        except mq.MQMIError as e:
            if e.comp == mq.CMQC.MQCC_FAILED and e.reason == mq.CMQC.MQRC_NO_MSG_AVAILABLE:
                keep_running = False
            else:
                raise
    subscription.close(close_sub_queue=True)
    qmgr.disconnect()
    assert capsys.readouterr().out.splitlines() == [
        'Have publication on topic: {"Greeting": "Hello from Python!"}']


def perform_calc(n):
    sq_root = math.floor(math.sqrt(n))
    a = []
    i = 2
    while i <= sq_root <= n:
        if 0 == n % i:
            a.append(i)
            n /= i
        else:
            i += 2 if i > 2 else 1
    return a


def basic_response(details: dict, replied: list) -> None:
    """BasicResponse: gets requests under syncpoint, answers each by put1 to its ReplyToQ
    and ReplyToQMgr (an OD) under syncpoint, the correlators as the request's Report asks,
    commits; backs out what it cannot answer; ends when none comes for five seconds (a
    second here)."""
    qmgr = connect(details)
    queue = mq.Queue(qmgr)
    od = mq.OD()
    od.ObjectName = details[EnvStore.QUEUE_NAME]
    queue.open(od, mq.CMQC.MQOO_INPUT_AS_Q_DEF)
    gmo = mq.GMO()
    gmo.Options = mq.CMQC.MQGMO_WAIT | mq.CMQC.MQGMO_FAIL_IF_QUIESCING | mq.CMQC.MQGMO_SYNCPOINT
    gmo.WaitInterval = END_WAIT * 1000
    keep_running = True
    ok = True
    while keep_running and ok:
        md = mq.MD()
        try:
            md.MsgId = mq.CMQC.MQMI_NONE
            md.CorrelId = mq.CMQC.MQCI_NONE
            md.GroupId = mq.CMQC.MQGI_NONE
            message = queue.get(None, md, gmo)
            msg_object = json.loads(message.decode())
            ok = respond_to_request(qmgr, md, msg_object)
            replied.append((md.MsgId, md.ReplyToQ))
        except mq.MQMIError as e:
            keep_running = False
            ok = False
            if e.reason != mq.CMQC.MQRC_NO_MSG_AVAILABLE:
                raise
        if ok:
            qmgr.commit()
        else:
            qmgr.backout()
    queue.close()
    qmgr.disconnect()


def respond_to_request(qmgr, in_md, msg_object) -> bool:
    out_md = mq.MD()
    pmo = mq.PMO()
    pmo.Options |= mq.CMQC.MQPMO_SYNCPOINT
    od = mq.OD()
    ro = in_md.Report & (mq.CMQC.MQRO_COPY_MSG_ID_TO_CORREL_ID | mq.CMQC.MQRO_PASS_MSG_ID
                         | mq.CMQC.MQRO_PASS_CORREL_ID | mq.CMQC.MQRO_NEW_MSG_ID)
    if (ro & mq.CMQC.MQRO_COPY_MSG_ID_TO_CORREL_ID != 0) or (
            ro & mq.CMQC.MQRO_NEW_MSG_ID != 0) or ro == 0:
        out_md.CorrelId = in_md.MsgId
        pmo.Options |= mq.CMQC.MQPMO_NEW_MSG_ID
    if ro & mq.CMQC.MQRO_PASS_MSG_ID != 0:
        out_md.MsgId = in_md.MsgId
    if ro & mq.CMQC.MQRO_PASS_CORREL_ID != 0:
        out_md.CorrelId = in_md.CorrelId
    if in_md.Report & mq.CMQC.MQRO_PASS_DISCARD_AND_EXPIRY != 0:
        out_md.Expiry = in_md.Expiry
        out_md.Report = (mq.CMQC.MQRO_DISCARD_MSG
                         if in_md.Report & mq.CMQC.MQRO_DISCARD_MSG != 0 else mq.CMQC.MQRO_NONE)
    else:
        out_md.Report = mq.CMQC.MQRO_NONE
    out_md.MsgType = mq.CMQC.MQMT_REPLY
    out_md.Persistence = in_md.Persistence
    out_md.Format = in_md.Format
    msg_reply = {"Greeting": "Reply from Python! " + str(datetime.datetime.now()),
                 "value": random.randint(1, 101)}
    if msg_object["value"] is not None:
        msg_reply["value"] = perform_calc(msg_object["value"])
    od.ObjectName = in_md.ReplyToQ
    od.ObjectQMgrName = in_md.ReplyToQMgr
    try:
        qmgr.put1(od, str(json.dumps(msg_reply)), out_md, pmo)
        return True
    except mq.MQMIError as e:
        print("Error putting message to reply queue:", e)
        return False


def test_basic_request_and_basic_response(settings):
    """Given BasicRequest and BasicResponse, when the requester opens the request queue,
    makes a dynamic reply queue from the model queue (OD DynamicQName), puts its JSON
    request (MQMT_REQUEST, ReplyToQ the dynamic queue, ``md.ReportOptions`` set as the
    sample sets it), the responder runs on its own thread (started once the request is on
    the queue: it ends a second after the last request it finds) and the requester waits
    for the reply by CorrelId, then the reply comes to the dynamic queue with the request's
    MsgId as its CorrelId and the factors of the request's value."""
    replied: list = []
    responder_details = build_mq_details([*BASE, EnvStore.QUEUE_NAME, EnvStore.BACKOUT_QUEUE])
    responder = threading.Thread(target=basic_response, args=(responder_details, replied),
                                 daemon=True)

    details = build_mq_details([*BASE, EnvStore.QUEUE_NAME, EnvStore.MODEL_QUEUE_NAME,
                                EnvStore.DYNAMIC_QUEUE_PREFIX])
    value = random.randint(1, 101)
    qmgr = connect(details)
    queue = mq.Queue(qmgr)
    od = mq.OD()
    od.ObjectName = details[EnvStore.QUEUE_NAME]
    queue.open(od, mq.CMQC.MQOO_OUTPUT)
    od = mq.OD()
    od.ObjectName = details[EnvStore.MODEL_QUEUE_NAME]
    od.DynamicQName = details[EnvStore.DYNAMIC_QUEUE_PREFIX]
    dynamic_queue = mq.Queue(qmgr, od, mq.CMQC.MQOO_INPUT_EXCLUSIVE)
    dynamic_name = od.ObjectName.strip()
    md = mq.MD()
    md.ReplyToQ = dynamic_name
    md.MsgType = mq.CMQC.MQMT_REQUEST
    md.Format = mq.CMQC.MQFMT_STRING
    md.ReportOptions = mq.CMQC.MQRO_COPY_MSG_ID_TO_CORREL_ID
    queue.put(str(json.dumps({"Greeting": "Hello", "value": value})), md)
    msgid = md.MsgId
    responder.start()

    reply_md = mq.MD()
    reply_md.CorrelId = msgid
    gmo = mq.GMO()
    gmo.Options = (mq.CMQC.MQGMO_WAIT | mq.CMQC.MQGMO_FAIL_IF_QUIESCING
                   | mq.CMQC.MQGMO_NO_PROPERTIES)
    gmo.WaitInterval = WAIT_INTERVAL * 1000
    gmo.MatchOptions = mq.CMQC.MQMO_MATCH_CORREL_ID
    gmo.Version = mq.CMQC.MQGMO_VERSION_2
    reply = json.loads(dynamic_queue.get(None, reply_md, gmo).decode())
    dynamic_queue.close()
    queue.close()
    qmgr.disconnect()
    responder.join(30)
    assert reply["value"] == perform_calc(value)
    assert reply_md.CorrelId == msgid and reply_md.MsgType == mq.CMQC.MQMT_REPLY
    assert [(m, q.rstrip()) for m, q in replied] == [(msgid, dynamic_name)]


def test_the_pymqi_era_samples_with_bytes_settings(env):
    """Given the samples as they were written for pymqi (their EnvStore answered bytes for
    every setting on Python 3), when BasicPut connects with an MQCD whose ChannelName and
    ConnectionName are bytes, ``user=`` and ``password=`` as bytes and ``opts`` the
    sample's MQPMO_NEW_CORREL_ID, puts bytes, and BasicSubscribe makes its durable managed
    subscription 'MySub' (CREATE + RESUME + DURABLE + MANAGED, dict-style Options) and closes
    it with MQCO_KEEP_SUB, then each call succeeds and the publication arrives."""
    def value(v: str) -> bytes:
        return bytes(v, "utf-8")

    cd = mq.CD()
    cd.ChannelName = value(APP_CHANNEL)
    cd.ConnectionName = value(env.conn_info)
    cd.ChannelType = mq.CMQC.MQCHT_CLNTCONN
    cd.TransportType = mq.CMQC.MQXPT_TCP
    sco = mq.SCO()
    qmgr = mq.QueueManager(None)
    qmgr.connect_with_options(value(QMGR), user=value("app"), password=value("passw0rd"),
                              opts=mq.CMQC.MQPMO_NEW_CORREL_ID, cd=cd, sco=sco)
    queue = mq.Queue(qmgr)
    od = mq.OD()
    od.ObjectName = value(QUEUE_1)
    queue.open(od, mq.CMQC.MQOO_OUTPUT)
    md = mq.MD()
    md.Format = mq.CMQC.MQFMT_STRING
    queue.put(value(json.dumps({"Greeting": "Hello from Python!"})), md)
    queue.close()

    sub_desc = mq.SD()
    sub_desc["Options"] = mq.CMQC.MQSO_CREATE + mq.CMQC.MQSO_RESUME + \
        mq.CMQC.MQSO_DURABLE + mq.CMQC.MQSO_MANAGED
    sub_desc.set_vs("SubName", "MySub")
    sub_desc.set_vs("ObjectString", value("dev/"))
    subscription = mq.Subscription(qmgr)
    subscription.sub(sub_desc=sub_desc)
    topic = mq.Topic(qmgr, topic_string=value("dev/"))
    topic.open(open_opts=mq.CMQC.MQOO_OUTPUT)
    topic.pub(value(json.dumps({"Greeting": "published"})), mq.MD())
    topic.close()
    gmo = mq.GMO(Options=mq.CMQC.MQGMO_NO_SYNCPOINT + mq.CMQC.MQGMO_FAIL_IF_QUIESCING
                 + mq.CMQC.MQGMO_WAIT + mq.CMQC.MQGMO_NO_PROPERTIES)
    gmo["WaitInterval"] = 5 * 1000
    message = subscription.get(None, mq.MD(), gmo)
    subscription.close(sub_close_options=mq.CMQC.MQCO_KEEP_SUB, close_sub_queue=True)
    got = mq.Queue(qmgr, QUEUE_1).get()
    qmgr.disconnect()
    assert json.loads(message.decode()) == {"Greeting": "published"}
    assert json.loads(got.decode()) == {"Greeting": "Hello from Python!"}
