"""Hostile messages on SYSTEM.CHANNEL.INITQ: an application allowed to put there (or a
partner's message a receiving MCA put there) may be any bytes with a trigger message's or a
channel command's Format. Whatever it holds, the channel initiator logs it, drops it and
goes on serving the queue: it never ends with a traceback. A channel command is carried out
only when the command server made it (its MAC, ``mqpy.channelcommands``); the malformed
commands here are signed, as a command server's fault would be, so that the channel
initiator's own checks of a request's shape are what they meet."""

from __future__ import annotations

import json

import pytest
import trio

import mqpy
from mqpy import CMQC, inprocess
from mqpy.channelcommands import COMMAND_FORMAT, INITQ, command_key, signed
from mqpy_chinit.chinit import ChannelInitiator
from mqpy_chinit.engineadmin import EngineAdmin
from tests.support.qmgr import QMgr
from tests.support.waiting import wait_until

WITHIN = 10.0


@pytest.fixture
def qm(tmp_path):
    inprocess.create("QM1", str(tmp_path))
    q = QMgr("QM1", str(tmp_path), inprocess.start("QM1", str(tmp_path)))
    q.log = []
    q.define("QLOCAL", "REPLIES")
    yield q
    inprocess.stop_all()


def _trigger(**fields) -> bytes:
    return mqpy.TM(**fields).pack()


HOSTILE = [
    pytest.param(CMQC.MQFMT_TRIGGER, b"XXXX" + bytes(CMQC.MQTM_LENGTH_1 - 4), id="no MQTM"),
    pytest.param(CMQC.MQFMT_TRIGGER, b"TM  \x00", id="short MQTM"),
    pytest.param(CMQC.MQFMT_TRIGGER, _trigger(TriggerData=b"NO.SUCH\nAMQ9999E: forged"),
                 id="unknown channel with a line break"),
    pytest.param(COMMAND_FORMAT, b"[1, 2]", id="a list"),
    pytest.param(COMMAND_FORMAT, b'"START"', id="a string"),
    pytest.param(COMMAND_FORMAT, b"\xff\xfe", id="no JSON"),
    pytest.param(COMMAND_FORMAT, json.dumps({"command": 5}).encode(), id="a number verb"),
    pytest.param(COMMAND_FORMAT, json.dumps({"command": ["START"]}).encode(),
                 id="a list verb"),
    pytest.param(COMMAND_FORMAT, json.dumps({"command": "START", "channel": 7}).encode(),
                 id="a number channel"),
    pytest.param(COMMAND_FORMAT, json.dumps({"command": "START", "channel": "X",
                                             "definition": "SDR"}).encode(),
                 id="a definition that is a string"),
    pytest.param(COMMAND_FORMAT, json.dumps({"command": "PING", "channel": "X",
                                             "definition": {"CHLTYPE": "SDR",
                                                            "CONNAME": "h(1)"},
                                             "datalen": "lots"}).encode(),
                 id="a data length that is no number"),
    pytest.param(COMMAND_FORMAT, json.dumps({"command": "STOP", "channel": "X",
                                             "mode": 3}).encode(), id="a number mode"),
    pytest.param(COMMAND_FORMAT, json.dumps({"command": "START_LISTENER", "channel": "L",
                                             "definition": 5}).encode(),
                 id="a listener definition that is a number"),
]


def _signed_if_an_object(qm: QMgr, data: bytes) -> bytes:
    try:
        request = json.loads(data)
    except ValueError:
        return data
    return signed(request, command_key(qm.engine.qmdir)) if isinstance(request, dict) else data


