"""The long chaos run (make soak): 100 random faults; with MQPY_CHAOS_SUSTAIN_MINUTES=30,
the sustained run, the load held 30 minutes with the faults spread over it and each
process's resident memory and p99 latency checked for growth after warm-up. See
docs/chaos.md."""

from __future__ import annotations

import os

import pytest

from .conftest import chaos_run, verdict, wants_hosts

pytestmark = [pytest.mark.soak, pytest.mark.system, pytest.mark.timeout(4 * 3600)]


def test_a_hundred_random_faults_lose_duplicate_and_expose_nothing(tmp_path, file_system):
    """Given the network under load, when 100 random faults strike (over 30 minutes in
    the sustained run), then nothing is lost, duplicated or seen uncommitted, order is kept,
    the network converges within 60 s of the last fault, and in the sustained run no
    process's memory grows more than 10% after warm-up nor p99 latency doubles. As root, the
queue managers' channel listeners are in network namespaces of their own and traffic
control on their veth pairs is among the faults (MQPY_CHAOS_NETNS=0: not)."""
    report = chaos_run(100, str(tmp_path / "run"), file_system, wants_hosts(True))
    assert report["ok"], verdict(report)
    assert not report["app_errors"], verdict(report)
    if os.environ.get("MQPY_CHAOS_SUSTAIN_MINUTES"):
        assert not report["growth"], report["growth"]
