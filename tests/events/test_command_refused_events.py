"""Not Authorized (type 4) on SYSTEM.ADMIN.QMGR.EVENT (AUTHOREV): a command the command
server refused for the authority of the user its request carries. One embedded queue manager
for the file with the security policy installed; requests go through the command server's
request handling, without its threads."""

from __future__ import annotations

import pytest

from mqpy import CMQC, CMQCFC, pcf
from mqpy.cmdserver import CommandServer
from mqpy.mqsc.processor import MQSCProcessor
from mqpy.security.policy import install
from mqpy.structs.tables import CFH, MD
from tests.support.embedded import EmbeddedQMgr, ended_at_teardown

from ._support import params, read_events


@pytest.fixture(scope="module")
def secured(tmp_path_factory):
    qmgr = EmbeddedQMgr("QMCMDAUT", str(tmp_path_factory.mktemp("qmcmdaut")))
    install(qmgr.eng, qmgr.eng.qmdir)  # (its connection was made before: it reads as before)
    qmgr.server = CommandServer(None, lambda: MQSCProcessor(qmgr.eng))
    yield from ended_at_teardown(qmgr)


def refused(qmgr, command: int, params_: list, user: bytes = b"bob") -> int:
    md = MD(Format=CMQC.MQFMT_ADMIN, MsgType=CMQC.MQMT_REQUEST, UserIdentifier=user)
    (_, reply), = qmgr.server.handle(
        md, pcf.build(pcf.PCFMessage(CFH(Command=command), params_)))
    return pcf.parse(reply).header.Reason


DELETE_Q = [pcf.CFST(CMQC.MQCA_Q_NAME, b"SYSTEM.DEFAULT.LOCAL.QUEUE")]


def test_a_refused_command_is_not_authorized_type_4_while_authorev_is_enabled(secured):
    """Given AUTHOREV(ENABLED) and bob, outside mqm with no authority, when bob's Delete
    Queue comes to the command server, then it is refused 2035 and one Not Authorized event
    names the queue manager, MQRQ_CMD_NOT_AUTHORIZED, the command and bob, in IBM's order."""
    read_events(secured.qm)
    secured.eng.alter_qmgr({"AUTHOREV": "ENABLED"})
    try:
        assert refused(secured, CMQCFC.MQCMD_DELETE_Q, DELETE_Q) == CMQC.MQRC_NOT_AUTHORIZED
        (md, msg), = read_events(secured.qm)
    finally:
        secured.eng.alter_qmgr({"AUTHOREV": "DISABLED"})
    assert md.Format.rstrip() == CMQC.MQFMT_EVENT.rstrip()
    assert (msg.header.Command, msg.header.Reason) == (CMQCFC.MQCMD_Q_MGR_EVENT,
                                                       CMQC.MQRC_NOT_AUTHORIZED)
    assert params(msg) == [(CMQC.MQCA_Q_MGR_NAME, "QMCMDAUT"),
                           (CMQCFC.MQIACF_REASON_QUALIFIER, CMQCFC.MQRQ_CMD_NOT_AUTHORIZED),
                           (CMQCFC.MQIACF_COMMAND, CMQCFC.MQCMD_DELETE_Q),
                           (CMQCFC.MQCACF_USER_IDENTIFIER, "bob")]


def test_a_refused_inquiry_is_one_too_and_none_while_authorev_is_disabled(secured):
    """Given AUTHOREV(ENABLED), when bob's Inquire Queue is refused, then its event names
    MQCMD_INQUIRE_Q; given IBM's default AUTHOREV(DISABLED), when he is refused again, then
    no event."""
    read_events(secured.qm)
    inquire = [pcf.CFST(CMQC.MQCA_Q_NAME, b"SYSTEM.DEFAULT.LOCAL.QUEUE")]
    secured.eng.alter_qmgr({"AUTHOREV": "ENABLED"})
    try:
        assert refused(secured, CMQCFC.MQCMD_INQUIRE_Q, inquire) == CMQC.MQRC_NOT_AUTHORIZED
        got = read_events(secured.qm)
    finally:
        secured.eng.alter_qmgr({"AUTHOREV": "DISABLED"})
    assert [dict(params(m))[CMQCFC.MQIACF_COMMAND] for _, m in got] == [
        CMQCFC.MQCMD_INQUIRE_Q]
    assert refused(secured, CMQCFC.MQCMD_DELETE_Q, DELETE_Q) == CMQC.MQRC_NOT_AUTHORIZED
    assert read_events(secured.qm) == []