@pytest.mark.parametrize(("fmt", "data"), HOSTILE)
async def test_a_hostile_initq_message_leaves_the_channel_initiator_serving(qm, fmt, data):
    """Given a channel initiator serving SYSTEM.CHANNEL.INITQ, when a hostile message
    arrives there, then it is taken off, the channel initiator goes on, and a channel
    command after it is answered."""
    chinit = ChannelInitiator(qm.name, qm.connect, EngineAdmin(qm.engine),
                              log=lambda msgid, text: qm.log.append((msgid, text)))
    ended = trio.Event()
    failed: list[BaseException] = []

    async def run(task_status=trio.TASK_STATUS_IGNORED) -> None:
        try:
            await chinit.run([], task_status=task_status)
        except BaseException as exc:
            failed.append(exc)
            raise
        finally:
            ended.set()

    with trio.fail_after(WITHIN * 3):
        async with trio.open_nursery() as nursery:
            await nursery.start(run)
            await wait_until(lambda: qm.engine.queue_status(INITQ)["IPPROCS"] >= 1, WITHIN)
            qm.put(INITQ, _signed_if_an_object(qm, data), persistent=False, Format=fmt,
                   ReplyToQ=b"REPLIES")
            await wait_until(lambda: qm.depth(INITQ) == 0 or ended.is_set(), WITHIN)
            replies = qm.depth("REPLIES")
            qm.put(INITQ, signed({"command": "RESET_STATISTICS"}, command_key(qm.engine.qmdir)),
                   persistent=False, Format=COMMAND_FORMAT, ReplyToQ=b"REPLIES")
            await wait_until(lambda: qm.depth("REPLIES") > replies or ended.is_set(), WITHIN)
            assert not ended.is_set(), failed
            nursery.cancel_scope.cancel()
            qm.put(INITQ, b"", persistent=False, Format=b"MQPYWAKE")


UNSIGNED = [
    pytest.param(lambda request, qmdir: json.dumps(request).encode(), id="no MAC"),
    pytest.param(lambda request, qmdir: signed(request, b"a key of its own"),
                 id="a MAC of another key"),
    pytest.param(lambda request, qmdir: json.dumps(
        {**request, "mac": json.loads(signed({"command": "RESET_STATISTICS"},
                                             command_key(qmdir)))["mac"]}).encode(),
                 id="the MAC of another command"),
]


@pytest.mark.system
@pytest.mark.parametrize("written", UNSIGNED)
async def test_a_channel_command_from_an_application_starts_no_channel_of_its_making(
        qm, written):
    """Given a channel initiator serving SYSTEM.CHANNEL.INITQ, when an application puts a
    START channel command there with a definition no queue manager object holds (a sender
    to a host of its choosing, from a transmission queue of its choosing, with a message
    exit), with a context it set as a receiving MCA sets an arriving message's, and without
    the MAC the queue manager's key makes, then no channel of that definition is started:
    the command is answered AMQ8135E and the refusal is logged."""
    chinit = ChannelInitiator(qm.name, qm.connect, EngineAdmin(qm.engine),
                              log=lambda msgid, text: qm.log.append((msgid, text)))
    qm.define("QLOCAL", "PAYROLL.XMITQ", USAGE="XMITQ")
    request = {"command": "START", "channel": "NOT.DEFINED", "definition": {
        "CHANNEL": "NOT.DEFINED", "CHLTYPE": "SDR", "CONNAME": "127.0.0.1(1)",
        "XMITQ": "PAYROLL.XMITQ", "MSGEXIT": "os(getcwd)", "SHORTTMR": 60}}
    with trio.fail_after(WITHIN * 3):
        async with trio.open_nursery() as nursery:
            await nursery.start(chinit.run, [])
            await wait_until(lambda: qm.engine.queue_status(INITQ)["IPPROCS"] >= 1, WITHIN)
            app = qm.connect()
            app.put1(INITQ, written(request, qm.engine.qmdir),
                     mqpy.MD(Format=COMMAND_FORMAT, ReplyToQ=b"REPLIES",
                             PutApplName=b"amqpcsea", UserIdentifier=b"mqm"),
                     mqpy.PMO(Options=CMQC.MQPMO_SET_ALL_CONTEXT))
            app.disconnect()
            await wait_until(lambda: qm.depth("REPLIES") == 1, WITHIN)
            started = "NOT.DEFINED" in chinit.statuses
            nursery.cancel_scope.cancel()
            qm.put(INITQ, b"", persistent=False, Format=b"MQPYWAKE")
    assert not started
    assert [json.loads(r) for r in qm.drain("REPLIES")] == [
        {"ok": False, "message": "AMQ8135E: Not authorized."}]
    assert any(msgid == "AMQ9999E" and "'amqpcsea'" in text and "refused" in text
               for msgid, text in qm.log)
