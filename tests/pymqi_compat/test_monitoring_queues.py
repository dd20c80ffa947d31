"""The queue PCF that monitoring programs built on pymqi send, each test written as such a
program writes it, with ``import mqpy as pymqi`` as the only change, over bindings and over a
client connection through APP.SVRCONN:

- Datadog's ibm_mq check (integrations-core, ibm_mq/datadog_checks/ibm_mq/collectors/
  queue_metric_collector.py and metrics.py): queues discovered by Inquire Queue with a
  pattern and MQIA_Q_TYPE (MQQT_LOCAL, MQQT_MODEL); each queue's attributes by Inquire Queue
  with MQQT_ALL; Inquire Queue Status with MQIACF_Q_STATUS_ATTRS given as the single int
  MQIACF_ALL, reading OldestMsgAge and UncommittedMsgs as ints where -1 means "turn on queue
  monitoring"; Reset Queue Statistics, its failure caught as MQMIError.
- a Nagios check of the oldest message's age (rbh_check_mq_oldest_msg_age.py): Inquire Queue
  Status naming the queue only, OldestMsgAge -1 meaning queue monitoring is off, then the
  depth from MQINQ.
- a Zabbix-style collector (SurajDevAnand/ibm_mq_monitoring): Inquire Queue Status of ``*``
  with MQIA_Q_TYPE and an attribute list of the last get / put dates and times, the oldest
  message's age and the uncommitted count, and Reset Queue Statistics of ``*``.
- handle status as the MQ explorers' and exporters' collectors ask it (StatusType
  MQIACF_Q_HANDLE): who has the queue open, through which channel, from where, how.
- filters (pymqi.Filter / CFSF / CFIF) on Inquire Queue Status.

IBM's "Inquire Queue Status (Response)" is the reference for the replies: QName and
StatusType always, the rest as the attribute list asks.

what pymqi users rely on: "pymqi compatibility": a monitoring program runs with only its
import changed.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

import mqpy as pymqi
from tests.client.conftest import CHANNEL, Env, drain
from tests.pymqi_compat.conftest import QMGR, QUEUE, program_env

pytestmark = pytest.mark.timeout(120)

MODES = ("bindings", "client")
CMQC, CMQCFC = pymqi.CMQC, pymqi.CMQCFC


@pytest.fixture(scope="module")
def env(tmp_path_factory) -> Iterator[Env]:
    """QM1, its channel initiator and its command server, shared by the module's tests;
    each leaves APP.Q empty and the queue manager's attributes as it found them."""
    yield from program_env(tmp_path_factory, "monitoring_queues")


@pytest.fixture(params=MODES)
def qmgr(request, env: Env) -> Iterator[pymqi.QueueManager]:
    """A program's connection: ``pymqi.connect`` with a channel and ``host(port)`` for a
    client, with the queue manager's name alone over bindings; APP.Q emptied after."""
    if request.param == "client":
        qm = pymqi.connect(QMGR, CHANNEL, env.conn_info)
    else:
        qm = pymqi.connect(QMGR)
    try:
        yield qm
    finally:
        drain(qm)
        qm.disconnect()


def _changed_q_mgr(qmgr: pymqi.QueueManager, attrs: dict[int, int]) -> Iterator[None]:
    pcf = pymqi.PCFExecute(qmgr)
    try:
        pcf.MQCMD_CHANGE_Q_MGR(attrs)
        yield
    finally:
        pcf.MQCMD_CHANGE_Q_MGR({CMQC.MQIA_MONITORING_Q: CMQC.MQMON_OFF,
                                CMQC.MQIA_PERFORMANCE_EVENT: CMQCFC.MQEVR_DISABLED})
        pcf.disconnect()


@pytest.fixture
def monitoring_on(qmgr) -> Iterator[None]:
    """ALTER QMGR MONQ(MEDIUM) for the test, OFF (the default) after."""
    yield from _changed_q_mgr(qmgr, {CMQC.MQIA_MONITORING_Q: CMQC.MQMON_MEDIUM})


