"""A framework's pymqi messaging adapter ("MQ Library Adapter for CommonPython Framework",
class MQLibraryAdapter, public on GitHub), written as it calls pymqi with ``import mqpy as
pymqi`` as the only change.

It connects with ``pymqi.connect(qmgr, channel, f"{host}({port})", user, password)``, user
and password "" unless configured; puts with a fresh ``pymqi.Queue(qmgr, name)`` (opened by
the put) and an MD whose CorrelId, ReplyToQ, MsgType, Priority and Persistence come from a
dict of properties; gets with MQGMO_WAIT | MQGMO_FAIL_IF_QUIESCING and a WaitInterval in
ms, reporting ``md.MsgId.hex()``, ``md.ReplyToQ.strip()``, ``md.Format.strip()``,
``md.PutDate.decode()`` ...; browses the first message (``MQOO_BROWSE``,
MQGMO_BROWSE_FIRST, optionally a MsgId to match); asks the depth with MQOO_INQUIRE; and
purges by getting with one MD and one GMO reused for every get. That MD keeps the MsgId
and CorrelId of the message just got, and the GMO's default MatchOptions match them, so the
next get finds nothing: the purge removes one message a call, with pymqi as with IBM's MQI
(whose MQGMO version 1, pymqi's default, matches non-null ids too).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest

import mqpy as pymqi
from tests.client.conftest import CHANNEL, Env, drain
from tests.pymqi_compat.conftest import QMGR, QUEUE, program_env

pytestmark = pytest.mark.timeout(120)

CMQC = pymqi.CMQC


@pytest.fixture(scope="module")
def env(tmp_path_factory) -> Iterator[Env]:
    yield from program_env(tmp_path_factory, "adapter")


class Adapter:
    """The adapter's calls, as it makes them."""

    def __init__(self, env: Env, user: str = "", password: str = "") -> None:
        self.qmgr = pymqi.connect(QMGR, CHANNEL, env.conn_info, user, password)

    def put_message(self, queue_name: str, message: Any,
                    properties: dict[str, Any] | None = None) -> None:
        queue = pymqi.Queue(self.qmgr, queue_name)
        data = json.dumps(message).encode("utf-8") if isinstance(message, dict) \
            else message.encode("utf-8") if isinstance(message, str) else message
        md = pymqi.MD()
        for key, field in (("correlation_id", "CorrelId"), ("reply_to_queue", "ReplyToQ"),
                           ("message_type", "MsgType"), ("priority", "Priority"),
                           ("persistence", "Persistence")):
            if properties and key in properties:
                setattr(md, field, properties[key])
        queue.put(data, md)
        queue.close()

    def _described(self, md: pymqi.MD, data: bytes) -> dict[str, Any]:
        text = data.decode("utf-8")
        try:
            body = json.loads(text)
        except json.JSONDecodeError:
            body = text
        return {"data": body, "message_id": md.MsgId.hex(),
                "correlation_id": md.CorrelId.hex() if md.CorrelId else "",
                "reply_to_queue": md.ReplyToQ.strip(), "reply_to_qmgr": md.ReplyToQMgr.strip(),
                "message_type": md.MsgType, "format": md.Format.strip(),
                "priority": md.Priority, "persistence": md.Persistence, "expiry": md.Expiry,
                "put_date": md.PutDate.decode("utf-8"), "put_time": md.PutTime.decode("utf-8")}

    def get_message(self, queue_name: str, timeout: int = 1) -> dict[str, Any] | None:
        queue = pymqi.Queue(self.qmgr, queue_name)
        md, gmo = pymqi.MD(), pymqi.GMO()
        gmo.Options = CMQC.MQGMO_WAIT | CMQC.MQGMO_FAIL_IF_QUIESCING
        gmo.WaitInterval = timeout * 1000
        try:
            data = queue.get(None, md, gmo)
        except pymqi.MQMIError as e:
            queue.close()
            if e.comp == CMQC.MQCC_FAILED and e.reason == CMQC.MQRC_NO_MSG_AVAILABLE:
                return None
            raise
        queue.close()
        return self._described(md, data)

    def browse_message(self, queue_name: str, message_id: bytes | None = None
                       ) -> dict[str, Any] | None:
        queue = pymqi.Queue(self.qmgr, queue_name, CMQC.MQOO_BROWSE)
        md = pymqi.MD()
        if message_id:
            md.MsgId = message_id
        gmo = pymqi.GMO()
        gmo.Options = CMQC.MQGMO_BROWSE_FIRST | CMQC.MQGMO_FAIL_IF_QUIESCING
        try:
            data = queue.get(None, md, gmo)
        except pymqi.MQMIError as e:
            queue.close()
            if e.comp == CMQC.MQCC_FAILED and e.reason == CMQC.MQRC_NO_MSG_AVAILABLE:
                return None
            raise
        queue.close()
        return self._described(md, data)

    def get_queue_depth(self, queue_name: str) -> int:
        try:
            queue = pymqi.Queue(self.qmgr, queue_name, CMQC.MQOO_INQUIRE)
            depth = queue.inquire(CMQC.MQIA_CURRENT_Q_DEPTH)
            queue.close()
            return depth
        except Exception:  # noqa: BLE001 - the adapter's -1 for any failure
            return -1

    def purge_queue(self, queue_name: str) -> int:
        queue = pymqi.Queue(self.qmgr, queue_name)
        md, gmo = pymqi.MD(), pymqi.GMO()
        gmo.Options = CMQC.MQGMO_NO_WAIT | CMQC.MQGMO_FAIL_IF_QUIESCING
        purged = 0
        while True:
            try:
                queue.get(None, md, gmo)
                purged += 1
            except pymqi.MQMIError as e:
                if e.reason == CMQC.MQRC_NO_MSG_AVAILABLE:
                    break
                raise
        queue.close()
        return purged


