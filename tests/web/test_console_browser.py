"""The web console in a real headless Chromium, against a running queue manager and mqweb
server: log in, see a queue's depth change after messages are put, queues sorted by how
close to full, define / put / browse / clear / delete a queue, start and stop a channel and
see its status change, read an error-log entry and filter it by severity, live charts. Each
test leaves screenshots in its temporary folder."""

from __future__ import annotations

import pytest
from prometheus_client.openmetrics.parser import text_string_to_metric_families

import mqpy
from tests.support.browser import click, selenium_by, wait_for_page
from tests.support.ports import free_port
from tests.support.web import CSRF, OPERATOR, OPERATOR_PW, QM, REST

pytestmark = pytest.mark.system



def _logged_in(web, browser):  # noqa: ANN001, ANN202
    by = selenium_by()
    if browser.find_elements(by.ID, "console") and \
            browser.find_element(by.ID, "console").is_displayed():
        return browser
    browser.get(f"{web.base}/ibmmq/console/?refresh=1000")
    browser.find_element(by.ID, "login-user").send_keys(OPERATOR)
    browser.find_element(by.ID, "login-password").send_keys(OPERATOR_PW)
    browser.find_element(by.ID, "login-button").click()
    wait_for_page(browser, lambda d: d.find_element(by.ID, "console").is_displayed(), "logged in")
    return browser


def _tab(browser, tab: str) -> None:
    click(browser, f'button[data-tab="{tab}"]')


def _cell(browser, table: str, key: str, name: str, css: str) -> str | None:
    """A cell's text read in one step (the console redraws its tables on every refresh)."""
    return browser.execute_script(
        "const c = document.querySelector(arguments[0]); return c ? c.textContent : null;",
        f'#{table} tr[data-{key}="{name}"] {css}')


def test_a_wrong_password_is_refused_then_the_operator_logs_in(web, browser, tmp_path):
    """The login form refuses a wrong password with MQWB0103E's text; the right one shows
    the queue managers with their state."""
    by = selenium_by()
    browser.get(f"{web.base}/ibmmq/console/?refresh=1000")
    browser.find_element(by.ID, "login-user").send_keys(OPERATOR)
    browser.find_element(by.ID, "login-password").send_keys("not-the-password")
    browser.find_element(by.ID, "login-button").click()
    wait_for_page(browser, lambda d: "MQWB0103E" in d.find_element(by.ID, "login-error").text,
          "the refusal shown")
    browser.save_screenshot(str(tmp_path / "login-refused.png"))
    _logged_in(web, browser)
    wait_for_page(browser, lambda d: _cell(d, "qmgrs", "qmgr", QM,
                                   ".state") == "running", "QMS running")
    browser.save_screenshot(str(tmp_path / "queue-managers.png"))


def test_depth_changes_after_messages_are_put_and_fullest_is_first(web, browser, tmp_path):
    """Given APP.FULL (MAXDEPTH 10) and APP.Q, when 9 and 2 messages are put by an
    application, then the console shows those depths within its refresh, APP.FULL first."""
    web.site.mqsc("DEFINE QLOCAL(APP.FULL) MAXDEPTH(10)\n")
    _logged_in(web, browser)
    _tab(browser, "queues-tab")
    qm = web.site.bindings()
    try:
        for n in range(9):
            qm.put1("APP.FULL", b"f%d" % n)
        for n in range(2):
            qm.put1("APP.Q", b"q%d" % n)
    finally:
        qm.disconnect()
    wait_for_page(browser, lambda d: _cell(d, "queues", "queue", "APP.FULL", ".depth") == "9" and
          _cell(d, "queues", "queue", "APP.Q", ".depth") == "2", "the depths shown")
    assert browser.execute_script(
        "return document.querySelector('#queues tbody tr').dataset.queue") == "APP.FULL"
    browser.save_screenshot(str(tmp_path / "queues-by-fullness.png"))
    width = browser.execute_script(
        "return document.querySelector('#queues tr[data-queue=\"APP.FULL\"] .bar span')"
        ".style.width")
    assert width == "90%"
    web.site.mqsc("CLEAR QLOCAL(APP.Q)\nDELETE QLOCAL(APP.FULL) PURGE\n")


