"""Object and queue manager names with characters a URL must encode: IBM MQ names may hold
'/', '%', '.' and '_', and IBM's REST API takes them percent-encoded in the path ('/' as
%2F, '%' as %25). Each path segment is decoded once: a name round-trips through define,
inquire, change, messages and delete, and an encoded '%2F' inside a name stays three
characters."""

from __future__ import annotations

from urllib.parse import quote

import pytest

from tests.support.web import CSRF, PUT, QM, REST

NAMES = ["APP/SLASH.Q", "APP%PCT_Q", "APP.DOT_UNDER", "APP/A%2FB"]


def _seg(name: str) -> str:
    return quote(name, safe="")


@pytest.mark.parametrize("name", NAMES)
def test_a_queue_name_round_trips_through_the_admin_api(web, name):
    """Given a queue name with '/', '%', '.' or '_', when it is defined by POST, read, changed
    and deleted through its encoded path, then each answer names it exactly and the
    Location header holds it encoded."""
    base = f"{REST}/admin/qmgr/{QM}/queue"
    with web.client() as c:
        r = c.post(base, json={"name": name, "storage": {"maximumDepth": 42}}, headers=CSRF)
        assert r.status_code == 201, r.text
        assert r.headers["location"].endswith(f"/queue/{_seg(name)}")
        r = c.get(f"{base}/{_seg(name)}", params={"attributes": "storage.maximumDepth"})
        assert r.status_code == 200, r.text
        assert r.json()["queue"] == [{"name": name, "type": "local",
                                      "storage": {"maximumDepth": 42}}]
        assert c.patch(f"{base}/{_seg(name)}", json={"storage": {"maximumDepth": 43}},
                       headers=CSRF).status_code == 204
        assert c.get(f"{base}/{_seg(name)}", params={"attributes": "storage"}) \
            .json()["queue"][0]["storage"]["maximumDepth"] == 43
        assert c.delete(f"{base}/{_seg(name)}", headers=CSRF).status_code == 204
        assert c.get(f"{base}/{_seg(name)}").status_code == 404


@pytest.mark.parametrize("name", ["APP/MSG.Q", "APP%MSG_Q"])
def test_messages_are_put_and_got_on_a_queue_with_such_a_name(web, name):
    web.site.mqsc(f"DEFINE QLOCAL('{name}')\n")
    url = f"{REST}/messaging/qmgr/{QM}/queue/{_seg(name)}/message"
    with web.client("operator") as c:
        assert c.post(url, content=b"encoded", headers=PUT).status_code == 201
        assert c.get(f"{REST}/messaging/qmgr/{QM}/queue/{_seg(name)}/messagelist") \
            .json()["messages"][0]["format"] == "MQSTR"
        r = c.delete(url, headers=CSRF)
        assert (r.status_code, r.content) == (200, b"encoded")


def test_a_queue_manager_name_with_a_slash_is_addressed_encoded(web):
    """Given a queue manager QM/TWO of the installation (created, not started), when
    /admin/qmgr/QM%2FTWO is asked, then it is named, ended; its queues are 503 (not
    running), not 404 for a path that does not exist."""
    assert web.site.inst.run("crtmqm", "QM/TWO").returncode == 0
    with web.client() as c:
        r = c.get(f"{REST}/admin/qmgr/{_seg('QM/TWO')}")
        assert r.status_code == 200, r.text
        assert r.json()["qmgr"] == [{"name": "QM/TWO", "state": "endedNormally"}] or \
            r.json()["qmgr"][0]["name"] == "QM/TWO"
        r = c.get(f"{REST}/admin/qmgr/{_seg('QM/TWO')}/queue")
        assert r.status_code == 503, r.text


def test_a_slash_left_unencoded_is_another_path(web):
    """'/' not encoded separates segments as URLs do: no such resource (404)."""
    web.site.mqsc("DEFINE QLOCAL('APP/RAW')\n")
    with web.client() as c:
        assert c.get(f"{REST}/admin/qmgr/{QM}/queue/APP/RAW").status_code == 404
