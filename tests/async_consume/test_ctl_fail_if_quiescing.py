"""MQCTL with MQCTLO_FAIL_IF_QUIESCING: while the queue manager quiesces (endmqm -c), starting
asynchronous consumption fails with MQRC_Q_MGR_QUIESCING (2161), as IBM's MQCTLO documents
("force the MQCTL call to fail if the queue manager or connection is in the quiescing
state"); without the option it starts. Over a bindings and a client connection."""

from __future__ import annotations

import pytest

import mqpy
from mqpy import CMQC
from tests.support.site import QM
from tests.support.site_here import here_started_site

from .conftest import Recorder

pytestmark = [pytest.mark.system, pytest.mark.timeout(180)]

FIQ = mqpy.CTLO(Options=CMQC.MQCTLO_FAIL_IF_QUIESCING)


@pytest.fixture
def site(tmp_path):
    for s in here_started_site(str(tmp_path / "data")):
        s.mqsc("DEFINE QLOCAL(AC.FIQ)\n")
        yield s


def _registered(qm: mqpy.QueueManager) -> mqpy.Queue:
    q = mqpy.Queue(qm, "AC.FIQ", CMQC.MQOO_INPUT_SHARED)
    q.cb(operation=CMQC.MQOP_REGISTER, cbd=mqpy.CBD(CallbackFunction=Recorder()),
         gmo=mqpy.GMO(Options=CMQC.MQGMO_NO_SYNCPOINT))
    return q


@pytest.mark.parametrize("mode", ["bindings", "client"])
def test_mqctl_start_fails_if_quiescing_only_when_asked(site, mode):
    """Given a connection with a consumer registered, when MQCTL MQOP_START is called with
    MQCTLO_FAIL_IF_QUIESCING on a running queue manager, then it starts (and stops); when
    the queue manager quiesces, the same call fails with MQRC_Q_MGR_QUIESCING and the
    connection stays stopped, while MQOP_START without the option still starts; options
    MQCTLO does not know are MQRC_OPTIONS_ERROR."""
    qm = site.bindings() if mode == "bindings" else site.client()
    try:
        q = _registered(qm)
        with pytest.raises(mqpy.MQMIError) as err:
            qm.ctl(CMQC.MQOP_START, mqpy.CTLO(Options=0x4000))
        assert err.value.reason == CMQC.MQRC_OPTIONS_ERROR
        qm.ctl(CMQC.MQOP_START, FIQ)
        qm.ctl(CMQC.MQOP_STOP)
        ended = site.inst.run("endmqm", "-c", QM)
        assert ended.returncode == 0, ended.stderr
        with pytest.raises(mqpy.MQMIError) as err:
            qm.ctl(CMQC.MQOP_START, FIQ)
        assert (err.value.comp, err.value.reason) == (CMQC.MQCC_FAILED,
                                                      CMQC.MQRC_Q_MGR_QUIESCING)
        qm.ctl(CMQC.MQOP_START)
        qm.ctl(CMQC.MQOP_STOP)
        q.close()
    finally:
        qm.disconnect()
