"""The status fields a monitoring program reads, complete and filled as IBM MQ fills them:
a handle's ApplDesc, HandleState, QMgrUOWId and ExternalUOWId (DISPLAY QSTATUS TYPE(HANDLE)
APPLDESC, HSTATE, QMURID, URID); a queue's OnQTime (QTIME) under queue monitoring and its
last get and put (blank with MONQ OFF); a server-connection channel instance's MCAJobName,
MCAStatus, compression and TLS key-reset fields. Each over bindings and over a client
connection through APP.SVRCONN, with pymqi's PCFExecute, and as DISPLAY shows it.

IBM's references: "Inquire Queue Status (Response)" (a handle: ApplDesc, ApplTag, ApplType,
AsynchronousState, ChannelName, ConnectionName, ExternalUOWId, HandleState, OpenOptions,
ProcessId, QMgrUOWId, ThreadId, UOWIdentifier, UOWType, UserIdentifier on Multiplatforms),
"Inquire Channel Status (Response)" and DISPLAY QSTATUS / DISPLAY CHSTATUS, whose output on
Multiplatforms reads ``APPLDESC(IBM MQ Channel)``, ``QMURID(0.28672)``,
``URID(XA_FORMATID[] XA_GTRID[] XA_BQUAL[])``, ``QTIME( , )`` with MONQ(OFF).
"""

from __future__ import annotations

import re
import threading
import time
from collections.abc import Iterator

import pytest

import mqpy as pymqi
from mqpy.mqsc.processor import MQSCProcessor
from tests.client.conftest import CHANNEL, Env, drain
from tests.pymqi_compat.conftest import QMGR, program_env
from tests.support.waiting import came_true

pytestmark = pytest.mark.timeout(120)

MODES = ("bindings", "client")
CMQC, CMQCFC, CMQXC = pymqi.CMQC, pymqi.CMQCFC, pymqi.CMQXC
TIMED = "MON.QTIME"  #: a queue only the time-on-queue tests use
WATCHED = "MON.LAST"  #: a queue only the last get / put tests use
WAITED = "MON.WAITED"  #: a queue only the waiting get's test uses


@pytest.fixture(scope="module")
def env(tmp_path_factory) -> Iterator[Env]:
    def define(made: Env) -> None:
        made.define("QLOCAL", TIMED)
        made.define("QLOCAL", WATCHED)
        made.define("QLOCAL", WAITED)

    yield from program_env(tmp_path_factory, "monitoring_status_fields", define)


@pytest.fixture(params=MODES)
def qmgr(request, env: Env) -> Iterator[pymqi.QueueManager]:
    if request.param == "client":
        qm = pymqi.connect(QMGR, CHANNEL, env.conn_info)
    else:
        qm = pymqi.connect(QMGR)
    try:
        yield qm
    finally:
        for q in (TIMED, WATCHED, "APP.Q"):
            drain(qm, q)
        qm.disconnect()


def _client(request) -> bool:
    return request.node.callspec.params["qmgr"] == "client"


def _monq(qmgr: pymqi.QueueManager, level: int) -> None:
    pcf = pymqi.PCFExecute(qmgr)
    try:
        pcf.MQCMD_CHANGE_Q_MGR({CMQC.MQIA_MONITORING_Q: level})
    finally:
        pcf.disconnect()


@pytest.fixture
def monitoring_on(qmgr) -> Iterator[None]:
    """ALTER QMGR MONQ(MEDIUM) for the test, OFF (the default) after."""
    _monq(qmgr, CMQC.MQMON_MEDIUM)
    try:
        yield
    finally:
        _monq(qmgr, CMQC.MQMON_OFF)


def _display(env: Env, command: str) -> dict[str, str]:
    """The KEY(value) pairs of a DISPLAY answering about one object, as runmqsc shows them
    (a value's inner blanks kept)."""
    result = MQSCProcessor(env.engine).execute_text(command)
    text = " ".join(result.lines)
    return dict(re.findall(r"([A-Z]+)\(([^)]*)\)", text))


def _text(value: bytes) -> str:
    return value.decode("utf-8").strip()


# -- a handle's status -------------------------------------------------------------------------

