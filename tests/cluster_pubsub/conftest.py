"""A cluster of real queue managers for clustered topics, built once per module: QM1 and
QM2 full repositories of cluster INV, QM3 a partial repository (CLUSSDR to QM1); QM4 is
created but joins only when a test makes it (``join``). Each is started by strmqm and
defined with runmqsc, as in tests/cluster (whose ``Cluster`` harness this reuses)."""

from __future__ import annotations

import pytest

from tests.cluster.conftest import Cluster, running_cluster

SENDER_TO = {"QM1": "QM2", "QM2": "QM1", "QM3": "QM1", "QM4": "QM2"}


class PubSubCluster(Cluster):
    def join(self, name: str) -> None:
        """Start ``name`` and make it a member, its CLUSSDR to SENDER_TO's full
        repository."""
        self.join_cluster(name, SENDER_TO[name])


@pytest.fixture(scope="module")
def pubsub_cluster(tmp_path_factory):
    with running_cluster(str(tmp_path_factory.mktemp("psclus")), PubSubCluster,
                         ("QM1", "QM2", "QM3"), PubSubCluster.join) as net:
        yield net
