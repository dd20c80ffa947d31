"""Publish/subscribe through the REST API as IBM's mqweb has it: GET .../subscription (IBM
documents it on v1 only; served on v2 too) with IBM's JSON objects, attributes= and id=;
the mqsc action's runCommandJSON defining a topic and a subscription; POST
.../topic/{topicString}/message publishing with the queue put's headers; /metrics counting
topics and subscriptions per queue manager."""

from __future__ import annotations

from prometheus_client.parser import text_string_to_metric_families

from tests.support.web import ALICE, CSRF, MALLORY, OPERATOR, PUT, QM, READER, REST

SUBS = f"{REST}/admin/qmgr/{QM}/subscription"
ACTION = f"{REST}/admin/action/qmgr/{QM}/mqsc"
PUBLISH = f"{REST}/messaging/qmgr/{QM}/topic"
DEST = f"{REST}/messaging/qmgr/{QM}/queue/APP.PRICES/message"


def _define_sub(web) -> None:
    web.site.mqsc("DEFINE QLOCAL(APP.PRICES) REPLACE\n"
                  "DEFINE TOPIC(PRICES.TOPIC) TOPICSTR('prices') REPLACE\n"
                  "DEFINE SUB('REST.SUB') TOPICOBJ(PRICES.TOPIC) TOPICSTR('fruit/#') "
                  "DEST(APP.PRICES) USERDATA('kept') REPLACE\n", ok=False)


def test_given_a_subscription_get_answers_ibms_objects(web):
    """GET .../subscription/REST.SUB?attributes=* answers id, name, resolvedTopicString
    and IBM's topic, selector and destination objects; without attributes= only id, name
    and resolvedTopicString; the list holds it; IBM's v1 path answers the same."""
    _define_sub(web)
    with web.client() as c:
        full = c.get(f"{SUBS}/REST.SUB?attributes=*")
        assert full.status_code == 200, full.text
        sub = full.json()["subscription"][0]
        plain = c.get(f"{SUBS}/REST.SUB").json()["subscription"][0]
        listed = c.get(SUBS).json()["subscription"]
        v1 = c.get(f"/ibmmq/rest/v1/admin/qmgr/{QM}/subscription/REST.SUB").json()
    assert (sub["name"], sub["resolvedTopicString"]) == ("REST.SUB", "prices/fruit/#")
    assert len(sub["id"]) == 48 and int(sub["id"], 16) > 0
    assert sub["topic"]["name"] == "PRICES.TOPIC"
    assert sub["destination"] == {"name": "APP.PRICES", "qmgrName": "", "isManaged": False,
                                  "correlationId": sub["destination"]["correlationId"]}
    assert sub["selector"] == {"value": "", "type": "none"}
    assert sub["general"]["isDurable"] is True and sub["general"]["type"] == "admin"
    assert set(plain) == {"id", "name", "resolvedTopicString"}
    assert "REST.SUB" in [s["name"] for s in listed]
    assert v1["subscription"][0]["id"] == sub["id"]


def test_subscription_refusals_are_ibms(web):
    """An unknown subscription is 404 with reason 2085; attributes= naming nothing IBM has
    is 400 MQWB0302E; id= selects by id; a user in no role is 403 with no data; MQWebAdminRO
    may read."""
    _define_sub(web)
    with web.client() as c:
        missing = c.get(f"{SUBS}/NO.SUCH.SUB")
        bad = c.get(f"{SUBS}?attributes=nonsense")
        sub_id = c.get(f"{SUBS}/REST.SUB").json()["subscription"][0]["id"]
        by_id = c.get(f"{SUBS}?id={sub_id}").json()["subscription"]
        none_by_id = c.get(f"{SUBS}?id={'0' * 48}")
    with web.client(MALLORY) as c:
        refused = c.get(SUBS)
    with web.client(READER) as c:
        read = c.get(f"{SUBS}/REST.SUB")
    assert missing.status_code == 404
    err = missing.json()["error"][0]
    assert (err["type"], err["reasonCode"]) == ("pcf", 2085)
    assert bad.status_code == 400 and bad.json()["error"][0]["msgId"] == "MQWB0302E"
    assert [s["name"] for s in by_id] == ["REST.SUB"]
    assert none_by_id.status_code == 404
    assert refused.status_code == 403 and "subscription" not in refused.json()
    assert read.status_code == 200


