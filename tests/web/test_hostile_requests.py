"""A hostile web client against the mqweb server: every route refuses a caller without
credentials (the console's static page and script excepted: they hold no data), bodies are
read only once the caller is known and only up to a bound, a body that stops coming is
given up after readTimeout, header and query values out of range are 400 (never a 500), a
queue manager name holding NUL is 404, and a read-only user cannot slip a second command
past the mqsc action. After each, the server still answers."""

from __future__ import annotations

import base64
import socket
import threading
import time

import pytest

from mqpy_cli.web import app as webapp
from tests.support.site import ALICE_PW
from tests.support.web import ADMIN, ADMIN_PW, ALICE, CSRF, PUT, QM, READER, REST, WebSite

QUEUES = f"{REST}/admin/qmgr/{QM}/queue"
MQSC = f"{REST}/admin/action/qmgr/{QM}/mqsc"
MSG = f"{REST}/messaging/qmgr/{QM}/queue/APP.Q/message"
READ_TIMEOUT = 2


class _QuickWebSite(WebSite):
    """The usual site with mqweb.ini's readTimeout short, so that a stalled body is seen
    to be given up within a test."""

    def write_config(self) -> None:
        super().write_config()
        from mqpy_cli.web import config as webconfig

        path = webconfig.config_path(self.root)
        with open(path, encoding="utf-8") as f:
            text = f.read()
        with open(path, "w", encoding="utf-8") as f:
            f.write(text.replace("[server]\n", f"[server]\nreadTimeout = {READ_TIMEOUT}\n", 1))


@pytest.fixture(scope="module")
def web(tmp_path_factory):
    w = _QuickWebSite(str(tmp_path_factory.mktemp("mqweb")))
    try:
        yield w.start()
    finally:
        w.stop()


def _error(r, status: int, msgid: str | None = None) -> dict:
    assert r.status_code == status, r.text
    entry = r.json()["error"][0]
    assert entry["message"].startswith(entry["msgId"] + ": ")
    if msgid is not None:
        assert entry["msgId"] == msgid
    return entry


def _raw(web, head: str, body: bytes = b"", timeout: float = 10) -> bytes:
    """``head`` (request line and headers, CRLF separated, without the blank line) and
    ``body`` sent on a socket of its own; the answer read until the server closes the
    connection or ``timeout`` passes (the answer is whole: a client that hangs up in the
    middle of one makes hypercorn log its own traceback)."""
    port = int(web.base.rsplit(":", 1)[1])
    answer = b""
    with socket.create_connection(("127.0.0.1", port)) as s:
        s.settimeout(timeout)
        s.sendall(head.encode("latin-1") + b"\r\n\r\n" + body)
        try:
            while chunk := s.recv(65536):
                answer += chunk
        except (TimeoutError, ConnectionResetError):
            pass
    return answer


# --------------------------------------------------------------------------- who may call
ROUTES = [
    f"{REST}/login", f"{REST}/admin/installation", f"{REST}/admin/qmgr",
    f"{REST}/admin/qmgr/{QM}", QUEUES, f"{QUEUES}/APP.Q", f"{REST}/admin/qmgr/{QM}/channel",
    f"{REST}/admin/qmgr/{QM}/channel/X", f"{REST}/admin/qmgr/{QM}/subscription",
    f"/ibmmq/rest/v1/admin/qmgr/{QM}/subscription", MSG,
    f"{REST}/messaging/qmgr/{QM}/queue/APP.Q/messagelist", "/metrics",
    f"/ibmmq/console/api/qmgr/{QM}/errorlog", f"/ibmmq/console/api/qmgr/{QM}/queuerates",
]


@pytest.mark.parametrize("path", ROUTES)
def test_every_route_without_credentials_is_401(web, path):
    """Given no credentials and no token, when any data route is asked, then 401
    MQWB0103E and nothing else."""
    with web.client(None) as c:
        r = c.get(path)
        assert list(r.json()) == ["error"]
        _error(r, 401, "MQWB0103E")


