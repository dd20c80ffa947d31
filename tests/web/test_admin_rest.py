"""The administrative REST API v2 against a running queue manager, compared with the JSON
shapes IBM documents: the installation, queue managers and their state, queues (GET with
attributes=, status=, filter=; POST; PATCH; DELETE), channels with status, and the mqsc
action (runCommand and runCommandJSON); IBM's error bodies; concurrent clients."""

from __future__ import annotations

import concurrent.futures

from tests.support.ports import free_port
from tests.support.web import CSRF, QM, REST

ADMIN_Q = f"{REST}/admin/qmgr/{QM}/queue"
ACTION = f"{REST}/admin/action/qmgr/{QM}/mqsc"


def test_installation_names_the_level_and_data_path(web):
    with web.client() as c:
        body = c.get(f"{REST}/admin/installation").json()
    inst = body["installation"][0]
    assert inst["name"] == "Installation1" and inst["version"] == "9.2.5.0"
    assert inst["dataPath"] == web.root


def test_qmgr_list_and_state(web):
    """GET /admin/qmgr: every queue manager with its state; ?status=* adds status.*; an
    unknown one is 404 MQWB0009E with reason 2085."""
    with web.client() as c:
        assert c.get(f"{REST}/admin/qmgr").json() == {
            "qmgr": [{"name": QM, "state": "running"}]}
        one = c.get(f"{REST}/admin/qmgr/{QM}?status=*").json()["qmgr"][0]
        assert one["status"]["channelInitiatorState"] == "running"
        assert one["status"]["connectionCount"] >= 1
        missing = c.get(f"{REST}/admin/qmgr/NOPE")
    assert missing.status_code == 404
    err = missing.json()["error"][0]
    assert err["msgId"] == "MQWB0009E" and err["message"] == \
        "MQWB0009E: Could not query the queue manager 'NOPE'."


def test_queue_lifecycle_post_get_patch_delete(web):
    """POST makes a queue (201 and its Location), GET shows the attributes asked for in
    IBM's groups, PATCH changes one (204), DELETE removes it (204) and GET is then 404 with
    a pcf error naming reason 2085."""
    with web.client() as c:
        made = c.post(ADMIN_Q, headers=CSRF, json={
            "name": "REST.Q1", "type": "local",
            "general": {"description": "made by REST"}, "storage": {"maximumDepth": 50}})
        assert made.status_code == 201, made.text
        assert made.headers["location"].endswith(f"/admin/qmgr/{QM}/queue/REST.Q1")
        got = c.get(f"{ADMIN_Q}/REST.Q1?attributes=general.description,storage").json()
        q = got["queue"][0]
        assert (q["name"], q["type"], q["general"]) == ("REST.Q1", "local",
                                                       {"description": "made by REST"})
        assert q["storage"]["maximumDepth"] == 50
        again = c.post(ADMIN_Q, headers=CSRF, json={"name": "REST.Q1"})
        assert again.status_code == 409 and again.json()["error"][0]["type"] == "pcf"
        changed = c.patch(f"{ADMIN_Q}/REST.Q1", headers=CSRF,
                          json={"storage": {"maximumDepth": 75}, "general": {"inhibitPut": True}})
        assert changed.status_code == 204, changed.text
        q = c.get(f"{ADMIN_Q}/REST.Q1?attributes=*").json()["queue"][0]
        assert q["storage"]["maximumDepth"] == 75 and q["general"]["inhibitPut"] is True
        assert c.delete(f"{ADMIN_Q}/REST.Q1", headers=CSRF).status_code == 204
        gone = c.get(f"{ADMIN_Q}/REST.Q1")
    assert gone.status_code == 404
    err = gone.json()["error"][0]
    assert (err["type"], err["reasonCode"], err["completionCode"]) == ("pcf", 2085, 2)


def test_bad_attributes_are_400_with_the_name(web):
    with web.client() as c:
        r = c.post(ADMIN_Q, headers=CSRF, json={"name": "BAD.Q", "storage": {"depthy": 1}})
        assert r.status_code == 400 and "storage.depthy" in r.json()["error"][0]["message"]
        assert c.get(f"{ADMIN_Q}?attributes=nonsense").status_code == 400
        assert c.post(ADMIN_Q, headers=CSRF, content=b"{not json").status_code == 400


