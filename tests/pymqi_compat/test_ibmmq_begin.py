"""ibmmq's QueueManager.begin() is MQBEGIN: with no external resource manager registered a
queue manager answers MQCC_WARNING MQRC_NO_EXTERNAL_PARTICIPANTS (ibmmq raises it as an
MQMIError), and the unit of work it begins is the queue manager's own; a client connection
cannot issue MQBEGIN (MQRC_ENVIRONMENT_ERROR)."""

from __future__ import annotations

import pytest

import mqpy as ibmmq
from mqpy import CMQC
from tests.pymqi_compat.conftest import QUEUE


def test_begin_answers_as_mqbegin(qmgr, request):
    """Given a connection of each kind, when begin() is called, then a local one (embedded,
    bindings) gets the warning MQRC_NO_EXTERNAL_PARTICIPANTS and a put under syncpoint after
    it is committed by commit(); a client one gets MQRC_ENVIRONMENT_ERROR."""
    with pytest.raises(ibmmq.MQMIError) as err:
        qmgr.begin()
    if request.node.callspec.params["qmgr"] == "client":
        assert (err.value.comp, err.value.reason) == (CMQC.MQCC_FAILED,
                                                       CMQC.MQRC_ENVIRONMENT_ERROR)
        return
    assert (err.value.comp, err.value.reason) == (CMQC.MQCC_WARNING,
                                                   CMQC.MQRC_NO_EXTERNAL_PARTICIPANTS)
    queue = ibmmq.Queue(qmgr, QUEUE, CMQC.MQOO_OUTPUT | CMQC.MQOO_INPUT_AS_Q_DEF)
    queue.put(b"in the unit of work", ibmmq.MD(), ibmmq.PMO(Options=CMQC.MQPMO_SYNCPOINT))
    qmgr.commit()
    assert queue.get() == b"in the unit of work"
    queue.close()