CHANGES = [("POST", QUEUES), ("PATCH", f"{QUEUES}/APP.Q"), ("DELETE", f"{QUEUES}/APP.Q"),
           ("POST", MQSC), ("POST", MSG), ("DELETE", MSG),
           ("POST", f"{REST}/messaging/qmgr/{QM}/topic/a/message")]


@pytest.mark.parametrize("method,path", CHANGES)
def test_every_change_without_the_csrf_header_is_403(web, method, path):
    """Given good credentials but no ibm-mq-rest-csrf-token, when a POST, PATCH or DELETE
    is sent, then 403 MQWB0100E."""
    with web.client(ALICE) as c:
        r = c.request(method, path, headers={"content-type": "application/json"},
                      content=b"{}")
        _error(r, 403, "MQWB0100E")


def test_the_console_page_is_public_but_holds_no_data(web):
    """The console's page and script are served to anyone, as IBM's login page is: they
    are the server's static files, with its Content-Security-Policy."""
    with web.client(None) as c:
        page = c.get("/ibmmq/console/")
        script = c.get("/ibmmq/console/console.js")
    assert page.status_code == script.status_code == 200
    assert "default-src 'self'" in page.headers["content-security-policy"]
    assert QM not in page.text and QM not in script.text


@pytest.mark.parametrize("path", ["/ibmmq/console/../../etc/passwd",
                                  "/ibmmq/console/%2e%2e/%2e%2e/etc/passwd",
                                  "/ibmmq/console/..%2f..%2fetc%2fpasswd",
                                  "/ibmmq/console/api/qmgr/%2E%2E/errorlog"])
def test_a_dotted_path_reaches_no_file_outside(web, path):
    with web.client() as c:
        r = c.get(path)
    assert r.status_code == 404 and "root:" not in r.text


def test_callers_guessing_passwords_do_not_hold_up_a_known_caller(web):
    """Given 40 clients sending wrong passwords as fast as they are answered (each check an
    scrypt hash), when a caller whose credentials were checked before asks, then it is
    answered in well under a second: the guesses wait for each other, not for it (they
    took every worker thread, and it waited 3-4.5 s)."""
    with web.client() as c:
        assert c.get(f"{REST}/admin/qmgr").status_code == 200
    stop = threading.Event()
    refused: list[int] = []

    def guess(n: int) -> None:
        with web.client(ADMIN, f"wrong-{n}") as g:
            while not stop.is_set():
                refused.append(g.get(f"{REST}/admin/qmgr").status_code)

    guessers = [threading.Thread(target=guess, args=(n,)) for n in range(40)]
    for t in guessers:
        t.start()
    try:
        time.sleep(2)
        took = []
        with web.client() as c:
            for _ in range(5):
                start = time.monotonic()
                assert c.get(f"{REST}/admin/qmgr").status_code == 200
                took.append(time.monotonic() - start)
    finally:
        stop.set()
        for t in guessers:
            t.join()
    assert sorted(took)[2] < 1.0, took
    assert refused and set(refused) == {401}


# --------------------------------------------------------------------------- bodies
@pytest.mark.parametrize("method,path", [("POST", MQSC), ("POST", QUEUES),
                                         ("PATCH", f"{QUEUES}/APP.Q"), ("POST", MSG)])
def test_a_body_without_credentials_is_refused_before_it_is_read(web, method, path):
    """Given a request announcing 200 MB and no credentials, when only its headers are
    sent, then 401 comes at once: the server does not wait for (and keep) the body of a
    caller it does not know."""
    head = (f"{method} {path} HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
            f"ibm-mq-rest-csrf-token: x\r\nContent-Length: 200000000")
    answer = _raw(web, head)
    assert answer.startswith(b"HTTP/1.1 401"), answer[:200]


def _basic(user: str) -> str:
    password = {ADMIN: ADMIN_PW, ALICE: ALICE_PW}[user]
    return "Basic " + base64.b64encode(f"{user}:{password}".encode()).decode()


