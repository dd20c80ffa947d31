"""GET /admin/qmgr/{qmgr}/subscription[/{name}]: the subscriptions of a queue manager as
IBM's REST API gives them (``id``, ``name``, ``resolvedTopicString`` and, as
``attributes=`` asks, the ``topic``, ``selector``, ``destination``, ``user`` and
``general`` objects; ``id=`` selects one by its id), read by Inquire Subscription; and the
queue manager's counts of subscriptions and topic objects for /metrics."""

from __future__ import annotations

from mqpy import CMQC, CMQCFC, pcf
from mqpy_cli.web import attributes as A
from mqpy_cli.web.errors import RestError
from mqpy_cli.web.mqconn import CommandServer

_STRINGS = {CMQCFC.MQCACF_SUB_NAME: "SUB", CMQC.MQCA_TOPIC_STRING: "TOPICSTR",
            CMQC.MQCA_TOPIC_NAME: "TOPICOBJ", CMQCFC.MQCACF_DESTINATION: "DEST",
            CMQCFC.MQCACF_DESTINATION_Q_MGR: "DESTQMGR",
            CMQCFC.MQCACF_SUB_SELECTOR: "SELECTOR", CMQCFC.MQCACF_SUB_USER_DATA: "USERDATA",
            CMQCFC.MQCACF_SUB_USER_ID: "SUBUSER"}
_WORDS = {CMQCFC.MQIACF_DESTINATION_CLASS: ("DESTCLAS", {CMQC.MQDC_MANAGED: "MANAGED"},
                                            "PROVIDED"),
          CMQCFC.MQIACF_DURABLE_SUBSCRIPTION: ("DURABLE", {CMQC.MQSUB_DURABLE_YES: "YES"},
                                               "NO"),
          CMQCFC.MQIACF_SUB_TYPE: ("SUBTYPE", {CMQCFC.MQSUBTYPE_ADMIN: "ADMIN",
                                               CMQCFC.MQSUBTYPE_PROXY: "PROXY"}, "API"),
          CMQCFC.MQIACF_REQUEST_ONLY: ("REQONLY", {CMQC.MQRU_PUBLISH_ON_REQUEST: "YES"},
                                       "NO"),
          CMQCFC.MQIACF_WILDCARD_SCHEMA: ("WSCHEMA", {CMQC.MQWS_CHAR: "CHAR"}, "TOPIC")}
_BYTES = {CMQCFC.MQBACF_SUB_ID: "SUBID", CMQCFC.MQBACF_DESTINATION_CORREL_ID: "DESTCORL"}


def _text(value: object) -> str:
    if isinstance(value, bytes):
        return value.decode("utf-8", "replace").rstrip(" \x00")
    return "" if value is None else str(value)


def _row(msg: pcf.PCFMessage) -> dict[str, object]:
    """One Inquire Subscription answer as DISPLAY SUB's keywords."""
    row: dict[str, object] = {}
    for p in msg.params:
        if p.Parameter in _STRINGS:
            row[_STRINGS[p.Parameter]] = _text(p.value)
        elif p.Parameter in _BYTES:
            row[_BYTES[p.Parameter]] = bytes(p.value).hex()
        elif p.Parameter in _WORDS:
            keyword, words, other = _WORDS[p.Parameter]
            row[keyword] = words.get(p.value, other)
    row["SELTYPE"] = "standard" if row.get("SELECTOR") else "none"
    return row


def inquire(server: CommandServer, name: str) -> list[dict[str, object]]:
    """The subscriptions ``name`` (generic with a trailing ``*``) selects; RestError 404
    (2085) when none."""
    responses = server.run(CMQCFC.MQCMD_INQUIRE_SUBSCRIPTION,
                           [pcf.CFST(CMQCFC.MQCACF_SUB_NAME, name.encode("utf-8"))], name)
    return [_row(msg) for msg in responses if msg.params]


def get_subscriptions(server: CommandServer, name: str | None, *,
                      attributes: str | None = None, sub_id: str | None = None,
                      generic: str | None = None) -> dict:
    """GET /admin/qmgr/{qmgr}/subscription[/{name}] (``name=`` a generic name, ``id=`` a
    subscription id in hex)."""
    try:
        chosen = A.select(A.SUBSCRIPTION, attributes)
    except ValueError as e:
        raise RestError(400, "MQWB0302E", "attributes", str(e)) from None
    rows = inquire(server, name or generic or "*")
    if sub_id is not None:
        rows = [r for r in rows if str(r.get("SUBID", "")).lower() == sub_id.lower()]
        if not rows:
            raise RestError(404, "MQWB0004E", CMQC.MQRC_UNKNOWN_OBJECT_NAME,
                            "MQRC_UNKNOWN_OBJECT_NAME", reason=CMQC.MQRC_UNKNOWN_OBJECT_NAME,
                            kind="pcf")
    out = []
    for row in rows:
        entry: dict = {"id": row.get("SUBID", ""), "name": row.get("SUB", ""),
                       "resolvedTopicString": row.get("TOPICSTR", "")}
        for attr in chosen:
            if attr.keyword in row:
                A.put_path(entry, attr.rest, attr.out(row[attr.keyword]))
        out.append(entry)
    return {"subscription": out}


def counts(server: CommandServer) -> tuple[int, int]:
    """(subscriptions, topic objects) of the queue manager: Inquire Subscription and
    Inquire Topic Names of ``*``; a failure (none there: 2085) counts 0."""
    subs = server.ask(CMQCFC.MQCMD_INQUIRE_SUBSCRIPTION,
                      [pcf.CFST(CMQCFC.MQCACF_SUB_NAME, b"*")])
    n_subs = sum(1 for m in subs if m.header.CompCode != CMQC.MQCC_FAILED and m.params)
    topics = server.ask(CMQCFC.MQCMD_INQUIRE_TOPIC_NAMES,
                        [pcf.CFST(CMQC.MQCA_TOPIC_NAME, b"*")])
    n_topics = 0
    for m in topics:
        if m.header.CompCode != CMQC.MQCC_FAILED:
            names = m.get(CMQCFC.MQCACF_TOPIC_NAMES)
            n_topics += len(names) if isinstance(names, list | tuple) else 0
    return n_subs, n_topics
