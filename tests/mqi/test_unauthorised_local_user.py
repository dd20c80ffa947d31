"""A local user the queue manager does not admit -- in no group it knows, so without even
access to its bindings socket -- is refused at MQCONN with MQRC_NOT_AUTHORIZED (2035), as
IBM refuses a user without connect authority, not MQRC_Q_MGR_NOT_AVAILABLE (2059)."""

from __future__ import annotations

import os

import pytest

import mqpy
from mqpy import bindings, client  # noqa: F401 - imported now: the child may not read them
from tests.support.site import as_nobody

pytestmark = [pytest.mark.timeout(120),
              pytest.mark.skipif(os.geteuid() != 0, reason="connecting as another user "
                                 "needs root")]

def _reason_as_nobody(qmgr: str, root: str) -> str:
    """MQCONN to ``qmgr`` as user nobody: its reason code ("0" when it connected)."""
    def connect() -> str:
        try:
            mqpy.QueueManager(None).connect(qmgr, data_path=root)
        except mqpy.MQMIError as e:
            return str(e.reason)
        return "0"

    return as_nobody(connect)


def test_a_user_outside_every_group_is_2035(site):
    """Given a daemon started by strmqm, when user nobody (in none of its groups) connects
    in bindings mode, then MQCONN fails MQRC_NOT_AUTHORIZED (2035)."""
    assert _reason_as_nobody("QMS", site.inst.root) == str(mqpy.CMQC.MQRC_NOT_AUTHORIZED)
