"""The client-side answers of test_bad_structures, test_descriptor_checks,
test_headers_in_message_data and test_strings_that_do_not_fit, again against a queue manager
with qm.ini ``Channels: MQIBindType=FASTPATH``, where the daemon serves its clients itself
(``mqpy_chinit.clienthost``, the SVRCONN calling the engine in process): the same reason codes,
the connection and its unit of work going on."""

from __future__ import annotations

import pytest

from tests.support.fastpath import FASTPATH, _holders, daemon_alone_holds
from tests.support.site_here import here_started_site

from .test_bad_structures import (  # noqa: F401 - collected here too
    test_a_bad_structure_fails_only_its_call,
    test_bad_structure_bytes_on_a_client_channel,
)
from .test_descriptor_checks import test_a_bad_value_fails_only_its_call  # noqa: F401
from .test_headers_in_message_data import test_a_bad_header_fails_only_its_call  # noqa: F401
from .test_strings_that_do_not_fit import (  # noqa: F401
    test_text_that_does_not_fit_fails_the_call,
)

pytestmark = pytest.mark.timeout(180)


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    yield from here_started_site(str(tmp_path_factory.mktemp("fastpath-fail-alone")), FASTPATH)


@pytest.fixture
def connect(site):
    """Client connections only: what FASTPATH changes."""
    return site.client


def test_the_client_is_served_by_the_daemon(site):
    """Given this module's queue manager, when a client connects, then its socket is held
    by the daemon: the tests above ran against FASTPATH."""

    qm = site.client()
    try:
        assert daemon_alone_holds(site), _holders(site)
    finally:
        qm.disconnect()
