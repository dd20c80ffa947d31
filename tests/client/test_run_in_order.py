"""Calls run in order (mqpy.fap.mqicalls.run_in_order) over a client connection, which carries them
one by one: they must still stop where a single call would have stopped."""

from __future__ import annotations

import mqpy
from mqpy import CMQC
from mqpy.fap.mqicalls import run_in_order
from tests.client.conftest import CHANNEL, QMGR, QUEUE, drain


def test_gets_run_over_a_client_stop_at_a_truncation_warning(env):
    """Given two messages, when a run of two gets is made over a client connection and the
    first would be truncated (2080), then the run stops there: the second get is not made,
    so after a commit both messages are still on the queue (a caller that drops the failed
    get's result loses nothing)."""
    qm = mqpy.connect(QMGR, CHANNEL, env.conn_info)
    try:
        queue = mqpy.Queue(qm, QUEUE, CMQC.MQOO_INPUT_SHARED | CMQC.MQOO_OUTPUT)
        queue.put(b"a message too long")
        queue.put(b"second")
        handle, hobj = qm.connection(), queue.get_handle()
        gmo = CMQC.MQGMO_SYNCPOINT
        out = run_in_order(handle, [("get", (hobj, mqpy.MD(), mqpy.GMO(Options=gmo), 5)),
                                    ("get", (hobj, mqpy.MD(), mqpy.GMO(Options=gmo), None))])
        assert [r.reason for r in out] == [CMQC.MQRC_TRUNCATED_MSG_FAILED]
        qm.commit()
        assert drain(qm) == [b"a message too long", b"second"]
    finally:
        qm.disconnect()