def test_status_and_filter_select_queues_by_depth(web):
    """Given APP.Q with 3 messages, GET ?status=* shows currentDepth 3, and
    filter=status.currentDepth:greaterThan:2 lists APP.Q and no empty queue."""
    qm = web.site.bindings()
    try:
        for n in range(3):
            qm.put1("APP.Q", f"m{n}".encode())
    finally:
        qm.disconnect()
    try:
        with web.client() as c:
            q = c.get(f"{ADMIN_Q}/APP.Q?status=*").json()["queue"][0]
            assert q["status"]["currentDepth"] == 3
            assert {"openInputCount", "openOutputCount", "oldestMessageAge",
                    "uncommittedMessages"} <= set(q["status"])
            listed = c.get(f"{ADMIN_Q}?filter=status.currentDepth:greaterThan:2").json()
            assert [x["name"] for x in listed["queue"]] == ["APP.Q"]
            assert c.get(f"{ADMIN_Q}?filter=status.currentDepth:bigger:2").status_code == 400
    finally:
        web.site.mqsc("CLEAR QLOCAL(APP.Q)\n")


def test_run_command_answers_runmqsc_lines(web):
    with web.client() as c:
        r = c.post(ACTION, headers=CSRF, json={
            "type": "runCommand", "parameters": {"command": "DISPLAY QLOCAL(APP.Q) MAXDEPTH"}})
    body = r.json()
    assert r.status_code == 200 and body["overallCompletionCode"] == 0
    text = body["commandResponse"][0]["text"]
    assert text[0].startswith("AMQ8409I") and any("MAXDEPTH(5000)" in line for line in text)


def test_run_command_json_answers_attributes_and_failures(web):
    """runCommandJSON: DISPLAY's answer as {parameters}; an unknown object's failure with
    completion 2, reason 2085 and the AMQ8147E line, overall reason 3008."""
    with web.client() as c:
        ok = c.post(ACTION, headers=CSRF, json={
            "type": "runCommandJSON", "command": "display", "qualifier": "qlocal",
            "name": "APP.Q", "responseParameters": ["maxdepth", "curdepth"]}).json()
        bad = c.post(ACTION, headers=CSRF, json={
            "type": "runCommandJSON", "command": "display", "qualifier": "qlocal",
            "name": "NO.SUCH.Q"}).json()
    assert ok["commandResponse"][0]["parameters"]["maxdepth"] == 5000
    assert ok["commandResponse"][0]["parameters"]["queue"] == "APP.Q"
    failed = bad["commandResponse"][0]
    assert failed["completionCode"] == 2 and failed["message"][0].startswith("AMQ8147E")
    assert bad["overallCompletionCode"] == 2 and bad["overallReasonCode"] == 3008


def test_run_command_json_values_cannot_become_mqsc(web):
    """A value with quotes and brackets is one quoted value: a description that tries to
    close itself and add MAXDEPTH(1) is stored as written, MAXDEPTH unchanged; a keyword
    that is not a word is refused 400."""
    evil = "x') MAXDEPTH(1) DESCR('y"
    with web.client() as c:
        r = c.post(ACTION, headers=CSRF, json={
            "type": "runCommandJSON", "command": "alter", "qualifier": "qlocal",
            "name": "APP.Q", "parameters": {"descr": evil}})
        assert r.json()["overallCompletionCode"] == 0, r.text
        q = c.get(f"{ADMIN_Q}/APP.Q?attributes=*").json()["queue"][0]
        assert q["general"]["description"] == evil and q["storage"]["maximumDepth"] == 5000
        refused = c.post(ACTION, headers=CSRF, json={
            "type": "runCommandJSON", "command": "alter", "qualifier": "qlocal",
            "name": "APP.Q", "parameters": {"descr('a') maxdepth": 1}})
        assert refused.status_code == 400


