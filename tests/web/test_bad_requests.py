"""Bad requests get IBM's error body for that request only: never a traceback, a hang or a
closed connection, and the server goes on answering."""

from __future__ import annotations

import pytest

from tests.support.web import ALICE, CSRF, PUT, QM, REST

Q = f"{REST}/admin/qmgr/{QM}/queue"


def _error(r, status: int) -> dict:
    assert r.status_code == status, r.text
    entry = r.json()["error"][0]
    assert entry["message"].startswith(entry["msgId"] + ": ")
    assert "Traceback" not in r.text
    return entry


@pytest.mark.parametrize("header", ["Basic !!!not-base64", "Basic " + "QUJD",  # "ABC": no colon
                                    "Bearer abc", "Basic " + "/w==" * 3])
def test_a_malformed_authorization_header_is_401(web, header):
    with web.client(None) as c:
        _error(c.get(Q, headers={"Authorization": header}), 401)


@pytest.mark.parametrize("qmgr", ["NOPE", "x" * 60, "QMS%2E", "QM%25S"])
def test_an_unknown_or_odd_queue_manager_name_is_404_mqwb0009e(web, qmgr):
    """Admin, messaging and error-log paths alike answer 404 MQWB0009E."""
    with web.client() as c:
        assert _error(c.get(f"{REST}/admin/qmgr/{qmgr}/queue"), 404)["msgId"] == "MQWB0009E"
        assert _error(c.get(f"/ibmmq/console/api/qmgr/{qmgr}/errorlog"), 404)["msgId"] == \
            "MQWB0009E"
    with web.client(ALICE) as c:
        r = c.post(f"{REST}/messaging/qmgr/{qmgr}/queue/APP.Q/message", headers=PUT,
                   content=b"x")
        assert _error(r, 404)["msgId"] == "MQWB0009E"


def test_an_encoded_slash_is_no_way_out_of_the_path(web):
    """A queue manager name with an encoded '/' (and '..') reaches no other resource: 404
    with an error body (names with '/' are not served by this server)."""
    with web.client() as c:
        _error(c.get(f"{REST}/admin/qmgr/a%2F..%2F..%2Fb/queue"), 404)


@pytest.mark.parametrize("body", [b"[]", b'"text"', b"{", b'{"name": 7}',
                                  b'{"name": "B.Q", "type": "sideways"}',
                                  b'{"name": "B.Q", "storage": {"maximumDepth": "deep"}}'])
def test_a_bad_queue_body_is_400(web, body):
    with web.client() as c:
        _error(c.post(Q, headers={**CSRF, "content-type": "application/json"}, content=body),
               400)
        assert c.get(f"{Q}/B.Q").status_code == 404


@pytest.mark.parametrize("body", [b"[]", b'{"type": "runCommand"}', b'{"type": "other"}',
                                  b'{"type": "runCommandJSON", "command": "dis play"}',
                                  b'{"type": "runCommandJSON", "command": "display", '
                                  b'"qualifier": "qlocal", "name": "APP.Q", '
                                  b'"responseParameters": "all"}'])
def test_a_bad_mqsc_action_is_400(web, body):
    with web.client() as c:
        _error(c.post(f"{REST}/admin/action/qmgr/{QM}/mqsc", content=body,
                      headers={**CSRF, "content-type": "application/json"}), 400)


@pytest.mark.parametrize("query", ["wait=-1", "wait=abc", "wait=99999999999",
                                   "correlationId=xyz", "messageId=" + "00" * 25])
def test_a_bad_get_selection_is_400(web, query):
    with web.client(ALICE) as c:
        r = c.delete(f"{REST}/messaging/qmgr/{QM}/queue/APP.Q/message?{query}", headers=CSRF)
        assert _error(r, 400)["msgId"] == "MQWB0302E"


def test_the_server_answers_after_all_of_them(web):
    with web.client() as c:
        assert c.get(f"{REST}/admin/qmgr").status_code == 200