def _define(web, browser, name: str) -> None:  # noqa: ANN001
    """Type ``name`` in the Queues tab's box and press Define queue."""
    _logged_in(web, browser)
    _tab(browser, "queues-tab")
    box = browser.find_element(selenium_by().ID, "new-queue-name")
    box.clear()
    box.send_keys(name)
    click(browser, "#define-queue")


def test_define_put_browse_clear_and_delete_a_queue(web, browser, tmp_path):
    """Through the console: define APP.UI, put a test message (depth 1), browse it (its
    text shown), clear it after confirming (depth 0), delete it after confirming."""
    by = selenium_by()
    _define(web, browser, "APP.UI")
    wait_for_page(browser, lambda d: _cell(d, "queues", "queue", "APP.UI", ".depth") == "0",
          "APP.UI listed")
    text = browser.find_element(by.ID, "message-text")
    text.clear()
    text.send_keys("test message from Chromium")
    click(browser, 'button.put[data-queue="APP.UI"]')
    wait_for_page(browser, lambda d: _cell(d, "queues", "queue", "APP.UI", ".depth") == "1",
          "depth 1 after the put")
    click(browser, 'button.browse[data-queue="APP.UI"]')
    wait_for_page(browser, lambda d: d.find_element(by.ID, "browse-first").text ==
          "test message from Chromium", "the message browsed")
    browser.save_screenshot(str(tmp_path / "browse.png"))
    click(browser, 'button.clear[data-queue="APP.UI"]')
    browser.switch_to.alert.accept()
    wait_for_page(browser, lambda d: _cell(d, "queues", "queue", "APP.UI", ".depth") == "0",
          "depth 0 after clearing")
    click(browser, 'button.delete[data-queue="APP.UI"]')
    browser.switch_to.alert.accept()
    wait_for_page(browser, lambda d: _cell(d, "queues", "queue", "APP.UI", ".depth") is None,
          "APP.UI gone")
    assert "Queue APP.UI deleted." in browser.find_element(by.ID, "message").text


def test_an_action_that_fails_shows_ibm_message_text(web, browser, tmp_path):
    """Defining a queue that exists shows the REST error's MQWB text, not a stack."""
    by = selenium_by()
    _define(web, browser, "APP.Q")
    wait_for_page(browser, lambda d: "MQWB0004E" in d.find_element(by.ID, "message").text,
          "the failure shown")
    assert "MQRCCF_OBJECT_ALREADY_EXISTS" in browser.find_element(by.ID, "message").text


def test_start_and_stop_a_channel_and_see_its_status(web, browser, tmp_path):
    """A sender channel to a port nobody listens on: Start makes its status leave
    inactive, Stop makes it stopped."""
    web.site.mqsc(f"DEFINE QLOCAL(UI.XMITQ) USAGE(XMITQ)\n"
                  f"DEFINE CHANNEL(UI.SDR) CHLTYPE(SDR) TRPTYPE(TCP) "
                  f"CONNAME('127.0.0.1({free_port()})') XMITQ(UI.XMITQ)\n")
    _logged_in(web, browser)
    _tab(browser, "channels-tab")
    wait_for_page(browser, lambda d: _cell(d, "channels", "channel", "UI.SDR", ".state") == "inactive",
          "UI.SDR inactive")
    click(browser, 'button.start[data-channel="UI.SDR"]')
    wait_for_page(browser, lambda d: _cell(d, "channels", "channel", "UI.SDR", ".state")
          not in (None, "inactive"), "UI.SDR started")
    browser.save_screenshot(str(tmp_path / "channel-started.png"))
    click(browser, 'button.stop[data-channel="UI.SDR"]')
    wait_for_page(browser, lambda d: _cell(d, "channels", "channel", "UI.SDR", ".state") == "stopped",
          "UI.SDR stopped")
    browser.save_screenshot(str(tmp_path / "channel-stopped.png"))


def test_ping_and_resolve_show_the_queue_managers_answer(web, browser, tmp_path):
    """Ping of a sender whose partner is not there, and Resolve of a channel not in doubt,
    show the queue manager's AMQ message text."""
    by = selenium_by()
    _logged_in(web, browser)
    _tab(browser, "channels-tab")
    wait_for_page(browser, lambda d: _cell(d, "channels", "channel", "UI.SDR", ".state") is not None,
          "UI.SDR listed")
    click(browser, 'button.resolve[data-channel="UI.SDR"]')
    wait_for_page(browser, lambda d: "AMQ9528E" in d.find_element(by.ID, "message").text,
          "resolve's answer shown")
    click(browser, 'button.ping[data-channel="UI.SDR"]')
    wait_for_page(browser, lambda d: "AMQ9528E" not in d.find_element(by.ID, "message").text and
          "AMQ" in d.find_element(by.ID, "message").text, "ping's answer shown")
    browser.save_screenshot(str(tmp_path / "ping.png"))


