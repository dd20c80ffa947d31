"""Two queue managers of this process joined by channel QM1.TO.QM2 whose receiver puts as PUTAUT
says, QM2's OAM judging those puts: messages put with a user's context, authorities granted,
the dead letters read back, and the channel run."""

from __future__ import annotations

import mqpy
from mqpy import CMQC
from mqpy.security.policy import set_authority
from tests.support.channel_pair import DLQ, define_pair, start_chinit
from tests.support.qmgr import QMgr


def _put_as(qm1: QMgr, user: str, data: bytes) -> None:
    """A message for TARGET at QM2 whose UserIdentifier is ``user`` (set as context)."""
    qm = qm1.connect()
    try:
        qm.put1(mqpy.OD(ObjectName=b"TARGET", ObjectQMgrName=b"QM2"), data,
                mqpy.MD(Persistence=CMQC.MQPER_PERSISTENT, UserIdentifier=user.encode()),
                mqpy.PMO(Options=CMQC.MQPMO_SET_IDENTITY_CONTEXT))
    finally:
        qm.disconnect()


def _grant(qm: QMgr, queue: str, user: str) -> None:
    set_authority(qm.engine, "queue", queue, ["+put"], principal=user)


def _dead_letters(qm: QMgr) -> list[tuple[mqpy.DLH, bytes]]:
    return [(mqpy.DLH().unpack(d), d[172:]) for d in qm.drain(DLQ)]


async def _run(qm1: QMgr, qm2: QMgr, nursery, putaut: str):
    r2 = await start_chinit(nursery, qm2, listen=True)
    define_pair(qm1, qm2, r2.port, HBINT=0, rcvr={"MCAUSER": "bob", "PUTAUT": putaut})
    r1 = await start_chinit(nursery, qm1)
    return r1, r2
