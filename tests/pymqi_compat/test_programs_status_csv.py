"""A queue and channel status collector that writes CSV (a public script with
``modules.base`` helpers: qStat, qStatInfo, qResStat, chStat, written against pymqi 1.12),
written as it calls pymqi with ``import mqpy as pymqi`` as the only change.

It connects in bindings (``pymqi.connect(qmgr)``) and builds every PCF command from a list
of parameter structures and a list of filters, ``pcf.MQCMD_*(args, filters)`` with
``PCFExecute(qmgr, response_wait_interval=5000)``: Inquire Queue with ``CFST(Parameter=
MQCA_Q_NAME, String=name.encode())`` and ``CFIN(Parameter=MQIA_Q_TYPE, Value=MQQT_LOCAL)``
(reading depth, max depth, backout threshold, trigger depth, max message length, the depth
high and low limits); Inquire Queue Status with the same and a ``CFIF(Parameter=
MQIA_CURRENT_Q_DEPTH, Operator=MQCFOP_GREATER, FilterValue=0)`` filter (open counts,
uncommitted messages, oldest message age, last get and put date and time); Reset Queue
Statistics (high depth, enqueue and dequeue counts, time since reset); Inquire Channel Status
with ``CFIL(Parameter=MQIACH_CHANNEL_INSTANCE_ATTRS, Values=[...])`` (connection name,
messages, status, bytes and buffers sent and received, in-doubt status, substate, start
date and time). Every MQMIError is caught and logged with ``str(ex)``.

The script sends MQIACF_Q_STATUS_ATTRS as an MQCFIN of MQIACF_ALL; the test that needs its
answer sends the MQCFIL IBM documents, and a test of the MQCFIN form checks the
MQRCCF_CFIN_PARM_ID_ERROR IBM's command server answers it with, which the script logs.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

import mqpy as pymqi
from tests.client.conftest import CHANNEL, Env, drain
from tests.pymqi_compat.conftest import QMGR, QUEUE, program_env

pytestmark = pytest.mark.timeout(120)

CMQC, CMQCFC = pymqi.CMQC, pymqi.CMQCFC


@pytest.fixture(scope="module")
def env(tmp_path_factory) -> Iterator[Env]:
    yield from program_env(tmp_path_factory, "statuscsv")


@pytest.fixture
def qmgr(env: Env) -> Iterator[pymqi.QueueManager]:
    qmgr = pymqi.connect(QMGR)
    try:
        yield qmgr
        drain(qmgr)
    finally:
        qmgr.disconnect()


def _text(value: bytes) -> str:
    return value.decode("utf-8").strip()


def _queue_args(name: str) -> list:
    return [pymqi.CFST(Parameter=CMQC.MQCA_Q_NAME, String=name.encode("utf-8")),
            pymqi.CFIN(Parameter=CMQC.MQIA_Q_TYPE, Value=CMQC.MQQT_LOCAL)]


def _depth_filter() -> list:
    return [pymqi.CFIF(Parameter=CMQC.MQIA_CURRENT_Q_DEPTH, Operator=CMQCFC.MQCFOP_GREATER,
                       FilterValue=0)]


def test_inquire_queue_from_a_list_of_structures(qmgr):
    """Given APP.Q with one message, when the script inquires ``APP.Q`` with a CFST and a
    CFIN and no filters, then it reads the depth and the configured figures it records, as
    ints, and the depth as a percentage of MAXDEPTH."""
    pymqi.Queue(qmgr, QUEUE).put(b"one")
    pcf = pymqi.PCFExecute(qmgr, response_wait_interval=5000)
    [info] = pcf.MQCMD_INQUIRE_Q(_queue_args(QUEUE), [])
    assert _text(info[CMQC.MQCA_Q_NAME]) == QUEUE
    record = {key: info[selector] for key, selector in (
        ("curdepth", CMQC.MQIA_CURRENT_Q_DEPTH), ("maxdepth", CMQC.MQIA_MAX_Q_DEPTH),
        ("backthres", CMQC.MQIA_BACKOUT_THRESHOLD), ("trdepth", CMQC.MQIA_TRIGGER_DEPTH),
        ("maxmsgl", CMQC.MQIA_MAX_MSG_LENGTH), ("depthhlim", CMQC.MQIA_Q_DEPTH_HIGH_LIMIT),
        ("depthllim", CMQC.MQIA_Q_DEPTH_LOW_LIMIT))}
    assert record == {"curdepth": 1, "maxdepth": 100000, "backthres": 0, "trdepth": 1,
                      "maxmsgl": 4194304, "depthhlim": 80, "depthllim": 20}
    assert record["curdepth"] / record["maxdepth"] * 100 == pytest.approx(0.001)


def test_inquire_queue_status_with_a_depth_filter(qmgr):
    """Given APP.Q with an uncommitted put and a committed one, and APP.REPLY empty, when
    the script inquires the status of ``APP*`` with MQIACF_Q_STATUS_ATTRS (an MQCFIL of
    MQIACF_ALL) and the filter depth > 0, then only APP.Q answers: depth 2 (committed and
    not), one uncommitted message, the script's open counts, an oldest message age
    (an int) and the last get and put dates and times as bytes."""
    writer = pymqi.Queue(qmgr, QUEUE, CMQC.MQOO_OUTPUT)
    writer.put(b"committed")
    other = pymqi.connect(QMGR)
    try:
        pending = pymqi.Queue(other, QUEUE, CMQC.MQOO_OUTPUT)
        pending.put(b"pending", pymqi.MD(), pymqi.PMO(Options=CMQC.MQPMO_SYNCPOINT))
        pcf = pymqi.PCFExecute(qmgr, response_wait_interval=5000)
        args = _queue_args("APP*") + [
            pymqi.CFIL(Parameter=CMQCFC.MQIACF_Q_STATUS_ATTRS, Values=[CMQCFC.MQIACF_ALL])]
        response = pcf.MQCMD_INQUIRE_Q_STATUS(args, _depth_filter())
        other.backout()
    finally:
        other.disconnect()
        writer.close()
    assert [_text(r[CMQC.MQCA_Q_NAME]) for r in response] == [QUEUE]
    [info] = response
    assert info[CMQC.MQIA_CURRENT_Q_DEPTH] == 2
    assert info[CMQCFC.MQIACF_UNCOMMITTED_MSGS] == 1
    assert (info[CMQC.MQIA_OPEN_INPUT_COUNT], info[CMQC.MQIA_OPEN_OUTPUT_COUNT]) == (0, 2)
    assert isinstance(info[CMQCFC.MQIACF_OLDEST_MSG_AGE], int)
    for selector in (CMQCFC.MQCACF_LAST_GET_DATE, CMQCFC.MQCACF_LAST_GET_TIME,
                     CMQCFC.MQCACF_LAST_PUT_DATE, CMQCFC.MQCACF_LAST_PUT_TIME):
        assert isinstance(info[selector], bytes)


def test_queue_status_attrs_sent_as_a_single_integer(qmgr):
    """Given the script's own form, MQIACF_Q_STATUS_ATTRS as ``CFIN(Value=MQIACF_ALL)``,
    when it inquires the queue status, then the command fails MQRCCF_CFIN_PARM_ID_ERROR,
    which the script logs."""
    pymqi.Queue(qmgr, QUEUE).put(b"one")
    pcf = pymqi.PCFExecute(qmgr, response_wait_interval=5000)
    args = _queue_args(QUEUE) + [
        pymqi.CFIN(Parameter=CMQCFC.MQIACF_Q_STATUS_ATTRS, Value=CMQCFC.MQIACF_ALL)]
    with pytest.raises(pymqi.MQMIError) as err:
        pcf.MQCMD_INQUIRE_Q_STATUS(args, _depth_filter())
    assert (err.value.comp, err.value.reason) == (2, CMQCFC.MQRCCF_CFIN_PARM_ID_ERROR)


def test_reset_queue_statistics_from_a_list(qmgr):
    """Given performance events disabled (the default), when the script resets APP.Q's
    statistics, then the MQMIError it logs is comp 2 MQRCCF_EVENTS_DISABLED, as IBM's; with
    PERFMEV(ENABLED), the reset answers the high depth, enqueue and dequeue counts and the
    time since the last reset, all ints."""
    pcf = pymqi.PCFExecute(qmgr, response_wait_interval=5000)
    args = [pymqi.CFST(Parameter=CMQC.MQCA_Q_NAME, String=QUEUE.encode("utf-8"))]
    with pytest.raises(pymqi.MQMIError) as err:
        pcf.MQCMD_RESET_Q_STATS(args, [])
    assert "MQRCCF_EVENTS_DISABLED" in str(err.value)
    pcf.MQCMD_CHANGE_Q_MGR({CMQC.MQIA_PERFORMANCE_EVENT: CMQCFC.MQEVR_ENABLED})
    try:
        pcf.MQCMD_RESET_Q_STATS(args, [])
        pymqi.Queue(qmgr, QUEUE).put(b"one")
        [info] = pcf.MQCMD_RESET_Q_STATS(args, [])
    finally:
        pcf.MQCMD_CHANGE_Q_MGR({CMQC.MQIA_PERFORMANCE_EVENT: CMQCFC.MQEVR_DISABLED})
    assert _text(info[CMQC.MQCA_Q_NAME]) == QUEUE
    assert (info[CMQC.MQIA_HIGH_Q_DEPTH], info[CMQC.MQIA_MSG_ENQ_COUNT],
            info[CMQC.MQIA_MSG_DEQ_COUNT]) == (1, 1, 0)
    assert isinstance(info[CMQC.MQIA_TIME_SINCE_RESET], int)


#: the channel instance attributes the script asks for
INSTANCE_ATTRS = [CMQCFC.MQCACH_CHANNEL_NAME, CMQCFC.MQCACH_CONNECTION_NAME,
                  CMQCFC.MQIACH_MSGS, CMQCFC.MQIACH_CHANNEL_STATUS, CMQCFC.MQIACH_BYTES_SENT,
                  CMQCFC.MQIACH_BYTES_RECEIVED, CMQCFC.MQIACH_BUFFERS_SENT,
                  CMQCFC.MQIACH_BUFFERS_RECEIVED, CMQCFC.MQIACH_INDOUBT_STATUS,
                  CMQCFC.MQIACH_CHANNEL_SUBSTATE, CMQCFC.MQCACH_CHANNEL_START_DATE,
                  CMQCFC.MQCACH_CHANNEL_START_TIME]


def test_channel_status_with_named_instance_attributes(qmgr, env):
    """Given a client connected through APP.SVRCONN, when the script inquires its status
    with MQIACH_CHANNEL_INSTANCE_ATTRS naming twelve attributes, then each instance has
    them but the in-doubt status, which IBM does not give for a server-connection channel
    (the connection name 127.0.0.1, status MQCHS_RUNNING, which the script's table
    names "running"), and no z/OS-only statistics group (MQGACF_CHL_STATISTICS_DATA)."""
    client = pymqi.connect(QMGR, CHANNEL, env.conn_info)
    try:
        pcf = pymqi.PCFExecute(qmgr, response_wait_interval=5000)
        args = [pymqi.CFST(Parameter=CMQCFC.MQCACH_CHANNEL_NAME, String=CHANNEL.encode()),
                pymqi.CFIL(Parameter=CMQCFC.MQIACH_CHANNEL_INSTANCE_ATTRS,
                           Values=INSTANCE_ATTRS)]
        response = pcf.MQCMD_INQUIRE_CHANNEL_STATUS(args, [])
    finally:
        client.disconnect()
    names = {CMQCFC.MQCHS_RUNNING: "running", CMQCFC.MQCHS_INACTIVE: "inactive"}
    assert response
    for info in response:
        assert set(INSTANCE_ATTRS) - {CMQCFC.MQIACH_INDOUBT_STATUS} <= set(info)
        assert CMQCFC.MQIACH_INDOUBT_STATUS not in info
        assert _text(info[CMQCFC.MQCACH_CHANNEL_NAME]) == CHANNEL
        assert _text(info[CMQCFC.MQCACH_CONNECTION_NAME]) == "127.0.0.1"
        assert names.get(info[CMQCFC.MQIACH_CHANNEL_STATUS], "unknown") == "running"
        assert CMQCFC.MQGACF_CHL_STATISTICS_DATA not in info


def test_a_queue_name_that_matches_nothing(qmgr):
    """Given a name no queue has, when the script inquires it, then the MQMIError it logs
    reads ``MQI Error. Comp: 2, Reason 2085: FAILED: MQRC_UNKNOWN_OBJECT_NAME``."""
    pcf = pymqi.PCFExecute(qmgr, response_wait_interval=5000)
    with pytest.raises(pymqi.MQMIError) as err:
        pcf.MQCMD_INQUIRE_Q(_queue_args("NO.SUCH.QUEUE"), [])
    assert str(err.value) == "MQI Error. Comp: 2, Reason 2085: FAILED: MQRC_UNKNOWN_OBJECT_NAME"


def test_string_selectors_are_a_type_error(qmgr):
    """Given a program that writes selectors as names (``{'MQCA_Q_NAME': '*'}``), when it
    sends the command, then, as with pymqi (whose packing fails), it is a TypeError naming
    the parameter, raised before anything is sent, and the PCFExecute still works."""
    pcf = pymqi.PCFExecute(qmgr, response_wait_interval=5000)
    with pytest.raises(TypeError, match="MQCA_Q_NAME"):
        pcf.MQCMD_INQUIRE_Q({"MQCA_Q_NAME": "*"})
    assert pcf.MQCMD_INQUIRE_Q(_queue_args(QUEUE), [])


@pytest.mark.parametrize("command, args", [
    ("MQCMD_INQUIRE_CHANNEL_STATUS", [
        pymqi.CFST(Parameter=CMQCFC.MQCACH_CHANNEL_NAME, String=b"*"),
        pymqi.CFIN(Parameter=CMQCFC.MQIACF_OLDEST_MSG_AGE, Value=1)]),
    # a monitoring script's MQIACF_STATUS_TYPE where Inquire Queue Status takes
    # MQIACF_Q_STATUS_TYPE (SurajDevAnand/ibm_mq_monitoring, ibm_basic.py)
    ("MQCMD_INQUIRE_Q_STATUS", {CMQC.MQCA_Q_NAME: b"APP.Q",
                                CMQCFC.MQIACF_STATUS_TYPE: CMQCFC.MQIACF_Q_STATUS}),
])
def test_a_parameter_the_command_does_not_take(qmgr, env, command, args):
    """Given a command with an integer parameter it does not take, when a program sends
    it, then the command fails MQRCCF_CFIN_PARM_ID_ERROR, as IBM documents."""
    client = pymqi.connect(QMGR, CHANNEL, env.conn_info)  # a channel with a status
    try:
        with pytest.raises(pymqi.MQMIError) as err:
            getattr(pymqi.PCFExecute(qmgr), command)(args)
    finally:
        client.disconnect()
    assert (err.value.comp, err.value.reason) == (2, CMQCFC.MQRCCF_CFIN_PARM_ID_ERROR)
