"""pymqiwm (Hyaxia/pymqiwm on GitHub), a wrapper of pymqi, written as it calls pymqi with
``import mqpy as pymqi`` as the only change.

Its ``WMQueueManager`` subclasses ``pymqi.QueueManager``: ``__init__(None)``, then
``connect_with_options(name, user=None, password=None, cd=<an MQCD of
MQCHT_CLNTCONN/MQXPT_TCP>, opts=MQCNO_HANDLE_SHARE_BLOCK)`` in ``__enter__``; PCF through
``PCFExecute(self)``: MQCMD_INQUIRE_Q ({MQCA_Q_NAME: generic, MQIA_Q_TYPE: MQQT_ALL}; an
MQRC_UNKNOWN_OBJECT_NAME is "no queue"), MQCMD_INQUIRE_CHANNEL, MQCMD_CREATE_Q (with
MQIA_MAX_Q_DEPTH), MQCMD_DELETE_Q (MQIACF_PURGE: MQPO_YES) and MQCMD_RESET_Q_STATS (its
first reply's MQIA_TIME_SINCE_RESET, MQIA_HIGH_Q_DEPTH, MQIA_MSG_DEQ_COUNT,
MQIA_MSG_ENQ_COUNT).

Its ``WMQueue`` makes ``pymqi.Queue(qmgr, name)`` (no open), opens it in ``__enter__`` with
``queue.open(name)`` -- no options: pymqi's deferred open, made by the first put (for
output), get (for input) or inquire (for inquire) -- and reopens it the same way after
MQRC_NOT_OPEN_FOR_OUTPUT / _INPUT; reads with MQGMO_WAIT, browses with
``open(name, MQOO_BROWSE)`` and MQGMO_BROWSE_NEXT, resetting MsgId, CorrelId and GroupId
to MQMI_NONE, MQCI_NONE and MQGI_NONE between gets; ``depth()`` is
``queue.inquire(MQIA_CURRENT_Q_DEPTH)`` on whatever handle the queue has.

Before: ``Queue.open(name)`` without options opened the queue for output at once, so a
WMQueue's first get failed MQRC_NOT_OPEN_FOR_INPUT, and again after its reopen.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

import mqpy as pymqi
from mqpy.CMQC import (
    MQCA_Q_NAME,
    MQCHT_CLNTCONN,
    MQCI_NONE,
    MQCNO_HANDLE_SHARE_BLOCK,
    MQGI_NONE,
    MQGMO_BROWSE_NEXT,
    MQGMO_FAIL_IF_QUIESCING,
    MQGMO_WAIT,
    MQIA_CURRENT_Q_DEPTH,
    MQIA_HIGH_Q_DEPTH,
    MQIA_MAX_Q_DEPTH,
    MQIA_MSG_DEQ_COUNT,
    MQIA_MSG_ENQ_COUNT,
    MQIA_Q_TYPE,
    MQIA_TIME_SINCE_RESET,
    MQMI_NONE,
    MQOO_BROWSE,
    MQQT_ALL,
    MQQT_LOCAL,
    MQRC_NO_MSG_AVAILABLE,
    MQRC_NOT_OPEN_FOR_INPUT,
    MQRC_NOT_OPEN_FOR_INQUIRE,
    MQRC_NOT_OPEN_FOR_OUTPUT,
    MQRC_UNKNOWN_OBJECT_NAME,
    MQWI_UNLIMITED,
    MQXPT_TCP,
)
from mqpy.CMQCFC import MQCACH_CHANNEL_NAME, MQIACF_PURGE, MQPO_YES, MQRCCF_CHANNEL_NOT_FOUND
from tests.client.conftest import CHANNEL, Env, drain
from tests.pymqi_compat.conftest import QMGR, QUEUE, program_env

pytestmark = pytest.mark.timeout(120)


@pytest.fixture(scope="module")
def env(tmp_path_factory) -> Iterator[Env]:
    yield from program_env(tmp_path_factory, "pymqiwm")


class WMQueueManager(pymqi.QueueManager):
    """The program's QueueManager: connected in ``with``, PCF through PCFExecute(self)."""

    def __init__(self, qmgr_name: str, conn_info: str, channel: str = CHANNEL,
                 user: str | None = None, password: str | None = None) -> None:
        super().__init__(None)
        self._qmgr_name, self._conn_info, self._channel = qmgr_name, conn_info, channel
        self._user, self._password = user, password

    def __enter__(self) -> WMQueueManager:
        cd = pymqi.CD()
        cd.ChannelName = self._channel
        cd.ConnectionName = self._conn_info
        cd.ChannelType = MQCHT_CLNTCONN
        cd.TransportType = MQXPT_TCP
        self.connect_with_options(self._qmgr_name, user=self._user, password=self._password,
                                  cd=cd, opts=MQCNO_HANDLE_SHARE_BLOCK)
        return self

    def __exit__(self, *exc: object) -> None:
        if self.is_connected:
            self.disconnect()

    def display_queues(self, search: str) -> list:
        try:
            response = pymqi.PCFExecute(self).MQCMD_INQUIRE_Q(
                {MQCA_Q_NAME: search, MQIA_Q_TYPE: MQQT_ALL})
        except pymqi.MQMIError as e:
            if e.reason == MQRC_UNKNOWN_OBJECT_NAME:
                return []
            raise
        return [info[MQCA_Q_NAME] for info in response]

    def display_channels(self, search: str) -> list:
        try:
            response = pymqi.PCFExecute(self).MQCMD_INQUIRE_CHANNEL({MQCACH_CHANNEL_NAME: search})
        except pymqi.MQMIError as e:
            if e.reason == MQRC_UNKNOWN_OBJECT_NAME:
                return []
            raise
        return [info[MQCACH_CHANNEL_NAME] for info in response]

    def create_local_queue(self, name: str, depth: int = 5000) -> None:
        pymqi.PCFExecute(self).MQCMD_CREATE_Q(
            {MQCA_Q_NAME: name, MQIA_Q_TYPE: MQQT_LOCAL, MQIA_MAX_Q_DEPTH: depth})

    def delete_queue(self, name: str, purge: bool = False) -> None:
        args: dict = {MQCA_Q_NAME: name}
        if purge:
            args[MQIACF_PURGE] = MQPO_YES
        pymqi.PCFExecute(self).MQCMD_DELETE_Q(args)

    def get_stats_from_queue(self, name: str) -> dict:
        stats = pymqi.PCFExecute(self).MQCMD_RESET_Q_STATS({MQCA_Q_NAME: name})[0]
        return {"time since reset": stats[MQIA_TIME_SINCE_RESET],
                "high depth": stats[MQIA_HIGH_Q_DEPTH],
                "got": stats[MQIA_MSG_DEQ_COUNT], "put": stats[MQIA_MSG_ENQ_COUNT]}