@pytest.fixture
def performance_events(qmgr) -> Iterator[None]:
    """ALTER QMGR PERFMEV(ENABLED) for the test, DISABLED (the default) after."""
    yield from _changed_q_mgr(qmgr, {CMQC.MQIA_PERFORMANCE_EVENT: CMQCFC.MQEVR_ENABLED})


def _name(value: bytes) -> str:
    return value.decode("utf-8").strip()


# -- Datadog's queue collector --------------------------------------------------------------

def test_queues_discovered_by_pattern_and_type(qmgr):
    """Given APP.Q and APP.REPLY, when Inquire Queue asks for ``APP.*`` once with MQQT_LOCAL
    and once with MQQT_MODEL (a collector's discovery), then the local pattern answers both
    names (blank-padded bytes), and the model pattern, matching nothing, fails with
    MQRC_UNKNOWN_OBJECT_NAME, which the collector catches as MQMIError."""
    found, failed = [], []
    for queue_type in (CMQC.MQQT_LOCAL, CMQC.MQQT_MODEL):
        args = {CMQC.MQCA_Q_NAME: pymqi.ensure_bytes("APP.*"), CMQC.MQIA_Q_TYPE: queue_type}
        try:
            pcf = pymqi.PCFExecute(qmgr)
            response = pcf.MQCMD_INQUIRE_Q(args)
        except pymqi.MQMIError as e:
            failed.append((e.comp, e.reason))
        else:
            found.extend(_name(q[CMQC.MQCA_Q_NAME]) for q in response)
            pcf.disconnect()
    assert sorted(found) == ["APP.Q", "APP.REPLY"]
    assert failed == [(CMQC.MQCC_FAILED, CMQC.MQRC_UNKNOWN_OBJECT_NAME)]


#: the queue attributes Datadog's collector reads from Inquire Queue (metrics.queue_metrics)
QUEUE_METRICS = (
    CMQC.MQIA_Q_SERVICE_INTERVAL, CMQC.MQIA_INHIBIT_PUT, CMQC.MQIA_Q_DEPTH_LOW_LIMIT,
    CMQC.MQIA_INHIBIT_GET, CMQC.MQIA_HARDEN_GET_BACKOUT, CMQC.MQIA_Q_SERVICE_INTERVAL_EVENT,
    CMQC.MQIA_TRIGGER_CONTROL, CMQC.MQIA_USAGE, CMQC.MQIA_SCOPE, CMQC.MQIA_Q_TYPE,
    CMQC.MQIA_MAX_Q_DEPTH, CMQC.MQIA_BACKOUT_THRESHOLD, CMQC.MQIA_Q_DEPTH_HIGH_EVENT,
    CMQC.MQIA_Q_DEPTH_LOW_EVENT, CMQC.MQIA_TRIGGER_MSG_PRIORITY, CMQC.MQIA_CURRENT_Q_DEPTH,
    CMQC.MQIA_Q_DEPTH_MAX_EVENT, CMQC.MQIA_OPEN_INPUT_COUNT, CMQC.MQIA_DEF_PERSISTENCE,
    CMQC.MQIA_TRIGGER_DEPTH, CMQC.MQIA_MAX_MSG_LENGTH, CMQC.MQIA_Q_DEPTH_HIGH_LIMIT,
    CMQC.MQIA_DEF_PRIORITY, CMQC.MQIA_DEF_INPUT_OPEN_OPTION, CMQC.MQIA_MSG_DELIVERY_SEQUENCE,
    CMQC.MQIA_RETENTION_INTERVAL, CMQC.MQIA_OPEN_OUTPUT_COUNT, CMQC.MQIA_TRIGGER_TYPE)