def test_run_command_json_defines_a_topic_and_a_subscription(web):
    """runCommandJSON with qualifier topic and sub: values are quoted (a topic string with
    spaces and a quote is kept whole), DISPLAY answers the attributes as JSON."""
    web.site.mqsc("DEFINE QLOCAL(APP.JSON.DEST) REPLACE\n")
    odd = "json/it's here"
    with web.client() as c:
        topic = c.post(ACTION, headers=CSRF, json={
            "type": "runCommandJSON", "command": "define", "qualifier": "topic",
            "name": "JSON.TOPIC", "parameters": {"topicstr": odd}}).json()
        sub = c.post(ACTION, headers=CSRF, json={
            "type": "runCommandJSON", "command": "define", "qualifier": "sub",
            "name": "JSON SUB", "parameters": {"topicobj": "JSON.TOPIC",
                                               "dest": "APP.JSON.DEST"}}).json()
        shown = c.post(ACTION, headers=CSRF, json={
            "type": "runCommandJSON", "command": "display", "qualifier": "sub",
            "name": "JSON SUB", "responseParameters": ["all"]}).json()
        topics = c.post(ACTION, headers=CSRF, json={
            "type": "runCommandJSON", "command": "display", "qualifier": "topic",
            "name": "JSON.TOPIC", "responseParameters": ["topicstr"]}).json()
        rest = c.get(f"{SUBS}/JSON%20SUB").json()["subscription"][0]
    assert topic["overallCompletionCode"] == 0, topic
    assert sub["overallCompletionCode"] == 0, sub
    assert shown["commandResponse"][0]["parameters"]["dest"] == "APP.JSON.DEST"
    assert topics["commandResponse"][0]["parameters"]["topicstr"] == odd
    assert rest["resolvedTopicString"] == odd


def test_publish_reaches_the_subscription_with_the_put_headers(web):
    """POST .../topic/prices/fruit/apple/message (levels unencoded, as IBM's URL) publishes
    the body: the subscription's queue gets it, with the persistence, correlation id and
    user property the headers asked for (the CorrelId the subscription's, as IBM sets
    it); 201 with the message id."""
    _define_sub(web)
    web.site.mqsc(f"SET AUTHREC PROFILE(PRICES.TOPIC) OBJTYPE(TOPIC) PRINCIPAL('{ALICE}') "
                  "AUTHADD(PUB)\n"
                  f"SET AUTHREC PROFILE(APP.PRICES) OBJTYPE(QUEUE) PRINCIPAL('{ALICE}') "
                  "AUTHADD(GET,BROWSE,INQ)\n")
    correl = "ab" * 24
    with web.client() as c:
        sub_correl = c.get(f"{SUBS}/REST.SUB?attributes=destination").json()[
            "subscription"][0]["destination"]["correlationId"]
    with web.client(ALICE) as c:
        while c.delete(DEST, headers=CSRF).status_code == 200:
            pass
        pub = c.post(f"{PUBLISH}/prices/fruit/apple/message", content=b"1.20", headers={
            **PUT, "ibm-mq-md-persistence": "persistent", "ibm-mq-md-correlationId": correl,
            "ibm-mq-usr-currency": "EUR"})
        assert pub.status_code == 201, pub.text
        got = c.delete(DEST, headers=CSRF)
    assert got.status_code == 200 and got.content == b"1.20"
    assert got.headers["ibm-mq-md-persistence"] == "persistent"
    # IBM: a publication reaches a subscription's queue with its DESTCORL as CorrelId
    assert got.headers["ibm-mq-md-correlationId"] == sub_correl
    assert got.headers["ibm-mq-usr-currency"] == "EUR"
    assert len(pub.headers["ibm-mq-md-messageId"]) == 48