def _my_handle(qmgr, queue_name: str = "APP.Q") -> dict:
    pcf = pymqi.PCFExecute(qmgr)
    try:
        handles = pcf.MQCMD_INQUIRE_Q_STATUS({
            CMQC.MQCA_Q_NAME: queue_name,
            CMQCFC.MQIACF_Q_STATUS_TYPE: CMQCFC.MQIACF_Q_HANDLE})
    finally:
        pcf.disconnect()
    mine = [h for h in handles if h.get(CMQCFC.MQIACF_OPEN_OPTIONS, 0) & CMQC.MQOO_INQUIRE]
    assert len(mine) == 1, handles
    return mine[0]


def test_handle_status_carries_appl_desc_handle_state_and_unit_of_work_ids(qmgr, request):
    """Given the program's handle on APP.Q (open for output and inquire) and no unit of work,
    when Inquire Queue Status asks for handles, then the response carries ApplDesc ("IBM MQ
    Channel" through a server-connection channel, as IBM names its channel process; blank
    over bindings), HandleState MQHSTATE_INACTIVE, QMgrUOWId ``0.0`` and ExternalUOWId an
    empty byte string (the queue manager's own unit of work has no external id)."""
    queue = pymqi.Queue(qmgr, "APP.Q", CMQC.MQOO_OUTPUT | CMQC.MQOO_INQUIRE)
    try:
        handle = _my_handle(qmgr)
    finally:
        queue.close()
    assert _text(handle[CMQCFC.MQCACF_APPL_DESC]) == ("IBM MQ Channel" if _client(request)
                                                      else "")
    assert len(handle[CMQCFC.MQCACF_APPL_DESC]) == CMQC.MQ_APPL_DESC_LENGTH
    assert handle[CMQCFC.MQIACF_HANDLE_STATE] == CMQCFC.MQHSTATE_INACTIVE
    assert _text(handle[CMQCFC.MQCACF_Q_MGR_UOW_ID]) == "0.0"
    assert handle[CMQCFC.MQBACF_EXTERNAL_UOW_ID] == b""
    assert handle[CMQCFC.MQIACF_UOW_TYPE] == CMQCFC.MQUOWT_Q_MGR


def test_a_handle_waiting_in_mqget_is_active_until_its_wait_ends(qmgr, env):
    """Given the program's handle on a queue open for input, when its MQGET with MQGMO_WAIT
    waits (in another thread), then DISPLAY QSTATUS TYPE(HANDLE) shows HSTATE(ACTIVE), as
    IBM's does while an MQGET WAIT is in progress; once a message has ended the wait, and
    the get has returned it, HSTATE(INACTIVE)."""
    queue = pymqi.Queue(qmgr, WAITED, CMQC.MQOO_INPUT_AS_Q_DEF)
    got: list[bytes] = []
    waiting = threading.Thread(target=lambda: got.append(queue.get(
        None, pymqi.MD(), pymqi.GMO(Options=CMQC.MQGMO_WAIT, WaitInterval=30_000))))
    waiting.start()

    def state() -> str:
        return _display(env, f"DISPLAY QSTATUS({WAITED}) TYPE(HANDLE) HSTATE").get("HSTATE", "")
    try:
        assert came_true(lambda: state() == "ACTIVE"), state()
        other = pymqi.connect(QMGR)
        try:
            other.put1(WAITED, b"ends the wait")
        finally:
            other.disconnect()
        waiting.join(20)
        assert got == [b"ends the wait"]
        assert state() == "INACTIVE"
    finally:
        waiting.join(35)
        queue.close()


