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


def test_a_queue_defined_before_distl_existed_takes_it(qmgr):
    """A local queue whose stored definition has no DISTL (defined by an older mqpy) reads
    as DISTL(NO) and takes MQSET, so a sending MCA can mark it."""
    qm, eng, _ = qmgr
    eng.define("QLOCAL", "OLD.XQ", {"USAGE": "XMITQ"})
    del eng.lookup("QLOCAL", "OLD.XQ").attributes["DISTL"]
    q = mqpy.Queue(qm, "OLD.XQ", CMQC.MQOO_INQUIRE | CMQC.MQOO_SET)
    assert q.inquire(CMQC.MQIA_DIST_LISTS) == CMQC.MQDL_NOT_SUPPORTED
    q.set(CMQC.MQIA_DIST_LISTS, CMQC.MQDL_SUPPORTED)
    assert q.inquire(CMQC.MQIA_DIST_LISTS) == CMQC.MQDL_SUPPORTED
    q.close()
