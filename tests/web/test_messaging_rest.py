"""The messaging REST API v2 as IBM's mqweb has it: POST puts the body (ibm-mq-md-* headers
for the MQMD, ibm-mq-usr-* for properties), DELETE gets destructively (wait=,
correlationId=, messageId=; the MQMD back as headers; 204 when there is none), GET
browses, and /messagelist lists the messages' descriptors."""

from __future__ import annotations

import threading
import time

import pytest

from tests.support.handles import open_input_count
from tests.support.waiting import wait_for
from tests.support.web import ALICE, CSRF, PUT, QM, REST

MSG = f"{REST}/messaging/qmgr/{QM}/queue/APP.Q/message"
LIST = f"{REST}/messaging/qmgr/{QM}/queue/APP.Q/messagelist"
CORREL = "0123456789abcdef0123456789abcdef0123456789abcdef"


def _drain(c) -> None:
    while c.delete(MSG, headers=CSRF).status_code == 200:
        pass


def test_put_then_get_carries_the_md_headers_and_properties(web):
    """A put with persistence, correlation id, expiry, reply-to and a user property comes
    back from the destructive get with the same values as headers, the body as sent."""
    with web.client(ALICE) as c:
        _drain(c)
        put = c.post(MSG, content="héllo".encode(), headers={
            **PUT,
            "ibm-mq-md-persistence": "persistent", "ibm-mq-md-correlationId": CORREL,
            "ibm-mq-md-expiry": "600000", "ibm-mq-md-replyTo": "APP.REPLY@QMS",
            "ibm-mq-usr-colour": "blue"})
        assert put.status_code == 201, put.text
        msgid = put.headers["ibm-mq-md-messageId"]
        got = c.delete(MSG, headers=CSRF)
    assert got.status_code == 200
    assert got.content == "héllo".encode()
    assert got.headers["content-type"].startswith("text/plain")
    h = got.headers
    assert (h["ibm-mq-md-messageId"], h["ibm-mq-md-correlationId"]) == (msgid, CORREL)
    assert h["ibm-mq-md-persistence"] == "persistent"
    assert h["ibm-mq-md-replyTo"].startswith("APP.REPLY@QMS")
    assert 0 < int(h["ibm-mq-md-expiry"]) <= 600000
    assert h["ibm-mq-usr-colour"] == "blue"


def test_an_empty_queue_answers_204(web):
    with web.client(ALICE) as c:
        _drain(c)
        r = c.delete(MSG, headers=CSRF)
    assert r.status_code == 204 and r.content == b""


def test_get_selects_by_correlation_and_message_id(web):
    """Of three messages, correlationId= gets the one with that id, messageId= another."""
    with web.client(ALICE) as c:
        _drain(c)
        c.post(MSG, headers=PUT, content=b"first")
        c.post(MSG, headers={**PUT, "ibm-mq-md-correlationId": CORREL}, content=b"second")
        third = c.post(MSG, headers=PUT, content=b"third").headers["ibm-mq-md-messageId"]
        assert c.delete(f"{MSG}?correlationId={CORREL}", headers=CSRF).content == b"second"
        assert c.delete(f"{MSG}?messageId={third}", headers=CSRF).content == b"third"
        assert c.delete(f"{MSG}?correlationId={CORREL}", headers=CSRF).status_code == 204
        assert c.delete(MSG, headers=CSRF).content == b"first"
        assert c.delete(f"{MSG}?messageId=zz", headers=CSRF).status_code == 400


def test_browse_and_list_leave_the_messages(web):
    """GET browses the first message and /messagelist describes each; both leave them."""
    with web.client(ALICE) as c:
        _drain(c)
        ids = [c.post(MSG, headers=PUT, content=f"m{n}".encode()).headers[
            "ibm-mq-md-messageId"] for n in range(3)]
        assert c.get(MSG).content == b"m0"
        listed = c.get(LIST).json()["messages"]
        assert [m["messageId"] for m in listed] == ids
        assert listed[0]["format"] == "MQSTR" and listed[0]["userId"] == ALICE
        assert len(c.get(f"{LIST}?limit=2").json()["messages"]) == 2
        assert [c.delete(MSG, headers=CSRF).content for _ in ids] == [b"m0", b"m1", b"m2"]


