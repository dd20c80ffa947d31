"""MQINQ of the queue manager (``QueueManager.inquire``) answers every selector IBM's MQINQ
table documents for the queue manager on distributed platforms, as pymqi programs and
pymqi's own test set-up (MQCA_VERSION) ask them, over each kind of connection."""

from __future__ import annotations

import pytest

import mqpy
from mqpy import CMQC
from mqpy.engine.mqinq import QMGR_ATTRIBUTES
from tests.pymqi_compat.conftest import QMGR


def test_version_is_the_vrmf_of_the_command_level(qmgr):
    """Given a connection, when MQCA_VERSION is inquired, then it is 8 characters VVRRMMFF
    matching MQIA_COMMAND_LEVEL (925 -> 09020500)."""
    level = qmgr.inquire(CMQC.MQIA_COMMAND_LEVEL)
    version = qmgr.inquire(CMQC.MQCA_VERSION)
    assert len(version) == CMQC.MQ_VERSION_LENGTH
    assert version == f"{level // 100:02d}{level // 10 % 10:02d}{level % 10:02d}00".encode()


def test_security_attributes_are_answered_at_their_lengths(qmgr):
    """Given a connection, when CONNAUTH, SSLKEYR and CERTLABL are inquired, then each is a
    string blank-padded to its MQ length; CERTLABL is IBM's default, ibmwebspheremq and the
    queue manager's name in lower case."""
    assert len(qmgr.inquire(CMQC.MQCA_CONN_AUTH)) == CMQC.MQ_AUTH_INFO_NAME_LENGTH
    assert len(qmgr.inquire(CMQC.MQCA_SSL_KEY_REPOSITORY)) == CMQC.MQ_SSL_KEY_REPOSITORY_LENGTH
    label = qmgr.inquire(CMQC.MQCA_CERT_LABEL)
    assert label.rstrip() == b"ibmwebspheremq" + QMGR.lower().encode()
    assert len(label) == CMQC.MQ_CERT_LABEL_LENGTH


def test_every_documented_selector_answers(qmgr):
    """Given a connection, when each documented queue-manager selector is inquired, then
    each answers an int (MQIA_*) or bytes (MQCA_*), and the identifier names the queue
    manager."""
    for selector in QMGR_ATTRIBUTES:
        value = qmgr.inquire(selector)
        assert isinstance(value, int if selector < CMQC.MQCA_FIRST else bytes), selector
    assert qmgr.inquire(CMQC.MQCA_Q_MGR_IDENTIFIER).startswith(QMGR.encode() + b"_")
    assert qmgr.inquire(CMQC.MQIA_CHLAUTH_RECORDS) == 1


def test_a_queue_selector_is_a_selector_error_on_the_queue_manager(qmgr):
    """Given a connection, when a selector that exists only for queues is inquired of the
    queue manager, then the call fails with MQRC_SELECTOR_ERROR."""
    with pytest.raises(mqpy.MQMIError) as e:
        qmgr.inquire(CMQC.MQIA_CURRENT_Q_DEPTH)
    assert e.value.reason == CMQC.MQRC_SELECTOR_ERROR
