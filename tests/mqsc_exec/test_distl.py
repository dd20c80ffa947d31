"""DISTL, the distribution-list attribute of a local queue (MQIA_DIST_LISTS)."""

from __future__ import annotations

import mqpy
from mqpy import CMQC

from .conftest import run


def test_distl_is_defined_altered_displayed_and_inquired(qmgr, proc):
    """Given DEFINE QLOCAL(XQ) USAGE(XMITQ), then DISTL is NO; ALTER ... DISTL(YES) shows in
    DISPLAY and in MQINQ MQIA_DIST_LISTS (MQDL_SUPPORTED); MQSET sets it back, as the
    sending MCA does when its partner takes no distribution lists."""
    run(proc, "DEFINE QLOCAL(XQ) USAGE(XMITQ)")
    assert any("DISTL(NO)" in line for line in run(proc, "DISPLAY QLOCAL(XQ) DISTL"))
    run(proc, "ALTER QLOCAL(XQ) DISTL(YES)")
    assert any("DISTL(YES)" in line for line in run(proc, "DISPLAY QLOCAL(XQ) DISTL"))
    qm = qmgr[0]
    q = mqpy.Queue(qm, "XQ", CMQC.MQOO_INQUIRE | CMQC.MQOO_SET)
    assert q.inquire(CMQC.MQIA_DIST_LISTS) == CMQC.MQDL_SUPPORTED
    q.set(CMQC.MQIA_DIST_LISTS, CMQC.MQDL_NOT_SUPPORTED)
    q.close()
    assert any("DISTL(NO)" in line for line in run(proc, "DISPLAY QLOCAL(XQ) DISTL"))
