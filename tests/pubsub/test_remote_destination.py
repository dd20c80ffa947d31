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


def _xmitq_message(qm, xmitq: str) -> tuple[XQH, bytes]:
    q = mqpy.Queue(qm, xmitq, CMQC.MQOO_INPUT_AS_Q_DEF)
    try:
        body = q.get(None, mqpy.MD(), mqpy.GMO(Options=CMQC.MQGMO_NO_SYNCPOINT))
    finally:
        q.close()
    xqh = XQH()
    xqh.unpack(body[:xqh.packed_size()])
    return xqh, body


def test_given_mqsub_to_a_queue_opened_at_another_qmgr_then_dest_and_destqmgr_are_kept(qmgr):
    """Given MQSUB whose provided destination was opened as THEIR.Q at QM.FAR (MQOD's
    ObjectQMgrName), then DISPLAY SUB shows DEST(THEIR.Q) DESTQMGR(QM.FAR) and a publication
    goes on the transmission queue QM.FAR, addressed to THEIR.Q there."""
    qmgr.mqsc("DEFINE QLOCAL(QM.FAR) USAGE(XMITQ)\n")
    dest = mqpy.Queue(qmgr.qm, mqpy.OD(ObjectName=b"THEIR.Q", ObjectQMgrName=b"QM.FAR"),
                      CMQC.MQOO_OUTPUT)
    sub = mqpy.Subscription(qmgr.qm)
    sub.sub(sub_queue=dest, sub_name=b"FAR.API", topic_string=b"far/api",
            sub_opts=CMQC.MQSO_CREATE | CMQC.MQSO_DURABLE)
    shown = "\n".join(qmgr.mqsc("DISPLAY SUB(FAR.API) DEST DESTQMGR\n"))
    assert "DEST(THEIR.Q)" in shown and "DESTQMGR(QM.FAR)" in shown
    _publish(qmgr.qm, "far/api", b"by api", md=mqpy.MD(Format=CMQC.MQFMT_STRING))
    xqh, body = _xmitq_message(qmgr.qm, "QM.FAR")
    assert xqh.RemoteQName.rstrip(b" \0") == b"THEIR.Q"
    assert xqh.RemoteQMgrName.rstrip(b" \0") == b"QM.FAR"
    assert body.endswith(b"by api")
    sub.close(sub_close_options=CMQC.MQCO_REMOVE_SUB)


def test_given_mqsub_to_a_remote_queue_definition_then_it_is_the_destination(qmgr):
    """Given MQSUB whose destination is a QREMOTE, then DEST is the QREMOTE's name and the
    copies go where it says."""
    qmgr.mqsc("DEFINE QLOCAL(QM.FAR) USAGE(XMITQ)\n"
              "DEFINE QREMOTE(FAR.ALIAS) RNAME(THEIR.Q) RQMNAME(QM.FAR) XMITQ(QM.FAR)\n")
    dest = mqpy.Queue(qmgr.qm, "FAR.ALIAS", CMQC.MQOO_OUTPUT)
    sub = mqpy.Subscription(qmgr.qm)
    sub.sub(sub_queue=dest, sub_name=b"FAR.QR", topic_string=b"far/qr",
            sub_opts=CMQC.MQSO_CREATE | CMQC.MQSO_DURABLE)
    shown = "\n".join(qmgr.mqsc("DISPLAY SUB(FAR.QR) DEST DESTQMGR\n"))
    assert "DEST(FAR.ALIAS)" in shown
    _publish(qmgr.qm, "far/qr", b"by qremote")
    xqh, body = _xmitq_message(qmgr.qm, "QM.FAR")
    assert xqh.RemoteQName.rstrip(b" \0") == b"THEIR.Q"
    sub.close(sub_close_options=CMQC.MQCO_REMOVE_SUB)
