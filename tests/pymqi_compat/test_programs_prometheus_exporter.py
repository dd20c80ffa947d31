"""mq-pymqi-exporter (aztekmq/mq-pymqi-exporter on GitHub), a Prometheus exporter, and its
request/reply tool, written as they call pymqi with ``import mqpy as pymqi`` as the only
change.

The collector (src/mq_exporter/mq.py) connects with ``pymqi.connect(qmgr, channel,
conn_name, user, password)`` and makes a ``PCFExecute(qmgr)`` for each poll: MQCMD_INQUIRE_Q_MGR
(MQIA_PLATFORM, MQIA_COMMAND_LEVEL), MQCMD_INQUIRE_Q ({MQCA_Q_NAME: pattern, MQIA_Q_TYPE:
MQQT_LOCAL}: depth, max depth, open input and output counts), MQCMD_INQUIRE_TOPIC
({MQCA_TOPIC_NAME: name, MQIACF_TOPIC_ATTRS: [MQCA_TOPIC_STRING]}) then
MQCMD_INQUIRE_TOPIC_STATUS ({MQCA_TOPIC_STRING: string, MQIACF_TOPIC_STATUS_TYPE:
MQIACF_TOPIC_STATUS}: MQIA_PUB_COUNT, MQIA_SUB_COUNT, ... looked up in CMQC) and
MQCMD_INQUIRE_CHANNEL_STATUS ({MQCACH_CHANNEL_NAME: pattern}: MQIACH_CHANNEL_STATUS,
MQIACH_BYTES_SENT / _RCVD). It checks ``attr_id in response`` (int keys), strips bytes
values, and turns an MQMIError into its own error from ``.comp``, ``.reason`` and the
reason's name found by scanning ``dir(CMQC)`` for MQRC_ names. It drains
SYSTEM.ADMIN.STATISTICS.QUEUE and SYSTEM.ADMIN.ACCOUNTING.QUEUE (``Queue(qmgr, name,
MQOO_INPUT_SHARED | MQOO_FAIL_IF_QUIESCING)``, ``get(None, md, gmo)`` with MQGMO_NO_WAIT |
MQGMO_FAIL_IF_QUIESCING | MQGMO_CONVERT until MQRC_NO_MSG_AVAILABLE), parses each with
``PCFExecute.unpack(payload)`` -> (dict, MQCFH) and walks the groups
(MQGACF_Q_STATISTICS_DATA, MQGACF_Q_ACCOUNTING_DATA: lists of dicts). Its system-topic stream
uses managed subscriptions (``Subscription(qmgr).sub(sub_opts=MQSO_CREATE |
MQSO_NON_DURABLE | MQSO_MANAGED | MQSO_FAIL_IF_QUIESCING, topic_string=...)``,
``get_sub_queue()``, ``close(close_sub_queue=True)``) and reads a publication's MQRFH2
(``md.Format == CMQC.MQFMT_RF_HEADER_2``, ``RFH2().unpack(payload, md.Encoding)``,
``rfh2["StrucLength"]``, ``"mqps" in rfh2.get()``, ``rfh2["mqps"]``) before the PCF body.

The request/reply tool (src/mq_requestreply) connects with user and password defaulting to
"" , puts with MQPMO_NEW_MSG_ID | MQPMO_NEW_CORREL_ID, ReplyToQ / ReplyToQMgr / Format as
bytes, Expiry in tenths, and waits for the reply with MQMO_MATCH_CORREL_ID on the request's
MsgId, reading ``bytes(md.MsgId)``.

Before: ``pymqi.connect(..., "", "")`` -- the request/reply tool's defaults -- sent an MQCSP
with an empty user id and failed MQRC_NOT_AUTHORIZED; pymqi sends credentials only for a
user that is not empty. The collector subscribes to the system topics' metadata without
MQSO_MANAGED and with no queue, which IBM's MQSUB answers MQRC_HOBJ_ERROR, as mqpy does (a
test below); its discovery is tested with MQSO_MANAGED added, the queue manager's
resource-statistics publisher serving it as the daemon's task does.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from typing import Any
from xml.etree import ElementTree

import pytest

import mqpy as pymqi
from mqpy import CMQC, CMQCFC
from mqpy.monitor.publisher import Publisher
from tests.client.conftest import CHANNEL, Env, drain
from tests.pymqi_compat.conftest import QMGR, QUEUE, program_env

pytestmark = pytest.mark.timeout(120)

TOPIC_OBJECT = "EXPORTER.PRICES"
TOPIC_STRING = "exporter/prices"
STATISTICS_QUEUE = "SYSTEM.ADMIN.STATISTICS.QUEUE"
ACCOUNTING_QUEUE = "SYSTEM.ADMIN.ACCOUNTING.QUEUE"


def _define(env: Env) -> None:
    env.define("TOPIC", TOPIC_OBJECT, TOPICSTR=TOPIC_STRING)


@pytest.fixture(scope="module")
def env(tmp_path_factory) -> Iterator[Env]:
    yield from program_env(tmp_path_factory, "exporter", _define)


@pytest.fixture
def qmgr(env: Env) -> Iterator[pymqi.QueueManager]:
    """The collector's connection: a client one, user and password None; APP.Q emptied
    after the test."""
    qmgr = pymqi.connect(QMGR, CHANNEL, env.conn_info, None, None)
    try:
        yield qmgr
        drain(qmgr)
    finally:
        qmgr.disconnect()


# -- the collector's helpers, as it writes them ---------------------------------------------

def _text(value: Any) -> str:
    if isinstance(value, bytes):
        return value.decode("utf-8", errors="ignore").strip(" \x00")
    return value.strip(" \x00") if isinstance(value, str) else ""


def _numeric(value: Any) -> float | None:
    if isinstance(value, bool):
        return float(value)
    if isinstance(value, (int, float)):
        return float(value)
    if isinstance(value, (list, tuple)):
        numbers = [_numeric(v) for v in value]
        numbers = [n for n in numbers if n is not None]
        return sum(numbers) if numbers else None
    return None


def _reason_name(reason: int) -> str | None:
    for name in dir(pymqi.CMQC):
        if name.startswith("MQRC_") and getattr(pymqi.CMQC, name) == reason:
            return name
    return None


def _error_parts(exc: Exception) -> tuple[Any, Any, str | None]:
    comp, reason = getattr(exc, "comp", None), getattr(exc, "reason", None)
    return comp, reason, _reason_name(reason) if isinstance(reason, int) else None


def _metrics(responses: list[dict], names: dict[str, object], module: Any = CMQC
             ) -> list[dict[str, float]]:
    """For each response, the named attributes it has, as the collector takes them."""
    out = []
    for response in responses:
        found = {}
        for attr_name in names:
            attr_id = getattr(module, attr_name, None)
            if attr_id is None or attr_id not in response:
                continue
            value = _numeric(response[attr_id])
            if value is not None:
                found[attr_name] = value
        out.append(found)
    return out


def _drain(queue: pymqi.Queue, max_messages: int | None = None) -> list[tuple[Any, bytes]]:
    gmo = pymqi.GMO()
    gmo.Options = CMQC.MQGMO_NO_WAIT | CMQC.MQGMO_FAIL_IF_QUIESCING | CMQC.MQGMO_CONVERT
    got = []
    while max_messages is None or len(got) < max_messages:
        md = pymqi.MD()
        try:
            payload = queue.get(None, md, gmo)
        except pymqi.MQMIError as exc:
            if getattr(exc, "reason", None) == CMQC.MQRC_NO_MSG_AVAILABLE:
                break
            raise
        got.append((md, payload))
    return got


def _groups(data: Any, group_id: int) -> list[dict]:
    matches: list[dict] = []
    if isinstance(data, dict):
        value = data.get(group_id)
        if isinstance(value, list):
            matches.extend(item for item in value if isinstance(item, dict))
        for value in data.values():
            matches.extend(_groups(value, group_id))
    elif isinstance(data, list):
        for item in data:
            matches.extend(_groups(item, group_id))
    return matches


def _admin_queue(qmgr: pymqi.QueueManager, name: str) -> list[tuple[Any, bytes]]:
    queue = pymqi.Queue(qmgr, name, CMQC.MQOO_INPUT_SHARED | CMQC.MQOO_FAIL_IF_QUIESCING)
    try:
        return _drain(queue)
    finally:
        queue.close()


# -- connecting -----------------------------------------------------------------------------

@pytest.mark.parametrize("mode", ["client", "bindings"])
@pytest.mark.parametrize("user, password", [(None, None), ("", ""), ("", "ignored")])
def test_connecting_without_a_user(env, mode, user, password):
    """Given the collector's and the request/reply tool's connect with user and password
    None or "" (their defaults), when they connect to a queue manager that checks no
    passwords, as a client (theirs) or in bindings, then they are connected: no user is no
    credentials, as in pymqi."""
    if mode == "client":
        qmgr = pymqi.connect(QMGR, CHANNEL, env.conn_info, user, password)
    else:
        qmgr = pymqi.connect(QMGR, user=user, password=password)
    assert qmgr.is_connected
    qmgr.disconnect()


def test_connecting_to_a_queue_manager_that_is_not_there(env):
    """Given a port nothing listens on, when the collector connects, then its error has
    comp 2, reason 2538 and the name MQRC_HOST_NOT_AVAILABLE from ``dir(CMQC)`` (IBM's
    client answer to a refused TCP connect)."""
    with pytest.raises(pymqi.MQMIError) as err:
        pymqi.connect(QMGR, CHANNEL, "127.0.0.1(1)", None, None)
    assert _error_parts(err.value) == (2, 2538, "MQRC_HOST_NOT_AVAILABLE")


# -- PCF inquiries --------------------------------------------------------------------------

def test_queue_manager_metrics(qmgr):
    """Given the collector's MQCMD_INQUIRE_Q_MGR with no arguments, then the one response
    has MQIA_PLATFORM (MQPL_UNIX) and MQIA_COMMAND_LEVEL as ints under int keys."""
    responses = pymqi.PCFExecute(qmgr).MQCMD_INQUIRE_Q_MGR()
    [found] = _metrics(responses, {"MQIA_PLATFORM": 0, "MQIA_COMMAND_LEVEL": 0})
    assert found == {"MQIA_PLATFORM": CMQC.MQPL_UNIX,
                     "MQIA_COMMAND_LEVEL": CMQC.MQCMDL_CURRENT_LEVEL}


def test_queue_metrics_by_pattern(qmgr):
    """Given two messages on APP.Q and an input handle open on it, when the collector
    inquires ``APP.*`` of type MQQT_LOCAL, then it has APP.Q and APP.REPLY by their
    stripped names, APP.Q with depth 2, MAXDEPTH 100000, one input and no output handle."""
    pymqi.Queue(qmgr, QUEUE).put(b"one")
    pymqi.Queue(qmgr, QUEUE).put(b"two")
    reader = pymqi.Queue(qmgr, QUEUE, CMQC.MQOO_INPUT_SHARED)
    try:
        responses = pymqi.PCFExecute(qmgr).MQCMD_INQUIRE_Q(
            {CMQC.MQCA_Q_NAME: "APP.*", CMQC.MQIA_Q_TYPE: CMQC.MQQT_LOCAL})
    finally:
        reader.close()
    by_name = {_text(r.get(CMQC.MQCA_Q_NAME, "")): r for r in responses}
    assert set(by_name) == {"APP.Q", "APP.REPLY"}
    specs = {"MQIA_CURRENT_Q_DEPTH": 0, "MQIA_MAX_Q_DEPTH": 0, "MQIA_OPEN_INPUT_COUNT": 0,
             "MQIA_OPEN_OUTPUT_COUNT": 0}
    [app] = _metrics([by_name["APP.Q"]], specs)
    assert app == {"MQIA_CURRENT_Q_DEPTH": 2, "MQIA_MAX_Q_DEPTH": 100000,
                   "MQIA_OPEN_INPUT_COUNT": 1, "MQIA_OPEN_OUTPUT_COUNT": 0}


def test_topic_metrics_from_a_topic_object(qmgr):
    """Given a topic object, a subscriber and an open publisher on its topic string, when
    the collector resolves the object's name with MQCMD_INQUIRE_TOPIC (MQIACF_TOPIC_ATTRS
    [MQCA_TOPIC_STRING]) and asks MQCMD_INQUIRE_TOPIC_STATUS with MQIACF_TOPIC_STATUS_TYPE
    MQIACF_TOPIC_STATUS, then the status has MQIA_PUB_COUNT 1 and MQIA_SUB_COUNT 1 under
    CMQC's selectors, and the topic string stripped."""
    pcf = pymqi.PCFExecute(qmgr)
    [topic] = pcf.MQCMD_INQUIRE_TOPIC({CMQC.MQCA_TOPIC_NAME: TOPIC_OBJECT,
                                       CMQCFC.MQIACF_TOPIC_ATTRS: [CMQC.MQCA_TOPIC_STRING]})
    topic_string = _text(topic.get(CMQC.MQCA_TOPIC_STRING, ""))
    assert topic_string == TOPIC_STRING
    sub = pymqi.Subscription(qmgr)
    sub.sub(sub_opts=CMQC.MQSO_CREATE | CMQC.MQSO_NON_DURABLE | CMQC.MQSO_MANAGED,
            topic_string=topic_string)
    publisher = pymqi.Topic(qmgr, topic_string=topic_string)
    publisher.open(open_opts=CMQC.MQOO_OUTPUT)
    try:
        responses = pcf.MQCMD_INQUIRE_TOPIC_STATUS(
            {CMQC.MQCA_TOPIC_STRING: topic_string,
             CMQCFC.MQIACF_TOPIC_STATUS_TYPE: CMQCFC.MQIACF_TOPIC_STATUS})
    finally:
        publisher.close()
        sub.close(close_sub_queue=True)
    [status] = responses
    assert _text(status.get(CMQC.MQCA_TOPIC_STRING, "")) == TOPIC_STRING
    found = _metrics(responses, {"MQIA_PUB_COUNT": 0, "MQIA_SUB_COUNT": 0,
                                 "MQIA_INHIBIT_PUB": 0, "MQIA_INHIBIT_SUB": 0,
                                 "MQIA_DURABLE_SUB": 0})[0]
    assert (found["MQIA_PUB_COUNT"], found["MQIA_SUB_COUNT"]) == (1, 1)
    assert set(found) == {"MQIA_PUB_COUNT", "MQIA_SUB_COUNT", "MQIA_INHIBIT_PUB",
                          "MQIA_INHIBIT_SUB", "MQIA_DURABLE_SUB"}


