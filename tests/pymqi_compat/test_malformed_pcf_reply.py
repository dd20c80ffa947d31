"""A PCF reply that is not well formed is an MQ error to the program, never a traceback of
the parser (the README's rule: bad input gets an MQ-style answer)."""

from __future__ import annotations

import threading

import mqpy as pymqi
from mqpy import CMQC, CMQCFC, pcf
from tests.pymqi_compat.conftest import QUEUE


def test_a_malformed_pcf_reply_is_an_mq_error(env):
    """Given a PCFExecute whose command queue is an application queue, answered by this test
    acting as the command server, when the reply put to its ReplyToQ (CorrelId = MsgId) is
    not a PCF message (a truncated MQCFH), then the command fails with pymqi.MQMIError
    (MQCC_FAILED and the MQRCCF_* reason of the damage), as PCFExecute.unpack does."""
    qm = env.bindings()
    executor = pymqi.PCFExecute(qm, command_queue_name=QUEUE.encode(),
                                response_wait_interval=30000)
    outcome: dict = {}

    def program() -> None:
        try:
            outcome["result"] = executor.MQCMD_PING_Q_MGR()
        except Exception as exc:  # noqa: BLE001 - what the program sees is the point
            outcome["error"] = exc

    caller = threading.Thread(target=program)
    caller.start()
    server = env.bindings()
    md = pymqi.MD()
    pymqi.Queue(server, QUEUE).get(None, md,
                                    pymqi.GMO(Options=CMQC.MQGMO_WAIT, WaitInterval=30000))
    good = pcf.build(pcf.PCFMessage(
        pymqi.CFH(Type=CMQCFC.MQCFT_RESPONSE, Command=CMQCFC.MQCMD_PING_Q_MGR), []))
    server.put1(md.ReplyToQ, good[:20], pymqi.MD(CorrelId=md.MsgId, Format=CMQC.MQFMT_ADMIN,
                                                   MsgType=CMQC.MQMT_REPLY))
    caller.join(60)
    error = outcome.get("error")
    assert isinstance(error, pymqi.MQMIError), outcome
    assert error.comp == CMQC.MQCC_FAILED and error.reason > 0
