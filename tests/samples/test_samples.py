"""The amqs* samples run against a queue manager as IBM's do."""

from __future__ import annotations

import io
import sys

import pytest

import mqpy
from examples import amqsbcg, amqsget, amqsput
from mqpy import inprocess


@pytest.fixture
def qm(tmp_path, monkeypatch):
    monkeypatch.setenv("MQPY_DATA_PATH", str(tmp_path))
    qm = mqpy.embedded("SAMPQM")
    inprocess.running("SAMPQM").define("QLOCAL", "Q1", {})
    yield qm
    inprocess.stop_all()


def test_amqsput_amqsbcg_amqsget_round_trip(qm, monkeypatch, capsys):
    """Given lines on standard input, when amqsput puts them, amqsbcg browses and amqsget
    gets them, then amqsbcg shows each MQMD and hex dump and amqsget prints each message."""
    monkeypatch.setattr(sys, "stdin", io.StringIO("hello\nworld\n\n"))
    assert amqsput.main(["Q1", "SAMPQM"]) == 0
    assert amqsbcg.main(["Q1", "SAMPQM"]) == 0
    out = capsys.readouterr().out
    assert "MQGET of message number 2" in out and "Format : 'MQSTR   '" in out
    assert "68656C6C 6F" in out  # 'hello'
    monkeypatch.setattr(amqsget, "WAIT_MS", 100)
    assert amqsget.main(["Q1", "SAMPQM"]) == 0
    out = capsys.readouterr().out
    assert "message <hello>" in out and "message <world>" in out and "no more messages" in out
