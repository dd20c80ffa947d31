"""A PCF request's parameters each come in a structure the application chose: one the
command server reads itself in another structure than its own (a number where a topic
string or a subscription's SubId belongs, a list where an ObjectType does) is refused
MQRCCF_<structure>_PARM_ID_ERROR, as IBM's command server refuses it, not read as it came
(``bytes(n)`` of a number is n NUL bytes: an MQCFIN SubId of 2**31 - 1 took 2 GB of the
queue manager's memory; -1 or a list was an internal fault, MQRCCF_COMMAND_FAILED and an
FDC at each request)."""

from __future__ import annotations

import pytest

from mqpy import CMQC, CMQCFC, pcf
from mqpy.structs.tables import CFH, MD

_F = CMQCFC


@pytest.mark.parametrize("command, params, reason", [
    (_F.MQCMD_INQUIRE_TOPIC_STATUS, [pcf.CFIN(CMQC.MQCA_TOPIC_STRING, -1)],
     _F.MQRCCF_CFIN_PARM_ID_ERROR),
    (_F.MQCMD_INQUIRE_SUB_STATUS, [pcf.CFIN(_F.MQBACF_SUB_ID, -1)],
     _F.MQRCCF_CFIN_PARM_ID_ERROR),
    (_F.MQCMD_DELETE_SUBSCRIPTION, [pcf.CFIL(_F.MQBACF_SUB_ID, [1, 2])],
     _F.MQRCCF_CFIL_PARM_ID_ERROR),
    (_F.MQCMD_CHANGE_SUBSCRIPTION, [pcf.CFIN(_F.MQBACF_SUB_ID, -1)],
     _F.MQRCCF_CFIN_PARM_ID_ERROR),
    (_F.MQCMD_INQUIRE_CONNECTION, [pcf.CFIL(_F.MQBACF_GENERIC_CONNECTION_ID, [300])],
     _F.MQRCCF_CFIL_PARM_ID_ERROR),
    (_F.MQCMD_SET_AUTH_REC, [pcf.CFST(_F.MQCACF_AUTH_PROFILE_NAME, b"Q1"),
                             pcf.CFIL(_F.MQIACF_OBJECT_TYPE, [CMQC.MQOT_Q])],
     _F.MQRCCF_CFIL_PARM_ID_ERROR),
    (_F.MQCMD_INQUIRE_AUTH_RECS, [pcf.CFST(_F.MQIACF_AUTH_OPTIONS, b"x")],
     _F.MQRCCF_CFST_PARM_ID_ERROR),
], ids=["topic-string-number", "subid-number", "subid-list", "change-subid-number",
        "generic-connid-list", "objtype-list", "authoptions-string"])
def test_a_parameter_in_another_structure_than_its_own_is_refused(server, command, params,
                                                                   reason):
    """Given a request whose parameter the server reads itself comes in the wrong
    structure, when the command server reads it, then it answers that structure's
    MQRCCF_*_PARM_ID_ERROR, and no internal fault happened."""
    del server.faults[:]
    md = MD(MsgType=CMQC.MQMT_REQUEST, Format=CMQC.MQFMT_ADMIN)
    replies = server.handle(md, pcf.build(pcf.PCFMessage(CFH(Command=command), params)))
    server.qm.backout()
    assert server.faults == []
    assert pcf.parse(replies[-1][1]).header.Reason == reason


def test_byte_string_parameters_are_taken_as_pymqi_sends_them(server):
    """A SubId or ConnectionId sent as an MQCFST (pymqi sends bytes so) or an MQCFBS is
    read, not refused: an unknown one is answered as such."""
    del server.faults[:]
    md = MD(MsgType=CMQC.MQMT_REQUEST, Format=CMQC.MQFMT_ADMIN)
    for p in (pcf.CFST(_F.MQBACF_SUB_ID, b"\1" * 24), pcf.CFBS(_F.MQBACF_SUB_ID, b"\1" * 24)):
        replies = server.handle(md, pcf.build(pcf.PCFMessage(
            CFH(Command=_F.MQCMD_INQUIRE_SUB_STATUS), [p])))
        server.qm.backout()
        assert pcf.parse(replies[-1][1]).header.Reason == CMQC.MQRC_UNKNOWN_OBJECT_NAME
    assert server.faults == []