class WMQueue:
    """The program's Queue: a deferred open, reopened when a put or get needs it."""

    def __init__(self, qmgr: pymqi.QueueManager, name: str) -> None:
        self.name, self.qmgr = name, qmgr
        self.queue = pymqi.Queue(qmgr, name)

    def __enter__(self) -> WMQueue:
        assert self.qmgr.is_connected
        self.queue.open(self.name)
        return self

    def __exit__(self, *exc: object) -> None:
        self.queue.close()

    def __gt__(self, other: int) -> bool:
        return self.depth() > other

    def put(self, msg: str | bytes, *opts: object) -> None:
        try:
            self.queue.put(msg, *opts)
        except pymqi.MQMIError as e:
            if e.reason != MQRC_NOT_OPEN_FOR_OUTPUT:
                raise
            self._reset_open_options()
            self.queue.put(msg, *opts)

    def get(self, max_length: int | None = None, *opts: object) -> str | None:
        try:
            message = self.queue.get(max_length, *opts)
        except pymqi.MQMIError as e:
            if e.reason == MQRC_NO_MSG_AVAILABLE:
                return None
            if e.reason != MQRC_NOT_OPEN_FOR_INPUT:
                raise
            self._reset_open_options()
            message = self.queue.get(max_length, *opts)
        return str(message)

    def depth(self) -> int:
        return self.queue.inquire(MQIA_CURRENT_Q_DEPTH)

    def read_messages_while_waiting(self, seconds: int = 0) -> Iterator[str]:
        self._reset_open_options()
        gmo = pymqi.GMO()
        gmo.Options = MQGMO_WAIT | MQGMO_FAIL_IF_QUIESCING
        gmo.WaitInterval = abs(seconds) * 1000
        md = pymqi.MD()
        while True:
            try:
                message = self.queue.get(None, md, gmo)
            except pymqi.MQMIError as e:
                if e.reason != MQRC_NO_MSG_AVAILABLE:
                    raise
                return
            yield str(message)
            self._reset_md(md)

    def browse_messages(self) -> Iterator[str]:
        self._reset_open_options(MQOO_BROWSE)
        gmo = pymqi.GMO()
        gmo.Options = MQGMO_BROWSE_NEXT
        gmo.WaitInterval = MQWI_UNLIMITED
        md = pymqi.MD()
        while True:
            try:
                message = self.queue.get(None, md, gmo)
            except pymqi.MQMIError as e:
                if e.reason != MQRC_NO_MSG_AVAILABLE:
                    raise
                return
            yield str(message)
            self._reset_md(md)

    @staticmethod
    def _reset_md(md: pymqi.MD) -> None:
        md.MsgId, md.CorrelId, md.GroupId = MQMI_NONE, MQCI_NONE, MQGI_NONE

    def _reset_open_options(self, *open_opts: int) -> None:
        try:
            self.queue.close()
        except Exception:  # noqa: BLE001 - the program's bare except: not open is fine
            pass
        self.queue.open(self.name, *open_opts)


