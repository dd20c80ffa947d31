"""The channel and queue manager PCF that monitoring programs built on pymqi send, each test
written as such a program writes it, with ``import mqpy as pymqi`` as the only change, over
bindings and over a client connection through APP.SVRCONN:

- Datadog's ibm_mq check (integrations-core, ibm_mq/datadog_checks/ibm_mq/collectors/
  channel_metric_collector.py, metadata_collector.py, queue_metric_collector.py and
  metrics.py): PCFExecute with ``response_wait_interval`` and ``convert``, disconnected in a
  ``finally``; Inquire Channel of ``*`` and the definition's numbers read as gauges where
  present; Inquire Channel Status of ``*`` and of named channels, MQRCCF_CHL_STATUS_NOT_FOUND
  (a channel not used) and MQRC_NO_MSG_AVAILABLE caught as MQMIError, the instances counted
  per channel by MQCHS_RUNNING; Inquire Queue Manager's MQCA_VERSION parsed as four
  two-digit numbers; MQINQ of MQIA_DIST_LISTS and MQIA_MAX_MSG_LENGTH.
- a Zabbix-style collector (SurajDevAnand/ibm_mq_monitoring): Inquire Channel Status of ``*``
  with MQIACH_CHANNEL_INSTANCE_ATTRS listing what it reads (connection name, status, message
  count, bytes and buffers, in-doubt status, substate, start date and time), the substate
  looked up in a table; Inquire Queue Manager Status with MQIACF_Q_MGR_STATUS_ATTRS, the
  name compared and the status an index into a list of names.

IBM's "Inquire Channel Status (Response)" is the reference: ChannelInstanceType,
ChannelName, ChannelStatus, ChannelType, ConnectionName, RemoteApplTag, RemoteQMgrName,
StopRequested, SubState and XmitQName always, the rest as ChannelInstanceAttrs asks.

what pymqi users rely on: "pymqi compatibility": a monitoring program runs with only its
import changed.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

import mqpy as pymqi
from tests.client.conftest import CHANNEL, Env
from tests.pymqi_compat.conftest import QMGR, program_env

pytestmark = pytest.mark.timeout(120)

MODES = ("bindings", "client")
CMQC, CMQCFC = pymqi.CMQC, pymqi.CMQCFC
SENDER = "TO.ELSEWHERE"


@pytest.fixture(scope="module")
def env(tmp_path_factory) -> Iterator[Env]:
    """QM1, its channel initiator and its command server, shared by the module's tests, with
    a sender channel TO.ELSEWHERE that is defined and never started."""

    def define(made: Env) -> None:
        made.define("CHANNEL", SENDER, CHLTYPE="SDR", CONNAME="127.0.0.1(1)",
                    XMITQ="APP.REPLY")

    yield from program_env(tmp_path_factory, "monitoring_channels", define)


@pytest.fixture(params=MODES)
def qmgr(request, env: Env) -> Iterator[pymqi.QueueManager]:
    """The monitoring program's connection; over bindings, an application connected through
    APP.SVRCONN beside it, so that the channel has a status to show."""
    if request.param == "client":
        qm = pymqi.connect(QMGR, CHANNEL, env.conn_info)
        application = None
    else:
        qm = pymqi.connect(QMGR)
        application = pymqi.connect(QMGR, CHANNEL, env.conn_info)
    try:
        yield qm
    finally:
        qm.disconnect()
        if application is not None:
            application.disconnect()


#: the definition numbers Datadog's collector gauges (metrics.channel_metrics)
CHANNEL_METRICS = (
    CMQCFC.MQIACH_BATCH_SIZE, CMQCFC.MQIACH_BATCH_INTERVAL, CMQCFC.MQIACH_LONG_RETRY,
    CMQCFC.MQIACH_LONG_TIMER, CMQCFC.MQIACH_MAX_MSG_LENGTH, CMQCFC.MQIACH_SHORT_RETRY,
    CMQCFC.MQIACH_DISC_INTERVAL, CMQCFC.MQIACH_HB_INTERVAL, CMQCFC.MQIACH_KEEP_ALIVE_INTERVAL,
    CMQCFC.MQIACH_MR_COUNT, CMQCFC.MQIACH_MR_INTERVAL, CMQCFC.MQIACH_NETWORK_PRIORITY,
    CMQCFC.MQIACH_NPM_SPEED, CMQCFC.MQIACH_SHARING_CONVERSATIONS, CMQCFC.MQIACH_SHORT_TIMER)

#: the status numbers it gauges (metrics.channel_status_metrics), where present
CHANNEL_STATUS_METRICS = (
    CMQCFC.MQIACH_BUFFERS_RCVD, CMQCFC.MQIACH_BUFFERS_SENT, CMQCFC.MQIACH_BYTES_RCVD,
    CMQCFC.MQIACH_BYTES_SENT, CMQCFC.MQIACH_CHANNEL_STATUS, CMQCFC.MQIACH_MCA_STATUS,
    CMQCFC.MQIACH_MSGS, CMQCFC.MQIACH_SSL_KEY_RESETS, CMQCFC.MQIACH_BATCHES,
    CMQCFC.MQIACH_CURRENT_MSGS, CMQCFC.MQIACH_INDOUBT_STATUS)

#: what IBM's response always carries besides the channel's name and status
ALWAYS = (CMQCFC.MQIACH_CHANNEL_INSTANCE_TYPE, CMQCFC.MQCACH_CHANNEL_NAME,
          CMQCFC.MQIACH_CHANNEL_STATUS, CMQCFC.MQIACH_CHANNEL_TYPE,
          CMQCFC.MQCACH_CONNECTION_NAME, CMQCFC.MQCACH_REMOTE_APPL_TAG,
          CMQC.MQCA_REMOTE_Q_MGR_NAME, CMQCFC.MQIACH_STOP_REQUESTED,
          CMQCFC.MQIACH_CHANNEL_SUBSTATE, CMQCFC.MQCACH_XMIT_Q_NAME)


def _name(value: bytes) -> str:
    return value.decode("utf-8").strip()


def _datadog_pcf(qmgr: pymqi.QueueManager) -> pymqi.PCFExecute:
    return pymqi.PCFExecute(qmgr, response_wait_interval=5000, convert=False)


# -- Datadog's channel collector --------------------------------------------------------------

def test_channels_discovered_and_their_definitions_gauged(qmgr):
    """Given APP.SVRCONN and the sender TO.ELSEWHERE, when Inquire Channel asks for ``*``,
    then both answer with their names and types; of the numbers the collector gauges, each
    one present is an int, the sender carries its batch size, batch interval, retry counts
    and timers and NPM speed, and the server-connection its sharing conversations,
    heartbeat and keepalive intervals."""
    pcf = None
    response = None
    try:
        pcf = _datadog_pcf(qmgr)
        response = pcf.MQCMD_INQUIRE_CHANNEL({CMQCFC.MQCACH_CHANNEL_NAME:
                                              pymqi.ensure_bytes("*")})
    finally:
        if pcf is not None:
            pcf.disconnect()
    channels = {_name(c[CMQCFC.MQCACH_CHANNEL_NAME]): c for c in response}
    assert channels[CHANNEL][CMQCFC.MQIACH_CHANNEL_TYPE] == CMQXC_SVRCONN
    assert channels[SENDER][CMQCFC.MQIACH_CHANNEL_TYPE] == CMQXC_SENDER
    for info in channels.values():
        assert all(isinstance(info[m], int) for m in CHANNEL_METRICS if m in info)
        assert isinstance(info.get(CMQCFC.MQCACH_DESC, b""), bytes)
    assert {CMQCFC.MQIACH_BATCH_SIZE, CMQCFC.MQIACH_BATCH_INTERVAL, CMQCFC.MQIACH_LONG_RETRY,
            CMQCFC.MQIACH_LONG_TIMER, CMQCFC.MQIACH_SHORT_RETRY, CMQCFC.MQIACH_SHORT_TIMER,
            CMQCFC.MQIACH_NPM_SPEED} <= set(channels[SENDER])
    assert {CMQCFC.MQIACH_SHARING_CONVERSATIONS, CMQCFC.MQIACH_HB_INTERVAL,
            CMQCFC.MQIACH_KEEP_ALIVE_INTERVAL} <= set(channels[CHANNEL])


CMQXC_SVRCONN = pymqi.CMQXC.MQCHT_SVRCONN
CMQXC_SENDER = pymqi.CMQXC.MQCHT_SENDER


def test_status_of_every_channel_counted_by_running_instances(qmgr):
    """Given an application connected through APP.SVRCONN, when Inquire Channel Status asks
    for ``*`` (no instance attributes), then APP.SVRCONN's instances carry what IBM always
    returns (instance type, name, status, type, connection name, remote application tag,
    remote queue manager, stop requested, substate, transmission queue) and the numbers
    the collector gauges are ints; every instance is MQCHS_RUNNING with MCA status running,
    so the active count of APP.SVRCONN is its number of instances, at least one."""
    pcf = _datadog_pcf(qmgr)
    try:
        response = pcf.MQCMD_INQUIRE_CHANNEL_STATUS({CMQCFC.MQCACH_CHANNEL_NAME:
                                                     pymqi.ensure_bytes("*")})
    finally:
        pcf.disconnect()
    active: dict[str, int] = {}
    for channel_info in response:
        channel_name = _name(channel_info[CMQCFC.MQCACH_CHANNEL_NAME])
        assert [p for p in ALWAYS if p not in channel_info] == [], channel_name
        assert all(isinstance(channel_info[m], int) for m in CHANNEL_STATUS_METRICS
                   if m in channel_info)
        if channel_info[CMQCFC.MQIACH_CHANNEL_STATUS] == CMQCFC.MQCHS_RUNNING:
            active[channel_name] = active.get(channel_name, 0) + 1
            assert channel_info[CMQCFC.MQIACH_MCA_STATUS] == CMQCFC.MQMCAS_RUNNING
    assert active.get(CHANNEL, 0) >= 1
    svrconn = [c for c in response if _name(c[CMQCFC.MQCACH_CHANNEL_NAME]) == CHANNEL][0]
    assert svrconn[CMQCFC.MQIACH_CHANNEL_INSTANCE_TYPE] == CMQC.MQOT_CURRENT_CHANNEL
    assert _name(svrconn[CMQCFC.MQCACH_XMIT_Q_NAME]) == ""
    assert _name(svrconn[CMQCFC.MQCACH_REMOTE_APPL_TAG])  # the client program's name
    assert svrconn[CMQCFC.MQIACH_CURRENT_SHARING_CONVS] >= 1
    assert svrconn[CMQCFC.MQIACH_MAX_SHARING_CONVS] == 10


@pytest.mark.parametrize("channel", [SENDER, "NO.SUCH.CHANNEL", "NOTHING.*"])
def test_a_channel_without_status_is_chl_status_not_found(qmgr, channel):
    """Given a channel defined and never started, one not defined, and a pattern matching
    no running channel, when the collector asks Inquire Channel Status for it, then the
    command fails with MQCC_FAILED MQRCCF_CHL_STATUS_NOT_FOUND (3065), which it tells from
    MQRC_NO_MSG_AVAILABLE (no reply) by comp and reason."""
    pcf = _datadog_pcf(qmgr)
    try:
        with pytest.raises(pymqi.MQMIError) as err:
            pcf.MQCMD_INQUIRE_CHANNEL_STATUS({CMQCFC.MQCACH_CHANNEL_NAME:
                                              pymqi.ensure_bytes(channel)})
    finally:
        pcf.disconnect()
    e = err.value
    assert e.comp == CMQC.MQCC_FAILED and e.reason == CMQCFC.MQRCCF_CHL_STATUS_NOT_FOUND
    assert e.reason != CMQC.MQRC_NO_MSG_AVAILABLE
    assert "MQRCCF_CHL_STATUS_NOT_FOUND" in str(e)


def test_version_parsed_as_four_two_digit_numbers(qmgr):
    """Given the queue manager, when Inquire Queue Manager asks for MQCA_VERSION, then the
    first response's value is eight digits the metadata collector splits into major,
    minor, modification and fix pack (as ints, major 9 or more)."""
    pcf = pymqi.PCFExecute(qmgr)
    resp = pcf.MQCMD_INQUIRE_Q_MGR({CMQCFC.MQIACF_Q_MGR_ATTRS: [CMQC.MQCA_VERSION]})
    pcf.disconnect()
    version = resp[0][CMQC.MQCA_VERSION].decode("utf-8")
    major, minor, mod, fix = [int(version[i:i + 2]) for i in range(0, len(version), 2)]
    assert major >= 9 and min(minor, mod, fix) >= 0


def test_queue_manager_numbers_by_mqinq(qmgr):
    """Given the connection, when the collector inquires MQIA_DIST_LISTS and
    MQIA_MAX_MSG_LENGTH of the queue manager, then each is an int (MQDL_SUPPORTED, and
    the MAXMSGL)."""
    assert qmgr.inquire(CMQC.MQIA_DIST_LISTS) == CMQC.MQDL_SUPPORTED
    assert qmgr.inquire(CMQC.MQIA_MAX_MSG_LENGTH) == 4194304


# -- a Zabbix-style collector -------------------------------------------------------------------

CHANNEL_SUBSTATE = {0: "Undefined State", 300: "Network receive", 1600: "Performing MQGET",
                    1700: "Executing IBM MQ API call", 1500: "Performing MQPUT",
                    200: "Network send", 100: "End of batch processing",
                    600: "Heartbeating with partner"}


def test_channel_status_with_instance_attributes_listed(qmgr):
    """Given an application connected through APP.SVRCONN, when Inquire Channel Status of
    ``*`` lists the instance attributes the collector reads, then APP.SVRCONN's response
    carries each (the bytes and buffers as ints under either name pymqi gives them,
    the start date as 12 characters, the substate one the table knows), besides what
    IBM always returns, and nothing the list did not ask for (no heartbeat interval)."""
    listed = [CMQCFC.MQCACH_CHANNEL_NAME, CMQCFC.MQCACH_CONNECTION_NAME,
              CMQCFC.MQIACH_CHANNEL_STATUS, CMQCFC.MQIACH_MSGS, CMQCFC.MQIACH_BYTES_SENT,
              CMQCFC.MQIACH_BYTES_RECEIVED, CMQCFC.MQIACH_BUFFERS_SENT,
              CMQCFC.MQIACH_BUFFERS_RECEIVED, CMQCFC.MQIACH_INDOUBT_STATUS,
              CMQCFC.MQIACH_CHANNEL_SUBSTATE, CMQCFC.MQCACH_CHANNEL_START_DATE,
              CMQCFC.MQCACH_CHANNEL_START_TIME]
    pcf = pymqi.PCFExecute(qmgr)
    channel_responses = pcf.MQCMD_INQUIRE_CHANNEL_STATUS({
        CMQCFC.MQCACH_CHANNEL_NAME: "*", CMQCFC.MQIACH_CHANNEL_INSTANCE_ATTRS: listed})
    pcf.disconnect()
    mine = [r for r in channel_responses
            if r[CMQCFC.MQCACH_CHANNEL_NAME].decode("utf-8").strip() == CHANNEL]
    assert mine
    response = mine[0]
    assert _name(response[CMQCFC.MQCACH_CONNECTION_NAME]) == "127.0.0.1"
    for number in (CMQCFC.MQIACH_MSGS, CMQCFC.MQIACH_BYTES_SENT, CMQCFC.MQIACH_BYTES_RCVD,
                   CMQCFC.MQIACH_BUFFERS_SENT, CMQCFC.MQIACH_BUFFERS_RCVD):
        assert isinstance(response[number], int)
    assert CHANNEL_SUBSTATE.get(response[CMQCFC.MQIACH_CHANNEL_SUBSTATE])
    assert len(response[CMQCFC.MQCACH_CHANNEL_START_DATE].decode("utf-8")) == 12
    assert len(response[CMQCFC.MQCACH_CHANNEL_START_TIME].decode("utf-8")) == 8
    # (IBM carries InDoubtStatus for message channels: a SVRCONN instance has none)
    assert set(response) - {CMQCFC.MQIACH_INDOUBT_STATUS} == \
        (set(listed) | set(ALWAYS)) - {CMQCFC.MQIACH_INDOUBT_STATUS}


def test_queue_manager_status_with_attributes_listed(qmgr):
    """Given the queue manager running with its channel initiator and command server, when
    Inquire Queue Manager Status lists the channel initiator's and command server's
    status, the connection count and the queue manager's status, then the one response
    names QM1, its status indexes "RUNNING" in the collector's list, and the connection
    count counts this program's connection at least."""
    queue_manager_status = ["", "STARTING", "RUNNING", "QUIESCING", "STANDBY"]
    pcf = pymqi.PCFExecute(qmgr)
    qmgr_responses = pcf.MQCMD_INQUIRE_Q_MGR_STATUS({CMQCFC.MQIACF_Q_MGR_STATUS_ATTRS: [
        CMQCFC.MQIACF_CHINIT_STATUS, CMQCFC.MQIACF_CMD_SERVER_STATUS,
        CMQCFC.MQIACF_CONNECTION_COUNT, CMQCFC.MQIACF_Q_MGR_STATUS]})
    pcf.disconnect()
    (response,) = qmgr_responses
    assert response[CMQC.MQCA_Q_MGR_NAME].decode("utf-8").strip() == QMGR
    assert queue_manager_status[response[CMQCFC.MQIACF_Q_MGR_STATUS]] == "RUNNING"
    assert response[CMQCFC.MQIACF_CONNECTION_COUNT] >= 1
    assert response[CMQCFC.MQIACF_CMD_SERVER_STATUS] == RUNNING
    assert response[CMQCFC.MQIACF_CHINIT_STATUS] == RUNNING


#: cmqc.h's MQSVC_STATUS_RUNNING (see the test below)
RUNNING = 2


def test_service_status_constants_a_program_compares_with():
    """Given pymqi's CMQC, when a program compares a listener's, the channel initiator's or
    the command server's status with MQSVC_STATUS_RUNNING, then the name is there, with
    cmqc.h's value, beside its siblings."""
    assert [getattr(CMQC, f"MQSVC_STATUS_{s}", None) for s in (
        "STOPPED", "STARTING", "RUNNING", "STOPPING", "RETRYING")] == [0, 1, RUNNING, 3, 4]