@pytest.fixture
def adapter(env: Env) -> Iterator[Adapter]:
    """The adapter connected with its default credentials (""); APP.Q emptied after."""
    adapter = Adapter(env)
    try:
        yield adapter
        drain(adapter.qmgr)
    finally:
        adapter.qmgr.disconnect()


def test_put_with_properties_then_get(adapter):
    """Given a dict message with the adapter's properties (CorrelId bytes, ReplyToQ and
    priority 7, persistent, MsgType datagram), when it is got, then the adapter's report
    has the JSON back, the ids as hex of 24 bytes, ReplyToQ stripped to b"APP.REPLY", the
    reply-to queue manager filled in by the put (QM1), Format blank (bytes put), and the
    put date and time as text."""
    correl = b"order-42".ljust(24, b"\0")
    adapter.put_message(QUEUE, {"order": 42}, {
        "correlation_id": correl, "reply_to_queue": b"APP.REPLY", "priority": 7,
        "persistence": CMQC.MQPER_PERSISTENT, "message_type": CMQC.MQMT_DATAGRAM})
    got = adapter.get_message(QUEUE)
    assert got is not None
    assert got["data"] == {"order": 42}
    assert len(bytes.fromhex(got["message_id"])) == 24
    assert got["correlation_id"] == correl.hex()
    assert (got["reply_to_queue"], got["reply_to_qmgr"]) == (b"APP.REPLY", QMGR.encode())
    assert (got["priority"], got["persistence"], got["message_type"]) == (
        7, CMQC.MQPER_PERSISTENT, CMQC.MQMT_DATAGRAM)
    assert (got["format"], got["expiry"]) == (b"", CMQC.MQEI_UNLIMITED)
    assert len(got["put_date"]) == 8 and got["put_date"].isdigit()
    assert len(got["put_time"]) == 8 and got["put_time"].isdigit()


def test_get_waits_then_answers_none(adapter):
    """Given an empty queue, when the adapter gets waiting one second, then it answers
    None (MQCC_FAILED, MQRC_NO_MSG_AVAILABLE after the wait)."""
    assert adapter.get_message(QUEUE, timeout=1) is None


def test_browse_first_and_by_message_id(adapter):
    """Given two text messages, when the adapter browses, then it has the first without
    removing it; given the second's MsgId, it has the second; the depth is still 2."""
    adapter.put_message(QUEUE, "first")
    adapter.put_message(QUEUE, "second")
    first = adapter.browse_message(QUEUE)
    assert first is not None and first["data"] == "first"
    second_id = drain_ids(adapter)[1]
    second = adapter.browse_message(QUEUE, second_id)
    assert second is not None and second["data"] == "second"
    assert adapter.get_queue_depth(QUEUE) == 2
    assert adapter.get_queue_depth("NO.SUCH.QUEUE") == -1


def drain_ids(adapter: Adapter) -> list[bytes]:
    """The MsgIds of APP.Q's messages, browsed."""
    queue = pymqi.Queue(adapter.qmgr, QUEUE, CMQC.MQOO_BROWSE)
    ids = []
    gmo = pymqi.GMO(Options=CMQC.MQGMO_BROWSE_NEXT)
    while True:
        md = pymqi.MD()
        try:
            queue.get(None, md, gmo)
        except pymqi.MQMIError:
            break
        ids.append(md.MsgId)
    queue.close()
    return ids


def test_purge_with_one_md_removes_one_message_a_call(adapter):
    """Given three messages, when the adapter purges with its reused MD and GMO, then each
    call removes one (the MD's MsgId and CorrelId, filled by the get, are matched by the
    next), as with pymqi: 1, 1, 1, then 0."""
    for text in ("a", "b", "c"):
        adapter.put_message(QUEUE, text)
    assert [adapter.purge_queue(QUEUE) for _ in range(4)] == [1, 1, 1, 0]
    assert adapter.get_queue_depth(QUEUE) == 0
