"""amqsevt prints every event mqpy writes as IBM's sample prints it: Event Type and Reason by
their readable names and numbers ("Config Event [43]", "Config Change Object [2368]"), each
parameter named from its MQ constant ("Queue Mgr Name", "Event User Id"), a value of a known
family by its name ("Console", "Unix"), Object state and Correlation ID for configuration and
command events, a command event's two groups as headings with their members beneath; the
colons in one column. With ``-o json`` the same as IBM's JSON: eventType, eventReason,
eventCreation, objectState, correlationID and eventData with camel-case keys, the groups
nested objects.

One embedded queue manager for the file; the events are made by it (its MQI calls, the MQSC
processor and the command server's request handling), channel and start/stop events by the
functions that build them, put as the channel initiator and the daemon put them."""

from __future__ import annotations

import json

import pytest

import mqpy
from mqpy import CMQC, CMQCFC, events, inprocess, pcf
from mqpy.cmdserver import CommandServer
from mqpy.engine.defaultobjects import add_missing_objects
from mqpy.mqsc.processor import MQSCProcessor
from mqpy.structs.tables import CFH, MD
from mqpy_cli.samples import amqsevt

QM = "EVFMT"
QMGR_Q, PERFM_Q = "SYSTEM.ADMIN.QMGR.EVENT", "SYSTEM.ADMIN.PERFM.EVENT"
CHANNEL_Q, CONFIG_Q, COMMAND_Q = ("SYSTEM.ADMIN.CHANNEL.EVENT", "SYSTEM.ADMIN.CONFIG.EVENT",
                                  "SYSTEM.ADMIN.COMMAND.EVENT")


@pytest.fixture(scope="module")
def qmgr(tmp_path_factory):
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("MQPY_DATA_PATH", str(tmp_path_factory.mktemp("evfmt")))
        qm = mqpy.embedded(QM)
        eng = inprocess.running(QM)
        add_missing_objects(eng)
        eng.server = CommandServer(None, lambda: MQSCProcessor(eng))
        yield qm, eng
        qm.disconnect()
        inprocess.stop_all()


@pytest.fixture
def qm(qmgr, monkeypatch, tmp_path_factory):
    """The queue manager with its event queues read empty and every switch off again at the
    end; amqsevt finds it through the data path."""
    qm, eng = qmgr
    monkeypatch.setenv("MQPY_DATA_PATH", str(eng.qmdir).rsplit("/qmgrs/", 1)[0])
    run(["-w", "0", "-o", "json"])
    yield qm, eng
    eng.alter_qmgr({"CONFIGEV": "DISABLED", "CMDEV": "DISABLED", "LOCALEV": "DISABLED",
                    "PERFMEV": "DISABLED"})
    run(["-w", "0", "-o", "json"])


def run(args: list[str]) -> int:
    return amqsevt.main(["-m", QM, *args])


def text_of(capsys, queue: str, *extra: str) -> list[str]:
    capsys.readouterr()
    assert run(["-q", queue, "-w", "0", *extra]) == 0
    return capsys.readouterr().out.splitlines()


def json_of(capsys, queue: str) -> list[dict]:
    capsys.readouterr()
    assert run(["-q", queue, "-w", "0", "-o", "json"]) == 0
    return [json.loads(line) for line in capsys.readouterr().out.splitlines()]


def line(indent: int, name: str, value: str) -> str:
    """A ``name : value`` line with the colon in IBM's column (33rd)."""
    return f"{' ' * indent}{name:<{32 - indent}} : {value}"


def request(eng, command: int, params: list) -> None:
    md = MD(Format=CMQC.MQFMT_ADMIN, MsgType=CMQC.MQMT_REQUEST, UserIdentifier=b"opsuser",
            PutApplType=CMQC.MQAT_UNIX, PutApplName=b"pcfadmin", ReplyToQMgr=QM.encode())
    eng.server.handle(md, pcf.build(pcf.PCFMessage(CFH(Command=command), params)))