def test_a_unit_of_work_in_progress_shows_its_queue_manager_id(qmgr, env):
    """Given the program's handle with a message put under syncpoint (a unit of work in
    progress), when its handle status is asked by PCF and by DISPLAY QSTATUS TYPE(HANDLE)
    ALL, then QMgrUOWId is the unit of work's id as IBM shows it, two numbers with a dot
    (not 0.0), the same in both; DISPLAY shows APPLDESC, HSTATE(INACTIVE), QMURID and
    URID(XA_FORMATID[] XA_GTRID[] XA_BQUAL[]) with URTYPE(QMGR); after the commit it is
    0.0 again."""
    queue = pymqi.Queue(qmgr, "APP.Q", CMQC.MQOO_OUTPUT | CMQC.MQOO_INQUIRE)
    try:
        queue.put(b"in a unit of work", pymqi.MD(),
                  pymqi.PMO(Options=CMQC.MQPMO_SYNCPOINT))
        during = _text(_my_handle(qmgr)[CMQCFC.MQCACF_Q_MGR_UOW_ID])
        lines = MQSCProcessor(env.engine).execute_text(
            "DISPLAY QSTATUS(APP.Q) TYPE(HANDLE) ALL").lines
        qmgr.commit()
        after = _text(_my_handle(qmgr)[CMQCFC.MQCACF_Q_MGR_UOW_ID])
    finally:
        queue.close()
    assert re.fullmatch(r"\d+\.\d+", during) and during != "0.0"
    assert after == "0.0"
    text = "\n".join(lines)
    assert f"QMURID({during})" in text, text
    assert "URID(XA_FORMATID[] XA_GTRID[] XA_BQUAL[])" in text
    assert "HSTATE(INACTIVE)" in text and "URTYPE(QMGR)" in text and "APPLDESC(" in text


def test_display_conn_shows_appl_desc_and_the_unit_of_work_ids(qmgr, env, request):
    """Given the program's connection, when DISPLAY CONN(*) ALL is issued, then its
    connection shows APPLDESC as the handle does, QMURID(0.0), URTYPE(QMGR) and
    EXTURID(XA_FORMATID[] XA_GTRID[] XA_BQUAL[]), as IBM's DISPLAY CONN does."""
    channel = CHANNEL if _client(request) else " "
    lines = MQSCProcessor(env.engine).execute_text(
        f"DISPLAY CONN(*) WHERE(CHANNEL EQ '{channel.strip()}') ALL").lines
    text = "\n".join(lines)
    assert "QMURID(0.0)" in text and "URTYPE(QMGR)" in text
    assert "EXTURID(XA_FORMATID[] XA_GTRID[] XA_BQUAL[])" in text
    assert ("APPLDESC(IBM MQ Channel)" if _client(request) else "APPLDESC( )") in text


def test_inquire_connection_answers_appl_desc(qmgr, request):
    """Given the program's connection, when Inquire Connection asks every connection's
    ApplDesc and ChannelName, then those through APP.SVRCONN answer "IBM MQ Channel" and
    those over bindings a blank ApplDesc, 64 characters either way."""
    pcf = pymqi.PCFExecute(qmgr)
    try:
        conns = pcf.MQCMD_INQUIRE_CONNECTION({
            CMQCFC.MQBACF_GENERIC_CONNECTION_ID: b"",
            CMQCFC.MQIACF_CONNECTION_ATTRS: [CMQCFC.MQCACF_APPL_DESC,
                                             CMQCFC.MQCACH_CHANNEL_NAME]})
    finally:
        pcf.disconnect()
    seen = {(_text(c[CMQCFC.MQCACH_CHANNEL_NAME]), _text(c[CMQCFC.MQCACF_APPL_DESC]),
             len(c[CMQCFC.MQCACF_APPL_DESC])) for c in conns}
    mine = (CHANNEL, "IBM MQ Channel", 64) if _client(request) else ("", "", 64)
    assert mine in seen, seen
    assert all(desc == ("IBM MQ Channel" if channel else "") for channel, desc, _ in seen)


# -- a queue's monitoring fields ---------------------------------------------------------------

def _queue_status(qmgr, name: str) -> dict:
    pcf = pymqi.PCFExecute(qmgr)
    try:
        (status,) = pcf.MQCMD_INQUIRE_Q_STATUS({CMQC.MQCA_Q_NAME: name})
    finally:
        pcf.disconnect()
    return status


def test_on_queue_time_with_monitoring_off_is_not_available(qmgr, env):
    """Given MONQ(OFF) and messages put to and got from MON.QTIME, when its status is
    asked, then OnQTime is MQMON_NOT_AVAILABLE twice and DISPLAY QSTATUS shows
    QTIME( , ), as IBM shows it."""
    queue = pymqi.Queue(qmgr, TIMED, CMQC.MQOO_OUTPUT | CMQC.MQOO_INPUT_SHARED)
    queue.put(b"timed")
    queue.get()
    queue.close()
    status = _queue_status(qmgr, TIMED)
    assert list(status[CMQCFC.MQIACF_Q_TIME_INDICATOR]) == [CMQC.MQMON_NOT_AVAILABLE] * 2
    lines = MQSCProcessor(env.engine).execute_text(f"DISPLAY QSTATUS({TIMED}) ALL").lines
    assert any("QTIME( , )" in line for line in lines), lines


