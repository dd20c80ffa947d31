"""MQINQ brings a connection's intermediate accounting record and is counted in its InqCount
over a bindings connection to a daemon started by strmqm and a client connection through its
channel initiator, as in an embedded queue manager (test_accounting_calls_embedded)."""

from __future__ import annotations

import time
from collections.abc import Iterator

import pytest

import mqpy
from mqpy import CMQC, CMQCFC
from mqpy.fap.mqicalls import MQIVerbs
from mqpy.stats.collector import ACCOUNTING_QUEUE
from tests.support.site import Site
from tests.support.site_here import QUEUE, here_started_site

from ._support import drain

pytestmark = pytest.mark.system


@pytest.fixture(scope="module")
def site(tmp_path_factory) -> Iterator[Site]:
    """A daemon with its channel initiator, ACCTMQI(ON) and ACCTINT(1)."""
    for s in here_started_site(str(tmp_path_factory.mktemp("acctcalls"))):
        s.mqsc("ALTER QMGR ACCTMQI(ON) ACCTINT(1)\n")
        yield s


def _records(site: Site) -> list:
    """The MQI accounting records on the accounting queue, read by a connection made now
    (too young for an intermediate record of its own; its last is written after)."""
    reader = site.bindings()
    try:
        return [m for _, m in drain(reader, ACCOUNTING_QUEUE)
                if m.header.Command == CMQCFC.MQCMD_ACCOUNTING_MQI]
    finally:
        reader.disconnect()


@pytest.mark.parametrize("mode", ["bindings", "client"])
def test_mqinq_after_acctint_brings_the_record_and_is_counted(site, mode):
    """Given ACCTMQI(ON) and ACCTINT(1), when an application connected over ``mode`` opens
    QUEUE, waits more than a second and calls MQINQ, then its intermediate record (no
    DiscType) is on the accounting queue as the call returns; and when it then disconnects,
    its last record (DiscType NORMAL, SeqNumber 1) counts that MQINQ in InqCount."""
    _records(site)
    began = time.monotonic()
    qm = site.bindings() if mode == "bindings" else site.client()
    q = mqpy.Queue(qm, QUEUE, CMQC.MQOO_INQUIRE)
    time.sleep(max(0.0, began + 1.2 - time.monotonic()))
    q.inquire(CMQC.MQIA_CURRENT_Q_DEPTH)
    intermediate = [r.get(CMQCFC.MQIACF_SEQUENCE_NUMBER) for r in _records(site)
                    if r.get(CMQCFC.MQIAMO_DISC_TYPE) is None]
    qm.disconnect()
    last = [(r.get(CMQCFC.MQIACF_SEQUENCE_NUMBER), sum(r.get(CMQCFC.MQIAMO_INQS)))
            for r in _records(site)
            if r.get(CMQCFC.MQIAMO_DISC_TYPE) == CMQCFC.MQDISCONNECT_NORMAL
            and r.get(CMQCFC.MQIACF_SEQUENCE_NUMBER) == 1]
    assert intermediate == [0]
    assert last == [(1, 1)]


@pytest.mark.parametrize("mode", ["bindings", "client"])
def test_one_mqinq_of_several_selectors_is_counted_once(site, mode):
    """Given ACCTMQI(ON), when an application sends one MQINQ of three selectors (as IBM's
    own MQI library sends an MQINQ of several), then it is answered the three values in
    their order, and its connection's last record counts one MQINQ in InqCount."""
    _records(site)
    qm = site.bindings() if mode == "bindings" else site.client()
    q = mqpy.Queue(qm, QUEUE, CMQC.MQOO_INQUIRE)
    q.inquire(CMQC.MQIA_Q_TYPE)  # (opened)
    selectors = [CMQC.MQIA_Q_TYPE, CMQC.MQIA_MAX_Q_DEPTH, CMQC.MQCA_Q_NAME]
    values = MQIVerbs.inquire_all(qm._backend(), q._hobj, selectors)
    qm.disconnect()
    inqs = [sum(r.get(CMQCFC.MQIAMO_INQS)) for r in _records(site)
            if r.get(CMQCFC.MQIAMO_DISC_TYPE) == CMQCFC.MQDISCONNECT_NORMAL]
    assert values[:2] == [CMQC.MQQT_LOCAL, 5000]
    assert values[2].rstrip(b" ") == QUEUE.encode()
    assert max(inqs) == 2  # (the first MQINQ and this one; the reader before counts none)
