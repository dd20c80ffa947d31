"""amqsevt shows the events on the event queues as IBM's sample formats them; amqsblst
blasts messages through a queue and prints the rates."""

from __future__ import annotations

import json

import pytest

import mqpy
from mqpy import CMQC, CMQCFC, inprocess, pcf
from mqpy.structs.tables import CFH
from mqpy_cli.samples import amqsblst, amqsevt


@pytest.fixture
def qm(tmp_path, monkeypatch):
    monkeypatch.setenv("MQPY_DATA_PATH", str(tmp_path))
    qm = mqpy.embedded("EVTQM")
    inprocess.running("EVTQM").define("QLOCAL", "BLAST.QUEUE", {})
    yield qm
    inprocess.stop_all()


def _unknown_object_event(qm: mqpy.QueueManager) -> None:
    """An Unknown Object Name event on SYSTEM.ADMIN.QMGR.EVENT, as IBM lays it out."""
    msg = pcf.PCFMessage(
        CFH(Type=CMQCFC.MQCFT_EVENT, Command=CMQCFC.MQCMD_Q_MGR_EVENT,
            CompCode=CMQC.MQCC_FAILED, Reason=CMQC.MQRC_UNKNOWN_OBJECT_NAME),
        [pcf.CFST(CMQC.MQCA_Q_MGR_NAME, b"EVTQM"), pcf.CFST(CMQC.MQCA_Q_NAME, b"NO.SUCH"),
         pcf.CFIN(CMQC.MQIA_APPL_TYPE, CMQC.MQAT_UNIX)])
    qm.put1("SYSTEM.ADMIN.QMGR.EVENT", pcf.build(msg),
            mqpy.MD(Format=CMQC.MQFMT_EVENT, MsgType=CMQC.MQMT_DATAGRAM))


def test_given_an_event_on_the_qmgr_event_queue_when_amqsevt_runs_then_it_formats_it(
        qm, capsys):
    """The heading names the message and its queue; type, reason and data a line each."""
    _unknown_object_event(qm)
    assert amqsevt.main(["-m", "EVTQM", "-w", "1"]) == 0
    out = capsys.readouterr().out
    assert "**** Message #1 (" in out and "on Queue SYSTEM.ADMIN.QMGR.EVENT ****" in out
    assert "Event Type                       : Queue Mgr Event [44]" in out
    assert "Reason                           : Unknown Object Name [2085]" in out
    assert "  Queue Name                     : NO.SUCH" in out
    assert mqpy.Queue(qm, "SYSTEM.ADMIN.QMGR.EVENT", CMQC.MQOO_INQUIRE).inquire(
        CMQC.MQIA_CURRENT_Q_DEPTH) == 0  # read, not browsed


def test_given_an_event_when_amqsevt_browses_as_json_then_it_stays_on_the_queue(qm, capsys):
    _unknown_object_event(qm)
    assert amqsevt.main(["-m", "EVTQM", "-q", "SYSTEM.ADMIN.QMGR.EVENT", "-w", "1", "-b",
                         "-o", "json"]) == 0
    record = json.loads(capsys.readouterr().out.splitlines()[0])
    assert record["eventReason"] == {"name": "Unknown Object Name", "value": 2085}
    assert record["eventData"]["queueName"] == "NO.SUCH"
    assert mqpy.Queue(qm, "SYSTEM.ADMIN.QMGR.EVENT", CMQC.MQOO_INQUIRE).inquire(
        CMQC.MQIA_CURRENT_Q_DEPTH) == 1


def test_given_an_unknown_event_queue_when_amqsevt_opens_it_then_it_prints_2085(qm, capsys):
    amqsevt.main(["-m", "EVTQM", "-q", "NO.SUCH", "-w", "1"])
    assert "MQOPEN of 'NO.SUCH' ended with reason code MQRC_UNKNOWN_OBJECT_NAME [2085]" in capsys.readouterr().out


def test_given_a_queue_when_amqsblst_writes_and_reads_then_it_prints_both_rates(qm, capsys):
    """Queue manager first, then the queue; -W then -R, 50 messages of 100 and 200 bytes."""
    assert amqsblst.main(["EVTQM", "BLAST.QUEUE", "-c", "50", "-s", "100,200", "-u", "10"]) == 0
    out = capsys.readouterr().out
    assert "wrote 50 messages in" in out and "read 50 messages in" in out
    assert "messages/second" in out and out.rstrip().endswith("Sample AMQSBLST end")


def test_given_an_unknown_queue_when_amqsblst_opens_it_then_it_prints_2085(qm, capsys):
    amqsblst.main(["EVTQM", "NO.SUCH", "-W", "-c", "5"])
    assert "MQOPEN ended with reason code 2085" in capsys.readouterr().out