def test_on_queue_time_with_monitoring_on_measures_the_wait(qmgr, env, monitoring_on):
    """Given MONQ(MEDIUM) and three messages that each waited about 0.3 s on MON.QTIME
    before they were got, when its status is asked, then OnQTime is two times in
    microseconds, each between 0.25 s and 30 s, and DISPLAY QSTATUS shows the same pair as
    QTIME(short,long); a message that waited almost nothing afterwards moves the short-term
    value down more than the long-term one."""
    queue = pymqi.Queue(qmgr, TIMED, CMQC.MQOO_OUTPUT | CMQC.MQOO_INPUT_SHARED)
    try:
        for body in (b"1", b"2", b"3"):
            queue.put(body)
        time.sleep(0.3)
        for _ in range(3):
            queue.get()
        first = list(_queue_status(qmgr, TIMED)[CMQCFC.MQIACF_Q_TIME_INDICATOR])
        shown = _display(env, f"DISPLAY QSTATUS({TIMED}) QTIME")["QTIME"]
        queue.put(b"quick")
        queue.get()
    finally:
        queue.close()
    second = list(_queue_status(qmgr, TIMED)[CMQCFC.MQIACF_Q_TIME_INDICATOR])
    assert all(250_000 <= t <= 30_000_000 for t in first), first
    assert shown == f"{first[0]},{first[1]}"
    short_drop, long_drop = first[0] - second[0], first[1] - second[1]
    assert short_drop > long_drop > 0, (first, second)


def test_last_get_and_put_are_blank_with_monitoring_off(qmgr, env):
    """Given MONQ(OFF) and a message put to and got from MON.LAST, when its status is asked
    by PCF and by DISPLAY QSTATUS, then LastPutDate, LastPutTime, LastGetDate and
    LastGetTime are blank (12 and 8 blanks), as IBM fills the monitoring fields only with
    queue monitoring on."""
    queue = pymqi.Queue(qmgr, WATCHED, CMQC.MQOO_OUTPUT | CMQC.MQOO_INPUT_SHARED)
    queue.put(b"watched")
    queue.get()
    queue.close()
    status = _queue_status(qmgr, WATCHED)
    dates = [status[p] for p in (CMQCFC.MQCACF_LAST_PUT_DATE, CMQCFC.MQCACF_LAST_PUT_TIME,
                                 CMQCFC.MQCACF_LAST_GET_DATE, CMQCFC.MQCACF_LAST_GET_TIME)]
    assert dates == [b" " * 12, b" " * 8, b" " * 12, b" " * 8]
    shown = _display(env, f"DISPLAY QSTATUS({WATCHED}) MONITOR")
    assert [shown[k] for k in ("LPUTDATE", "LPUTTIME", "LGETDATE", "LGETTIME")] == [" "] * 4


def test_last_get_and_put_are_dated_with_monitoring_on(qmgr, env, monitoring_on):
    """Given MONQ(MEDIUM) and a message put to and got from MON.LAST, when its status is
    asked, then LastPutDate / LastGetDate are today's date (yyyy-mm-dd) and the times
    hh.mm.ss, by PCF as DISPLAY QSTATUS MONITOR shows them."""
    queue = pymqi.Queue(qmgr, WATCHED, CMQC.MQOO_OUTPUT | CMQC.MQOO_INPUT_SHARED)
    queue.put(b"watched")
    queue.get()
    queue.close()
    status = _queue_status(qmgr, WATCHED)
    shown = _display(env, f"DISPLAY QSTATUS({WATCHED}) MONITOR")
    for date_p, time_p, date_k, time_k in (
            (CMQCFC.MQCACF_LAST_PUT_DATE, CMQCFC.MQCACF_LAST_PUT_TIME, "LPUTDATE", "LPUTTIME"),
            (CMQCFC.MQCACF_LAST_GET_DATE, CMQCFC.MQCACF_LAST_GET_TIME, "LGETDATE", "LGETTIME")):
        assert re.fullmatch(r"\d{4}-\d\d-\d\d", _text(status[date_p]))
        assert re.fullmatch(r"\d\d\.\d\d\.\d\d", _text(status[time_p]))
        assert shown[date_k] == _text(status[date_p])
        assert re.fullmatch(r"\d\d\.\d\d\.\d\d", shown[time_k])


