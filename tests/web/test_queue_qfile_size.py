"""A queue's file size as the web server shows it: /metrics with mq_prometheus's
``ibmmq_queue_qfile_current_size`` and ``ibmmq_queue_qfile_max_size`` (DISPLAY QSTATUS
CURFSIZE and CURMAXFS, megabytes), IBM's REST API v2 answering them through the mqsc action
(its queue resources have no JSON names for them), and the console's Queues tab showing the
file size beside the depth. One queue manager and server for the module; the queue is
filled once."""

from __future__ import annotations

import pytest
from prometheus_client.openmetrics.parser import text_string_to_metric_families

from tests.support.browser import click, selenium_by, wait_for_page
from tests.support.web import CSRF, OPERATOR, OPERATOR_PW, QM, REST

QUEUE = "APP.QFILE"
#: two messages of 700 KB: the file holds 1.4 MB, CURFSIZE 2 (IBM rounds up to the megabyte)
BODY = b"q" * 700 * 1024
MAXFSIZE = 20  #: the least IBM allows (megabytes)
ACTION = f"{REST}/admin/action/qmgr/{QM}/mqsc"


@pytest.fixture(scope="module")
def filled(web):  # noqa: ANN001, ANN201
    """APP.QFILE with MAXFSIZE(20) and two messages of 700 KB on it."""
    web.site.mqsc_here(f"DEFINE QLOCAL({QUEUE}) MAXFSIZE({MAXFSIZE})\n")
    qm = web.site.bindings()
    try:
        for _ in range(2):
            qm.put1(QUEUE, BODY)
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
    samples = _queue_samples(r.text, QUEUE)
    assert samples["ibmmq_queue_qfile_current_size"][0] == 2
    assert samples["ibmmq_queue_qfile_max_size"][0] == MAXFSIZE
    depth_labels = samples["ibmmq_queue_depth"][1]
    assert samples["ibmmq_queue_qfile_current_size"][1] == depth_labels
    assert samples["ibmmq_queue_qfile_max_size"][1] == depth_labels == {
        "qmgr": QM, "queue": QUEUE, "usage": "NORMAL", "description": ""}


def test_the_rest_api_gives_the_file_sizes_through_the_mqsc_action(filled):
    """IBM's REST API v2 has no JSON names for CURFSIZE, CURMAXFS or MAXFSIZE in its queue
    resources (v2 sends queue status to the mqsc action): given APP.QFILE, when
    runCommandJSON displays its QSTATUS with curfsize and curmaxfs and the queue with
    maxfsize, then the answers carry them as numbers under IBM's lower-case keywords."""
    with filled.client() as c:
        status = c.post(ACTION, headers=CSRF, json={
            "type": "runCommandJSON", "command": "display", "qualifier": "qstatus",
            "name": QUEUE, "responseParameters": ["curfsize", "curmaxfs"]}).json()
        queue = c.post(ACTION, headers=CSRF, json={
            "type": "runCommandJSON", "command": "display", "qualifier": "qlocal",
            "name": QUEUE, "responseParameters": ["maxfsize"]}).json()
    assert status["overallCompletionCode"] == 0, status
    found = status["commandResponse"][0]["parameters"]
    assert (found["curfsize"], found["curmaxfs"]) == (2, MAXFSIZE)
    assert queue["commandResponse"][0]["parameters"]["maxfsize"] == MAXFSIZE


@pytest.mark.system
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
            f'#queues tr[data-queue="{QUEUE}"]')

    wait_for_page(browser, lambda d: (row() or {}).get("size") == "2", "the file size shown")
    browser.save_screenshot(str(tmp_path / "queue-file-size.png"))
    assert row() == {"depth": "2", "next": True, "size": "2",
                     "title": f"of at most {MAXFSIZE} MB"}
    header = browser.execute_script(
        "return [...document.querySelectorAll('#queues thead th')].map((h) => h.textContent)")
    assert header[1:3] == ["Depth", "File (MB)"]
