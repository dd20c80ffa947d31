"""Object handles end with what holds them, as in pymqi: a ``Queue`` collected by Python closes
its handle (pymqi's ``Queue.__del__``), and a connection that ends closes its handles, so
that the queue can then be deleted (no MQRCCF_OBJECT_IN_USE)."""

from __future__ import annotations

import gc

import mqpy
from mqpy import CMQC
from tests.pymqi_compat.conftest import QUEUE
from tests.support.handles import open_input_count


def test_a_collected_queue_closes_its_handle(qmgr):
    """Given a Queue opened for input, when the program drops its last reference to it, then
    its handle is closed: the queue's open input count is back to 0."""
    q = mqpy.Queue(qmgr, QUEUE, CMQC.MQOO_INPUT_SHARED)
    assert open_input_count(qmgr, QUEUE) == 1
    del q
    gc.collect()
    assert open_input_count(qmgr, QUEUE) == 0


def test_collecting_a_queue_after_its_connection_ended_raises_nothing(qmgr, env):
    """Given a Queue whose connection was disconnected, when the Queue is collected, then
    nothing is raised or printed, and the disconnect closed its handle."""
    q = mqpy.Queue(qmgr, QUEUE, CMQC.MQOO_INPUT_SHARED)
    qmgr.disconnect()
    other = env.bindings()
    try:
        assert open_input_count(other, QUEUE) == 0
        del q
        gc.collect()
    finally:
        other.disconnect()
