"""robotframework-pymqi (tnyiri/robotframework-pymqi on GitHub), a Robot Framework library
of keywords over pymqi, written as it calls pymqi with ``import mqpy as pymqi`` as the only
change.

Its keywords connect with ``pymqi.connect(qmgr, channel, '%s(%s)' % (host, port))``
(``port`` an int from its configuration), and make a new ``pymqi.Queue(connection, name)``
-- no options: opened by the first call -- for every put and get, dropping it without a
close (pymqi closes it when it is freed). A put is ``queue.put(text.encode("utf-8"))``; a
get is ``queue.get()``, its bytes decoded as UTF-8. "Purge Queue" and "Get All Messages"
get until an MQMIError whose ``str()`` contains ``MQRC_NO_MSG_AVAILABLE``; any other
MQMIError becomes an ``Exception("[PyMQI::...] Error:", str(err))``. "Get All Messages"
joins the messages with ", " (and ends with one: it adds the separator before the get
that finds the queue empty); "Get All Messages Into File" writes them to a file, the
separator only between them.

Checked here also: the queues the keywords drop are closed (the queue's open input and
output counts go back to 0), since a Robot suite runs many keywords on one connection.
"""

from __future__ import annotations

import gc
from collections.abc import Iterator

import pytest

import mqpy as pymqi
from mqpy import CMQC
from tests.client.conftest import CHANNEL, Env, drain
from tests.pymqi_compat.conftest import QMGR, QUEUE, program_env

pytestmark = pytest.mark.timeout(120)


@pytest.fixture(scope="module")
def env(tmp_path_factory) -> Iterator[Env]:
    yield from program_env(tmp_path_factory, "robotframework")


class PyMQI:
    """The library's keywords, as it writes them."""

    def connect_in_client_mode(self, qmgr: str, channel: str, host: str, port: int) -> int:
        try:
            self.connection = pymqi.connect(qmgr, channel, "%s(%s)" % (host, port))
            return 0
        except pymqi.MQMIError as err:
            raise Exception("[PyMQI::connect_in_client_mode] Error:", str(err)) from err

    def disconnect(self) -> None:
        self.connection.disconnect()

    def purge_queue(self, queue_name: str) -> int:
        count = 0
        try:
            queue = pymqi.Queue(self.connection, queue_name)
            message = queue.get()
            while message is not None:
                count += 1
                message = queue.get()
        except pymqi.MQMIError as err:
            if str(err).find("MQRC_NO_MSG_AVAILABLE") < 0:
                raise Exception("[PyMQI::purge_queue] Error:", str(err)) from err
        return count

    def put_message(self, message: str, queue_name: str) -> None:
        try:
            queue = pymqi.Queue(self.connection, queue_name)
            queue.put(message.encode("utf-8"))
        except pymqi.MQMIError as err:
            raise Exception("[PyMQI::Put Message] Error:", str(err)) from err

    def put_message_from_file(self, file_path: str, queue_name: str) -> None:
        with open(file_path) as messagefile:
            self.put_message(messagefile.read(), queue_name)

    def get_message(self, queue_name: str) -> str | None:
        try:
            queue = pymqi.Queue(self.connection, queue_name)
            return queue.get().decode("utf-8")
        except pymqi.MQMIError as err:
            if str(err).find("MQRC_NO_MSG_AVAILABLE") < 0:
                raise Exception("[PyMQI::get_message] Error:", str(err)) from err
            return None

    def get_all_messages(self, queue_name: str) -> str:
        messages = ""
        try:
            queue = pymqi.Queue(self.connection, queue_name)
            message = queue.get()
            messages = messages + message.decode("utf-8")
            while message is not None:
                messages = messages + ", "
                message = queue.get()
                messages = messages + message.decode("utf-8")
        except pymqi.MQMIError as err:
            if str(err).find("MQRC_NO_MSG_AVAILABLE") < 0:
                raise Exception("[PyMQI::get_all_messages] Error:", str(err)) from err
        return messages

    def get_all_messages_into_file(self, queue_name: str, file_path: str) -> None:
        try:
            with open(file_path, "w") as messagefile:
                queue = pymqi.Queue(self.connection, queue_name)
                message = queue.get()
                messagefile.write(message.decode("utf-8"))
                while message is not None:
                    message = queue.get()
                    messagefile.write(", ")
                    messagefile.write(message.decode("utf-8"))
        except pymqi.MQMIError as err:
            if str(err).find("MQRC_NO_MSG_AVAILABLE") < 0:
                raise Exception("[PyMQI::get_all_messages_into_file] Error:", str(err)) from err


