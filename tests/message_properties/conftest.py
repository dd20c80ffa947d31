"""Message properties carried by MQPUT / MQGET in the three modes: the fixtures of tests.mqi,
the daemon's (``site``, once a module) with its MQSC run here and killed at the end."""

from collections.abc import Iterator

import pytest

from tests.mqi._modes import connect, embedded  # noqa: F401
from tests.support.fastpath import STANDARD
from tests.support.site import Site
from tests.support.site_here import here_started_site


@pytest.fixture(scope="module")
def site(tmp_path_factory) -> Iterator[Site]:
    """tests.mqi._modes's ``site``: a daemon started by strmqm with its channel initiator
    relaying client calls (MQIBindType=STANDARD), and QUEUE."""
    yield from here_started_site(str(tmp_path_factory.mktemp("modes")), STANDARD)