def test_a_queue_s_attributes_as_a_collector_reads_them(qmgr):
    """Given APP.Q (MAXDEPTH 100000) holding two messages, when Inquire Queue names it with
    MQQT_ALL, then one response carries every attribute the collector turns into a gauge,
    each an int, and the depth percentage is depth over MAXDEPTH."""
    queue = pymqi.Queue(qmgr, QUEUE)
    queue.put(b"one")
    queue.put(b"two")
    queue.close()
    pcf = pymqi.PCFExecute(qmgr)
    response = pcf.MQCMD_INQUIRE_Q({CMQC.MQCA_Q_NAME: pymqi.ensure_bytes(QUEUE),
                                    CMQC.MQIA_Q_TYPE: CMQC.MQQT_ALL})
    pcf.disconnect()
    (queue_info,) = response
    missing = [a for a in QUEUE_METRICS if not isinstance(queue_info.get(a), int)]
    assert missing == []
    assert queue_info[CMQC.MQIA_CURRENT_Q_DEPTH] / queue_info[CMQC.MQIA_MAX_Q_DEPTH] * 100 \
        == pytest.approx(0.002)


def test_queue_status_with_all_attributes_as_one_int_and_monitoring_off(qmgr):
    """Given queue monitoring off (MONQ(OFF), the default) and APP.Q holding a message, when
    Inquire Queue Status names APP.Q with MQIA_Q_TYPE MQQT_ALL and MQIACF_Q_STATUS_ATTRS the
    single int MQIACF_ALL (which pymqi sends as a one-item list), then OldestMsgAge is
    MQMON_NOT_AVAILABLE (-1: "turn on queue level monitoring"), and UncommittedMsgs and the
    depth are ints."""
    pymqi.Queue(qmgr, QUEUE).put(b"old")
    pcf = pymqi.PCFExecute(qmgr)
    response = pcf.MQCMD_INQUIRE_Q_STATUS({
        CMQC.MQCA_Q_NAME: pymqi.ensure_bytes(QUEUE), CMQC.MQIA_Q_TYPE: CMQC.MQQT_ALL,
        CMQCFC.MQIACF_Q_STATUS_ATTRS: CMQCFC.MQIACF_ALL})
    pcf.disconnect()
    (queue_info,) = response
    assert queue_info[CMQCFC.MQIACF_Q_STATUS_TYPE] == CMQCFC.MQIACF_Q_STATUS
    assert int(queue_info[CMQCFC.MQIACF_OLDEST_MSG_AGE]) == CMQC.MQMON_NOT_AVAILABLE
    assert int(queue_info[CMQCFC.MQIACF_UNCOMMITTED_MSGS]) == 0
    assert queue_info[CMQC.MQIA_CURRENT_Q_DEPTH] == 1


def test_queue_status_with_monitoring_on_answers_the_oldest_message_s_age(qmgr, monitoring_on):
    """Given ALTER QMGR MONQ(MEDIUM) (APP.Q's MONQ is QMGR) and APP.Q holding a message,
    when Inquire Queue Status asks for all attributes, then OldestMsgAge is a real age (0 or
    more seconds) and QueueMonitoring is the level in effect (MQMON_MEDIUM)."""
    pymqi.Queue(qmgr, QUEUE).put(b"old")
    pcf = pymqi.PCFExecute(qmgr)
    (queue_info,) = pcf.MQCMD_INQUIRE_Q_STATUS({
        CMQC.MQCA_Q_NAME: pymqi.ensure_bytes(QUEUE),
        CMQCFC.MQIACF_Q_STATUS_ATTRS: CMQCFC.MQIACF_ALL})
    pcf.disconnect()
    assert 0 <= queue_info[CMQCFC.MQIACF_OLDEST_MSG_AGE] < 60
    assert queue_info[CMQC.MQIA_MONITORING_Q] == CMQC.MQMON_MEDIUM


def test_reset_queue_statistics_needs_performance_events(qmgr):
    """Given PERFMEV(DISABLED) (the default), when Reset Queue Statistics names APP.Q, then
    it fails with MQRCCF_EVENTS_DISABLED (3224), an MQMIError the collector catches."""
    pcf = pymqi.PCFExecute(qmgr)
    with pytest.raises(pymqi.MQMIError) as err:
        pcf.MQCMD_RESET_Q_STATS({CMQC.MQCA_Q_NAME: pymqi.ensure_bytes(QUEUE)})
    pcf.disconnect()
    assert (err.value.comp, err.value.reason) == (CMQC.MQCC_FAILED,
                                                  CMQCFC.MQRCCF_EVENTS_DISABLED)