def test_a_queue_manager_event_reads_as_ibms_sample_prints_it(qm, capsys):
    """Given LOCALEV(ENABLED), when an MQOPEN names no queue, then amqsevt prints the
    message's heading, Event Type Queue Mgr Event [44], Reason Unknown Object Name [2085],
    the creation time in GMT and the data's parameters by their readable names."""
    handle, eng = qm
    eng.alter_qmgr({"LOCALEV": "ENABLED"})
    with pytest.raises(mqpy.MQMIError):
        mqpy.Queue(handle, "NO.SUCH.QUEUE", CMQC.MQOO_OUTPUT)
    out = text_of(capsys, QMGR_Q)
    assert out[:3] == ["Sample AMQSEVT start", "", ""]
    assert out[3].startswith("**** Message #1 (") and out[3].endswith(
        f" Bytes) on Queue {QMGR_Q} ****")
    assert out[4:6] == [line(0, "Event Type", "Queue Mgr Event [44]"),
                        line(0, "Reason", "Unknown Object Name [2085]")]
    assert out[6].startswith(line(0, "Event created", "20")) and out[6].endswith(" GMT")
    assert line(2, "Queue Mgr Name", QM) in out
    assert line(2, "Queue Name", "NO.SUCH.QUEUE") in out
    assert line(2, "Appl Type", "Unix") in out


def test_start_and_stop_events_name_their_qualifiers(qm, capsys):
    """Given Queue Manager Active and Not Active on the queue manager event queue, when
    amqsevt reads them, then their reasons and qualifiers read as IBM's sample names them."""
    handle, _ = qm
    events.put_event(handle, events.queue_manager_active(QM))
    events.put_event(handle, events.queue_manager_not_active(QM, quiescing=True))
    out = text_of(capsys, QMGR_Q)
    assert line(0, "Reason", "Queue Mgr Active [2222]") in out
    assert line(2, "Reason Qualifier", "Failover Not Permitted") in out
    assert line(0, "Reason", "Queue Mgr Not Active [2223]") in out
    assert line(2, "Reason Qualifier", "Queue Mgr Quiescing") in out


def test_a_performance_event_names_its_queue_and_statistics(qm, capsys):
    """Given PERFMEV(ENABLED) and a full queue of MAXDEPTH 1, when a put is refused, then
    Perfm Event [45], Queue Full [2053], Base Object Name and the statistics by name."""
    handle, eng = qm
    eng.alter_qmgr({"PERFMEV": "ENABLED"})
    eng.define("QLOCAL", "FMT.FULL", {"MAXDEPTH": 1, "QDPMAXEV": "ENABLED"}, replace=True)
    q = mqpy.Queue(handle, "FMT.FULL", CMQC.MQOO_OUTPUT)
    q.put(b"m")
    with pytest.raises(mqpy.MQMIError):
        q.put(b"m")
    q.close()
    (record,) = json_of(capsys, PERFM_Q)
    assert record["eventType"] == {"name": "Perfm Event", "value": 45}
    assert record["eventReason"] == {"name": "Queue Full", "value": 2053}
    assert record["eventData"]["baseObjectName"] == "FMT.FULL"
    assert {"timeSinceReset", "highQueueDepth", "msgEnqCount", "msgDeqCount"} <= set(
        record["eventData"])
    assert record["eventSource"] == {"objectName": PERFM_Q, "objectType": "Queue",
                                     "queueMgr": QM}
    assert "correlationID" not in record and "objectState" not in record