@pytest.fixture
def library(env: Env) -> Iterator[PyMQI]:
    """The library connected in client mode to 127.0.0.1 and the channel initiator's port
    (an int, as its configuration reads it); APP.Q emptied after the test."""
    lib = PyMQI()
    assert lib.connect_in_client_mode(QMGR, CHANNEL, "127.0.0.1", env.chinit.port) == 0
    try:
        yield lib
        drain(lib.connection)
    finally:
        lib.disconnect()


def _handles(env: Env) -> tuple[int, int]:
    """APP.Q's open input and output counts, through a connection of the test's own."""
    qmgr = pymqi.connect(QMGR)
    try:
        queue = pymqi.Queue(qmgr, QUEUE, CMQC.MQOO_INQUIRE)
        counts = (queue.inquire(CMQC.MQIA_OPEN_INPUT_COUNT),
                  queue.inquire(CMQC.MQIA_OPEN_OUTPUT_COUNT))
        queue.close()
        return counts
    finally:
        qmgr.disconnect()


def test_put_then_get_all_messages(library, env):
    """Given the suite's first steps (purge, then put "Hello world!"), when it gets all
    messages, then the keyword answers "Hello world!, " (the separator before the get that
    found the queue empty); the dropped queues are all closed."""
    library.purge_queue(QUEUE)
    library.put_message("Hello world!", QUEUE)
    assert library.get_all_messages(QUEUE) == "Hello world!, "
    gc.collect()
    assert _handles(env) == (0, 0)


def test_three_puts_get_one_then_purge(library, env):
    """Given three messages put by three keywords, when one is got and the queue purged,
    then the get has the first, the purge counts the other two, and the queue is empty."""
    for n in (1, 2, 3):
        library.put_message(f"Hello world_t1_{n}", QUEUE)
    assert library.get_message(QUEUE) == "Hello world_t1_1"
    assert library.purge_queue(QUEUE) == 2
    assert library.get_message(QUEUE) is None
    gc.collect()
    assert _handles(env) == (0, 0)


def test_unicode_text_round_trips_as_utf8(library):
    """Given text with characters outside ASCII, when it is put encoded as UTF-8 and got,
    then the keyword's decode gives it back unchanged."""
    library.put_message("Grüße, 東京 €", QUEUE)
    assert library.get_all_messages(QUEUE) == "Grüße, 東京 €, "


def test_messages_from_and_into_files(library, tmp_path):
    """Given a file with a message, when the suite puts it with "Put Message From File" and
    writes all messages into another file, then that file has both, joined by ", " (this
    keyword writes the separator after a get succeeds, so none trails)."""
    source, target = tmp_path / "input.msg", tmp_path / "output.msg"
    source.write_text("Hello wWorld from file!")
    library.put_message_from_file(str(source), QUEUE)
    library.put_message("second", QUEUE)
    library.get_all_messages_into_file(QUEUE, str(target))
    assert target.read_text() == "Hello wWorld from file!, second"


def test_a_queue_that_does_not_exist(library):
    """Given a queue name that does not exist, when the suite puts or gets, then the
    keyword's Exception carries pymqi's text naming MQRC_UNKNOWN_OBJECT_NAME, and the
    connection still works."""
    for keyword in (lambda: library.put_message("x", "NO.SUCH.Q"),
                    lambda: library.get_message("NO.SUCH.Q")):
        with pytest.raises(Exception) as err:
            keyword()
        assert "MQI Error. Comp: 2, Reason 2085: FAILED: MQRC_UNKNOWN_OBJECT_NAME" in \
            err.value.args[1]
    library.put_message("still here", QUEUE)
    assert library.get_message(QUEUE) == "still here"


def test_connecting_to_a_port_nothing_listens_on():
    """Given a port nothing listens on, when the suite connects, then the keyword's
    Exception carries pymqi's text for MQRC_HOST_NOT_AVAILABLE."""
    with pytest.raises(Exception) as err:
        PyMQI().connect_in_client_mode(QMGR, CHANNEL, "127.0.0.1", 1)
    assert err.value.args[1] == "MQI Error. Comp: 2, Reason 2538: FAILED: MQRC_HOST_NOT_AVAILABLE"
