"""A fault of the queue manager's busy thread (``mqpy.bindings_thread``) while it serves one
application's calls: an FDC, that connection ended, every other one still served."""

from __future__ import annotations

import pytest

import mqpy
from mqpy import CMQC, asyncput_stream, bindings
from tests.support.bindings_server import serving_with_faults

pytestmark = pytest.mark.timeout(60)


def test_a_fault_serving_one_connection_on_the_busy_thread_ends_that_connection_only(
        tmp_path, monkeypatch):
    """Given two applications connected, when the busy thread faults reading one's
    asynchronous puts, then that one's connection ends (MQRC_CONNECTION_BROKEN), the fault
    is reported, and the other application and new ones are still served."""
    with serving_with_faults(str(tmp_path)) as (_server, faults):
        root = str(tmp_path)
        other = bindings.connect("QM", root)
        hother = other.open(mqpy.OD(ObjectName="Q"), CMQC.MQOO_OUTPUT)
        faulty = bindings.connect("QM", root)
        hobj = faulty.open(mqpy.OD(ObjectName="Q"), CMQC.MQOO_OUTPUT)

        def fault(*args):
            raise RuntimeError("a fault of the bytes path")

        monkeypatch.setattr(asyncput_stream, "request", fault)
        pmo = mqpy.PMO(Options=CMQC.MQPMO_ASYNC_RESPONSE)
        with pytest.raises(mqpy.MQMIError) as broken:
            for _ in range(5000):
                faulty.put(hobj, mqpy.MD(), pmo, b"x")
            faulty.stat(CMQC.MQSTAT_TYPE_ASYNC_ERROR)
        assert broken.value.reason == CMQC.MQRC_CONNECTION_BROKEN
        monkeypatch.undo()
        other.put(hother, mqpy.MD(), mqpy.PMO(), b"still served")
        other.disconnect()
        bindings.connect("QM", root).disconnect()
        assert [type(f) for f in faults][:1] == [RuntimeError]
