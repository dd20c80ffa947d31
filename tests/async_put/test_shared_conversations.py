"""Client connections of one process share a channel instance (SHARECNV): one connection's
asynchronous puts, whose replies nobody waits for, do not disturb another's calls on the same
socket, and each reply reaches its own conversation."""

from __future__ import annotations

import threading

import pytest

import mqpy
from mqpy import CMQC

from .conftest import ASYNC, IN, OUT, drain

pytestmark = [pytest.mark.system, pytest.mark.timeout(180)]


@pytest.mark.parametrize("which", ["site", "fastpath_site"])
def test_asynchronous_puts_beside_another_conversation_s_calls(request, which):
    """Given two client connections on one channel instance, when one puts 200 messages
    asynchronously while the other puts and gets synchronously, then every call of the
    second gets its own answer, MQSTAT of the first counts 200 successes, and every message
    of each is there once, in order."""
    site = request.getfixturevalue(which)
    putter, other = site.client(), site.client()
    try:
        assert putter.connection().local_address == other.connection().local_address
        drain(putter, "AP.Q")
        drain(putter, "AP.OTHER")
        putter.stat(CMQC.MQSTAT_TYPE_ASYNC_ERROR)
        errors: list[BaseException] = []

        def sync_calls() -> None:
            try:
                q = mqpy.Queue(other, "AP.OTHER", OUT | IN)
                for i in range(100):
                    q.put(b"s%d" % i, mqpy.MD(), mqpy.PMO())
                    assert q.get(None, mqpy.MD(), mqpy.GMO(
                        Options=CMQC.MQGMO_NO_SYNCPOINT)) == b"s%d" % i
                q.close()
            except BaseException as e:  # noqa: BLE001 - reported by the test's thread
                errors.append(e)

        worker = threading.Thread(target=sync_calls)
        worker.start()
        q = mqpy.Queue(putter, "AP.Q", OUT)
        for i in range(200):
            q.put(b"%d" % i, mqpy.MD(), mqpy.PMO(Options=ASYNC))
        worker.join(120)
        assert not worker.is_alive(), "the other conversation's calls were not all answered"
        assert not errors, errors
        assert putter.stat(CMQC.MQSTAT_TYPE_ASYNC_ERROR).PutSuccessCount == 200
        assert drain(putter, "AP.Q") == [b"%d" % i for i in range(200)]
        q.close()
    finally:
        putter.disconnect()
        other.disconnect()
