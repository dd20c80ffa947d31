"""A PCF request is an application's bytes (any application that may put to
SYSTEM.ADMIN.COMMAND.QUEUE). Groups (MQCFGR) nested inside groups, as deep as a message's
length allows, are a structure error answered with an MQRCCF_* reason, not an internal fault
(the parser reads nested groups by recursion: 20,000 nested groups, 320 KB, raise
RecursionError, answered MQRCCF_COMMAND_FAILED with an FDC)."""

from __future__ import annotations

import struct

from mqpy import CMQC, CMQCFC, pcf
from mqpy.structs.tables import CFH, MD


def test_groups_nested_beyond_any_use_are_a_structure_error(server):
    """Given an MQCMD_INQUIRE_Q request whose one parameter is a group holding a group,
    20,000 deep, when the command server reads it, then it answers a structure error's
    MQRCCF reason and no internal fault happened."""
    del server.faults[:]
    head = bytearray(pcf.build(pcf.PCFMessage(CFH(Command=CMQCFC.MQCMD_INQUIRE_Q), [])))
    struct.pack_into("<i", head, 32, 1)  # ParameterCount: the outermost group
    nested = struct.pack("<iiii", CMQCFC.MQCFT_GROUP, 16, CMQCFC.MQGACF_Q_STATISTICS_DATA, 1)
    md = MD(MsgType=CMQC.MQMT_REQUEST, Format=CMQC.MQFMT_ADMIN)
    replies = server.handle(md, bytes(head) + nested * 20_000)
    server.qm.backout()
    reason = pcf.parse(replies[-1][1]).header.Reason
    assert server.faults == []
    assert reason == CMQCFC.MQRCCF_STRUCTURE_TYPE_ERROR
