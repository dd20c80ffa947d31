"""The mqweb server's security as IBM's: HTTP basic authentication against the queue
manager's users, the roles MQWebAdmin / MQWebAdminRO / MQWebUser, calls made as the
authenticated user (MQWebUser) so that object authorities apply, and the CSRF header on
POST, PATCH and DELETE. Every refusal has IBM's status code and error body, and no data."""

from __future__ import annotations

import pytest

from tests.support.web import ADMIN, ALICE, CSRF, MALLORY, PUT, QM, READER, REST

QUEUES = f"{REST}/admin/qmgr/{QM}/queue"
MESSAGE = f"{REST}/messaging/qmgr/{QM}/queue/APP.Q/message"


def _refusal(response, status: int, msgid: str) -> dict:
    """The error entry of a refusal, checked to carry nothing but the error."""
    assert response.status_code == status, response.text
    body = response.json()
    assert list(body) == ["error"]
    entry = body["error"][0]
    assert entry["msgId"] == msgid and entry["message"].startswith(msgid + ": ")
    assert {"type", "explanation", "action"} <= set(entry)
    return entry


def test_no_credentials_is_401_with_the_basic_challenge(web):
    with web.client(None) as c:
        r = c.get(QUEUES)
    _refusal(r, 401, "MQWB0103E")
    assert r.headers["www-authenticate"].startswith("Basic")


@pytest.mark.parametrize("user", [ADMIN, "nobody-here"])
def test_a_wrong_password_or_unknown_user_is_401(web, user):
    with web.client(user, "wrong-password") as c:
        _refusal(c.get(QUEUES), 401, "MQWB0103E")


def test_a_user_in_no_role_is_403(web):
    """Given mallory, a user of the queue manager in no mqweb role, then every path is
    refused 403."""
    with web.client(MALLORY) as c:
        _refusal(c.get(QUEUES), 403, "MQWB0103E")
        _refusal(c.get(f"{REST}/admin/qmgr"), 403, "MQWB0103E")
        _refusal(c.get("/metrics"), 403, "MQWB0103E")


def test_the_read_only_role_reads_but_cannot_change(web):
    """Given reader (MQWebAdminRO), GET works; POST a queue, DELETE one and an mqsc
    action that defines are refused 403 and nothing changes; DISPLAY through mqsc works."""
    with web.client(READER) as c:
        assert c.get(f"{QUEUES}/APP.Q").status_code == 200
        _refusal(c.post(QUEUES, headers=CSRF, json={"name": "RO.Q"}), 403, "MQWB0103E")
        _refusal(c.delete(f"{QUEUES}/APP.Q", headers=CSRF), 403, "MQWB0103E")
        action = f"{REST}/admin/action/qmgr/{QM}/mqsc"
        _refusal(c.post(action, headers=CSRF, json={
            "type": "runCommand", "parameters": {"command": "DEFINE QLOCAL(RO.Q)"}}),
            403, "MQWB0103E")
        shown = c.post(action, headers=CSRF, json={
            "type": "runCommand", "parameters": {"command": "DISPLAY QLOCAL(APP.Q)"}})
        assert shown.status_code == 200 and shown.json()["overallCompletionCode"] == 0
    with web.client() as c:
        assert c.get(f"{QUEUES}/RO.Q").status_code == 404


def test_a_missing_csrf_header_is_403_and_nothing_is_done(web):
    """Given an admin, when POST, PATCH and DELETE come without ibm-mq-rest-csrf-token,
    then each is 403 MQWB0100E and the queue is neither made, changed nor deleted."""
    with web.client() as c:
        _refusal(c.post(QUEUES, json={"name": "NOCSRF.Q"}), 403, "MQWB0100E")
        _refusal(c.patch(f"{QUEUES}/APP.Q", json={"storage": {"maximumDepth": 7}}),
                 403, "MQWB0100E")
        _refusal(c.delete(f"{QUEUES}/APP.Q"), 403, "MQWB0100E")
        assert c.get(f"{QUEUES}/NOCSRF.Q").status_code == 404
        q = c.get(f"{QUEUES}/APP.Q?attributes=storage.maximumDepth").json()["queue"][0]
        assert q["storage"]["maximumDepth"] != 7
    with web.client(ALICE) as c:
        _refusal(c.post(MESSAGE, content=b"x"), 403, "MQWB0100E")


def test_the_messaging_api_needs_the_user_role(web):
    """IBM: MQWebAdmin gives no access to the messaging REST API."""
    with web.client(ADMIN) as c:
        _refusal(c.post(MESSAGE, headers=PUT, content=b"x"), 403, "MQWB0103E")


def test_a_user_calls_as_herself_and_object_authority_applies(web):
    """Given alice (MQWebUser) with authority on APP.** only, when she puts to APP.Q and to
    SECRET.Q, then the first works and the second is refused 403 with reason 2035 (the
    queue manager's own check of her), and SECRET.Q stays empty."""
    web.site.mqsc("DEFINE QLOCAL(SECRET.Q)\n")
    with web.client(ALICE) as c:
        assert c.post(MESSAGE, headers=PUT, content=b"mine").status_code == 201
        assert c.delete(MESSAGE, headers=CSRF).content == b"mine"
        secret = f"{REST}/messaging/qmgr/{QM}/queue/SECRET.Q/message"
        entry = _refusal(c.post(secret, headers=PUT, content=b"x"), 403, "MQWB0103E")
        assert entry["reasonCode"] == 2035
    with web.client() as c:
        q = c.get(f"{QUEUES}/SECRET.Q?status=status.currentDepth").json()["queue"][0]
        assert q["status"]["currentDepth"] == 0


def test_login_names_the_user_and_roles(web):
    with web.client(READER) as c:
        assert c.get(f"{REST}/login").json() == {
            "user": [{"name": READER, "role": ["MQWebAdminRO"]}]}


def test_a_user_administers_only_what_her_authorities_allow(web):
    """alice (MQWebUser) through the admin API: APP.Q's attributes are shown to her (she has
    +dsp on APP.**); defining a queue, which needs +crt she lacks, is refused 403 naming
    reason 2035 and nothing is made; SECRET.Q2 (no authority) is refused 403 with 2035."""
    web.site.mqsc("DEFINE QLOCAL(SECRET.Q2)\n")
    with web.client(ALICE) as c:
        assert c.get(f"{QUEUES}/APP.Q").json()["queue"][0]["name"] == "APP.Q"
        entry = _refusal(c.post(QUEUES, headers=CSRF, json={"name": "APP.MADE.BY.ALICE"}),
                         403, "MQWB0103E")
        assert entry["reasonCode"] == 2035
        assert _refusal(c.get(f"{QUEUES}/SECRET.Q2"), 403, "MQWB0103E")["reasonCode"] == 2035
    with web.client() as c:
        assert c.get(f"{QUEUES}/APP.MADE.BY.ALICE").status_code == 404


def test_responses_carry_no_store_and_the_console_only_its_own_origin(web):
    """REST answers are not cached (they carry object data); the console's pages may load
    nothing but from the server itself (Content-Security-Policy 'self')."""
    with web.client() as c:
        rest = c.get(f"{QUEUES}/APP.Q")
        page = c.get("/ibmmq/console/")
    assert rest.headers["cache-control"] == "no-store"
    assert rest.headers["x-content-type-options"] == "nosniff"
    csp = page.headers["content-security-policy"]
    assert "default-src 'self'" in csp and "http" not in csp
