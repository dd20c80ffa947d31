"""A cluster of real queue managers for clustered topics, built once per module: QM1 and
QM2 full repositories of cluster INV, QM3 a partial repository (CLUSSDR to QM1); QM4 is
created but joins only when a test makes it (``join``). Each is started by strmqm and
defined with runmqsc, as in tests/cluster (whose ``Cluster`` harness this reuses)."""

from __future__ import annotations

import concurrent.futures
import os
import signal

import pytest

from tests.cluster.conftest import ADMIT_CHANNELS, Cluster
from tests.support.installation import Installation

SENDER_TO = {"QM1": "QM2", "QM2": "QM1", "QM3": "QM1", "QM4": "QM2"}


class PubSubCluster(Cluster):
    def join(self, name: str) -> None:
        """Start ``name``, give it a listener, a CLUSRCVR and a CLUSSDR to its full
        repository (SENDER_TO)."""
        self.start(name)
        partner = SENDER_TO[name]
        out = self.mqsc(name, f"""
            {ADMIT_CHANNELS}
            DEFINE LISTENER(L) TRPTYPE(TCP) PORT({self.ports[name]}) CONTROL(QMGR)
            START LISTENER(L)
            {"ALTER QMGR REPOS(INV)" if name in ("QM1", "QM2") else ""}
            DEFINE CHANNEL(TO.{name}) CHLTYPE(CLUSRCVR) TRPTYPE(TCP) SHORTTMR(1) +
                   SHORTRTY(900) CONNAME({self.conname(name)}) CLUSTER(INV)
            DEFINE CHANNEL(TO.{partner}) CHLTYPE(CLUSSDR) TRPTYPE(TCP) SHORTTMR(1) +
                   SHORTRTY(900) CONNAME({self.conname(partner)}) CLUSTER(INV)
        """)
        assert out.returncode == 0, out.stdout


@pytest.fixture(scope="module")
def pubsub_cluster(tmp_path_factory):
    site = Installation(str(tmp_path_factory.mktemp("psclus")))
    site.env.pop("MQPY_NO_CHINIT", None)
    net = PubSubCluster(site)
    try:
        for name in ("QM1", "QM2", "QM3", "QM4"):  # one at a time: crtmqm rewrites mqs.ini
            assert site.run("crtmqm", "-u", "SYSTEM.DEAD.LETTER.QUEUE", name).returncode == 0
        with concurrent.futures.ThreadPoolExecutor(3) as pool:
            for done in [pool.submit(net.join, name) for name in ("QM1", "QM2", "QM3")]:
                done.result()
        yield net
    finally:
        site.kill_all()
        for name in net.ports:
            try:
                with open(os.path.join(site.qmdir(name), "chinit.pid")) as f:
                    os.kill(int(f.read().split()[0]), signal.SIGKILL)
            except (OSError, ValueError, IndexError):
                pass
