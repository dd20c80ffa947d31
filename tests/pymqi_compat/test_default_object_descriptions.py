"""The system objects a new queue manager is created with carry IBM's descriptions, so that a
program looking for them by description (pymqi's suite filters on ``DESCR LIKE 'IBM MQ*'``)
finds them; the default objects (SYSTEM.DEFAULT.*), blank at IBM, stay blank."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

import mqpy
from mqpy import CMQC

SYSTEM_QUEUES = ("SYSTEM.ADMIN.COMMAND.QUEUE", "SYSTEM.CHANNEL.INITQ", "SYSTEM.CHANNEL.SYNCQ",
                 "SYSTEM.CLUSTER.TRANSMIT.QUEUE", "SYSTEM.ADMIN.STATISTICS.QUEUE",
                 "SYSTEM.COMMAND.REPLY.MODEL")


@pytest.fixture
def qm(tmp_path) -> Iterator[mqpy.QueueManager]:
    qm = mqpy.embedded("QMD", data_path=str(tmp_path))
    try:
        yield qm
    finally:
        qm.disconnect()
        mqpy.stop_embedded("QMD", data_path=str(tmp_path))


def _description(qm: mqpy.QueueManager, name: str) -> bytes:
    with mqpy.Queue(qm, name, CMQC.MQOO_INQUIRE) as q:
        return q.inquire(CMQC.MQCA_Q_DESC).rstrip()


@pytest.mark.parametrize("name", SYSTEM_QUEUES)
def test_system_queues_are_described_as_ibm_describes_them(qm, name):
    """Given a new queue manager, when a system queue's description is inquired, then it
    is IBM's, which starts 'IBM MQ '."""
    assert _description(qm, name).startswith(b"IBM MQ ")


def test_default_objects_stay_blank(qm):
    """Given a new queue manager, when SYSTEM.DEFAULT.LOCAL.QUEUE's description is
    inquired, then it is blank, as IBM's is (objects defined from it inherit nothing)."""
    assert _description(qm, "SYSTEM.DEFAULT.LOCAL.QUEUE") == b""