def test_reset_queue_statistics_counts_and_starts_again(qmgr, performance_events):
    """Given PERFMEV(ENABLED) and statistics reset once, when three messages are put and one
    got, then Reset Queue Statistics of APP.Q answers HighQDepth 3, MsgEnqCount 3,
    MsgDeqCount 1 and a TimeSinceReset, as ints; a second reset answers the counts begun
    again (depth 2 now the high, no puts or gets); ``*`` answers every local queue."""
    pcf = pymqi.PCFExecute(qmgr)
    args = {CMQC.MQCA_Q_NAME: pymqi.ensure_bytes(QUEUE)}
    pcf.MQCMD_RESET_Q_STATS(args)
    queue = pymqi.Queue(qmgr, QUEUE, CMQC.MQOO_OUTPUT | CMQC.MQOO_INPUT_SHARED)
    for body in (b"1", b"2", b"3"):
        queue.put(body)
    queue.get()
    queue.close()
    (first,) = pcf.MQCMD_RESET_Q_STATS(args)
    (second,) = pcf.MQCMD_RESET_Q_STATS(args)
    every = pcf.MQCMD_RESET_Q_STATS({CMQC.MQCA_Q_NAME: b"*"})
    pcf.disconnect()
    counts = (CMQC.MQIA_HIGH_Q_DEPTH, CMQC.MQIA_MSG_ENQ_COUNT, CMQC.MQIA_MSG_DEQ_COUNT)
    assert [first[c] for c in counts] == [3, 3, 1]
    assert [second[c] for c in counts] == [2, 0, 0]
    assert isinstance(first[CMQC.MQIA_TIME_SINCE_RESET], int)
    assert {QUEUE, "APP.REPLY"} <= {_name(q[CMQC.MQCA_Q_NAME]) for q in every}


# -- a Nagios check of the oldest message's age --------------------------------------------

def test_nagios_oldest_message_age_check_falls_back_to_the_depth(qmgr):
    """Given queue monitoring off and APP.Q holding two messages, when the check asks Inquire
    Queue Status naming the queue only, then the first response's OldestMsgAge is -1, so the
    check opens the queue for browse and inquire and takes MQINQ's depth (2), which the
    status response's CurrentQDepth agrees with."""
    queue = pymqi.Queue(qmgr, QUEUE)
    queue.put(b"a")
    queue.put(b"b")
    pcf = pymqi.PCFExecute(qmgr)
    stats = pcf.MQCMD_INQUIRE_Q_STATUS({CMQC.MQCA_Q_NAME: QUEUE})
    q_depth = stats[0][CMQC.MQIA_CURRENT_Q_DEPTH]
    oldest_msg_age = stats[0][CMQCFC.MQIACF_OLDEST_MSG_AGE]
    if oldest_msg_age == -1:
        q = pymqi.Queue(qmgr, QUEUE, CMQC.MQOO_BROWSE | CMQC.MQOO_INQUIRE)
        q_depth_inquired = q.inquire(CMQC.MQIA_CURRENT_Q_DEPTH)
        q.close()
    else:
        q_depth_inquired = None
    pcf.disconnect()
    assert (oldest_msg_age, q_depth, q_depth_inquired) == (-1, 2, 2)


# -- a Zabbix-style collector: every local queue's status, the attributes listed ------------