def test_channel_status_follows_start_and_stop(web):
    """Given a sender channel to a port nobody listens on, GET ?status=* shows inactive;
    after START CHANNEL (mqsc action) it is no longer inactive; after STOP it is stopped."""
    chl = f"{REST}/admin/qmgr/{QM}/channel/REST.SDR?status=*"
    web.site.mqsc(f"DEFINE QLOCAL(REST.XMITQ) USAGE(XMITQ)\n"
                  f"DEFINE CHANNEL(REST.SDR) CHLTYPE(SDR) TRPTYPE(TCP) "
                  f"CONNAME('127.0.0.1({free_port()})') XMITQ(REST.XMITQ)\n")
    with web.client() as c:
        first = c.get(chl).json()["channel"][0]
        assert (first["name"], first["type"], first["status"]["state"]) == (
            "REST.SDR", "sender", "inactive")
        start = c.post(ACTION, headers=CSRF, json={
            "type": "runCommand", "parameters": {"command": "START CHANNEL(REST.SDR)"}})
        assert start.json()["overallCompletionCode"] == 0, start.text
        state = _wait_state(c, chl, lambda s: s != "inactive")
        assert state in ("binding", "starting", "retrying", "running", "initializing")
        c.post(ACTION, headers=CSRF, json={
            "type": "runCommand", "parameters": {"command": "STOP CHANNEL(REST.SDR)"}})
        assert _wait_state(c, chl, lambda s: s == "stopped") == "stopped"


def _wait_state(c, url, accept, timeout: float = 20.0) -> str:
    import time

    deadline = time.monotonic() + timeout
    while True:
        state = c.get(url).json()["channel"][0]["status"]["state"]
        if accept(state) or time.monotonic() > deadline:
            return state
        time.sleep(0.2)


def test_concurrent_clients_are_all_answered(web):
    """Twelve clients at once, each its own keep-alive connection: every GET answers 200
    with the same queue."""
    def one(_: int) -> tuple[int, str]:
        with web.client() as c:
            r = c.get(f"{ADMIN_Q}/APP.Q?status=*")
            return r.status_code, r.json()["queue"][0]["name"]

    with concurrent.futures.ThreadPoolExecutor(12) as pool:
        results = list(pool.map(one, range(12)))
    assert results == [(200, "APP.Q")] * 12


def test_an_unknown_method_is_405_mqwb2005e(web):
    with web.client() as c:
        r = c.put(f"{ADMIN_Q}/APP.Q", headers=CSRF, json={})
    assert r.status_code == 405 and r.json()["error"][0]["msgId"] == "MQWB2005E"


def test_the_console_error_log_is_newest_first_with_utc_times(web):
    """The console's error-log resource: entries newest first, each with its AMQ message
    line, its severity letter and its time in UTC (ISO 8601, 'Z'); severity= filters."""
    with web.client() as c:
        entries = c.get(f"/ibmmq/console/api/qmgr/{QM}/errorlog").json()["entries"]
        info = c.get(f"/ibmmq/console/api/qmgr/{QM}/errorlog?severity=I").json()["entries"]
    assert entries and entries[0]["time"] >= entries[-1]["time"]
    assert all(e["time"].endswith("Z") and "+" not in e["time"] for e in entries)
    assert all(e["message"].startswith(e["msgId"] + ": ") for e in entries)
    assert info and {e["severity"] for e in info} == {"I"}


def test_after_the_queue_manager_restarts_the_next_call_works(web):
    """Given connections kept from earlier requests, when the queue manager is ended and
    started again, then the next GET answers 200 (a kept connection to the old run is not
    used). Last in this module: it restarts the queue manager."""
    with web.client() as c:
        assert c.get(f"{ADMIN_Q}/APP.Q").status_code == 200
        assert web.site.inst.run("endmqm", "-i", QM).returncode == 0
        web.site.inst.wait_ended(QM)
        assert web.site.inst.run("strmqm", QM).returncode == 0
        r = c.get(f"{ADMIN_Q}/APP.Q?status=*")
    assert r.status_code == 200, r.text
