"""Text an application gives for a fixed-width field -- a queue or queue-manager name, a
user id, a password, ApplIdentityData, its own program name -- that cannot be encoded or is
too long: an MQ reason code (or, for a program name, the name made to fit), never a
UnicodeEncodeError or a bare ValueError, the same embedded, over bindings and as a client."""

from __future__ import annotations

import sys

import pytest

import mqpy
from mqpy import CMQC
from tests.support.site import CHANNEL

from ._modes import QUEUE, fails_alone

pytestmark = pytest.mark.timeout(180)

EMOJI = "\U0001F600"


@pytest.mark.parametrize(("case", "call", "reason"), [
    ("open-emoji-name",
     lambda qm, q: mqpy.Queue(qm, EMOJI, CMQC.MQOO_OUTPUT), CMQC.MQRC_UNKNOWN_OBJECT_NAME),
    ("put1-emoji-name", lambda qm, q: qm.put1(EMOJI, b"x"), CMQC.MQRC_UNKNOWN_OBJECT_NAME),
    ("open-emoji-name-too-long",
     lambda qm, q: mqpy.Queue(qm, EMOJI * 13, CMQC.MQOO_OUTPUT), CMQC.MQRC_OBJECT_NAME_ERROR),
    ("put-user-identifier-too-long",
     lambda qm, q: q.put(b"x", mqpy.MD(UserIdentifier="u" * 13)), CMQC.MQRC_MD_ERROR),
    ("put-appl-identity-emoji-too-long",
     lambda qm, q: q.put(b"x", mqpy.MD(ApplIdentityData=EMOJI * 9)), CMQC.MQRC_MD_ERROR),
], ids=lambda v: v if isinstance(v, str) else "")
def test_text_that_does_not_fit_fails_the_call(connect, case, call, reason):
    """Given a connection with a message put in syncpoint, when a call is given text that
    cannot be encoded or does not fit its field, then it fails with an MQ reason code (an
    MQMIError), and the connection and its unit of work go on."""
    fails_alone(connect, call, reason)


def test_an_attribute_set_to_any_characters_is_set(connect):
    """Given MQSET of a character attribute to text outside ISO 8859-1, then the call
    completes (the text travels as UTF-8), as it does embedded, and MQINQ answers it."""
    qm = connect()
    try:
        q = mqpy.Queue(qm, QUEUE, CMQC.MQOO_SET | CMQC.MQOO_INQUIRE)
        q.set(CMQC.MQCA_TRIGGER_DATA, EMOJI)
        assert mqpy.to_string(q.inquire(CMQC.MQCA_TRIGGER_DATA)) == EMOJI
        q.set(CMQC.MQCA_TRIGGER_DATA, "")
        assert mqpy.to_string(q.inquire(CMQC.MQCA_TRIGGER_DATA)) == ""
        q.close()
    finally:
        qm.disconnect()


def test_a_field_too_long_is_the_structures_mq_error():
    """Given a value longer than its field, when assigned, then the error is the structure's
    MQMIError (MQRC_MD_ERROR for an MQMD, MQRC_OD_ERROR for an MQOD ...), which is also
    the ValueError a Python caller may expect."""
    with pytest.raises(mqpy.MQMIError) as err:
        mqpy.MD(ApplIdentityData=EMOJI * 9)
    assert err.value.reason == CMQC.MQRC_MD_ERROR and isinstance(err.value, ValueError)
    od = mqpy.OD()
    with pytest.raises(mqpy.MQMIError) as err:
        od.ObjectName = EMOJI * 13
    assert err.value.reason == CMQC.MQRC_OD_ERROR
    with pytest.raises(mqpy.MQMIError) as err:
        mqpy.GMO().set(WaitInterval=2 ** 40)
    assert err.value.reason == CMQC.MQRC_GMO_ERROR


@pytest.fixture(params=["embedded", pytest.param("bindings", marks=pytest.mark.system),
                        pytest.param("client", marks=pytest.mark.system)])
def connect_as(request):
    """MQCONN with an MQCSP (user, password) in each mode."""
    if request.param == "embedded":
        qmgr = request.getfixturevalue("embedded")()
        name = qmgr.get_name()
        qmgr.disconnect()

        def embedded(user, password):
            qm = mqpy.QueueManager(None)
            qm.connect(name, data_path=request.getfixturevalue("tmp_path").as_posix(),
                       user=user, password=password)
            return qm
        return embedded
    site = request.getfixturevalue("site")
    return site.bindings if request.param == "bindings" else site.client


@pytest.mark.parametrize(("user", "password", "reason"), [
    ("alice", "p" * (1 << 20), CMQC.MQRC_NOT_AUTHORIZED),  # over MQ_CSP_PASSWORD_LENGTH
    ("u" * 1025, "pw", CMQC.MQRC_CSP_ERROR),  # over the MQCSP's 1024-character user id
    ("alice", "pw\udcff", CMQC.MQRC_NOT_AUTHORIZED),  # no text (os.fsdecode's escape)
    ("alice\udcff", "pw", CMQC.MQRC_CSP_ERROR),
], ids=["password-of-1MB", "user-id-of-1025", "password-not-text", "user-id-not-text"])
def test_credentials_too_long_are_refused_with_a_reason(connect_as, user, password, reason):
    """Given an MQCSP whose password is longer than MQ_CSP_PASSWORD_LENGTH (256) or whose
    user id is longer than 1024 characters, when connecting, then MQCONN fails with IBM's
    reason (2035, MQRC_CSP_ERROR), not a ValueError nor a broken connection."""
    with pytest.raises(mqpy.MQMIError) as err:
        connect_as(user, password)
    assert (err.value.comp, err.value.reason) == (CMQC.MQCC_FAILED, reason)


def test_a_queue_manager_name_that_cannot_be_encoded_is_2058(site):
    """Given a client connection to a queue manager named with characters no MQ name can
    hold, then MQCONN fails MQRC_Q_MGR_NAME_ERROR (2058)."""
    with pytest.raises(mqpy.MQMIError) as err:
        mqpy.connect(EMOJI, CHANNEL, site.conn_info)
    assert err.value.reason == CMQC.MQRC_Q_MGR_NAME_ERROR


@pytest.mark.parametrize("mode", ["bindings", "client"])
def test_a_program_named_with_any_characters_connects(site, monkeypatch, mode):
    """Given a program whose file name holds characters outside ISO 8859-1 (its MQCONN
    ApplName), when it connects, then it is connected (the name made to fit) and works."""
    monkeypatch.setattr(sys, "argv", [f"/tmp/{EMOJI * 3}.py"])
    qm = site.bindings() if mode == "bindings" else site.client()
    try:
        mqpy.Queue(qm, QUEUE, CMQC.MQOO_OUTPUT).put(b"named")
    finally:
        qm.disconnect()
    other = site.bindings()
    try:
        assert mqpy.Queue(other, QUEUE, CMQC.MQOO_INPUT_AS_Q_DEF).get() == b"named"
    finally:
        other.disconnect()
