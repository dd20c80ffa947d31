"""Hostile text in the web console, in a real headless Chromium: a topic string, a topic's
description, a subscription's name, a message body and an error-log line naming a channel a
hostile peer asked for, each holding HTML and script, are shown as text. No script of
theirs runs (``window.xss`` stays unset), the page's Content-Security-Policy had nothing to
refuse (nothing was parsed as markup), and each is in the page exactly as written."""

from __future__ import annotations

import socket

import pytest

from mqpy.fap.framing import SegmentWriter
from mqpy.fap.initialdata import InitialData
from tests.support.browser import click, selenium_by, wait_for_page
from tests.support.web import OPERATOR, OPERATOR_PW, PUT, QM, REST

pytestmark = pytest.mark.system

TOPIC_STRING = '<img src=x onerror="window.xss=1">'
DESCRIPTION = "<script>window.xss=2</script>"
SUBSCRIPTION = "<svg onload=\"window.xss=3\"></svg>"
BODY = '<img src=y onerror="window.xss=4"><b>bold?</b>'
#: an INITIAL_DATA's channel name has 20 characters
PEER_CHANNEL = "<svg onload=xss()>"


def _text(driver, css: str) -> str:
    """The text of everything ``css`` selects, read in one step (tables are redrawn)."""
    return driver.execute_script(
        "return Array.from(document.querySelectorAll(arguments[0]))"
        ".map(e => e.textContent).join('\\n');", css)


def _no_script_ran(driver) -> None:  # noqa: ANN001
    assert driver.execute_script("return window.xss === undefined && "
                                 "document.querySelectorAll('#console img, #console svg, "
                                 "#console script').length === 0")
    assert driver.execute_script("return window.cspViolations") == []


@pytest.fixture(scope="module")
def logged_in(web, browser):
    """The hostile names made, then the operator logged in."""
    web.site.mqsc(f"""
DEFINE QLOCAL(APP.XSS) REPLACE
DEFINE TOPIC(XSS.TOPIC) TOPICSTR('{TOPIC_STRING.replace("'", "''")}') DESCR('{DESCRIPTION}') REPLACE
DEFINE SUB('{SUBSCRIPTION}') TOPICOBJ(XSS.TOPIC) DEST(APP.XSS)
""")
    # a hostile peer names a channel that is not there: AMQ9519E quotes it in the log
    with socket.create_connection(("127.0.0.1", web.site.port), timeout=30) as sock:
        sock.sendall(SegmentWriter().send(InitialData(fap_level=10,
                                                      channel_name=PEER_CHANNEL)))
        sock.shutdown(socket.SHUT_WR)
        while sock.recv(65536):
            pass
    by = selenium_by()
    browser.get(f"{web.base}/ibmmq/console/?refresh=1000")
    browser.find_element(by.ID, "login-user").send_keys(OPERATOR)
    browser.find_element(by.ID, "login-password").send_keys(OPERATOR_PW)
    browser.find_element(by.ID, "login-button").click()
    wait_for_page(browser, lambda d: d.find_element(by.ID, "console").is_displayed(), "logged in")
    return browser


def test_topic_and_subscription_names_are_shown_as_text(logged_in, tmp_path):
    browser = logged_in
    click(browser, 'button[data-tab="pubsub-tab"]')
    wait_for_page(browser, lambda d: TOPIC_STRING in _text(d, "#topics")
          and DESCRIPTION in _text(d, "#topics") and SUBSCRIPTION in _text(d, "#subscriptions"),
          "the hostile topic and subscription shown as text")
    browser.save_screenshot(str(tmp_path / "pubsub.png"))
    _no_script_ran(browser)


def test_a_message_body_is_shown_as_text(web, logged_in, tmp_path):
    browser = logged_in
    with web.client("operator", OPERATOR_PW) as c:
        r = c.post(f"{REST}/messaging/qmgr/{QM}/queue/APP.XSS/message", headers=PUT,
                   content=BODY.encode())
        assert r.status_code == 201, r.text
    click(browser, 'button[data-tab="queues-tab"]')
    click(browser, 'button.browse[data-queue="APP.XSS"]')
    wait_for_page(browser, lambda d: d.find_element(selenium_by().ID, "browse-first").text == BODY,
          "the body shown as written")
    browser.save_screenshot(str(tmp_path / "browse.png"))
    _no_script_ran(browser)


def test_an_error_log_line_from_a_hostile_peer_is_shown_as_text(logged_in, tmp_path):
    browser = logged_in
    click(browser, 'button[data-tab="errorlog-tab"]')
    wait_for_page(browser, lambda d: f"'{PEER_CHANNEL}'" in _text(d, "#errorlog"),
          "AMQ9519E with the peer's channel name shown as text")
    browser.save_screenshot(str(tmp_path / "errorlog.png"))
    _no_script_ran(browser)