@pytest.fixture
def qmgr(env: Env) -> Iterator[WMQueueManager]:
    """The program's queue manager, connected; APP.Q emptied after the test."""
    with WMQueueManager(QMGR, env.conn_info) as qmgr:
        yield qmgr
        drain(qmgr)


def test_connecting_a_subclass_with_options_a_cd_and_no_user(env):
    """Given the program's QueueManager subclass made with ``__init__(None)``, when it
    connects with ``connect_with_options(name, user=None, password=None, cd=..., opts=
    MQCNO_HANDLE_SHARE_BLOCK)``, then it is connected inside ``with`` and not after it."""
    with WMQueueManager(QMGR, env.conn_info) as qmgr:
        assert qmgr.is_connected
    assert not qmgr.is_connected


def test_displaying_queues_and_channels_by_generic_name(qmgr):
    """Given APP.Q, APP.REPLY and APP.SVRCONN, when the program displays ``APP*``, then it
    has their names as MQ gives them (bytes padded to 48 and 20); for a name nothing
    matches, queues are MQRC_UNKNOWN_OBJECT_NAME (the program's empty list) and channels
    MQRCCF_CHANNEL_NOT_FOUND, as IBM's command server answers (the program raises it)."""
    assert qmgr.display_queues("APP*") == [b"APP.Q".ljust(48), b"APP.REPLY".ljust(48)]
    assert qmgr.display_queues("NOTHING.HERE*") == []
    assert qmgr.display_channels("APP*") == [CHANNEL.encode().ljust(20)]
    with pytest.raises(pymqi.MQMIError) as err:
        qmgr.display_channels("NOTHING.HERE*")
    assert (err.value.comp, err.value.reason) == (2, MQRCCF_CHANNEL_NOT_FOUND)


def test_creating_filling_and_deleting_a_queue_with_purge(qmgr):
    """Given the program's create_local_queue with depth 7, when it puts two messages and
    deletes the queue with MQIACF_PURGE MQPO_YES, then the queue had MAXDEPTH 7 and is
    gone (an MQOPEN is MQRC_UNKNOWN_OBJECT_NAME)."""
    qmgr.create_local_queue("WM.CREATED", depth=7)
    with WMQueue(qmgr, "WM.CREATED") as queue:
        assert queue.queue.inquire(MQIA_MAX_Q_DEPTH) == 7
    with WMQueue(qmgr, "WM.CREATED") as queue:
        queue.put("one")
        queue.put("two")
    qmgr.delete_queue("WM.CREATED", purge=True)
    with pytest.raises(pymqi.MQMIError) as err:
        pymqi.Queue(qmgr, "WM.CREATED").inquire(MQIA_CURRENT_Q_DEPTH)
    assert err.value.reason == MQRC_UNKNOWN_OBJECT_NAME


def test_queue_statistics_reset_with_performance_events_enabled(qmgr):
    """Given PERFMEV(ENABLED) (IBM refuses RESET QSTATS otherwise, MQRCCF_EVENTS_DISABLED),
    when the program puts two messages, gets one and asks for the queue's statistics, then
    they count 2 put, 1 got and a high depth of 2; a second reset counts nothing."""
    pcf = pymqi.PCFExecute(qmgr)
    pcf.MQCMD_CHANGE_Q_MGR({pymqi.CMQC.MQIA_PERFORMANCE_EVENT: pymqi.CMQCFC.MQEVR_ENABLED})
    try:
        qmgr.get_stats_from_queue(QUEUE)
        with WMQueue(qmgr, QUEUE) as queue:
            queue.put("one")
            queue.put("two")
            assert queue.get() == "b'one'"
        stats = qmgr.get_stats_from_queue(QUEUE)
        assert (stats["put"], stats["got"], stats["high depth"]) == (2, 1, 2)
        assert isinstance(stats["time since reset"], int)
        assert qmgr.get_stats_from_queue(QUEUE)["put"] == 0
    finally:
        pcf.MQCMD_CHANGE_Q_MGR({pymqi.CMQC.MQIA_PERFORMANCE_EVENT: pymqi.CMQCFC.MQEVR_DISABLED})