def test_wait_gets_a_message_put_while_waiting(web):
    """DELETE ?wait=5000 on an empty queue answers with a message put 0.5 s later."""
    with web.client(ALICE) as c:
        _drain(c)

    def later() -> None:
        time.sleep(0.5)
        with web.client(ALICE) as c2:
            c2.post(MSG, headers=PUT, content=b"late")

    t = threading.Thread(target=later)
    t.start()
    try:
        with web.client(ALICE) as c:
            r = c.delete(f"{MSG}?wait=5000", headers=CSRF)
    finally:
        t.join()
    assert (r.status_code, r.content) == (200, b"late")


def test_bad_headers_and_unknown_queues_are_refused(web):
    with web.client(ALICE) as c:
        bad = c.post(MSG, headers={**PUT, "ibm-mq-md-persistence": "sometimes"}, content=b"x")
        assert bad.status_code == 400 and bad.json()["error"][0]["msgId"] == "MQWB0302E"
        missing = c.post(f"{REST}/messaging/qmgr/{QM}/queue/APP.NOPE/message", headers=PUT,
                         content=b"x")
        assert missing.status_code == 404 and missing.json()["error"][0]["reasonCode"] == 2085


@pytest.mark.parametrize("content_type", [None, "application/octet-stream", "image/png",
                                          "text/plain;charset=latin-1"])
def test_a_body_that_is_not_utf8_text_is_415(web, content_type):
    """IBM's put takes text bodies (text/plain, text/html, text/xml, application/json,
    application/xml; UTF-8): another media type is 415 MQWB0306E and nothing is put."""
    headers = {**CSRF, **({"content-type": content_type} if content_type else {})}
    with web.client(ALICE) as c:
        _drain(c)
        r = c.post(MSG, headers=headers, content=b"x")
        assert r.status_code == 415 and r.json()["error"][0]["msgId"] == "MQWB0306E"
        assert c.delete(MSG, headers=CSRF).status_code == 204


def test_json_and_xml_bodies_are_text(web):
    with web.client(ALICE) as c:
        _drain(c)
        for ctype in ("application/json;charset=utf-8", "application/xml", "text/html"):
            assert c.post(MSG, headers={**CSRF, "content-type": ctype},
                          content=b"<a/>").status_code == 201
        assert [c.delete(MSG, headers=CSRF).status_code for _ in range(3)] == [200] * 3


def test_a_wait_that_ends_without_a_message_answers_204(web):
    """DELETE ?wait=500 on an empty queue answers 204, once the wait is over."""
    with web.client(ALICE) as c:
        _drain(c)
        started = time.monotonic()
        r = c.delete(f"{MSG}?wait=500", headers=CSRF)
    assert (r.status_code, r.content) == (204, b"")
    assert time.monotonic() - started >= 0.5


def test_waiting_gets_do_not_hold_up_other_requests(web):
    """Given 45 destructive gets waiting 30 s each on an empty queue (more than the worker
    threads other requests use), an admin GET made once all 45 wait (the queue's open input
    count) is answered within 4 s, not after the waits end; 45 messages put then end the
    waits, one each."""
    import concurrent.futures

    with web.client(ALICE) as c:
        _drain(c)

    def wait(_: int) -> tuple[int, bytes]:
        with web.client(ALICE) as c:
            r = c.delete(f"{MSG}?wait=30000", headers=CSRF)
            return r.status_code, r.content

    qm = web.site.bindings()
    try:
        with concurrent.futures.ThreadPoolExecutor(45) as pool:
            waits = [pool.submit(wait, n) for n in range(45)]
            wait_for(lambda: open_input_count(qm, "APP.Q") == 45, 30, "45 gets waiting")
            started = time.monotonic()
            with web.client() as c:
                r = c.get(f"{REST}/admin/qmgr")
            took = time.monotonic() - started
            still_waiting = sum(not w.done() for w in waits)
            for n in range(45):
                qm.put1("APP.Q", b"m%02d" % n)
            answers = [w.result() for w in waits]
    finally:
        qm.disconnect()
    assert r.status_code == 200 and took < 4, took
    assert still_waiting == 45
    assert sorted(answers) == [(200, b"m%02d" % n) for n in range(45)]