def test_channel_metrics_and_a_pattern_without_status(qmgr):
    """Given the collector's own client connection on APP.SVRCONN, when it inquires that
    channel's status, then the status is MQCHS_RUNNING with bytes sent and received counted
    (CMQCFC's selectors); for a pattern no channel matches, the MQMIError is comp 2 reason
    MQRCCF_CHL_STATUS_NOT_FOUND, which the collector's MQRC_ scan of CMQC does not name."""
    pcf = pymqi.PCFExecute(qmgr)
    responses = pcf.MQCMD_INQUIRE_CHANNEL_STATUS({CMQCFC.MQCACH_CHANNEL_NAME: CHANNEL})
    assert {_text(r[CMQCFC.MQCACH_CHANNEL_NAME]) for r in responses} == {CHANNEL}
    for found in _metrics(responses, {"MQIACH_CHANNEL_STATUS": 0, "MQIACH_BYTES_SENT": 0,
                                      "MQIACH_BYTES_RCVD": 0}, CMQCFC):
        assert found["MQIACH_CHANNEL_STATUS"] == CMQCFC.MQCHS_RUNNING
        assert found["MQIACH_BYTES_SENT"] > 0 and found["MQIACH_BYTES_RCVD"] > 0
    with pytest.raises(pymqi.MQMIError) as err:
        pcf.MQCMD_INQUIRE_CHANNEL_STATUS({CMQCFC.MQCACH_CHANNEL_NAME: "NOTHING.HERE*"})
    assert _error_parts(err.value) == (2, CMQCFC.MQRCCF_CHL_STATUS_NOT_FOUND, None)
    assert "MQRCCF_CHL_STATUS_NOT_FOUND" in err.value.errorAsString()


