"""A PCF command given a parameter it does not take is refused, as IBM's command server
refuses it: MQRCCF_CFIN_PARM_ID_ERROR (3014) for an MQCFIN, MQRCCF_CFST_PARM_ID_ERROR (3015)
for an MQCFST, and the like for the other structures, the parameter named in the reply's
MQIACF_PARAMETER_ID; nothing is run. What a command takes is its table in
:mod:`mqpy.command.parameters`; the programs and tools that send commands (pymqi's, the
monitoring checks', mqpy's own) are checked to be accepted by their own tests.

The command server here is driven directly (request bytes in, reply bytes out) on an
embedded queue manager, so each request costs milliseconds."""

from __future__ import annotations

import pytest

from mqpy import CMQC, CMQCFC, inprocess, pcf
from mqpy.cmdserver import _HANDLERS, CommandServer
from mqpy.command.parameters import ATTRIBUTES, TAKES
from mqpy.embedding import embedded, stop_embedded
from mqpy.mqi import attach
from mqpy.mqsc.processor import MQSCProcessor
from mqpy.structs.tables import CFH, MD

#: an MQCFIN no command takes (IBM's example: it is Inquire Queue Status's answer)
NOT_TAKEN_INT = CMQCFC.MQIACF_OLDEST_MSG_AGE
#: an MQCFST no command takes
NOT_TAKEN_STRING = CMQCFC.MQCACF_LAST_GET_DATE


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    root = str(tmp_path_factory.mktemp("pcfparms"))
    embedded("QM1", data_path=root)
    try:
        engine = inprocess.running("QM1", root)
        srv = CommandServer(attach(engine), lambda: MQSCProcessor(engine))
        srv.faults = []
        srv.on_unexpected = srv.faults.append
        yield srv
        assert srv.faults == []
    finally:
        stop_embedded("QM1", data_path=root)


def _ask(server, command: int, params: list) -> list[pcf.PCFMessage]:
    data = pcf.build(pcf.PCFMessage(CFH(Command=command), params))
    replies = server.handle(MD(MsgType=CMQC.MQMT_REQUEST, Format=CMQC.MQFMT_ADMIN), data)
    server.qm.commit()
    return [pcf.parse(body) for _, body in replies]


def _refusal(replies: list[pcf.PCFMessage]) -> tuple[int, int, int | None]:
    [reply] = replies
    return reply.header.CompCode, reply.header.Reason, reply.get(CMQCFC.MQIACF_PARAMETER_ID)


@pytest.mark.parametrize("command", sorted(c for c, t in TAKES.items() if t is not ATTRIBUTES))
def test_every_command_refuses_an_integer_it_does_not_take(server, command):
    """Given any command the command server serves whose parameters are listed, when it
    comes with MQIACF_OLDEST_MSG_AGE (no command's parameter), then the one reply fails
    MQRCCF_CFIN_PARM_ID_ERROR naming MQIACF_OLDEST_MSG_AGE, before anything is run."""
    replies = _ask(server, command, [pcf.CFIN(NOT_TAKEN_INT, 1)])
    assert _refusal(replies) == (CMQC.MQCC_FAILED, CMQCFC.MQRCCF_CFIN_PARM_ID_ERROR,
                                 NOT_TAKEN_INT)


def test_every_command_served_has_a_table():
    """Given the command server's handlers, then each command has its entry in the table of
    parameters (a list, or ATTRIBUTES where its handler checks them), none left out."""
    assert set(_HANDLERS) == set(TAKES)


@pytest.mark.parametrize("structure, reason", [
    (pcf.CFIN(NOT_TAKEN_INT, 1), CMQCFC.MQRCCF_CFIN_PARM_ID_ERROR),
    (pcf.CFST(NOT_TAKEN_STRING, b"2026-11-30"), CMQCFC.MQRCCF_CFST_PARM_ID_ERROR),
    (pcf.CFIL(NOT_TAKEN_INT, [1, 2]), CMQCFC.MQRCCF_CFIL_PARM_ID_ERROR),
    (pcf.CFSL(NOT_TAKEN_STRING, [b"A", b"B"]), CMQCFC.MQRCCF_CFSL_PARM_ID_ERROR),
    (pcf.CFBS(CMQCFC.MQBACF_CONNECTION_ID, b"\x01" * 24), CMQCFC.MQRCCF_CFBS_PARM_ID_ERROR),
])
def test_the_reason_names_the_structure(server, structure, reason):
    """Given Inquire Queue Status of SYSTEM.DEFAULT.LOCAL.QUEUE with a parameter it does not
    take, in each structure, then the reason names that structure (MQCFIN 3014, MQCFST 3015,
    MQCFIL 3047, MQCFSL 3033, MQCFBS 3256) and MQIACF_PARAMETER_ID the parameter."""
    replies = _ask(server, CMQCFC.MQCMD_INQUIRE_Q_STATUS, [
        pcf.CFST(CMQC.MQCA_Q_NAME, b"SYSTEM.DEFAULT.LOCAL.QUEUE"), structure])
    assert _refusal(replies) == (CMQC.MQCC_FAILED, reason, structure.Parameter)


