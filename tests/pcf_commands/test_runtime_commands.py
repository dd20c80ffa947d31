"""The PCF commands on what runs: Start / Stop Channel Listener and Stop Connection, each
answered as IBM's command server answers it (not MQRCCF_CFH_COMMAND_ERROR)."""

from __future__ import annotations

import socket
import threading
import time

import pytest

import mqpy
from mqpy import CMQC, CMQCFC, CMQXC
from tests.pcf_commands.conftest import reason_of
from tests.support.waiting import came_true

pytestmark = pytest.mark.timeout(60)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _listening(port: int) -> bool:
    with socket.socket() as s:
        return s.connect_ex(("127.0.0.1", port)) == 0


def test_start_and_stop_channel_listener(admin, env):
    """Given a TCP listener defined on a free port, when Start Channel Listener names it,
    then the port accepts connections and Inquire Listener Status shows it; when Stop
    Channel Listener names it, then the port is closed. A listener no object defines is
    refused MQRCCF_OBJECT_NAME_ERROR, a request without ListenerName
    MQRCCF_PARM_COUNT_TOO_SMALL."""
    port = _free_port()
    admin.MQCMD_CREATE_LISTENER({CMQCFC.MQCACH_LISTENER_NAME: b"PCF.LISTENER",
                                 CMQCFC.MQIACH_XMIT_PROTOCOL_TYPE: CMQXC.MQXPT_TCP,
                                 CMQCFC.MQCACH_IP_ADDRESS: b"127.0.0.1",
                                 CMQCFC.MQIACH_PORT: port})
    admin.MQCMD_START_CHANNEL_LISTENER({CMQCFC.MQCACH_LISTENER_NAME: b"PCF.LISTENER"})
    assert came_true(lambda: _listening(port), 10)
    (status,) = admin.MQCMD_INQUIRE_LISTENER_STATUS(
        {CMQCFC.MQCACH_LISTENER_NAME: b"PCF.LISTENER"})
    assert status[CMQCFC.MQIACH_PORT] == port
    admin.MQCMD_STOP_CHANNEL_LISTENER({CMQCFC.MQCACH_LISTENER_NAME: b"PCF.LISTENER"})
    assert came_true(lambda: not _listening(port), 10)
    assert reason_of(lambda: admin.MQCMD_START_CHANNEL_LISTENER(
        {CMQCFC.MQCACH_LISTENER_NAME: b"NO.SUCH.LISTENER"})) == CMQCFC.MQRCCF_OBJECT_NAME_ERROR
    assert reason_of(lambda: admin.MQCMD_STOP_CHANNEL_LISTENER({})) \
        == CMQCFC.MQRCCF_PARM_COUNT_TOO_SMALL


def test_stop_connection_breaks_the_connection_it_names(admin, env):
    """Given a second application connected with a queue open, when Stop Connection names
    the ConnectionId Inquire Connection gave for it, then its next call fails
    MQRC_CONNECTION_BROKEN and Inquire Connection no longer lists it; a ConnectionId no
    connection has is MQRCCF_CONNECTION_ID_ERROR, and so is one of the wrong length."""
    app = env.bindings()
    queue = mqpy.Queue(app, "APP.Q", CMQC.MQOO_OUTPUT)
    queue.put(b"before")
    found = admin.MQCMD_INQUIRE_CONNECTION({CMQCFC.MQBACF_GENERIC_CONNECTION_ID: b"",
                                            CMQCFC.MQIACF_CONN_INFO_TYPE:
                                                CMQCFC.MQIACF_CONN_INFO_HANDLE})
    (conn_id,) = {c[CMQCFC.MQBACF_CONNECTION_ID] for c in found
                  if c[CMQCFC.MQCACF_OBJECT_NAME].strip() == b"APP.Q"}
    admin.MQCMD_STOP_CONNECTION({CMQCFC.MQBACF_CONNECTION_ID: conn_id})
    assert reason_of(lambda: queue.put(b"after")) == CMQC.MQRC_CONNECTION_BROKEN
    left = admin.MQCMD_INQUIRE_CONNECTION({CMQCFC.MQBACF_GENERIC_CONNECTION_ID: b""})
    assert conn_id not in {c[CMQCFC.MQBACF_CONNECTION_ID] for c in left}
    assert reason_of(lambda: admin.MQCMD_STOP_CONNECTION(
        {CMQCFC.MQBACF_CONNECTION_ID: conn_id})) == CMQCFC.MQRCCF_CONNECTION_ID_ERROR
    assert reason_of(lambda: admin.MQCMD_STOP_CONNECTION(
        {CMQCFC.MQBACF_CONNECTION_ID: b"short"})) == CMQCFC.MQRCCF_CONNECTION_ID_ERROR
    assert env.depth() == 1


def test_stop_connection_ends_a_waiting_get(admin, env):
    """Given an application waiting in MQGET (MQGMO_WAIT, 20 seconds) on an empty queue,
    when Stop Connection names its connection, then the get ends at once with
    MQRC_CONNECTION_BROKEN, as IBM cancels the wait."""
    app = env.bindings()
    queue = mqpy.Queue(app, "APP.REPLY", CMQC.MQOO_INPUT_AS_Q_DEF)
    outcome: dict[str, float] = {}

    def wait_for_a_message() -> None:
        started = time.monotonic()
        try:
            queue.get(None, mqpy.MD(), mqpy.GMO(Options=CMQC.MQGMO_WAIT, WaitInterval=20000))
        except mqpy.MQMIError as err:
            outcome["reason"], outcome["after"] = err.reason, time.monotonic() - started

    waiter = threading.Thread(target=wait_for_a_message)
    waiter.start()
    found = admin.MQCMD_INQUIRE_CONNECTION({CMQCFC.MQBACF_GENERIC_CONNECTION_ID: b"",
                                            CMQCFC.MQIACF_CONN_INFO_TYPE:
                                                CMQCFC.MQIACF_CONN_INFO_HANDLE})
    (conn_id,) = {c[CMQCFC.MQBACF_CONNECTION_ID] for c in found
                  if c[CMQCFC.MQCACF_OBJECT_NAME].strip() == b"APP.REPLY"}
    time.sleep(0.3)  # the get is waiting
    admin.MQCMD_STOP_CONNECTION({CMQCFC.MQBACF_CONNECTION_ID: conn_id})
    waiter.join(10)
    assert outcome["reason"] == CMQC.MQRC_CONNECTION_BROKEN
    assert outcome["after"] < 5
