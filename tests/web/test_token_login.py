"""Token login as IBM's mqweb: POST /login with {"username", "password"} sets an LtpaToken2
cookie (204), the cookie alone authenticates later requests (GET /login names the user and
roles), POST/PATCH/DELETE authenticated by it still need the CSRF header, DELETE /login
ends it (204, the cookie dropped, the token no longer accepted)."""

from __future__ import annotations

import contextlib
import os
import stat
from collections.abc import Iterator

import httpx
import pytest

from mqpy_cli.web import ltpa
from tests.support.site import ALICE_PW
from tests.support.web import ADMIN, ADMIN_PW, ALICE, CSRF, MALLORY, PUT, QM, REST

LOGIN = f"{REST}/login"


@contextlib.contextmanager
def _login(web, user: str, password: str) -> Iterator[httpx.Client]:  # noqa: ANN001
    """A client that logged in (no basic credentials: its cookie jar holds the token)."""
    with web.client(user=None) as c:
        r = c.post(LOGIN, json={"username": user, "password": password})
        assert r.status_code == 204, r.text
        assert r.content == b""
        yield c


def _token_cookie(c: httpx.Client) -> tuple[str, str]:
    [(name, value)] = [(k, v) for k, v in c.cookies.items() if k.startswith("LtpaToken2")]
    return name, value


def test_a_login_sets_the_ltpa_cookie_and_it_alone_authenticates(web):
    """Given a user of the MQWebAdmin role, when she POSTs her name and password to /login,
    then 204 with an LtpaToken2 cookie (HttpOnly, SameSite, path /), and GET /login with
    only the cookie names her and her roles."""
    with _login(web, ADMIN, ADMIN_PW) as c:
        set_cookie = c.post(LOGIN, json={"username": ADMIN, "password": ADMIN_PW}) \
            .headers["set-cookie"]
        assert set_cookie.startswith("LtpaToken2")
        assert "HttpOnly" in set_cookie and "samesite=strict" in set_cookie.lower()
        assert "Path=/" in set_cookie
        r = c.get(LOGIN)
        assert r.status_code == 200
        assert r.json() == {"user": [{"name": ADMIN, "role": ["MQWebAdmin"]}]}
        assert c.get(f"{REST}/admin/qmgr/{QM}").status_code == 200


@pytest.mark.parametrize("body", [{"username": ADMIN, "password": "wrong"},
                                  {"username": "nobody.here", "password": "x"}])
def test_a_wrong_password_or_unknown_user_is_401_and_no_cookie(web, body):
    with web.client(user=None) as c:
        r = c.post(LOGIN, json=body)
        assert r.status_code == 401
        assert r.json()["error"][0]["msgId"] == "MQWB0103E"
        assert "set-cookie" not in r.headers
        assert "www-authenticate" not in r.headers  # no browser password dialog


@pytest.mark.parametrize("content", [b"not json", b'{"username": 7, "password": "x"}',
                                     b'{"username": "mqadmin"}', b"[]"])
def test_invalid_login_data_is_400(web, content):
    with web.client(user=None) as c:
        r = c.post(LOGIN, content=content, headers={"content-type": "application/json"})
        assert r.status_code == 400
        assert "set-cookie" not in r.headers


def test_a_user_in_no_role_cannot_log_in(web):
    with web.client(user=None) as c:
        r = c.post(LOGIN, json={"username": MALLORY, "password": "mallory-pw"})
        assert r.status_code == 403
        assert "set-cookie" not in r.headers


def test_a_cookie_authenticated_change_needs_the_csrf_header(web):
    """Given a logged-in admin, when she POSTs a new queue without the CSRF header, then 403
    MQWB0100E and no queue; with the header, 201."""
    with _login(web, ADMIN, ADMIN_PW) as c:
        body = {"name": "APP.TOKEN.CSRF"}
        r = c.post(f"{REST}/admin/qmgr/{QM}/queue", json=body)
        assert r.status_code == 403
        assert r.json()["error"][0]["msgId"] == "MQWB0100E"
        assert c.get(f"{REST}/admin/qmgr/{QM}/queue/APP.TOKEN.CSRF").status_code == 404
        assert c.post(f"{REST}/admin/qmgr/{QM}/queue", json=body,
                      headers=CSRF).status_code == 201


