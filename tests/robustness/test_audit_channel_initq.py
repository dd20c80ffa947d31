"""Hostile messages on SYSTEM.CHANNEL.INITQ: an application allowed to put there (or a
partner's message a receiving MCA put there) may be any bytes with a trigger message's or a
channel command's Format. Whatever it holds, the channel initiator logs it, drops it and
goes on serving the queue: it never ends with a traceback."""

from __future__ import annotations

import json

import pytest
import trio

import mqpy
from mqpy import CMQC, inprocess
from mqpy.channelcommands import COMMAND_FORMAT, INITQ
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
            qm.put(INITQ, data, persistent=False, Format=fmt, ReplyToQ=b"REPLIES")
            await wait_until(lambda: qm.depth(INITQ) == 0 or ended.is_set(), WITHIN)
            replies = qm.depth("REPLIES")
            qm.put(INITQ, json.dumps({"command": "RESET_STATISTICS"}).encode(),
                   persistent=False, Format=COMMAND_FORMAT, ReplyToQ=b"REPLIES")
            await wait_until(lambda: qm.depth("REPLIES") > replies or ended.is_set(), WITHIN)
            assert not ended.is_set(), failed
            nursery.cancel_scope.cancel()
            qm.put(INITQ, b"", persistent=False, Format=b"MQPYWAKE")
