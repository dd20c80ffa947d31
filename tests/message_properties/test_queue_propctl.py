"""Given a message with a property outside the JMS folders (``mq_usr.n``) and one with a
``usr`` property, when they are got from queues of each PROPCTL with MQGMO_PROPERTIES_AS_Q_DEF,
with and without a message handle, then the properties come as IBM's PropertyControl says:
ALL an MQRFH2 (the handle when given), COMPAT an MQRFH2 only for JMS-folder properties, NONE
none (the handle when given), FORCE always an MQRFH2 (a handle ignored), V6COMPAT the MQRFH2
as it was put."""

from __future__ import annotations

import pytest

import mqpy
from mqpy import CMQC, inprocess

from .test_put_get_with_handles import _get_plain, _get_with, _put_with

QUEUE = "RELAY.Q"


@pytest.fixture
def queue_with(embedded, tmp_path):
    def make(propctl: str) -> mqpy.QueueManager:
        qm = embedded()
        eng = inprocess.running("QMS", str(tmp_path))
        eng.alter("QLOCAL", QUEUE, {"PROPCTL": propctl})
        return qm
    return make


# PROPCTL -> (mq_usr property without a handle: an MQRFH2?, with a handle: in it?)
EXPECTED = {"ALL": (True, True), "COMPAT": (False, True), "NONE": (False, True),
            "FORCE": (True, False), "V6COMPAT": (True, False)}


@pytest.mark.parametrize("propctl", sorted(EXPECTED))
def test_queue_propctl_decides_where_properties_go(queue_with, propctl):
    qm = queue_with(propctl)
    as_rfh2, in_handle = EXPECTED[propctl]
    _put_with(qm, {"mq_usr.n": (5, CMQC.MQTYPE_INT32)})
    md, data = _get_plain(qm)
    assert (md.Format == CMQC.MQFMT_RF_HEADER_2) is as_rfh2
    assert data.endswith(b"body") and (b"<mq_usr>" in data) is as_rfh2
    _put_with(qm, {"mq_usr.n": (5, CMQC.MQTYPE_INT32)})
    handle, md, data = _get_with(qm, CMQC.MQGMO_PROPERTIES_AS_Q_DEF)
    assert (data == b"body") is in_handle
    if in_handle:
        assert handle.properties.get("mq_usr.n") == 5
    qm.disconnect()


@pytest.mark.parametrize("propctl", ["COMPAT", "ALL", "FORCE"])
def test_usr_properties_come_as_an_mqrfh2_without_a_handle(queue_with, propctl):
    qm = queue_with(propctl)
    _put_with(qm, {"colour": ("blue", CMQC.MQTYPE_STRING)})
    md, data = _get_plain(qm)
    assert md.Format == CMQC.MQFMT_RF_HEADER_2 and b"<usr><colour>blue" in data
    qm.disconnect()