def test_opening_an_admin_queue_that_is_not_there(qmgr):
    """Given a statistics queue name that does not exist, when the collector opens it for
    input, then its error is comp 2, 2085, MQRC_UNKNOWN_OBJECT_NAME."""
    with pytest.raises(pymqi.MQMIError) as err:
        pymqi.Queue(qmgr, "NO.SUCH.STATISTICS.QUEUE",
                    CMQC.MQOO_INPUT_SHARED | CMQC.MQOO_FAIL_IF_QUIESCING)
    assert _error_parts(err.value) == (2, 2085, "MQRC_UNKNOWN_OBJECT_NAME")


# -- the admin queues -----------------------------------------------------------------------

def test_statistics_messages_drained_and_parsed(qmgr):
    """Given STATQ(ON) from a fresh interval, three puts to APP.Q and the statistics
    collected now (Reset Queue Manager MQACT_COLLECT_STATISTICS), when the collector drains the statistics queue and
    parses each message with ``PCFExecute.unpack``, then it has a dict and an MQCFH of
    Command MQCMD_STATISTICS_Q, a list of MQGACF_Q_STATISTICS_DATA groups, APP.Q's naming it
    under MQCA_Q_NAME with MQIAMO_PUTS a list summing to 3; the queue is left empty."""
    pcf = pymqi.PCFExecute(qmgr)
    pcf.MQCMD_CHANGE_Q_MGR({CMQC.MQIA_STATISTICS_Q: CMQC.MQMON_ON})
    try:
        pcf.MQCMD_RESET_Q_MGR({CMQCFC.MQIACF_ACTION: CMQCFC.MQACT_COLLECT_STATISTICS})
        _admin_queue(qmgr, STATISTICS_QUEUE)  # the interval before: not the test's
        for text in (b"a", b"b", b"c"):
            pymqi.Queue(qmgr, QUEUE).put(text)
        pcf.MQCMD_RESET_Q_MGR({CMQCFC.MQIACF_ACTION: CMQCFC.MQACT_COLLECT_STATISTICS})
        drained = _admin_queue(qmgr, STATISTICS_QUEUE)
    finally:
        pcf.MQCMD_CHANGE_Q_MGR({CMQC.MQIA_STATISTICS_Q: CMQC.MQMON_OFF})
    assert drained and all(md.Format == CMQC.MQFMT_ADMIN for md, _ in drained)
    groups = []
    for _, payload in drained:
        unpacked, cfh = pymqi.PCFExecute.unpack(payload)
        assert isinstance(unpacked, dict)
        assert cfh.Command == CMQCFC.MQCMD_STATISTICS_Q
        groups += _groups(unpacked, CMQCFC.MQGACF_Q_STATISTICS_DATA)
    [app] = [g for g in groups if _text(g.get(CMQC.MQCA_Q_NAME)) == QUEUE]
    assert isinstance(app[CMQCFC.MQIAMO_PUTS], list)
    assert _numeric(app[CMQCFC.MQIAMO_PUTS]) == 3
    assert _admin_queue(qmgr, STATISTICS_QUEUE) == []


