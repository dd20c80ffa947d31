"""An idle cluster member's publish/subscribe tasks sleep: the fan-out requests', control and
publications tasks of the channel initiator wait in MQGET until a request or a publication
comes (a cancelled task wakes its own get), not a fifth of a second at a time; the fan-out
waits for the repository to change or a request.

Wakes are counted, not timed (``test_idle_wakeups``): the voluntary context switches of the
worker threads that wait in those gets."""

from __future__ import annotations

from tests.daemon.test_idle_cluster import cluster_member, idle_window
from tests.daemon.test_idle_wakeups import _wakes
from tests.support.installation import Installation

#: what the three waiting gets may take in the 12 s window together (one that waited 200 ms
#: at a time took 120)
SERVE_WAKES = 9


def test_an_idle_cluster_members_pubsub_gets_wait_for_their_messages(install: Installation):
    """Given a queue manager that is the full repository of its own cluster, started by
    strmqm, when it is left idle for 12 s, then the worker threads in which its cluster
    publish/subscribe tasks wait for SYSTEM.INTER.QMGR.FANREQ, SYSTEM.INTER.QMGR.CONTROL and
    SYSTEM.INTER.QMGR.PUBS (three, named for ``_serve``) wake fewer than 9 times together
    (gets that waited 200 ms at a time woke 120 times)."""
    _daemon, chinit = cluster_member(install)
    serving = [t for t in _wakes(chinit) if t.split(" ", 1)[1].startswith("_serve")]
    assert len(serving) == 3, sorted(_wakes(chinit))
    (_rate, threads), = idle_window((chinit,))
    woke = {t: n for t, n in threads.items() if t in serving}
    assert sum(woke.values()) < SERVE_WAKES, woke
