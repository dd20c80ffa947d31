"""A subscription whose destination is on another queue manager (DESTQMGR): each copy goes
to the transmission queue for that queue manager, in an MQXQH naming the destination, as a
put to a remote queue does, so a channel carries it there."""

from __future__ import annotations

import mqpy
from mqpy import CMQC
from mqpy.structs.tables import XQH

from .test_publish_subscribe import _publish


def test_given_a_subscription_to_a_queue_on_another_qmgr_then_the_copy_is_on_its_xmitq(qmgr):
    qmgr.mqsc("DEFINE QLOCAL(QM.FAR) USAGE(XMITQ)\n"
              "DEFINE SUB(FAR.SUB) TOPICSTR('far/away') DEST(THEIR.Q) DESTQMGR(QM.FAR)\n")
    _publish(qmgr.qm, "far/away", b"travelling", md=mqpy.MD(Format=CMQC.MQFMT_STRING))
    xmitq = mqpy.Queue(qmgr.qm, "QM.FAR", CMQC.MQOO_INPUT_AS_Q_DEF)
    md = mqpy.MD()
    body = xmitq.get(None, md, mqpy.GMO(Options=CMQC.MQGMO_NO_SYNCPOINT))
    xmitq.close()
    assert md.Format == CMQC.MQFMT_XMIT_Q_HEADER
    xqh = XQH()
    xqh.unpack(body[:xqh.packed_size()])
    assert xqh.RemoteQName.rstrip(b" \0") == b"THEIR.Q"
    assert xqh.RemoteQMgrName.rstrip(b" \0") == b"QM.FAR"
    assert body.endswith(b"travelling")
    shown = "\n".join(qmgr.mqsc("DISPLAY SBSTATUS(FAR.SUB) NUMMSGS\n"))
    assert "NUMMSGS(1)" in shown
