"""The amqs* samples run against a queue manager as IBM's do: their console lines, the
reason code of a call that fails printed (never a traceback), and installed as commands."""

from __future__ import annotations

import io
import sys
from importlib import metadata

import pytest

import mqpy
from mqpy import inprocess
from mqpy_cli.samples import amqsbcg, amqsget, amqsput, amqsreq

from .conftest import SCRIPTS

#: every sample installed as a command of its IBM name
SAMPLES = ("amqsevt", "amqsblst", *SCRIPTS)


@pytest.fixture
def qm(tmp_path, monkeypatch):
    monkeypatch.setenv("MQPY_DATA_PATH", str(tmp_path))
    qm = mqpy.embedded("SAMPQM")
    engine = inprocess.running("SAMPQM")
    engine.define("QLOCAL", "Q1", {})
    engine.define("QLOCAL", "FULL", {"MAXDEPTH": 1})
    yield qm
    inprocess.stop_all()


def _stdin(monkeypatch, text: str) -> None:
    monkeypatch.setattr(sys, "stdin", io.StringIO(text))


def test_amqsput_amqsbcg_amqsget_round_trip(qm, monkeypatch, capsys):
    """Given lines on standard input, when amqsput puts them, amqsbcg browses and amqsget
    gets them, then amqsbcg shows each MQMD and hex dump and amqsget prints each message."""
    _stdin(monkeypatch, "hello\nworld\n\n")
    assert amqsput.main(["Q1", "SAMPQM"]) == 0
    assert amqsbcg.main(["Q1", "SAMPQM"]) == 0
    out = capsys.readouterr().out
    assert "MQGET of message number 2" in out and "Format : 'MQSTR   '" in out
    assert "6865 6C6C 6F" in out  # 'hello', in IBM's two-byte groups
    monkeypatch.setattr(amqsget, "WAIT_MS", 100)
    assert amqsget.main(["Q1", "SAMPQM"]) == 0
    out = capsys.readouterr().out
    assert "message <hello>" in out and "message <world>" in out and "no more messages" in out


def test_given_an_unknown_queue_when_amqsput_opens_it_then_it_prints_2085(qm, monkeypatch,
                                                                          capsys):
    """IBM's AMQSPUT0: the MQOPEN reason, 'unable to open queue for output', and its end."""
    _stdin(monkeypatch, "lost\n")
    assert amqsput.main(["NO.SUCH.QUEUE", "SAMPQM"]) == 0
    assert capsys.readouterr().out.splitlines() == [
        "Sample AMQSPUT0 start", "target queue is NO.SUCH.QUEUE",
        "MQOPEN ended with reason code 2085", "unable to open queue for output",
        "Sample AMQSPUT0 end"]


def test_given_a_full_queue_when_amqsput_puts_then_it_prints_2053(qm, monkeypatch, capsys):
    """The second message finds the queue at MAXDEPTH(1): MQPUT's reason, then the end."""
    _stdin(monkeypatch, "one\ntwo\nthree\n")
    assert amqsput.main(["FULL", "SAMPQM"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[-2:] == ["MQPUT ended with reason code 2053", "Sample AMQSPUT0 end"]
    assert out.count("MQPUT ended with reason code 2053") == 1  # it stops at the failure


def test_given_an_unknown_queue_when_amqsget_amqsbcg_amqsreq_open_it_then_they_say_2085(
        qm, monkeypatch, capsys):
    """Each sample prints the MQOPEN reason its own way and ends without a traceback."""
    assert amqsget.main(["NO.SUCH.QUEUE", "SAMPQM"]) == 0
    assert "MQOPEN ended with reason code 2085\nunable to open queue for input\n" \
        "Sample AMQSGET0 end" in capsys.readouterr().out
    assert amqsbcg.main(["NO.SUCH.QUEUE", "SAMPQM"]) == 2085
    assert " MQOPEN failed with CompCode:2, Reason:2085" in capsys.readouterr().out
    _stdin(monkeypatch, "ping\n")
    assert amqsreq.main(["NO.SUCH.QUEUE", "SAMPQM"]) == 0
    assert "MQOPEN ended with reason code 2085" in capsys.readouterr().out


def test_given_no_queue_manager_when_amqsput_connects_then_it_prints_the_mqconnx_reason(
        tmp_path, monkeypatch, capsys):
    """No such queue manager: MQCONNX's reason, and the sample exits with it."""
    monkeypatch.setenv("MQPY_DATA_PATH", str(tmp_path))
    rc = amqsput.main(["Q1", "NOQM"])
    out = capsys.readouterr().out
    assert rc in (2058, 2059) and f"MQCONNX ended with reason code {rc}" in out


def test_given_a_message_put_with_the_default_ccsid_when_amqsbcg_browses_then_it_shows_the_qmgr_ccsid(
        qm, monkeypatch, capsys):
    """MQCCSI_Q_MGR in the MQMD: the queue manager puts its own CCSID (1208) there."""
    _stdin(monkeypatch, "hello\n")
    amqsput.main(["Q1", "SAMPQM"])
    capsys.readouterr()
    amqsbcg.main(["Q1", "SAMPQM"])
    assert "  Encoding : 546  CodedCharSetId : 1208\n" in capsys.readouterr().out  # IBM's line


def test_the_samples_are_installed_as_commands():
    """Given the installed package, then each sample is a console script of its name (as
    pyproject.toml declares it: an installation made before a sample was added lists it
    once installed again)."""
    scripts = {e.name: e for e in metadata.entry_points(group="console_scripts")}
    for name in SAMPLES:
        assert name in scripts, name
        assert callable(scripts[name].load())
