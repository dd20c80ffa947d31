"""A listener (runmqlsr) runs on while its queue manager is not running, as IBM's does (endmqlsr
stops the listeners of an inactive queue manager): its clients get MQRC_Q_MGR_NOT_AVAILABLE
(2059) meanwhile, and are served again once strmqm has restarted the queue manager. Found by
the chaos harness: after a queue manager's daemon was killed, the runmqlsr that outlived it
refused every client for good ("its channel authentication could not be checked (reason
2009)") until it was itself restarted."""

from __future__ import annotations

import os
import signal
import subprocess

import pytest

import mqpy
from mqpy import CMQC
from tests.support.daemon_pair import mqsc
from tests.support.installation import QM, Installation, chinit_command
from tests.support.site import ADMIT_OWNER, CHANNEL
from tests.support.waiting import wait_for

pytestmark = pytest.mark.timeout(300)


def _connect(port: int) -> int:
    """A client's MQCONN, put and MQDISC through the listener: 0, or the reason it failed."""
    try:
        qm = mqpy.connect(QM, CHANNEL, f"127.0.0.1({port})")
    except mqpy.MQMIError as e:
        return e.reason
    try:
        mqpy.Queue(qm, "Q1", CMQC.MQOO_OUTPUT).put(b"hello")
    finally:
        qm.disconnect()
    return 0


def test_a_listener_that_outlived_its_queue_manager_serves_clients_once_it_is_back(tmp_path):
    """Given QM1 started by strmqm and a runmqlsr serving its clients, when the daemon is
    killed (SIGKILL) and strmqm starts it again, twice, the listener running all along, then
    clients get 2059 while it is down and connect again once it is back, through the same
    listener."""
    inst = Installation(str(tmp_path))
    inst.create(queues=("Q1",))
    lsr = None
    try:
        daemon = inst.start()
        out = mqsc(inst, QM, f"DEFINE CHANNEL({CHANNEL}) CHLTYPE(SVRCONN)\n" + ADMIT_OWNER)
        assert out.returncode == 0, out.stdout
        lsr = subprocess.Popen(chinit_command(inst, "runmqlsr", "-m", QM, "-t", "tcp", "-i",
                                              "127.0.0.1", "-p", "0"),
                               env=inst.env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                               text=True)
        line = lsr.stdout.readline()
        assert "AMQ8021I" in line, line
        port = int(line.rsplit("port ", 1)[1].rstrip(").\n"))
        assert _connect(port) == 0

        for _ in range(2):  # (the second time, the listener's own connection is the broken one)
            os.kill(daemon, signal.SIGKILL)
            inst.pids.discard(daemon)
            inst.wait_ended()
            assert _connect(port) == CMQC.MQRC_Q_MGR_NOT_AVAILABLE
            assert _connect(port) == CMQC.MQRC_Q_MGR_NOT_AVAILABLE
            assert lsr.poll() is None, "runmqlsr ended with its queue manager"

            daemon = inst.start()
            wait_for(lambda: _connect(port) == 0, 30, "a client served again", interval=0.5)
            assert lsr.poll() is None
        lsr.terminate()
        assert "Traceback" not in lsr.communicate(timeout=30)[1]
    finally:
        if lsr is not None and lsr.poll() is None:
            lsr.kill()
            lsr.wait(10)
        inst.kill_all()