def test_status_of_every_local_queue_with_an_attribute_list(qmgr):
    """Given APP.Q put to and got from, when Inquire Queue Status asks for ``*`` with
    MQIA_Q_TYPE MQQT_LOCAL, StatusType MQIACF_Q_STATUS and a list of LastGetDate,
    LastGetTime, LastPutDate, LastPutTime, OldestMsgAge and UncommittedMsgs, then APP.Q's
    response carries those (dates 12 bytes, times 8, as the collector decodes them) with its
    QName and StatusType, and nothing the list did not ask for (no CurrentQDepth)."""
    queue = pymqi.Queue(qmgr, QUEUE, CMQC.MQOO_OUTPUT | CMQC.MQOO_INPUT_SHARED)
    queue.put(b"x")
    queue.get()
    queue.close()
    pcf = pymqi.PCFExecute(qmgr)
    listed = [CMQCFC.MQCACF_LAST_GET_DATE, CMQCFC.MQCACF_LAST_GET_TIME,
              CMQCFC.MQCACF_LAST_PUT_DATE, CMQCFC.MQCACF_LAST_PUT_TIME,
              CMQCFC.MQIACF_OLDEST_MSG_AGE, CMQCFC.MQIACF_UNCOMMITTED_MSGS]
    result = pcf.MQCMD_INQUIRE_Q_STATUS({
        CMQC.MQCA_Q_NAME: "*", CMQC.MQIA_Q_TYPE: CMQC.MQQT_LOCAL,
        CMQCFC.MQIACF_Q_STATUS_TYPE: CMQCFC.MQIACF_Q_STATUS,
        CMQCFC.MQIACF_Q_STATUS_ATTRS: listed})
    pcf.disconnect()
    (queue_info,) = [q for q in result if _name(q[CMQC.MQCA_Q_NAME]) == QUEUE]
    assert sorted(queue_info) == sorted([CMQC.MQCA_Q_NAME, CMQCFC.MQIACF_Q_STATUS_TYPE,
                                         *listed])
    assert [len(queue_info[p]) for p in listed[:4]] == [12, 8, 12, 8]
    put_date = queue_info[CMQCFC.MQCACF_LAST_PUT_DATE].decode("utf-8").strip()
    assert put_date == "" or put_date[4] == put_date[7] == "-"


# -- handle status ---------------------------------------------------------------------------

def test_handle_status_names_who_has_the_queue_open_and_how(qmgr, request):
    """Given the program's own handle on APP.Q open for shared input and inquire, when
    Inquire Queue Status asks with StatusType MQIACF_Q_HANDLE, then the handle's response
    carries what IBM's handle status carries: ApplTag, ApplType, UserIdentifier, ProcessId,
    ThreadId, ChannelName and ConnectionName (APP.SVRCONN and 127.0.0.1 for a client, blank
    over bindings), HandleState, OpenOptions, the open type parameters (input SHARED, output
    NO, inquire YES, browse NO, set NO), AsynchronousState and UOWType."""
    client = request.node.callspec.params["qmgr"] == "client"
    queue = pymqi.Queue(qmgr, QUEUE, CMQC.MQOO_INPUT_SHARED | CMQC.MQOO_INQUIRE)
    pcf = pymqi.PCFExecute(qmgr)
    try:
        handles = pcf.MQCMD_INQUIRE_Q_STATUS({
            CMQC.MQCA_Q_NAME: QUEUE, CMQCFC.MQIACF_Q_STATUS_TYPE: CMQCFC.MQIACF_Q_HANDLE})
    finally:
        pcf.disconnect()
        queue.close()
    mine = [h for h in handles if h.get(CMQCFC.MQIACF_OPEN_OPTIONS, 0) & CMQC.MQOO_INQUIRE]
    assert len(mine) == 1, handles
    (handle,) = mine
    assert handle[CMQCFC.MQIACF_Q_STATUS_TYPE] == CMQCFC.MQIACF_Q_HANDLE
    assert _name(handle[CMQC.MQCA_Q_NAME]) == QUEUE
    assert handle[CMQCFC.MQCACF_APPL_TAG].strip()
    assert handle[CMQCFC.MQCACF_USER_IDENTIFIER].strip()
    assert handle[CMQC.MQIA_APPL_TYPE] == CMQC.MQAT_USER
    assert _name(handle[CMQCFC.MQCACH_CHANNEL_NAME]) == (CHANNEL if client else "")
    assert _name(handle[CMQCFC.MQCACH_CONNECTION_NAME]) == ("127.0.0.1" if client else "")
    for integer in (CMQCFC.MQIACF_PROCESS_ID, CMQCFC.MQIACF_THREAD_ID):
        assert isinstance(handle[integer], int)
    assert handle[CMQCFC.MQIACF_HANDLE_STATE] in (CMQCFC.MQHSTATE_ACTIVE,
                                                  CMQCFC.MQHSTATE_INACTIVE)
    assert handle[CMQCFC.MQIACF_OPEN_OPTIONS] & CMQC.MQOO_INPUT_SHARED
    assert [handle[p] for p in (CMQCFC.MQIACF_OPEN_INPUT_TYPE, CMQCFC.MQIACF_OPEN_OUTPUT,
                                CMQCFC.MQIACF_OPEN_INQUIRE, CMQCFC.MQIACF_OPEN_BROWSE,
                                CMQCFC.MQIACF_OPEN_SET)] == [
        CMQCFC.MQQSO_SHARED, CMQCFC.MQQSO_NO, CMQCFC.MQQSO_YES, CMQCFC.MQQSO_NO,
        CMQCFC.MQQSO_NO]
    assert handle[CMQCFC.MQIACF_ASYNC_STATE] == CMQCFC.MQAS_NONE
    assert handle[CMQCFC.MQIACF_UOW_TYPE] == CMQCFC.MQUOWT_Q_MGR