def test_inquire_channel_status_with_a_queues_parameter(server):
    """Given IBM's own example, Inquire Channel Status of ``*`` with MQIACF_OLDEST_MSG_AGE,
    then it fails MQRCCF_CFIN_PARM_ID_ERROR (not MQRCCF_CHL_STATUS_NOT_FOUND, the answer to
    the status of no channel)."""
    replies = _ask(server, CMQCFC.MQCMD_INQUIRE_CHANNEL_STATUS, [
        pcf.CFST(CMQCFC.MQCACH_CHANNEL_NAME, b"*"), pcf.CFIN(NOT_TAKEN_INT, 1)])
    assert _refusal(replies)[:2] == (CMQC.MQCC_FAILED, CMQCFC.MQRCCF_CFIN_PARM_ID_ERROR)


def test_a_refused_delete_deletes_nothing(server):
    """Given Delete Queue of a queue with a parameter Delete Queue does not take (MaxQDepth,
    an attribute Create and Change take), then it fails MQRCCF_CFIN_PARM_ID_ERROR and the
    queue is still there."""
    assert _ask(server, CMQCFC.MQCMD_CREATE_Q, [
        pcf.CFST(CMQC.MQCA_Q_NAME, b"PARMS.DELETE"),
        pcf.CFIN(CMQC.MQIA_Q_TYPE, CMQC.MQQT_LOCAL)])[0].header.CompCode == CMQC.MQCC_OK
    replies = _ask(server, CMQCFC.MQCMD_DELETE_Q, [
        pcf.CFST(CMQC.MQCA_Q_NAME, b"PARMS.DELETE"), pcf.CFIN(CMQC.MQIA_MAX_Q_DEPTH, 10)])
    assert _refusal(replies) == (CMQC.MQCC_FAILED, CMQCFC.MQRCCF_CFIN_PARM_ID_ERROR,
                                 CMQC.MQIA_MAX_Q_DEPTH)
    [shown] = _ask(server, CMQCFC.MQCMD_INQUIRE_Q, [pcf.CFST(CMQC.MQCA_Q_NAME, b"PARMS.DELETE")])
    assert shown.header.CompCode == CMQC.MQCC_OK


def test_a_change_names_the_parameter_it_refuses(server):
    """Given Change Queue with an attribute no queue has (a channel's MQIACH_BATCH_SIZE),
    then it fails MQRCCF_CFIN_PARM_ID_ERROR naming MQIACH_BATCH_SIZE."""
    replies = _ask(server, CMQCFC.MQCMD_CHANGE_Q, [
        pcf.CFST(CMQC.MQCA_Q_NAME, b"SYSTEM.DEFAULT.LOCAL.QUEUE"),
        pcf.CFIN(CMQC.MQIA_Q_TYPE, CMQC.MQQT_LOCAL), pcf.CFIN(CMQCFC.MQIACH_BATCH_SIZE, 5)])
    assert _refusal(replies) == (CMQC.MQCC_FAILED, CMQCFC.MQRCCF_CFIN_PARM_ID_ERROR,
                                 CMQCFC.MQIACH_BATCH_SIZE)


def test_an_attribute_list_sent_as_one_integer(server):
    """Given Inquire Queue Status with QStatusAttrs as an MQCFIN of MQIACF_ALL (an MQCFIL
    parameter), then it fails MQRCCF_CFIN_PARM_ID_ERROR naming it, as IBM's does (not
    MQRCCF_COMMAND_FAILED)."""
    replies = _ask(server, CMQCFC.MQCMD_INQUIRE_Q_STATUS, [
        pcf.CFST(CMQC.MQCA_Q_NAME, b"SYSTEM.DEFAULT.LOCAL.QUEUE"),
        pcf.CFIN(CMQCFC.MQIACF_Q_STATUS_ATTRS, CMQCFC.MQIACF_ALL)])
    assert _refusal(replies) == (CMQC.MQCC_FAILED, CMQCFC.MQRCCF_CFIN_PARM_ID_ERROR,
                                 CMQCFC.MQIACF_Q_STATUS_ATTRS)


def test_what_a_command_takes_is_still_answered(server):
    """Given Inquire Queue Status with every parameter it takes on Multiplatforms (QName,
    StatusType, QStatusAttrs, OpenType) and a filter on an attribute of its answer, then it
    answers."""
    replies = _ask(server, CMQCFC.MQCMD_INQUIRE_Q_STATUS, [
        pcf.CFST(CMQC.MQCA_Q_NAME, b"SYSTEM.DEFAULT.LOCAL.QUEUE"),
        pcf.CFIN(CMQCFC.MQIACF_Q_STATUS_TYPE, CMQCFC.MQIACF_Q_STATUS),
        pcf.CFIL(CMQCFC.MQIACF_Q_STATUS_ATTRS, [CMQCFC.MQIACF_ALL]),
        pcf.CFIN(CMQCFC.MQIACF_OPEN_TYPE, CMQCFC.MQQSOT_ALL),
        pcf.CFIF(CMQC.MQIA_CURRENT_Q_DEPTH, CMQCFC.MQCFOP_NOT_LESS, 0)])
    assert [r.header.CompCode for r in replies] == [CMQC.MQCC_OK]
    assert replies[0].get(CMQC.MQIA_CURRENT_Q_DEPTH) == 0
