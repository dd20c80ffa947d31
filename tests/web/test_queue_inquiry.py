"""GET queue asks the command server for what the answer shows and no more (QAttrs), so that
a scrape of many queues stays short."""

from __future__ import annotations

from mqpy import CMQC, CMQCFC, pcf
from mqpy_cli.web import admin


class Recorder:
    """A command server that records requests and answers one queue."""

    def __init__(self) -> None:
        self.requests: list[tuple[int, list]] = []

    def ask(self, command: int, params: list) -> list:
        self.requests.append((command, params))
        return []

    def run(self, command: int, params: list, name: str = "") -> list:
        self.ask(command, params)
        return [pcf.PCFMessage(params=[pcf.CFST(CMQC.MQCA_Q_NAME, b"Q1".ljust(48)),
                                       pcf.CFIN(CMQC.MQIA_Q_TYPE, CMQC.MQQT_LOCAL),
                                       pcf.CFIN(CMQC.MQIA_MAX_Q_DEPTH, 10)])]


def _asked(server: Recorder) -> set[int]:
    command, params = server.requests[0]
    assert command == CMQCFC.MQCMD_INQUIRE_Q
    attrs = [p for p in params if p.Parameter == CMQCFC.MQIACF_Q_ATTRS]
    return set(attrs[0].value) if attrs else {CMQCFC.MQIACF_ALL}


def test_only_the_attributes_asked_for_are_inquired():
    server = Recorder()
    body = admin.get_queues(server, None, attributes="storage.maximumDepth")
    assert _asked(server) == {CMQC.MQIA_MAX_Q_DEPTH}
    assert body == {"queue": [{"name": "Q1", "type": "local",
                               "storage": {"maximumDepth": 10}}]}


def test_a_filter_attribute_is_inquired_too():
    server = Recorder()
    admin.get_queues(server, None, filter_="general.description:equalTo:x")
    assert _asked(server) == {CMQC.MQCA_Q_DESC}


def test_names_only_by_default():
    server = Recorder()
    assert admin.get_queues(server, "Q1") == {"queue": [{"name": "Q1", "type": "local"}]}
    assert _asked(server) == {CMQC.MQCA_Q_NAME}