def test_an_error_log_entry_is_shown_and_filtered_by_severity(web, browser, tmp_path):
    """A failed MQCONN (wrong password) writes AMQ5534E to the queue manager's error log:
    the Error log tab shows it, and unchecking Error hides it."""
    by = selenium_by()
    with pytest.raises(mqpy.MQMIError):
        web.site.bindings(OPERATOR, "wrong-password")
    _logged_in(web, browser)
    _tab(browser, "errorlog-tab")
    wait_for_page(browser, lambda d: "AMQ5534E" in d.find_element(by.ID, "errorlog").text,
          "AMQ5534E shown")
    browser.save_screenshot(str(tmp_path / "error-log.png"))
    browser.find_element(by.ID, "sev-E").click()
    wait_for_page(browser, lambda d: "AMQ5534E" not in d.find_element(by.ID, "errorlog").text,
          "errors filtered out")
    browser.find_element(by.ID, "sev-E").click()


def test_the_charts_update_every_few_seconds(web, browser, tmp_path):
    """The charts tab gathers a point per refresh (one second here, three by default)."""
    by = selenium_by()
    _logged_in(web, browser)
    _tab(browser, "charts-tab")
    wait_for_page(browser, lambda d: int(d.find_element(by.ID, "depth-chart")
                                 .get_attribute("data-points") or 0) >= 3, "three points")
    browser.save_screenshot(str(tmp_path / "charts.png"))


def test_put_and_get_rates_are_shown_per_queue_and_charted(web, browser, tmp_path):
    """Given the console on the Queues tab (the server then subscribes to each queue's
    resource statistics, published every second here), when an application puts to
    APP.RATES for a few seconds and gets some back, then the queue's Puts /s and Gets /s
    show rates above 0, and the Charts tab's MQPUT chart has plotted APP.RATES above 0."""
    import json
    import threading
    import time

    web.site.mqsc("DEFINE QLOCAL(APP.RATES) MAXDEPTH(20)\n")
    _logged_in(web, browser)
    _tab(browser, "queues-tab")
    time.sleep(2.5)  # the console's first refreshes: the subscriptions are made

    def application() -> None:
        qm = web.site.bindings()
        try:
            q = mqpy.Queue(qm, "APP.RATES", mqpy.CMQC.MQOO_INPUT_AS_Q_DEF | mqpy.CMQC.MQOO_OUTPUT)
            for n in range(16):
                q.put(b"r%d" % n)
                if n % 4 == 3:
                    q.get()
                time.sleep(0.25)
            q.close()
        finally:
            qm.disconnect()

    app = threading.Thread(target=application)
    app.start()
    try:
        def positive(d, css: str) -> bool:  # noqa: ANN001
            text = _cell(d, "queues", "queue", "APP.RATES", css)
            return bool(text) and float(text) > 0

        wait_for_page(browser, lambda d: positive(d, ".put-rate"), "a put rate above 0")
        wait_for_page(browser, lambda d: positive(d, ".get-rate"), "a get rate above 0")
        browser.save_screenshot(str(tmp_path / "queue-rates.png"))
        _tab(browser, "charts-tab")
        wait_for_page(browser, lambda d: json.loads(d.find_element(selenium_by().ID, "put-rate-chart")
                                            .get_attribute("data-peak") or "{}")
              .get("APP.RATES", 0) > 0, "APP.RATES's put rate charted")
        browser.save_screenshot(str(tmp_path / "rate-charts.png"))
    finally:
        app.join()
        web.site.mqsc("DELETE QLOCAL(APP.RATES) PURGE\n")


def test_everything_comes_from_the_server_and_nothing_is_refused(web, browser):
    """Every resource the console loaded is the server's own, and its Content-Security-
    Policy refused nothing (the console works offline)."""
    _logged_in(web, browser)
    for tab in ("queues-tab", "channels-tab", "errorlog-tab", "charts-tab", "qmgrs-tab"):
        _tab(browser, tab)
    origins = browser.execute_script(
        "return performance.getEntriesByType('resource').map(e => new URL(e.name).origin)")
    assert set(origins) <= {web.base}
    assert browser.execute_script("return window.cspViolations") == []


