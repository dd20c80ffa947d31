"""SPI RESOLVE's Commit field over bindings: only its commit bit may commit.

mqiflows.RESOLVE_NO_WAIT (2) is a modifier of a commit (3: commit, answered before the log
force). A request whose commit bit is clear is a backout, whatever other bits it carries: a
backout taken as a commit takes a channel's batch off the transmission queue although the
partner did not confirm it (a lost batch).
"""

from __future__ import annotations

import mqpy
from mqpy import CMQC, bindings
from mqpy.fap import mqiflows
from mqpy.fap.tsh import SegmentType
from tests.support.handles import _drain
from tests.support.installation import QM


def test_a_resolve_with_the_no_wait_bit_but_not_the_commit_bit_backs_out(running):
    """Given a put under syncpoint prepared in doubt under a LUWID, when an SPI RESOLVE
    arrives whose Commit field is RESOLVE_NO_WAIT alone (commit bit clear), then the unit of
    work is backed out (or the call refused): the message is not on the queue, and the
    LUWID is no longer in doubt only if it was backed out."""
    conn = bindings.connect(QM, running.root)
    try:
        _drain(conn, "Q5")
        hobj = conn.open(mqpy.OD(ObjectName="Q5"), CMQC.MQOO_OUTPUT)
        conn.put(hobj, mqpy.MD(), mqpy.PMO(Options=CMQC.MQPMO_SYNCPOINT), b"not confirmed")
        conn.close(hobj)
        conn.prepare(b"LUWFLAG2")
        try:
            conn._call(SegmentType.SPI, [mqiflows.SpiVerb.RESOLVE, b"LUWFLAG2",
                                         mqiflows.RESOLVE_NO_WAIT])
        except mqpy.MQMIError:
            conn._call(SegmentType.SPI, [mqiflows.SpiVerb.RESOLVE, b"LUWFLAG2", 0])
        assert b"LUWFLAG2" not in conn.indoubt()
        assert _drain(conn, "Q5") == []
    finally:
        conn.disconnect()