# -- filters ----------------------------------------------------------------------------------

@pytest.mark.parametrize("how", ["Filter", "CFIF"])
def test_an_integer_filter_on_queue_status(qmgr, how):
    """Given APP.Q holding a message and every other APP queue empty, when Inquire Queue
    Status of ``APP.*`` is filtered on CurrentQDepth greater than 0, written either as
    pymqi.Filter(...).greater(0) or as a CFIF structure, then only APP.Q answers."""
    pymqi.Queue(qmgr, QUEUE).put(b"deep")
    condition = pymqi.Filter(CMQC.MQIA_CURRENT_Q_DEPTH).greater(0) if how == "Filter" else \
        pymqi.CFIF(Parameter=CMQC.MQIA_CURRENT_Q_DEPTH, Operator=CMQCFC.MQCFOP_GREATER,
                   FilterValue=0)
    pcf = pymqi.PCFExecute(qmgr)
    found = pcf.MQCMD_INQUIRE_Q_STATUS({CMQC.MQCA_Q_NAME: b"APP.*"}, [condition])
    pcf.disconnect()
    assert [(_name(q[CMQC.MQCA_Q_NAME]), q[CMQC.MQIA_CURRENT_Q_DEPTH]) for q in found] == [
        (QUEUE, 1)]


@pytest.mark.parametrize("how", ["Filter", "CFSF"])
def test_a_string_filter_on_queue_status(qmgr, how):
    """Given the queue manager's local queues, when Inquire Queue Status of ``*`` is
    filtered on the queue name LIKE ``APP.R*``, as pymqi.Filter(...).like or a CFSF, then
    only APP.REPLY answers."""
    def condition(value: bytes):
        if how == "Filter":
            return pymqi.Filter(CMQC.MQCA_Q_NAME).like(value)
        return pymqi.CFSF(Parameter=CMQC.MQCA_Q_NAME, Operator=CMQCFC.MQCFOP_LIKE,
                          FilterValue=value)
    pcf = pymqi.PCFExecute(qmgr)
    found = pcf.MQCMD_INQUIRE_Q_STATUS({CMQC.MQCA_Q_NAME: b"*"}, [condition(b"APP.R*")])
    pcf.disconnect()
    assert [_name(q[CMQC.MQCA_Q_NAME]) for q in found] == ["APP.REPLY"]


# -- a collector that sends and parses PCF itself (Datadog's CustomPCFExecute) ----------------