def test_accounting_messages_drained_and_parsed(env, qmgr):
    """Given ACCTQ(ON) and another application that puts twice to APP.Q and disconnects,
    when the collector drains the accounting queue and parses it, then it finds an
    MQGACF_Q_ACCOUNTING_DATA group for APP.Q with MQIAMO_PUTS summing to 2, and the
    application's name under MQCACF_APPL_NAME at the message's top level."""
    pcf = pymqi.PCFExecute(qmgr)
    _admin_queue(qmgr, ACCOUNTING_QUEUE)
    pcf.MQCMD_CHANGE_Q_MGR({CMQC.MQIA_ACCOUNTING_Q: CMQC.MQMON_ON})
    try:
        other = pymqi.connect(QMGR, CHANNEL, env.conn_info)
        queue = pymqi.Queue(other, QUEUE, CMQC.MQOO_OUTPUT)
        queue.put(b"one")
        queue.put(b"two")
        queue.close()
        other.disconnect()
        drained = _admin_queue(qmgr, ACCOUNTING_QUEUE)
    finally:
        pcf.MQCMD_CHANGE_Q_MGR({CMQC.MQIA_ACCOUNTING_Q: CMQC.MQMON_OFF})
    found = []
    for _, payload in drained:
        unpacked, cfh = pymqi.PCFExecute.unpack(payload)
        for group in _groups(unpacked, CMQCFC.MQGACF_Q_ACCOUNTING_DATA):
            if _text(group.get(CMQC.MQCA_Q_NAME)) == QUEUE:
                found.append((unpacked, group))
    assert found
    unpacked, group = found[0]
    assert _numeric(group[CMQCFC.MQIAMO_PUTS]) == 2
    assert _text(unpacked.get(CMQCFC.MQCACF_APPL_NAME))