def test_channel_events_read_by_their_names(qm, capsys):
    """Given Channel Blocked (NOACCESS), Channel Activated and Not Activated on the channel
    event queue, when amqsevt reads them, then Channel Event [46] and each reason and
    qualifier by IBM's names, the channel and its partner's address by theirs."""
    handle, _ = qm
    events.put_channel_events(handle, [
        events.channel_blocked(QM, CMQCFC.MQRQ_CHANNEL_BLOCKED_NOACCESS, "10.1.2.3",
                               channel="FMT.SVRCONN", client_user="bob", appl_name="app"),
        events.channel_activated(QM, "FMT.SDR", "SDR", "FMT.XMITQ", "host(1414)"),
        events.channel_activated(QM, "FMT.SDR", "SDR", "FMT.XMITQ", "host(1414)",
                                 activated=False)])
    out = text_of(capsys, CHANNEL_Q)
    assert out.count(line(0, "Event Type", "Channel Event [46]")) == 3
    assert line(0, "Reason", "Channel Blocked [2577]") in out
    assert line(2, "Reason Qualifier", "Channel Blocked Noaccess") in out
    assert line(2, "Channel Name", "FMT.SVRCONN") in out
    assert line(2, "Connection Name", "10.1.2.3") in out
    assert line(0, "Reason", "Channel Activated [2295]") in out
    assert line(0, "Reason", "Channel Not Activated [2296]") in out
    assert line(2, "Xmit Queue Name", "FMT.XMITQ") in out


def test_a_command_event_prints_its_two_groups_nested(qm, capsys):
    """Given CMDEV(ENABLED), when a PCF Change Queue comes to the command server, then
    amqsevt prints Command Event [99], Command PCF [2413], the Correlation ID, then the
    COMMAND CONTEXT and COMMAND DATA headings with their members indented beneath; as JSON
    the groups are the nested objects commandContext and commandData."""
    handle, eng = qm
    eng.define("QLOCAL", "FMT.CMD", {}, replace=True)
    eng.alter_qmgr({"CMDEV": "ENABLED"})
    params = [pcf.CFST(CMQC.MQCA_Q_NAME, b"FMT.CMD"), pcf.CFIN(CMQC.MQIA_Q_TYPE, CMQC.MQQT_LOCAL),
              pcf.CFIN(CMQC.MQIA_MAX_Q_DEPTH, 77)]
    request(eng, CMQCFC.MQCMD_CHANGE_Q, params)
    out = text_of(capsys, COMMAND_Q, "-b")
    assert line(0, "Event Type", "Command Event [99]") in out
    assert line(0, "Reason", "Command PCF [2413]") in out
    assert any(x.startswith("Correlation ID                   : ") for x in out)
    context = out.index("  COMMAND CONTEXT")
    data = out.index("  COMMAND DATA")
    assert out[context + 1:context + 3] == [line(4, "Event User Id", "opsuser"),
                                            line(4, "Event Origin", "Msg")]
    assert line(4, "Event Appl Type", "Unix") in out[context:data]
    assert line(4, "Command", "Change Queue") in out[context:data]
    assert out[data + 1:data + 4] == [line(4, "Queue Name", "FMT.CMD"),
                                      line(4, "Queue Type", "Local"),
                                      line(4, "Max Queue Depth", "77")]
    (record,) = json_of(capsys, COMMAND_Q)
    assert record["eventReason"] == {"name": "Command PCF", "value": 2413}
    assert record["eventData"]["commandContext"]["command"] == "Change Queue"
    assert record["eventData"]["commandContext"]["eventAccountingToken"] == "00" * 32
    assert record["eventData"]["commandData"] == {"queueName": "FMT.CMD", "queueType": "Local",
                                                  "maxQueueDepth": 77}


def test_an_mqsc_command_event_prints_its_text(qm, capsys):
    """Given CMDEV(ENABLED), when an MQSC command comes to the command server in an Escape,
    then Command MQSC [2412] with the command's text as Command MQSC in its data group."""
    handle, eng = qm
    eng.alter_qmgr({"CMDEV": "ENABLED"})
    request(eng, CMQCFC.MQCMD_ESCAPE, [pcf.CFIN(CMQCFC.MQIACF_ESCAPE_TYPE, CMQCFC.MQET_MQSC),
                                       pcf.CFST(CMQCFC.MQCACF_ESCAPE_TEXT,
                                                b"DEFINE QLOCAL(FMT.MQSC) REPLACE")])
    out = text_of(capsys, COMMAND_Q)
    assert line(0, "Reason", "Command MQSC [2412]") in out
    assert line(4, "Command MQSC", "DEFINE QLOCAL(FMT.MQSC) REPLACE") in out