def _unpack_as_the_collector_does(message: bytes) -> tuple[dict, pymqi.CFH]:
    """A PCF message read the way pymqi's own PCFExecute.unpack reads it, which Datadog's
    collector copies to read statistics messages: the MQCFH, then each structure's fixed
    part alone (to learn its lengths), then the structure made with those lengths and
    unpacked whole."""
    import struct

    header = pymqi.CFH(Version=CMQCFC.MQCFH_VERSION_1)
    header.unpack(message[:CMQCFC.MQCFH_STRUC_LENGTH])
    if header.CompCode:
        raise pymqi.MQMIError(header.CompCode, header.Reason)
    res: dict = {}
    cursor = CMQCFC.MQCFH_STRUC_LENGTH
    for _ in range(header.ParameterCount):
        parameter_type = struct.unpack(pymqi.MQLONG_TYPE, message[cursor:cursor + 4])[0]
        if parameter_type == CMQCFC.MQCFT_STRING:
            parameter = pymqi.CFST()
            parameter.unpack(message[cursor:cursor + CMQCFC.MQCFST_STRUC_LENGTH_FIXED])
            if parameter.StringLength > 1:
                parameter = pymqi.CFST(StringLength=parameter.StringLength)
                parameter.unpack(message[cursor:cursor + parameter.StrucLength])
            value = parameter.String
        elif parameter_type == CMQCFC.MQCFT_BYTE_STRING:
            parameter = pymqi.CFBS()
            parameter.unpack(message[cursor:cursor + CMQCFC.MQCFBS_STRUC_LENGTH_FIXED])
            if parameter.StringLength > 1:
                parameter = pymqi.CFBS(StringLength=parameter.StringLength)
                parameter.unpack(message[cursor:cursor + parameter.StrucLength])
            value = parameter.String
        elif parameter_type == CMQCFC.MQCFT_INTEGER:
            parameter = pymqi.CFIN()
            parameter.unpack(message[cursor:cursor + CMQCFC.MQCFIN_STRUC_LENGTH])
            value = parameter.Value
        elif parameter_type == CMQCFC.MQCFT_INTEGER_LIST:
            parameter = pymqi.CFIL()
            parameter.unpack(message[cursor:cursor + CMQCFC.MQCFIL_STRUC_LENGTH_FIXED])
            if parameter.Count > 0:
                parameter = pymqi.CFIL(Count=parameter.Count, StrucLength=parameter.StrucLength)
                parameter.unpack(message[cursor:cursor + parameter.StrucLength])
            value = parameter.Values
        elif parameter_type == CMQCFC.MQCFT_STRING_LIST:
            parameter = pymqi.CFSL()
            parameter.unpack(message[cursor:cursor + CMQCFC.MQCFSL_STRUC_LENGTH_FIXED])
            if parameter.StringLength > 1:
                parameter = pymqi.CFSL(StringLength=parameter.StringLength,
                                       Count=parameter.Count,
                                       StrucLength=parameter.StrucLength)
                parameter.unpack(message[cursor:cursor + parameter.StrucLength])
            value = parameter.Strings
        else:
            raise NotImplementedError(parameter_type)
        cursor += parameter.StrucLength
        res[parameter.Parameter] = value
    return res, header


