"""stream-pymqi (SergeiVElfimov/stream-pymqi on GitHub), a FastStream-like producer,
consumer and worker pool over pymqi, written as it calls pymqi with ``import mqpy as
pymqi`` as the only change.

Its ``Connection`` makes ``pymqi.QueueManager(None)`` and calls ``connect_tcp_client(
queue_manager, pymqi.CD(), channel, f"{host}({port})", user, password)``, user and password
None unless configured; on MQMIError it starts a reconnect thread and re-raises; its
disconnect suppresses ``pymqi.MQMIError`` and ``pymqi.PYIFError``. Its producer then calls
``queue_manager.put(queue_name, data, pymqi.CMQC.MQMD_NONE, pymqi.CMQC.MQPMO_NONE)`` and its
consumer and workers ``queue_manager.get(queue_name, pymqi.CMQC.MQOD_NONE, gmo)``, and read
``e.mqrc`` of an MQMIError: none of which pymqi has (no QueueManager.put or get, no
MQMD_NONE or MQOD_NONE in its CMQC, no ``mqrc``). With pymqi the program connects and then
fails with AttributeError at its first put or get; these tests check mqpy answers the same,
so that such a program fails in the same place, not later or differently.
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Iterator

import pytest

import mqpy as pymqi
from tests.client.conftest import CHANNEL, Env
from tests.pymqi_compat.conftest import QMGR, QUEUE, program_env

pytestmark = pytest.mark.timeout(120)


@pytest.fixture(scope="module")
def env(tmp_path_factory) -> Iterator[Env]:
    yield from program_env(tmp_path_factory, "stream")


class Connection:
    """The program's connection manager, as it writes it (without its sleep loop)."""

    def __init__(self, host: str, port: int, user: str | None = None,
                 password: str | None = None) -> None:
        self.host, self.port, self.user, self.password = host, port, user, password
        self.queue_manager: pymqi.QueueManager | None = None
        self.connected = False
        self.reconnects = 0

    def connect(self) -> None:
        if self.connected:
            return
        try:
            self.queue_manager = pymqi.QueueManager(None)
            self.queue_manager.connect_tcp_client(QMGR, pymqi.CD(), CHANNEL,
                                                  f"{self.host}({self.port})",
                                                  self.user, self.password)
            self.connected = True
        except pymqi.MQMIError:
            self.reconnects += 1  # the program starts its reconnect thread here
            raise

    def disconnect(self) -> None:
        if self.queue_manager:
            with contextlib.suppress(pymqi.MQMIError, pymqi.PYIFError):
                self.queue_manager.disconnect()
            self.queue_manager = None
        self.connected = False


@pytest.mark.parametrize("user, password", [(None, None), ("", "")])
def test_connecting_with_a_fresh_cd_and_no_user(env, user, password):
    """Given the program's configuration without credentials (None, or empty from a YAML
    file), when it connects with ``connect_tcp_client`` and a new CD, then it is connected,
    and its disconnect leaves it disconnected; a second disconnect of the same
    QueueManager is pymqi's PYIFError, which the program suppresses."""
    conn = Connection("127.0.0.1", env.chinit.port, user, password)
    conn.connect()
    qmgr = conn.queue_manager
    assert qmgr is not None and qmgr.is_connected
    conn.disconnect()
    assert not qmgr.is_connected
    with pytest.raises(pymqi.PYIFError):
        qmgr.disconnect()


def test_a_refused_connection_is_an_mqmierror_the_program_retries(env):
    """Given a port nothing listens on, when the program connects, then the MQMIError it
    catches to start reconnecting is comp 2, reason MQRC_HOST_NOT_AVAILABLE, and its later
    disconnect (of a QueueManager never connected) raises nothing it does not suppress."""
    conn = Connection("127.0.0.1", 1)
    with pytest.raises(pymqi.MQMIError) as err:
        conn.connect()
    assert (err.value.comp, err.value.reason) == (2, pymqi.CMQC.MQRC_HOST_NOT_AVAILABLE)
    assert conn.reconnects == 1
    conn.disconnect()


def test_the_producers_put_fails_where_it_fails_with_pymqi(env):
    """Given a connected program, when its producer sends, then, as with pymqi, the call
    is an AttributeError (QueueManager has no ``put``; CMQC has no MQMD_NONE), and nothing
    was put: the connection still works and APP.Q is empty."""
    conn = Connection("127.0.0.1", env.chinit.port)
    conn.connect()
    qmgr = conn.queue_manager
    try:
        with pytest.raises(AttributeError, match="put"):
            qmgr.put(QUEUE, b"data", pymqi.CMQC.MQMD_NONE, pymqi.CMQC.MQPMO_NONE)
        with pytest.raises(AttributeError, match="MQMD_NONE"):
            pymqi.CMQC.MQMD_NONE  # noqa: B018 - the attribute look-up is the check
        assert pymqi.CMQC.MQPMO_NONE == 0
        assert pymqi.Queue(qmgr, QUEUE).inquire(pymqi.CMQC.MQIA_CURRENT_Q_DEPTH) == 0
    finally:
        conn.disconnect()


def test_the_consumers_get_fails_where_it_fails_with_pymqi(env):
    """Given a connected program, when its consumer (or a worker of its pool, on a thread)
    gets with MQGMO_WAIT and MQWI_UNLIMITED, then, as with pymqi, the call is an
    AttributeError at once (QueueManager has no ``get``; CMQC has no MQOD_NONE): no wait."""
    conn = Connection("127.0.0.1", env.chinit.port)
    conn.connect()
    failures: list[BaseException] = []

    def worker() -> None:
        gmo = pymqi.GMO()
        gmo.WaitInterval = pymqi.CMQC.MQWI_UNLIMITED
        gmo.Options = pymqi.CMQC.MQGMO_WAIT | pymqi.CMQC.MQGMO_FAIL_IF_QUIESCING
        try:
            conn.queue_manager.get(QUEUE, pymqi.CMQC.MQOD_NONE, gmo)
        except BaseException as e:  # noqa: BLE001 - the thread's failure is the answer
            failures.append(e)

    thread = threading.Thread(target=worker, daemon=True)
    thread.start()
    thread.join(10)
    conn.disconnect()
    assert not thread.is_alive()
    assert [type(f) for f in failures] == [AttributeError]


def test_an_mqmierror_has_reason_not_mqrc():
    """Given the program's ``e.mqrc == MQRC_Q_MGR_QUIESCING`` in its error handler, then,
    as with pymqi, an MQMIError has ``comp`` and ``reason`` but no ``mqrc``."""
    error = pymqi.MQMIError(pymqi.CMQC.MQCC_FAILED, pymqi.CMQC.MQRC_Q_MGR_QUIESCING)
    assert (error.comp, error.reason) == (2, 2161)
    assert not hasattr(error, "mqrc")