# -- the system-topic stream: managed subscriptions and MQRFH2 ------------------------------

def test_a_managed_subscription_drained_then_closed_with_its_queue(qmgr):
    """Given the collector's managed, non-durable subscription on a topic pattern and three
    publications, when it drains at most two, then it has two; after ``close(
    close_sub_queue=True)`` the subscription queue is closed, and a get on it is pymqi's
    PYIFError, not an MQI call."""
    sub = pymqi.Subscription(qmgr)
    sub.sub(sub_opts=CMQC.MQSO_CREATE | CMQC.MQSO_NON_DURABLE | CMQC.MQSO_MANAGED
            | CMQC.MQSO_FAIL_IF_QUIESCING, topic_string=TOPIC_STRING + "/#")
    queue = sub.get_sub_queue()
    assert queue is not None
    publisher = pymqi.Topic(qmgr, topic_string=TOPIC_STRING + "/apples")
    publisher.open(open_opts=CMQC.MQOO_OUTPUT)
    for n in range(3):
        publisher.pub(b"price %d" % n)
    publisher.close()
    assert [payload for _, payload in _drain(queue, max_messages=2)] == [b"price 0", b"price 1"]
    sub.close(close_sub_queue=True)
    assert queue.get_handle() is None
    with pytest.raises(pymqi.PYIFError):
        sub.get_sub_queue().get()


def test_a_subscription_without_a_queue_or_managed_is_refused(qmgr):
    """Given the collector's metadata subscription (MQSO_CREATE | MQSO_NON_DURABLE |
    MQSO_FAIL_IF_QUIESCING, no MQSO_MANAGED, no queue), when it subscribes, then IBM's
    MQSUB answer MQRC_HOBJ_ERROR (comp 2), ``get_sub_queue()`` is None and the close in its
    ``finally`` is pymqi's PYIFError."""
    sub = pymqi.Subscription(qmgr)
    with pytest.raises(pymqi.MQMIError) as err:
        sub.sub(sub_opts=CMQC.MQSO_CREATE | CMQC.MQSO_NON_DURABLE | CMQC.MQSO_FAIL_IF_QUIESCING,
                topic_string=TOPIC_STRING)
    assert _error_parts(err.value) == (2, CMQC.MQRC_HOBJ_ERROR, "MQRC_HOBJ_ERROR")
    assert sub.get_sub_queue() is None
    with pytest.raises(pymqi.PYIFError):
        sub.close(close_sub_queue=True)