def test_a_topic_string_given_encoded_is_decoded_level_by_level(web):
    """IBM's URL form: a leading '/' as %2F, '.' as %2E, '%' as %25, '?' as %3F; the other
    '/' separate levels. /sport/foot.ball%?x reaches a subscription to exactly that."""
    topic = "/sport/foot.ball%?x"
    web.site.mqsc("DEFINE QLOCAL(APP.ENCODED) REPLACE\n"
                  f"DEFINE SUB(ENCODED.SUB) TOPICSTR('{topic}') DEST(APP.ENCODED)\n")
    with web.client(OPERATOR) as c:
        pub = c.post(f"{PUBLISH}/%2Fsport/foot%2Eball%25%3Fx/message", content=b"goal",
                     headers=PUT)
        got = c.delete(f"{REST}/messaging/qmgr/{QM}/queue/APP.ENCODED/message", headers=CSRF)
    assert pub.status_code == 201, pub.text
    assert got.status_code == 200 and got.content == b"goal"


def test_publish_refusals_are_ibms(web):
    """Publishing without PUB authority is 403 (2035) and reaches no subscriber; a body
    that is not text is 415; no CSRF header is 403 MQWB0100E; an MQWebAdmin without
    MQWebUser cannot publish (403)."""
    _define_sub(web)
    with web.client(ALICE) as c:
        denied = c.post(f"{PUBLISH}/secret/plans/message", content=b"x", headers=PUT)
        binary = c.post(f"{PUBLISH}/prices/fruit/pear/message", content=b"x",
                        headers={**CSRF, "content-type": "application/octet-stream"})
        no_csrf = c.post(f"{PUBLISH}/prices/fruit/pear/message", content=b"x",
                         headers={"content-type": "text/plain"})
    with web.client() as c:
        admin_only = c.post(f"{PUBLISH}/prices/fruit/pear/message", content=b"x",
                            headers=PUT)
    assert denied.status_code == 403 and denied.json()["error"][0]["reasonCode"] == 2035
    assert binary.status_code == 415
    assert no_csrf.status_code == 403
    assert no_csrf.json()["error"][0]["msgId"] == "MQWB0100E"
    assert admin_only.status_code == 403


def test_metrics_count_topics_and_subscriptions(web):
    """/metrics: mqpy_qmgr_topic_objects and mqpy_qmgr_subscriptions per queue manager
    (mqpy's own names: mq_prometheus has no per-queue-manager count), the subscription
    count rising by one after DEFINE SUB."""
    def counts() -> dict[str, float]:
        with web.client(READER) as c:
            text = c.get("/metrics").text
        out = {}
        for fam in text_string_to_metric_families(text):
            for s in fam.samples:
                if s.name in ("mqpy_qmgr_topic_objects", "mqpy_qmgr_subscriptions"):
                    assert s.labels["qmgr"] == QM
                    out[s.name] = s.value
        return out

    web.site.mqsc("DEFINE QLOCAL(APP.COUNT.DEST) REPLACE\n")
    before = counts()
    web.site.mqsc("DEFINE TOPIC(COUNT.TOPIC) TOPICSTR('count') REPLACE\n"
                  "DEFINE SUB(COUNT.SUB) TOPICSTR('count/me') DEST(APP.COUNT.DEST)\n")
    after = counts()
    assert after["mqpy_qmgr_subscriptions"] == before["mqpy_qmgr_subscriptions"] + 1
    assert after["mqpy_qmgr_topic_objects"] == before["mqpy_qmgr_topic_objects"] + 1
    assert after["mqpy_qmgr_topic_objects"] >= 3  # SYSTEM.BASE.TOPIC and the defaults


def test_a_subscription_name_with_a_slash_is_one_encoded_segment(web):
    """A subscription named 'app/sub 1' is GET .../subscription/app%2Fsub%201, as IBM
    takes names with '/'; generic name= lists it."""
    web.site.mqsc("DEFINE QLOCAL(APP.SLASHED) REPLACE\n"
                  "DEFINE SUB('app/sub 1') TOPICSTR('slashed') DEST(APP.SLASHED) REPLACE\n",
                  ok=False)
    with web.client() as c:
        one = c.get(f"{SUBS}/app%2Fsub%201")
        generic = c.get(f"{SUBS}?name=app/*").json()["subscription"]
    assert one.status_code == 200, one.text
    assert one.json()["subscription"][0]["name"] == "app/sub 1"
    assert [s["name"] for s in generic] == ["app/sub 1"]
