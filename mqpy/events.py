"""Instrumentation events the queue manager puts on its event queues, as PCF event messages in
IBM's format (MQCFH Type MQCFT_EVENT, MQMD Format MQEVENT): the start and stop events
(Queue Manager Active, Queue Manager Not Active) on SYSTEM.ADMIN.QMGR.EVENT while the queue
manager's STRSTPEV is ENABLED, IBM's default.
"""

from __future__ import annotations

import socket

from mqpy import CMQC, CMQCFC
from mqpy.errors import MQMIError
from mqpy.mqi import QueueManager
from mqpy.pcf import CFIN, CFST, PCFMessage, build
from mqpy.structs.tables import CFH, MD, OD, PMO

__all__ = ["QMGR_EVENT_QUEUE", "put_event", "queue_manager_active", "queue_manager_not_active",
           "start_stop_enabled"]

QMGR_EVENT_QUEUE = "SYSTEM.ADMIN.QMGR.EVENT"


def start_stop_enabled(qmgr_attributes: dict) -> bool:
    """Whether the queue manager generates start and stop events (STRSTPEV)."""
    return qmgr_attributes.get("STRSTPEV", "ENABLED") == "ENABLED"


def _event(command: int, reason: int, params: list) -> PCFMessage:
    header = CFH(Type=CMQCFC.MQCFT_EVENT, StrucLength=CMQCFC.MQCFH_STRUC_LENGTH,
                 Version=CMQCFC.MQCFH_VERSION_1, Command=command, MsgSeqNumber=1,
                 Control=CMQCFC.MQCFC_LAST, CompCode=CMQC.MQCC_WARNING, Reason=reason)
    return PCFMessage(header, params)


def _qmgr_name(qmgr: str) -> CFST:
    return CFST(CMQC.MQCA_Q_MGR_NAME,
                qmgr.encode("latin-1", "replace").ljust(CMQC.MQ_Q_MGR_NAME_LENGTH))


def queue_manager_active(qmgr: str) -> PCFMessage:
    """Queue Manager Active (MQRC_Q_MGR_ACTIVE): the queue manager has started normally (a
    single instance: no standby is allowed)."""
    return _event(CMQCFC.MQCMD_Q_MGR_EVENT, CMQC.MQRC_Q_MGR_ACTIVE, [
        _qmgr_name(qmgr),
        CFIN(CMQCFC.MQIACF_REASON_QUALIFIER, CMQCFC.MQRQ_FAILOVER_NOT_PERMITTED),
        CFST(CMQCFC.MQCACF_HOST_NAME, socket.gethostname().encode("latin-1", "replace")),
    ])


def queue_manager_not_active(qmgr: str, *, quiescing: bool) -> PCFMessage:
    """Queue Manager Not Active (MQRC_Q_MGR_NOT_ACTIVE): the queue manager was asked to
    quiesce (a controlled end) or to stop (an immediate one)."""
    qualifier = CMQCFC.MQRQ_Q_MGR_QUIESCING if quiescing else CMQCFC.MQRQ_Q_MGR_STOPPING
    return _event(CMQCFC.MQCMD_Q_MGR_EVENT, CMQC.MQRC_Q_MGR_NOT_ACTIVE, [
        _qmgr_name(qmgr), CFIN(CMQCFC.MQIACF_REASON_QUALIFIER, qualifier)])


def put_event(qm: QueueManager, msg: PCFMessage, queue: str = QMGR_EVENT_QUEUE) -> int:
    """MQPUT1 one event message to ``queue``, outside syncpoint, persistent as the queue
    defines: 0, or the reason the put failed (IBM: an event that cannot be put is lost, the
    queue manager goes on)."""
    md = MD(Format=CMQC.MQFMT_EVENT, MsgType=CMQC.MQMT_DATAGRAM,
            Persistence=CMQC.MQPER_PERSISTENCE_AS_Q_DEF)
    try:
        qm.put1(OD(ObjectName=queue.encode()), build(msg), md,
                PMO(Options=CMQC.MQPMO_NO_SYNCPOINT))
    except MQMIError as e:
        return e.reason
    return 0