def test_a_publication_with_an_mqrfh2_and_a_pcf_body(qmgr):
    """Given a message of an MQRFH2 whose mqps folder names the topic (and a usr folder:
    under the queue's PROPCTL(COMPAT) an MQRFH2 of only mqps properties is delivered
    without it, as by IBM), followed by a PCF body, when the collector recognises the MQRFH2 (``md.Format`` equal to
    CMQC.MQFMT_RF_HEADER_2, the payload starting with CMQC.MQRFH_STRUC_ID), unpacks it
    with the MD's Encoding and takes the body after ``StrucLength``, then the folder's
    ``Top`` is the topic and the body unpacks to MQIAMO_PUTS 3."""
    rfh2 = pymqi.RFH2()
    rfh2.add_folder(b"<mqps><Top>" + TOPIC_STRING.encode() + b"</Top></mqps>")
    rfh2.add_folder(b"<usr><Source>exporter</Source></usr>")
    rfh2["Format"] = CMQC.MQFMT_ADMIN
    body = pymqi.CFH(Type=CMQCFC.MQCFT_STATISTICS, Command=CMQCFC.MQCMD_STATISTICS_MQI,
                     ParameterCount=1).pack() \
        + pymqi.CFIN(Parameter=CMQCFC.MQIAMO_PUTS, Value=3).pack()
    md = pymqi.MD(Format=CMQC.MQFMT_RF_HEADER_2)
    pymqi.Queue(qmgr, QUEUE).put(rfh2.pack() + body, md)
    [(md, payload)] = _drain(pymqi.Queue(qmgr, QUEUE, CMQC.MQOO_INPUT_SHARED))
    assert md.Format == CMQC.MQFMT_RF_HEADER_2
    assert payload.startswith(CMQC.MQRFH_STRUC_ID)
    header = pymqi.RFH2()
    header.unpack(payload, getattr(md, "Encoding", None))
    assert "mqps" in header.get()
    folder = header["mqps"]
    assert isinstance(folder, (bytes, bytearray))
    top = ElementTree.fromstring(bytes(folder).rstrip()).find("Top")
    assert top is not None and top.text == TOPIC_STRING
    unpacked, cfh = pymqi.PCFExecute.unpack(payload[int(header["StrucLength"]):])
    assert cfh.Command == CMQCFC.MQCMD_STATISTICS_MQI
    assert unpacked == {CMQCFC.MQIAMO_PUTS: 3}


@pytest.fixture
def monitor(env: Env) -> Iterator[Publisher]:
    """The queue manager's resource-statistics publisher, serving new metadata
    subscriptions every 50 ms as the daemon's task does (the module's queue manager runs
    in this process, without the daemon); ``tick()`` publishes an interval's data."""
    publisher = Publisher(env.engine)
    stop = threading.Event()

    def serve() -> None:
        while not stop.wait(0.05):
            publisher.serve_metadata()

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    try:
        yield publisher
    finally:
        stop.set()
        thread.join(5)


def _metadata_message(qmgr: pymqi.QueueManager, topic_string: str) -> dict:
    """The collector's read of one metadata publication: a subscription (MQSO_MANAGED
    added, see above), one get waiting up to 10 s with MQGMO_CONVERT and
    MQGMO_NO_PROPERTIES into an MD of MQENC_NATIVE and MQCCSI_Q_MGR, then
    ``PCFExecute.unpack``; the subscription closed with its queue."""
    sub = pymqi.Subscription(qmgr)
    try:
        sub.sub(sub_opts=CMQC.MQSO_CREATE | CMQC.MQSO_NON_DURABLE | CMQC.MQSO_MANAGED
                | CMQC.MQSO_FAIL_IF_QUIESCING, topic_string=topic_string)
        gmo = pymqi.GMO()
        gmo.Options = CMQC.MQGMO_WAIT | CMQC.MQGMO_FAIL_IF_QUIESCING | CMQC.MQGMO_CONVERT \
            | CMQC.MQGMO_NO_PROPERTIES
        gmo.WaitInterval = 10000
        md = pymqi.MD()
        md.Encoding = CMQC.MQENC_NATIVE
        md.CodedCharSetId = CMQC.MQCCSI_Q_MGR
        unpacked, _cfh = pymqi.PCFExecute.unpack(sub.get_sub_queue().get(None, md, gmo))
        return unpacked
    finally:
        sub.close(close_sub_queue=True)


def _types(qmgr: pymqi.QueueManager, class_topic: str) -> dict[str, str]:
    """A class's types by name -> the topic of their elements' metadata."""
    types = {}
    for group in _groups(_metadata_message(qmgr, class_topic), CMQCFC.MQGACF_MONITOR_TYPE):
        assert isinstance(group.get(CMQCFC.MQIAMO_MONITOR_TYPE), int)
        types[_text(group[CMQCFC.MQCAMO_MONITOR_TYPE])] = _text(group[CMQC.MQCA_TOPIC_STRING])
    return types