def _send_as_the_collector_does(qmgr, reply_queue, reply_queue_name: bytes, command: int,
                                params: list) -> list:
    """A command put on the command queue and its replies got by CorrelId, as the
    collector's own _Method does: an MQCFH version 3 of MQCFT_COMMAND_XR and the
    parameters packed by pymqi's structures."""
    message = pymqi.CFH(Version=CMQCFC.MQCFH_VERSION_3, Command=command,
                        Type=CMQCFC.MQCFT_COMMAND_XR, ParameterCount=len(params)).pack()
    for parameter in params:
        message += parameter.pack()
    command_queue = pymqi.Queue(qmgr, "SYSTEM.ADMIN.COMMAND.QUEUE", CMQC.MQOO_OUTPUT)
    put_md = pymqi.MD(Format=CMQC.MQFMT_ADMIN, MsgType=CMQC.MQMT_REQUEST,
                      ReplyToQ=reply_queue_name, Feedback=CMQC.MQFB_NONE, Expiry=50,
                      Report=CMQC.MQRO_PASS_DISCARD_AND_EXPIRY | CMQC.MQRO_DISCARD_MSG)
    command_queue.put(message, put_md, pymqi.PMO(Options=CMQC.MQPMO_NO_SYNCPOINT))
    command_queue.close()
    get_opts = pymqi.GMO(Options=CMQC.MQGMO_NO_SYNCPOINT + CMQC.MQGMO_FAIL_IF_QUIESCING
                         + CMQC.MQGMO_WAIT, Version=CMQC.MQGMO_VERSION_2,
                         MatchOptions=CMQC.MQMO_MATCH_CORREL_ID, WaitInterval=5000)
    get_md = pymqi.MD(CorrelId=put_md.MsgId)
    replies = []
    while True:
        res, header = _unpack_as_the_collector_does(reply_queue.get(None, get_md, get_opts))
        replies.append(res)
        if header.Control == CMQCFC.MQCFC_LAST:
            return replies


def test_a_collector_parses_pcf_replies_with_pymqi_s_structures(qmgr):
    """Given a collector that packs its own commands with pymqi.CFH / CFST / CFIN / CFIL and
    parses the replies structure by structure (each structure's fixed part unpacked first
    to learn its lengths, then made with StringLength / Count / StrucLength and unpacked
    whole), when it sends Inquire Queue, Inquire Queue Status (its OnQTime an MQCFIL) and
    Inquire Namelist (an MQCFSL) and reads the replies, then each parses: APP.Q's name and
    depth, the status's two OnQTime values, the namelist's names."""
    pymqi.Queue(qmgr, QUEUE).put(b"counted")
    pcf = pymqi.PCFExecute(qmgr)
    pcf.MQCMD_CREATE_NAMELIST({CMQC.MQCA_NAMELIST_NAME: b"MON.NL",
                               CMQC.MQCA_NAMES: [b"APP.Q", b"APP.REPLY"],
                               CMQCFC.MQIACF_REPLACE: CMQCFC.MQRP_YES})
    pcf.disconnect()
    od = pymqi.OD(ObjectName=b"SYSTEM.DEFAULT.MODEL.QUEUE", DynamicQName=b"MONITOR.*")
    reply_queue = pymqi.Queue(qmgr, od, CMQC.MQOO_INPUT_EXCLUSIVE)
    try:
        name = od.ObjectName
        (queue_info,) = _send_as_the_collector_does(
            qmgr, reply_queue, name, CMQCFC.MQCMD_INQUIRE_Q,
            [pymqi.CFST(Parameter=CMQC.MQCA_Q_NAME, String=QUEUE.encode())])
        (status,) = _send_as_the_collector_does(
            qmgr, reply_queue, name, CMQCFC.MQCMD_INQUIRE_Q_STATUS,
            [pymqi.CFST(Parameter=CMQC.MQCA_Q_NAME, String=QUEUE.encode()),
             pymqi.CFIL(Parameter=CMQCFC.MQIACF_Q_STATUS_ATTRS, Values=[CMQCFC.MQIACF_ALL])])
        (namelist,) = _send_as_the_collector_does(
            qmgr, reply_queue, name, CMQCFC.MQCMD_INQUIRE_NAMELIST,
            [pymqi.CFST(Parameter=CMQC.MQCA_NAMELIST_NAME, String=b"MON.NL")])
    finally:
        reply_queue.close()
    assert queue_info[CMQC.MQCA_Q_NAME].rstrip(b" \0") == QUEUE.encode()
    assert queue_info[CMQC.MQIA_CURRENT_Q_DEPTH] == 1
    assert len(status[CMQCFC.MQIACF_Q_TIME_INDICATOR]) == 2
    assert [n.rstrip(b" \0") for n in namelist[CMQC.MQCA_NAMES]] == [b"APP.Q", b"APP.REPLY"]