def test_a_change_object_pair_reads_before_and_after_with_one_correlation_id(qm, capsys):
    """Given CONFIGEV(ENABLED), when ALTER QLOCAL sets MAXDEPTH 20, then Config Event [43],
    Config Change Object [2368] twice, Object state Before Change then After Change, one
    Correlation ID, the object's attributes by name (Max Queue Depth 10, then 20); as JSON
    objectState, correlationID and eventData.maxQueueDepth."""
    handle, eng = qm
    eng.define("QLOCAL", "FMT.CFG", {"MAXDEPTH": 10}, replace=True)
    eng.alter_qmgr({"CONFIGEV": "ENABLED"})
    run(["-q", CONFIG_Q, "-w", "0", "-o", "json"])  # (the refresh the switch made)
    proc = MQSCProcessor(eng)
    assert proc.execute_text("ALTER QLOCAL(FMT.CFG) MAXDEPTH(20)").ok
    out = text_of(capsys, CONFIG_Q, "-b")
    assert out.count(line(0, "Event Type", "Config Event [43]")) == 2
    assert out.count(line(0, "Reason", "Config Change Object [2368]")) == 2
    states = [x for x in out if x.startswith("Object state")]
    assert states == [line(0, "Object state", "Before Change"),
                      line(0, "Object state", "After Change")]
    correl = {x for x in out if x.startswith("Correlation ID")}
    assert len(correl) == 1
    assert [x for x in out if x.startswith("  Max Queue Depth")] == [
        line(2, "Max Queue Depth", "10"), line(2, "Max Queue Depth", "20")]
    assert line(2, "Object Type", "Queue") in out and line(2, "Event Origin", "Console") in out
    before, after = json_of(capsys, CONFIG_Q)
    assert (before["objectState"], after["objectState"]) == ("Before Change", "After Change")
    assert before["correlationID"] == after["correlationID"]
    assert before["eventReason"] == {"name": "Config Change Object", "value": 2368}
    assert (before["eventData"]["maxQueueDepth"], after["eventData"]["maxQueueDepth"]) == (
        10, 20)
    assert after["eventData"]["queueName"] == "FMT.CFG"


def test_without_queues_it_reads_ibms_default_set_and_passes_over_those_missing(qm, capsys):
    """Given no -q, when amqsevt runs, then it says it uses the default set, passes over the
    event queues this queue manager lacks (logger, publish/subscribe) and reads the
    configuration and command event queues with the others."""
    handle, eng = qm
    eng.alter_qmgr({"CMDEV": "ENABLED"})
    request(eng, CMQCFC.MQCMD_INQUIRE_Q_MGR, [])
    capsys.readouterr()
    assert run(["-w", "0"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert "Using default set of event queues." in out
    assert "MQOPEN of 'SYSTEM.ADMIN.LOGGER.EVENT' failure ignored." in out
    assert line(0, "Reason", "Command PCF [2413]") in out


def test_with_d_the_constants_print_as_the_headers_name_them(qm, capsys):
    """Given an event, when amqsevt runs with -d, then the names and values are MQ's
    constants as the headers spell them, the colon six columns further right."""
    handle, _ = qm
    events.put_event(handle, events.queue_manager_active(QM))
    out = text_of(capsys, QMGR_Q, "-d")
    wide = f"{'Reason':<38} : MQRC_Q_MGR_ACTIVE [2222]"
    assert wide in out
    assert f"  {'MQIACF_REASON_QUALIFIER':<36} : MQRQ_FAILOVER_NOT_PERMITTED" in out
