"""MQCNO_RECONNECT_Q_MGR reconnects to the same queue manager: the same QMID, not the same name.

IBM (CLIENTRECONNECTOPTIONS QMGR, IBM MQ classes for JMS; the MQI's MQCNO_RECONNECT_Q_MGR
and DefRecon=QMGR have "the same effect"): "An error with reason code
MQRC_RECONNECT_QMID_MISMATCH is returned if the queue manager that the application tries to
connect to ... has a different QMID to the queue manager that it originally connected to."

Given a client connected with DefRecon=QMGR, when its queue manager is ended with endmqm -r
and started again, then it reconnects; when it is instead deleted and created again under
the same name (a new QMID) at the same address, then it never reconnects there: its calls
fail MQRC_RECONNECT_FAILED once MQReconnectTimeout has passed, and MQSTAT's reconnection
error says MQRC_RECONNECT_QMID_MISMATCH.
"""

from __future__ import annotations

import time
from collections.abc import Iterator

import pytest

import mqpy as pymqi  # the programs below are written as pymqi programs are
from mqpy import CMQC, inprocess
from tests.support.endings import end_connections, made
from tests.support.site import ADMIT_OWNER, CHANNEL, QM, QUEUE, Site
from tests.support.site_here import HereSite, started_site

pytestmark = [pytest.mark.system, pytest.mark.timeout(240)]


@pytest.fixture(scope="module")
def site(tmp_path_factory) -> Iterator[Site]:
    yield from started_site(str(tmp_path_factory.mktemp("qmid") / "data"), None, HereSite)


@pytest.fixture(autouse=True)
def reconnecting(site, tmp_path, monkeypatch) -> Iterator[None]:
    """mqclient.ini: DefRecon=QMGR, short delays, a reconnection given 25 seconds (a queue manager deleted and created again meanwhile)."""
    path = tmp_path / "mqclient.ini"
    path.write_text("CHANNELS:\n   DefRecon=QMGR\n   ReconDelay=(200,0)\n"
                    "   MQReconnectTimeout=25\n")
    monkeypatch.setenv("MQCLNTCF", str(path))
    for var in ("MQSERVER", "MQCCDTURL", "MQ_CONNECT_TYPE"):
        monkeypatch.delenv(var, raising=False)
    yield
    end_connections()


def client(site: Site) -> pymqi.QueueManager:
    qmgr = made(pymqi.QueueManager(None))
    qmgr.connect_tcp_client(QM, pymqi.CD(), CHANNEL, site.conn_info)
    return qmgr


def run(site: Site, *command: str) -> None:
    proc = site.inst.run(*command)
    assert proc.returncode == 0, proc.stdout + proc.stderr


def strmqm(site: Site) -> None:
    run(site, "strmqm", QM)
    site._wait_listening()


IN_OUT = CMQC.MQOO_OUTPUT | CMQC.MQOO_INPUT_SHARED


def test_a_restarted_queue_manager_is_the_same_one(site):
    """Given a DefRecon=QMGR client with a queue open, when endmqm -i -r and strmqm, then its
    next put and get go on."""
    qmgr = client(site)
    queue = pymqi.Queue(qmgr, QUEUE, IN_OUT)
    run(site, "endmqm", "-i", "-r", QM)
    strmqm(site)
    queue.put(b"again")
    assert queue.get() == b"again"


def test_a_queue_manager_created_again_under_its_name_is_not_the_same_one(site):
    """Given a DefRecon=QMGR client, when its queue manager is ended (endmqm -i -r), deleted
    and created again under the same name on the same port, then its next call fails
    MQRC_RECONNECT_FAILED and the reconnection's error is MQRC_RECONNECT_QMID_MISMATCH."""
    qmgr = client(site)
    queue = pymqi.Queue(qmgr, QUEUE, IN_OUT)
    run(site, "endmqm", "-i", "-r", QM)
    while inprocess.is_locked(site.qmdir):
        time.sleep(0.05)
    run(site, "dltmqm", QM)
    time.sleep(1.1)  # (a QMID is the name and the creation time, to the second)
    site.start()
    site.mqsc_here(ADMIT_OWNER)  # (the owner a client again)
    with pytest.raises(pymqi.MQMIError) as e:
        queue.put(b"not there")
    assert e.value.reason == CMQC.MQRC_RECONNECT_FAILED
    sts = qmgr.stat(CMQC.MQSTAT_TYPE_RECONNECTION_ERROR)
    assert sts.Reason == CMQC.MQRC_RECONNECT_QMID_MISMATCH