def _publication_topic(qmgr: pymqi.QueueManager, elements_topic: str) -> tuple[str, dict]:
    """A type's publication topic (``%s`` made ``+``, as the collector subscribes) and its
    element descriptions -> selectors."""
    elements = _metadata_message(qmgr, elements_topic)
    selectors = {_text(g.get(CMQCFC.MQCAMO_MONITOR_DESC)): g[CMQCFC.MQIAMO_MONITOR_ELEMENT]
                 for g in _groups(elements, CMQCFC.MQGACF_MONITOR_ELEMENT)}
    return _text(elements.get(CMQC.MQCA_TOPIC_STRING)).replace("%s", "+"), selectors


def _stream(qmgr: pymqi.QueueManager, monitor: Publisher, topic: str) -> list[dict]:
    """The collector's managed subscription to ``topic``: an interval's publications after
    two puts to APP.Q, drained (at most 500) and unpacked; each is PCF, with no MQRFH2 in
    front (the collector looks for one)."""
    sub = pymqi.Subscription(qmgr)
    sub.sub(sub_opts=CMQC.MQSO_CREATE | CMQC.MQSO_NON_DURABLE | CMQC.MQSO_MANAGED
            | CMQC.MQSO_FAIL_IF_QUIESCING, topic_string=topic)
    try:
        monitor.tick()
        _drain(sub.get_sub_queue())  # the interval before the puts
        pymqi.Queue(qmgr, QUEUE).put(b"one")
        pymqi.Queue(qmgr, QUEUE).put(b"two")
        monitor.tick()
        publications = _drain(sub.get_sub_queue(), max_messages=500)
    finally:
        sub.close(close_sub_queue=True)
    out = []
    for md, payload in publications:
        assert md.Format != CMQC.MQFMT_RF_HEADER_2
        assert not payload.startswith(CMQC.MQRFH_STRUC_ID)
        unpacked, _cfh = pymqi.PCFExecute.unpack(payload)
        out.append(unpacked)
    return out


def test_system_topics_discovered_then_streamed(qmgr, monitor):
    """Given the queue manager's monitor metadata, when the collector walks it as it does
    -- the classes' groups (MQGACF_MONITOR_CLASS: an int MQIAMO_MONITOR_CLASS, a name under
    MQCAMO_MONITOR_CLASS, the next topic under CMQC.MQCA_TOPIC_STRING), each class's types
    (MQGACF_MONITOR_TYPE), each type's publication topic with ``%s`` made ``+`` -- then it
    finds CPU, DISK, STATMQI and STATQ; subscribed to STATMQI's PUT topic, after two puts
    and an interval, it drains a PCF publication counting at least those 2 puts, of
    MQIAMO_MONITOR_CLASS the STATMQI class; subscribed to STATQ's PUT topic with ``+`` for
    the queue, it drains nothing, as from IBM's queue manager, which publishes a queue's
    figures only to subscriptions naming the queue in full."""
    prefix = f"$SYS/MQ/INFO/QMGR/{QMGR}/Monitor/"
    classes = {}
    for group in _groups(_metadata_message(qmgr, prefix + "METADATA/CLASSES"),
                         CMQCFC.MQGACF_MONITOR_CLASS):
        class_id = group.get(CMQCFC.MQIAMO_MONITOR_CLASS)
        assert isinstance(class_id, int)
        name = _text(group[CMQCFC.MQCAMO_MONITOR_CLASS])
        classes[name] = (class_id, _text(group[CMQC.MQCA_TOPIC_STRING]))
    assert {"CPU", "DISK", "STATMQI", "STATQ"} <= set(classes)
    mqi_topic, mqi_selectors = _publication_topic(
        qmgr, _types(qmgr, classes["STATMQI"][1])["PUT"])
    assert mqi_topic == prefix + "STATMQI/PUT"
    [statmqi] = _stream(qmgr, monitor, mqi_topic)
    assert statmqi[CMQCFC.MQIAMO_MONITOR_CLASS] == classes["STATMQI"][0]
    assert statmqi[mqi_selectors["Interval total MQPUT/MQPUT1 count"]] >= 2
    queue_topic, _ = _publication_topic(qmgr, _types(qmgr, classes["STATQ"][1])["PUT"])
    assert queue_topic == prefix + "STATQ/+/PUT"
    assert _stream(qmgr, monitor, queue_topic) == []


