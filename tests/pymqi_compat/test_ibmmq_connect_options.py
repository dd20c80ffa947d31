"""ibmmq 2.x's ``connect_with_options`` (``connectWithOptions``) keywords: the credentials of
an MQCSP given as ``csp=`` (its CSPUserId and CSPPassword, checked by connection
authentication), an MQCNO's Options as ``cno=``, an MQBNO as ``bno=`` (no application
balancing: accepted, as a queue manager outside a uniform cluster does), and a keyword it
does not know refused rather than ignored."""

from __future__ import annotations

import types

import pytest

import mqpy
from mqpy import CMQC
from mqpy.security.policy import set_authority
from tests.security.conftest import QM, secured  # noqa: F401 - secured is a fixture


def _csp(user: str, password: str) -> types.SimpleNamespace:
    """An object with MQCSP's fields, as ibmmq's CSP class has them."""
    return types.SimpleNamespace(CSPUserId=user, CSPPassword=password)


@pytest.fixture
def alice(secured, monkeypatch):  # noqa: F811
    secured.users.add("alice", "alice-pw", ["apps"])
    set_authority(secured.eng, "qmgr", QM, ["+connect"], principal="alice")
    monkeypatch.setenv("MQPY_DATA_PATH", secured.root)
    return secured


def test_the_csp_credentials_are_checked(alice):
    """Given a queue manager that knows alice, when a program connects with
    csp=CSP(CSPUserId='alice', CSPPassword=<wrong>), then MQRC_NOT_AUTHORIZED; with her
    password it connects."""
    qm = mqpy.QueueManager(None)
    with pytest.raises(mqpy.MQMIError) as e:
        qm.connect_with_options(QM, csp=_csp("alice", "wrong"))
    assert e.value.reason == CMQC.MQRC_NOT_AUTHORIZED
    qm.connectWithOptions(QM, csp=_csp("alice", "alice-pw"), cno=types.SimpleNamespace(
        Options=CMQC.MQCNO_NONE), bno=object())
    assert qm.is_connected
    qm.disconnect()


def test_misnamed_csp_fields_and_unknown_keywords_are_refused():
    """Given an MQCSP whose fields are named UserId / Password (not CSPUserId /
    CSPPassword), then PYIFError names the right field, as ibmmq does; given a keyword
    connect_with_options does not know, then TypeError (not a connection without it)."""
    qm = mqpy.QueueManager(None)
    wrong = types.SimpleNamespace(CSPUserId="a", CSPPassword="b", UserId="a")
    with pytest.raises(mqpy.PYIFError, match="CSPUserId"):
        qm.connect_with_options(QM, csp=wrong)
    with pytest.raises(TypeError, match="tokn"):
        qm.connect_with_options(QM, tokn="x")