def test_the_console_logs_in_with_a_token_cookie_and_logs_out(web, browser, tmp_path):
    """Given the operator logged in through the form, then the browser holds an
    LtpaToken2 cookie that scripts cannot read (HttpOnly) and no password; when she logs
    out, the cookie is gone and the login form is back."""
    by = selenium_by()
    _logged_in(web, browser)
    names = [c["name"] for c in browser.get_cookies()]
    assert any(n.startswith("LtpaToken2") for n in names), names
    assert "LtpaToken2" not in browser.execute_script("return document.cookie")
    browser.save_screenshot(str(tmp_path / "token-login.png"))
    click(browser, "#logout")
    wait_for_page(browser, lambda d: d.find_element(by.ID, "login-panel").is_displayed(),
          "the login form after logging out")
    assert not any(c["name"].startswith("LtpaToken2") for c in browser.get_cookies())


def test_topics_and_subscriptions_are_shown_in_tables(web, browser, tmp_path):
    """Given topic object UI.TOPIC ('ui/news') and subscription UI.SUB to 'ui/news/#' with
    queue APP.UI.NEWS, the Publish/subscribe tab lists the topic with its topic string and
    the subscription with its resolved topic string, destination and durability; a
    subscription deleted goes from the table at the next refresh."""
    web.site.mqsc("DEFINE QLOCAL(APP.UI.NEWS) REPLACE\n"
                  "DEFINE TOPIC(UI.TOPIC) TOPICSTR('ui/news') REPLACE\n"
                  "DEFINE SUB(UI.SUB) TOPICOBJ(UI.TOPIC) TOPICSTR('#') DEST(APP.UI.NEWS)\n")
    _logged_in(web, browser)
    _tab(browser, "pubsub-tab")
    wait_for_page(browser, lambda d: _cell(d, "topics", "topic", "UI.TOPIC", ".topicstr") == "ui/news"
          and _cell(d, "subscriptions", "sub", "UI.SUB", ".topicstr") == "ui/news/#",
          "the topic and the subscription shown")
    assert _cell(browser, "subscriptions", "sub", "UI.SUB", ".dest") == "APP.UI.NEWS"
    assert _cell(browser, "subscriptions", "sub", "UI.SUB", ".durable") == "yes"
    browser.save_screenshot(str(tmp_path / "publish-subscribe.png"))
    web.site.mqsc("DELETE SUB(UI.SUB)\n")
    wait_for_page(browser, lambda d: _cell(d, "subscriptions", "sub", "UI.SUB", ".dest") is None,
          "the deleted subscription gone")


# ---------------------------------------------------------------- a queue's file size
# /metrics with mq_prometheus's ibmmq_queue_qfile_current_size and ibmmq_queue_qfile_max_size
# (DISPLAY QSTATUS CURFSIZE and CURMAXFS, megabytes), IBM's REST API v2 answering them
# through the mqsc action (its queue resources have no JSON names for them), and the
# console's Queues tab showing the file size beside the depth (this module's server).

QFILE_QUEUE = "APP.QFILE"
#: two messages of 700 KB: the file holds 1.4 MB, CURFSIZE 2 (IBM rounds up to the megabyte)
BODY = b"q" * 700 * 1024
MAXFSIZE = 20  #: the least IBM allows (megabytes)
ACTION = f"{REST}/admin/action/qmgr/{QM}/mqsc"


@pytest.fixture(scope="module")
def filled(web):  # noqa: ANN001, ANN201
    """APP.QFILE with MAXFSIZE(20) and two messages of 700 KB on it."""
    web.site.mqsc_here(f"DEFINE QLOCAL({QFILE_QUEUE}) MAXFSIZE({MAXFSIZE})\n")
    qm = web.site.bindings()
    try:
        for _ in range(2):
            qm.put1(QFILE_QUEUE, BODY)
    finally:
        qm.disconnect()
    return web


def _queue_samples(text: str, queue: str) -> dict[str, tuple[float, dict]]:
    """The samples of ``queue`` in an OpenMetrics scrape: name -> (value, labels)."""
    return {s.name: (s.value, s.labels) for f in text_string_to_metric_families(text)
            for s in f.samples if s.labels.get("queue") == queue}