def test_a_deferred_open_puts_then_reopens_to_get(qmgr):
    """Given a WMQueue opened with ``open(name)`` and no options, when the program puts a
    str and then gets, then the put opened the queue for output, the get's
    MQRC_NOT_OPEN_FOR_INPUT made the program reopen it, and the get has the message (the
    program returns ``str()`` of pymqi's bytes)."""
    with WMQueue(qmgr, QUEUE) as queue:
        queue.put("Test")
        assert queue.get() == "b'Test'"
        assert queue.get() is None


def test_a_deferred_open_gets_first(qmgr):
    """Given a message on APP.Q and a WMQueue opened with ``open(name)``, when the program
    gets at once, then the get opens the queue for input (MQOO_INPUT_AS_Q_DEF) and has it."""
    pymqi.Queue(qmgr, QUEUE).put(b"first")
    with WMQueue(qmgr, QUEUE) as queue:
        assert queue.get() == "b'first'"


def test_depth_on_a_deferred_open_and_on_an_output_handle(qmgr):
    """Given a WMQueue opened with ``open(name)``, when the program asks its depth first,
    then the inquire opens it for inquire and answers (``queue > 0`` works); on a queue a
    put opened for output, the same inquire is MQRC_NOT_OPEN_FOR_INQUIRE, as with pymqi."""
    pymqi.Queue(qmgr, QUEUE).put(b"one")
    with WMQueue(qmgr, QUEUE) as queue:
        assert queue.depth() == 1
        assert queue > 0
    with WMQueue(qmgr, QUEUE) as queue:
        queue.put("two")
        with pytest.raises(pymqi.MQMIError) as err:
            queue.depth()
        assert err.value.reason == MQRC_NOT_OPEN_FOR_INQUIRE


def test_reading_every_message_while_waiting(qmgr):
    """Given three messages, when the program reads while waiting 0 seconds, resetting the
    MD's ids between gets, then it has the three in order and stops at
    MQRC_NO_MSG_AVAILABLE; the queue is left empty."""
    with WMQueue(qmgr, QUEUE) as queue:
        for text in ("a", "b", "c"):
            queue.put(text)
        assert list(queue.read_messages_while_waiting(0)) == ["b'a'", "b'b'", "b'c'"]
    assert drain(qmgr) == []


def test_browsing_leaves_the_messages(qmgr):
    """Given two messages, when the program browses (MQOO_BROWSE, MQGMO_BROWSE_NEXT with
    MQWI_UNLIMITED but no MQGMO_WAIT), then it sees both and ends at once at
    MQRC_NO_MSG_AVAILABLE; both are still there."""
    with WMQueue(qmgr, QUEUE) as queue:
        queue.put("x")
        queue.put("y")
        assert list(queue.browse_messages()) == ["b'x'", "b'y'"]
    assert drain(qmgr) == [b"x", b"y"]


def test_a_queue_never_used_fails_its_close(qmgr):
    """Given a WMQueue whose ``with`` block makes no call (the open was deferred), when the
    block ends, then the program's close is pymqi's PYIFError (nothing is open), not an
    MQI call."""
    with pytest.raises(pymqi.PYIFError):
        with WMQueue(qmgr, QUEUE):
            pass


def test_a_closed_queue_is_not_reopened_without_a_name(qmgr):
    """Given a queue opened and closed, when the program puts, gets or inquires on it
    without opening it again, then each is pymqi's PYIFError (its descriptor went with the
    close), and no MQOPEN is made; after ``open(name)`` the put works again."""
    queue = pymqi.Queue(qmgr, QUEUE)
    queue.put(b"one")
    queue.close()
    for call in (lambda: queue.put(b"two"), queue.get,
                 lambda: queue.inquire(MQIA_CURRENT_Q_DEPTH)):
        with pytest.raises(pymqi.PYIFError):
            call()
    queue.open(QUEUE)
    queue.put(b"two")
    queue.close()
    assert drain(qmgr) == [b"one", b"two"]