@pytest.mark.parametrize("path,user,limit", [(QUEUES, ADMIN, webapp.MAX_JSON_BODY),
                                             (MSG, ALICE, webapp.MAX_MESSAGE_BODY),
                                             (f"{REST}/login", None, webapp.MAX_LOGIN_BODY)])
def test_a_body_over_the_bound_is_413_before_it_is_read(web, path, user, limit):
    """Given a caller, when a request announces more than its route's bound (a login's
    16 KB, the admin API's 1 MB of JSON, a message's 100 MB: MQ's largest), then 413 at
    once, its body unread."""
    media = "text/plain" if path == MSG else "application/json"
    head = (f"POST {path} HTTP/1.1\r\nHost: x\r\nContent-Type: {media}\r\n"
            f"ibm-mq-rest-csrf-token: x\r\nContent-Length: {limit + 1}")
    if user is not None:
        head += f"\r\nAuthorization: {_basic(user)}"
    answer = _raw(web, head)
    assert answer.startswith(b"HTTP/1.1 413"), answer[:200]


def test_a_chunked_body_over_the_bound_is_413(web):
    """Given no Content-Length (chunked), when the body passes the bound, then 413 and
    the server kept no more than the bound."""
    def chunks():
        piece = b" " * 65536
        for _ in range(webapp.MAX_JSON_BODY // len(piece) + 4):
            yield piece

    with web.client() as c:
        r = c.post(QUEUES, headers={**CSRF, "content-type": "application/json"},
                   content=chunks())
    _error(r, 413)


def test_a_login_body_that_stops_coming_is_given_up(web):
    """Given a login (no credentials yet) announcing 100 bytes, when they come one a
    second, then the server answers 408 within readTimeout rather than holding the
    connection for as long as the client likes; meanwhile other callers are served."""
    port = int(web.base.rsplit(":", 1)[1])
    s = socket.create_connection(("127.0.0.1", port))
    s.settimeout(READ_TIMEOUT + 8)
    s.sendall(f"POST {REST}/login HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
              f"Content-Length: 100\r\n\r\n{{".encode())
    start = time.monotonic()
    answer = b""
    with web.client() as c:  # meanwhile, others are served
        assert c.get(f"{QUEUES}/APP.Q").status_code == 200
    assert time.monotonic() - start < READ_TIMEOUT
    try:
        while time.monotonic() - start < READ_TIMEOUT + 6 and not answer:
            s.sendall(b" ")
            s.settimeout(1)
            try:
                answer = s.recv(4096)
            except TimeoutError:
                pass
        s.settimeout(5)
        while more := s.recv(65536):  # the whole answer, until the server closes
            answer += more
    except OSError:
        pass
    finally:
        s.close()
    assert answer.startswith(b"HTTP/1.1 408"), answer[:200]
    assert time.monotonic() - start < READ_TIMEOUT + 4


def test_a_deeply_nested_json_body_is_400(web):
    with web.client() as c:
        r = c.post(QUEUES, headers={**CSRF, "content-type": "application/json"},
                   content=b"[" * 100_000 + b"]" * 100_000)
    _error(r, 400, "MQWB2004E")


# --------------------------------------------------------------------------- values
@pytest.mark.parametrize("header,value", [
    ("ibm-mq-md-expiry", "\u00b2"), ("ibm-mq-md-expiry", "9" * 40),
    ("ibm-mq-md-replyTo", "Q" * 49 + "@QMS"), ("ibm-mq-md-replyTo", "Q@" + "M" * 49),
])
def test_a_header_value_out_of_range_is_400(web, header, value):
    with web.client(ALICE) as c:
        r = c.post(MSG, headers={**PUT, header: value.encode("latin-1")}, content=b"x")
    _error(r, 400, "MQWB0302E")


@pytest.mark.parametrize("query", ["wait=%C2%B2", "wait=%D9%A3"])
def test_a_query_value_of_other_digits_is_400(web, query):
    with web.client(ALICE) as c:
        _error(c.delete(f"{MSG}?{query}", headers=CSRF), 400, "MQWB0302E")
        _error(c.get(f"{REST}/messaging/qmgr/{QM}/queue/APP.Q/messagelist?limit=%C2%B2"), 400,
               "MQWB0302E")


@pytest.mark.parametrize("qmgr", ["A%00B", "%00"])
def test_a_queue_manager_name_with_nul_is_404(web, qmgr):
    with web.client() as c:
        _error(c.get(f"{REST}/admin/qmgr/{qmgr}/queue"), 404, "MQWB0009E")
    with web.client(ALICE) as c:
        _error(c.post(f"{REST}/messaging/qmgr/{qmgr}/queue/APP.Q/message", headers=PUT,
                      content=b"x"), 404, "MQWB0009E")


@pytest.mark.parametrize("command", ["DISPLAY QMGR\rDEFINE QLOCAL(RO.SNEAK)",
                                     "DISPLAY QMGR\nDEFINE QLOCAL(RO.SNEAK)",
                                     "DISPLAY QMGR; DEFINE QLOCAL(RO.SNEAK)",
                                     "DISPLAY QLOCAL(X) +\nDEFINE QLOCAL(RO.SNEAK)"])
def test_the_read_only_role_cannot_slip_a_second_command_in(web, command):
    """Given MQWebAdminRO, when runCommand starts with DISPLAY and holds a DEFINE behind a
    line break, a carriage return, a semicolon or a continuation, then no queue is
    defined."""
    with web.client(READER) as c:
        r = c.post(MQSC, headers=CSRF, json={"type": "runCommand",
                                             "parameters": {"command": command}})
        assert r.status_code in (200, 403), r.text
    with web.client() as c:
        assert c.get(f"{QUEUES}/RO.SNEAK").status_code == 404


def test_head_of_a_message_browses_it_and_takes_nothing(web):
    """Given a message on APP.Q, when HEAD asks for .../message (no CSRF header: HEAD is
    not a change), then the answer is the browse's, and the message is still there for
    the destructive get."""
    with web.client(ALICE) as c:
        while c.delete(MSG, headers=CSRF).status_code == 200:
            pass
        assert c.post(MSG, headers=PUT, content=b"precious").status_code == 201
        head = c.head(MSG)
        assert head.status_code == 200 and head.content == b""
        got = c.delete(MSG, headers=CSRF)
    assert got.status_code == 200 and got.content == b"precious"


@pytest.mark.parametrize("name", ["X') DELETE QLOCAL('APP.Q", "A B", "Q" * 49, "caf\u00e9", ""])
def test_a_queue_name_mq_cannot_hold_is_400_and_nothing_is_defined(web, name):
    """Given a POST of a queue whose name holds characters an MQ name cannot (a quote, a
    bracket, a blank, one beyond ASCII) or is longer than 48, then 400 MQWB0302E, as
    MQSC's DEFINE refuses it, and no such queue exists."""
    with web.client() as c:
        _error(c.post(QUEUES, headers=CSRF, json={"name": name, "type": "local"}), 400,
               "MQWB0302E")
        listed = c.get(QUEUES).json()["queue"]
    assert name not in {q["name"] for q in listed}


@pytest.mark.parametrize("value", ["9" * 50, 10**30, -(2**31) - 1])
def test_a_number_no_mqlong_holds_is_400(web, value):
    with web.client() as c:
        _error(c.post(QUEUES, headers=CSRF, json={"name": "HOSTILE.DEPTH", "type": "local",
                                                  "storage": {"maximumDepth": value}}),
               400, "MQWB0302E")
        _error(c.patch(f"{QUEUES}/APP.Q", headers=CSRF,
                       json={"storage": {"maximumDepth": value}}), 400, "MQWB0302E")


def test_the_server_answers_after_all_of_them_and_logged_no_traceback(web):
    """After every hostile request of this module, the server answers, and its log holds
    no traceback (each refusal was an answer, not an exception)."""
    from mqpy_cli.web import config as webconfig

    with web.client() as c:
        assert c.get(f"{QUEUES}/APP.Q").status_code == 200
    with open(webconfig.log_path(web.root), encoding="utf-8", errors="replace") as f:
        assert "Traceback" not in f.read()
