"""The mqweb server's MQI connections are kept between requests, per queue manager and
identity, and never lent again once stale: too old, the queue manager restarted, or the
connection gone."""

from __future__ import annotations

import pytest

from mqpy import CMQC
from mqpy_cli.web import pool as poolmod
from mqpy_cli.web.errors import RestError


class FakeQM:
    made = 0

    def __init__(self) -> None:
        FakeQM.made += 1
        self.closed = False

    def disconnect(self) -> None:
        self.closed = True


@pytest.fixture
def pool(monkeypatch, tmp_path):
    FakeQM.made = 0
    run = {"pid": "100"}
    monkeypatch.setattr(poolmod, "connect", lambda *a: FakeQM())
    monkeypatch.setattr(poolmod, "qmgr_pid", lambda qmgr, root: run["pid"])
    p = poolmod.ConnectionPool(str(tmp_path))
    p.run = run
    return p


def test_a_connection_is_lent_again_to_the_same_identity_only(pool):
    with pool.connection("QM1", "alice", "pw") as first:
        pass
    with pool.connection("QM1", "alice", "pw") as again:
        assert again is first
    with pool.connection("QM1", "alice", "other-pw") as other:
        assert other is not first
    with pool.connection("QM1") as own:
        assert own is not first
    assert FakeQM.made == 3


def test_a_restarted_queue_manager_gets_a_new_connection(pool):
    with pool.connection("QM1") as first:
        pass
    pool.run["pid"] = "200"
    with pool.connection("QM1") as second:
        assert second is not first
    assert first.closed


def test_a_connection_gone_is_dropped_and_a_refusal_is_not(pool):
    with pytest.raises(RestError):
        with pool.connection("QM1") as first:
            raise RestError(400, "MQWB0004E", 2085, "x", reason=CMQC.MQRC_UNKNOWN_OBJECT_NAME)
    with pool.connection("QM1") as same:
        assert same is first
    with pytest.raises(RestError):
        with pool.connection("QM1"):
            raise RestError(400, "MQWB0004E", 2009, "x", reason=CMQC.MQRC_CONNECTION_BROKEN)
    assert first.closed
    with pool.connection("QM1") as fresh:
        assert fresh is not first


def test_an_old_connection_is_not_lent(pool, monkeypatch):
    now = [1000.0]
    monkeypatch.setattr(poolmod.time, "monotonic", lambda: now[0])
    with pool.connection("QM1") as first:
        pass
    now[0] += pool.max_age + 1
    with pool.connection("QM1") as second:
        assert second is not first
    assert first.closed