def test_a_logged_in_user_puts_and_gets_as_herself(web):
    """Given alice (MQWebUser) logged in, when she puts and gets with the cookie, then the
    messaging REST API works as with basic credentials (her MQI connection is hers)."""
    web.site.mqsc("DEFINE QLOCAL(APP.TOKEN.MSG)\n")
    url = f"{REST}/messaging/qmgr/{QM}/queue/APP.TOKEN.MSG/message"
    with _login(web, ALICE, ALICE_PW) as c:
        assert c.post(url, content=b"hello", headers=PUT).status_code == 201
        r = c.delete(url, headers=CSRF)
        assert (r.status_code, r.content) == (200, b"hello")
        assert r.headers["ibm-mq-md-messageId"]


def test_logout_drops_the_cookie_and_the_token(web):
    """Given a logged-in admin, when she DELETEs /login, then 204 with a Set-Cookie that
    expires the cookie, and the old token is refused (401) even if a client kept it; DELETE
    /login without the CSRF header is 401 (IBM's answer for it)."""
    with _login(web, ADMIN, ADMIN_PW) as c:
        name, value = _token_cookie(c)
        assert c.delete(LOGIN).status_code == 401  # no CSRF header
        r = c.delete(LOGIN, headers=CSRF)
        assert r.status_code == 204
        assert name in r.headers["set-cookie"] and "Max-Age=0" in r.headers["set-cookie"]
    with web.client(user=None, cookies={name: value}) as kept:
        assert kept.get(LOGIN).status_code == 401


def test_a_forged_or_altered_token_is_refused(web):
    with _login(web, ADMIN, ADMIN_PW) as c:
        name, value = _token_cookie(c)
    body, _, signature = value.partition(".")
    forged = ltpa._b64(b'{"u":"mqadmin","x":9999999999,"i":"x"}') + "." + signature
    for bad in (forged, body + "." + signature[:-2] + "AA", "garbage", ""):
        with web.client(user=None, cookies={name: bad}) as c:
            assert c.get(LOGIN).status_code == 401


def test_the_signing_key_is_kept_in_the_web_folder_for_the_owner_only(web):
    with _login(web, ADMIN, ADMIN_PW):
        pass
    path = os.path.join(web.root, "web", ltpa.KEY_FILE)
    assert stat.S_IMODE(os.stat(path).st_mode) == 0o600


def test_a_token_past_its_expiry_is_refused(tmp_path):
    keeper = ltpa.TokenKeeper(str(tmp_path), expiry_minutes=0)
    assert keeper.check(keeper.issue("mqadmin", "pw")) is None
    keeper = ltpa.TokenKeeper(str(tmp_path))
    token = keeper.check(keeper.issue("mqadmin", "pw"))
    assert token is not None and token.user == "mqadmin"
    assert keeper.password(token) == "pw"
    keeper.revoke(token)
    assert keeper.password(token) is None


@pytest.mark.parametrize(("line", "tls", "secure"), [
    ("", False, False), ("", True, True), ("secureLTPA = true", False, True),
    ("secureLTPA = false", True, False)])
def test_the_cookie_is_secure_over_https_unless_the_configuration_says(tmp_path, line, tls,
                                                                       secure):
    """Given mqweb.ini without secureLTPA, then the login cookie is Secure exactly when the
    server serves HTTPS (so that the console logs in over the default HTTP on 127.0.0.1);
    secureLTPA true or false decides when given."""
    from mqpy_cli.web import config as webconfig

    keys = tmp_path / "keys"
    keys.mkdir()
    for pem in ("cert.pem", "key.pem"):
        (keys / pem).write_text("x")
    webconfig.write(f"[server]\nkeyRepository = {keys if tls else ''}\n{line}\n",
                    str(tmp_path))
    assert webconfig.load(str(tmp_path)).ltpa_secure is secure
