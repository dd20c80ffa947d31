"""Start and stop events: a queue manager started by strmqm puts Queue Manager Active on
SYSTEM.ADMIN.QMGR.EVENT, and Queue Manager Not Active when endmqm asks it to end, while its
STRSTPEV is ENABLED (IBM's default), as PCF event messages in IBM's format."""

from __future__ import annotations

import pytest

import mqpy
from mqpy import CMQC, CMQCFC
from mqpy.pcf import parse
from tests.support.daemon_pair import mqsc_here
from tests.support.installation import QM

pytestmark = pytest.mark.system


def _events(install) -> list[tuple[mqpy.MD, object]]:
    """Every message on SYSTEM.ADMIN.QMGR.EVENT (got), with its MQMD, parsed."""
    qm = mqpy.connect(QM)
    out = []
    try:
        q = mqpy.Queue(qm, "SYSTEM.ADMIN.QMGR.EVENT", CMQC.MQOO_INPUT_AS_Q_DEF)
        while True:
            md = mqpy.MD()
            try:
                data = q.get(None, md)
            except mqpy.MQMIError as e:
                assert e.reason == CMQC.MQRC_NO_MSG_AVAILABLE
                return out
            out.append((md, parse(data)))
    finally:
        qm.disconnect()


def test_a_start_and_a_controlled_end_put_their_events(install):
    """Given a queue manager started by strmqm, then SYSTEM.ADMIN.QMGR.EVENT holds one Queue
    Manager Active event (MQCFT_EVENT, MQCMD_Q_MGR_EVENT, MQRC_Q_MGR_ACTIVE 2222, the queue
    manager's name, Format MQEVENT); given the event queue made DEFPSIST(YES) (events are
    put persistent as the queue defines, and a non-persistent one does not outlive the queue
    manager), when endmqm -w ends it and strmqm starts it again, then a Queue Manager Not
    Active event (2223, quiescing) comes before the next Active one."""
    install.create(queues=())
    install.start()
    first = _events(install)
    assert len(first) == 1, first
    md, event = first[0]
    assert md.Format == CMQC.MQFMT_EVENT and md.MsgType == CMQC.MQMT_DATAGRAM
    h = event.header
    assert (h.Type, h.Command, h.CompCode, h.Reason) == (
        CMQCFC.MQCFT_EVENT, CMQCFC.MQCMD_Q_MGR_EVENT, CMQC.MQCC_WARNING, CMQC.MQRC_Q_MGR_ACTIVE)
    assert event.get(CMQC.MQCA_Q_MGR_NAME).strip() == QM.encode()
    shown = mqsc_here(install, QM, "ALTER QLOCAL(SYSTEM.ADMIN.QMGR.EVENT) DEFPSIST(YES)\n")
    assert "AMQ8008I" in shown.stdout, shown.stdout
    assert install.run("endmqm", "-w", QM).returncode == 0
    install.start()
    reasons = [(e.header.Reason, e.get(CMQCFC.MQIACF_REASON_QUALIFIER))
               for _, e in _events(install)]
    assert reasons == [(CMQC.MQRC_Q_MGR_NOT_ACTIVE, CMQCFC.MQRQ_Q_MGR_QUIESCING),
                       (CMQC.MQRC_Q_MGR_ACTIVE, CMQCFC.MQRQ_FAILOVER_NOT_PERMITTED)]
    assert install.run("endmqm", "-i", QM).returncode == 0


def test_strstpev_disabled_puts_no_event(install):
    """Given ALTER QMGR STRSTPEV(DISABLED), when the queue manager is ended and started
    again, then no start or stop event is put."""
    install.create(queues=())
    install.start()
    _events(install)
    shown = mqsc_here(install, QM, "ALTER QMGR STRSTPEV(DISABLED)\n")
    assert "AMQ8005I" in shown.stdout, shown.stdout
    assert install.run("endmqm", "-w", QM).returncode == 0
    install.start()
    assert _events(install) == []
    assert install.run("endmqm", "-i", QM).returncode == 0