def test_selector_names_from_the_constant_modules():
    """Given the collector's map of selector -> name (the first MQ name of each int value in
    ``dir(CMQC)`` then ``dir(CMQCFC)``) and its MQOT_ / MQOPER_ scans, then the selectors
    it reports under are named as IBM names them, every value it scans is an int, and
    MQOT_Q and MQOPER_PUT are found by value."""
    names: dict[int, str] = {}
    for module in (pymqi.CMQC, pymqi.CMQCFC):
        for name in dir(module):
            if name.startswith("MQ") and isinstance(getattr(module, name), int):
                names.setdefault(getattr(module, name), name)
    assert names[CMQCFC.MQIAMO_PUTS] == "MQIAMO_PUTS"
    assert names[CMQCFC.MQIAMO64_PUT_BYTES] == "MQIAMO64_PUT_BYTES"
    assert names[CMQCFC.MQGACF_Q_STATISTICS_DATA] == "MQGACF_Q_STATISTICS_DATA"
    assert [n for n in dir(pymqi.CMQC) if n.startswith("MQOT_")
            and getattr(pymqi.CMQC, n) == 1] == ["MQOT_Q"]
    assert [n for n in dir(pymqi.CMQCFC) if n.startswith("MQOPER_")
            and getattr(pymqi.CMQCFC, n) == CMQCFC.MQOPER_PUT] == ["MQOPER_PUT"]


# -- the request/reply tool -----------------------------------------------------------------

def _serve_one_reply(env: Env) -> None:
    """A responder: gets the request on APP.Q and replies to its ReplyToQ with CorrelId
    the request's MsgId (IBM's default report options)."""
    qmgr = pymqi.connect(QMGR, CHANNEL, env.conn_info)
    try:
        md = pymqi.MD()
        gmo = pymqi.GMO(Options=CMQC.MQGMO_WAIT, WaitInterval=10000)
        request = pymqi.Queue(qmgr, QUEUE).get(None, md, gmo)
        reply_md = pymqi.MD(CorrelId=md.MsgId, Format=CMQC.MQFMT_STRING)
        qmgr.put1(pymqi.OD(ObjectName=md.ReplyToQ, ObjectQMgrName=md.ReplyToQMgr),
                  b"reply to " + request, reply_md)
    finally:
        qmgr.disconnect()


def test_request_reply_with_the_tools_defaults(env):
    """Given the tool's defaults (user and password ""), when it puts a request with
    MQPMO_NEW_MSG_ID | MQPMO_NEW_CORREL_ID, byte ReplyToQ / ReplyToQMgr, Format MQSTR and
    Expiry 300 tenths, and waits with MQMO_MATCH_CORREL_ID on ``bytes(md.MsgId)``, then the
    responder's reply comes back matched, Format MQSTR, its CorrelId the request's MsgId."""
    import threading

    qmgr = pymqi.connect(QMGR, CHANNEL, env.conn_info, "", "")
    try:
        request_queue = pymqi.Queue(qmgr, QUEUE, CMQC.MQOO_OUTPUT | CMQC.MQOO_FAIL_IF_QUIESCING)
        reply_queue = pymqi.Queue(qmgr, "APP.REPLY",
                                  CMQC.MQOO_INPUT_SHARED | CMQC.MQOO_FAIL_IF_QUIESCING)
        md = pymqi.MD()
        pmo = pymqi.PMO()
        pmo.Options = (CMQC.MQPMO_FAIL_IF_QUIESCING | CMQC.MQPMO_NEW_MSG_ID
                       | CMQC.MQPMO_NEW_CORREL_ID)
        md.ReplyToQ = b"APP.REPLY"
        md.ReplyToQMgr = QMGR.encode("ascii")
        md.Format = CMQC.MQFMT_STRING
        md.Expiry = 300
        request_queue.put("ping".encode("utf-8"), md, pmo)
        request_id = bytes(md.MsgId)
        assert len(request_id) == 24 and request_id != CMQC.MQMI_NONE
        responder = threading.Thread(target=_serve_one_reply, args=(env,))
        responder.start()
        reply_md = pymqi.MD()
        reply_md.CorrelId = request_id
        gmo = pymqi.GMO()
        gmo.Options = CMQC.MQGMO_WAIT | CMQC.MQGMO_FAIL_IF_QUIESCING | CMQC.MQGMO_CONVERT
        gmo.WaitInterval = 10000
        gmo.MatchOptions = CMQC.MQMO_MATCH_CORREL_ID
        reply = reply_queue.get(65536, reply_md, gmo)
        responder.join(10)
        reply_queue.close()
        request_queue.close()
    finally:
        qmgr.disconnect()
    assert reply.decode("utf-8", errors="replace") == "reply to ping"
    assert reply_md.Format == CMQC.MQFMT_STRING
    assert bytes(reply_md.CorrelId) == request_id
    assert bytes(reply_md.MsgId).hex().upper() != request_id.hex().upper()