# -- a server-connection channel instance's status ----------------------------------------------

def _svrconn_status(qmgr) -> dict:
    pcf = pymqi.PCFExecute(qmgr)
    try:
        response = pcf.MQCMD_INQUIRE_CHANNEL_STATUS({CMQCFC.MQCACH_CHANNEL_NAME: CHANNEL})
    finally:
        pcf.disconnect()
    return response[0]


@pytest.fixture
def application(env: Env, request) -> Iterator[None]:
    """Over bindings, an application connected through APP.SVRCONN, so that the channel has
    a status to show."""
    other = None if _client(request) else pymqi.connect(QMGR, CHANNEL, env.conn_info)
    try:
        yield
    finally:
        if other is not None:
            other.disconnect()


def test_svrconn_status_carries_job_name_mca_status_and_the_fixed_fields(qmgr, env,
                                                                          application):
    """Given an application connected through APP.SVRCONN, when Inquire Channel Status asks
    for it, then the instance carries MCAJobName (16 hex digits: the MCA's process and
    thread, as IBM's Multiplatforms show JOBNAME), MCAStatus MQMCAS_RUNNING, HeaderCompression
    and MessageCompression [MQCOMPRESS_NONE, MQCOMPRESS_NONE], SSLKeyResets 0 with blank
    SSLKeyResetDate / Time, and no CurrentMsgs (a message channel's); DISPLAY CHSTATUS ALL
    shows JOBNAME, MCASTAT(RUNNING), COMPHDR(NONE,NONE), COMPMSG(NONE,NONE), SSLRKEYS(0)."""
    status = _svrconn_status(qmgr)
    assert re.fullmatch(r"[0-9A-F]{16}", _text(status[CMQCFC.MQCACH_MCA_JOB_NAME]))
    assert len(status[CMQCFC.MQCACH_MCA_JOB_NAME]) == CMQC.MQ_MCA_JOB_NAME_LENGTH
    assert status[CMQCFC.MQIACH_MCA_STATUS] == CMQCFC.MQMCAS_RUNNING
    for parameter in (CMQCFC.MQIACH_HDR_COMPRESSION, CMQCFC.MQIACH_MSG_COMPRESSION):
        assert list(status[parameter]) == [CMQXC.MQCOMPRESS_NONE] * 2
    assert status[CMQCFC.MQIACH_SSL_KEY_RESETS] == 0
    assert _text(status[CMQCFC.MQCACH_SSL_KEY_RESET_DATE]) == ""
    assert CMQCFC.MQIACH_CURRENT_MSGS not in status
    shown = _display(env, f"DISPLAY CHSTATUS({CHANNEL}) ALL")
    assert re.fullmatch(r"[0-9A-F]{16}", shown["JOBNAME"])
    assert (shown["MCASTAT"], shown["COMPHDR"], shown["COMPMSG"], shown["SSLRKEYS"]) == (
        "RUNNING", "NONE,NONE", "NONE,NONE", "0")


def test_svrconn_status_carries_the_client_s_product_and_the_local_address(qmgr, env,
                                                                            application):
    """Given a mqpy client connected through APP.SVRCONN (its initial data's ProductId
    MQPY0100), when Inquire Channel Status asks for it, then RemoteProduct is MQPY and
    RemoteVersion 0100 as the client announces them (IBM's C client would say MQCC and its
    VVRRMMFF), and LocalAddress is the listener's end of the connection,
    127.0.0.1(port), and SecurityProtocol MQSECPROT_NONE (a plain connection)."""
    status = _svrconn_status(qmgr)
    assert _text(status[CMQCFC.MQCACH_REMOTE_PRODUCT]) == "MQPY"
    assert _text(status[CMQCFC.MQCACH_REMOTE_VERSION]) == "0100"
    assert _text(status[CMQCFC.MQCACH_LOCAL_ADDRESS]) == f"127.0.0.1({env.chinit.port})"
    assert status[CMQCFC.MQIACH_SECURITY_PROTOCOL] == CMQXC.MQSECPROT_NONE