def test_a_scrape_shows_the_queue_file_size_and_its_maximum(filled):
    """Given APP.QFILE (MAXFSIZE 20) holding 1.4 MB of messages, when Prometheus scrapes
    /metrics, then ibmmq_queue_qfile_current_size is 2 and ibmmq_queue_qfile_max_size 20 (MB,
    as DISPLAY QSTATUS CURFSIZE and CURMAXFS give them), with the labels of ibmmq_queue_depth
    beside them."""
    with filled.client() as c:
        r = c.get("/metrics")
    assert r.status_code == 200, r.text
    samples = _queue_samples(r.text, QFILE_QUEUE)
    assert samples["ibmmq_queue_qfile_current_size"][0] == 2
    assert samples["ibmmq_queue_qfile_max_size"][0] == MAXFSIZE
    depth_labels = samples["ibmmq_queue_depth"][1]
    assert samples["ibmmq_queue_qfile_current_size"][1] == depth_labels
    assert samples["ibmmq_queue_qfile_max_size"][1] == depth_labels == {
        "qmgr": QM, "queue": QFILE_QUEUE, "usage": "NORMAL", "description": ""}


def test_the_rest_api_gives_the_file_sizes_through_the_mqsc_action(filled):
    """IBM's REST API v2 has no JSON names for CURFSIZE, CURMAXFS or MAXFSIZE in its queue
    resources (v2 sends queue status to the mqsc action): given APP.QFILE, when
    runCommandJSON displays its QSTATUS with curfsize and curmaxfs and the queue with
    maxfsize, then the answers carry them as numbers under IBM's lower-case keywords."""
    with filled.client() as c:
        status = c.post(ACTION, headers=CSRF, json={
            "type": "runCommandJSON", "command": "display", "qualifier": "qstatus",
            "name": QFILE_QUEUE, "responseParameters": ["curfsize", "curmaxfs"]}).json()
        queue = c.post(ACTION, headers=CSRF, json={
            "type": "runCommandJSON", "command": "display", "qualifier": "qlocal",
            "name": QFILE_QUEUE, "responseParameters": ["maxfsize"]}).json()
    assert status["overallCompletionCode"] == 0, status
    found = status["commandResponse"][0]["parameters"]
    assert (found["curfsize"], found["curmaxfs"]) == (2, MAXFSIZE)
    assert queue["commandResponse"][0]["parameters"]["maxfsize"] == MAXFSIZE


def test_the_console_shows_the_file_size_beside_the_depth(filled, browser, tmp_path):
    """Given APP.QFILE holding 1.4 MB in two messages (MAXFSIZE 20), when the operator opens
    the console's Queues tab in Chromium, then APP.QFILE's row shows depth 2 and, in the
    column beside it, file size 2 (MB) with its maximum, 20 MB, as its title."""
    by = selenium_by()
    browser.get(f"{filled.base}/ibmmq/console/?refresh=1000")
    browser.find_element(by.ID, "login-user").send_keys(OPERATOR)
    browser.find_element(by.ID, "login-password").send_keys(OPERATOR_PW)
    browser.find_element(by.ID, "login-button").click()
    wait_for_page(browser, lambda d: d.find_element(by.ID, "console").is_displayed(),
                  "logged in")
    click(browser, 'button[data-tab="queues-tab"]')

    def row() -> dict | None:  # read in one step: the console redraws its table each refresh
        return browser.execute_script(
            "const r = document.querySelector(arguments[0]); if (!r) return null;"
            "const f = r.querySelector('.file-size');"
            "return {depth: r.querySelector('.depth').textContent,"
            "        next: r.querySelector('.depth').nextElementSibling === f,"
            "        size: f ? f.textContent : null, title: f ? f.title : null};",
            f'#queues tr[data-queue="{QFILE_QUEUE}"]')

    wait_for_page(browser, lambda d: (row() or {}).get("size") == "2", "the file size shown")
    browser.save_screenshot(str(tmp_path / "queue-file-size.png"))
    assert row() == {"depth": "2", "next": True, "size": "2",
                     "title": f"of at most {MAXFSIZE} MB"}
    header = browser.execute_script(
        "return [...document.querySelectorAll('#queues thead th')].map((h) => h.textContent)")
    assert header[1:3] == ["Depth", "File (MB)"]
