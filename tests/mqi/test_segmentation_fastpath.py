"""The segmentation tests of test_segmentation again against a queue manager with qm.ini
``Channels: MQIBindType=FASTPATH``, where the daemon serves its clients itself
(``mqpy_chinit.clienthost``) and the client keeps requests it sends again and again: a call
with segment options, or a segment, gets the same answers there, its MQMD's Offset and its
MQGMO's SegmentStatus and Segmentation included."""

from __future__ import annotations

import pytest

from tests.support.fastpath import FASTPATH
from tests.support.site_here import started_site

from .test_segmentation import (  # noqa: F401 - collected here too
    SMALL,
    qm,
    test_a_plain_message_got_with_an_mqgmo_reused_after_a_segment_is_not_a_segment,
    test_complete_msg_reassembles_a_logical_message,
    test_logical_order_goes_through_a_groups_segmented_message,
    test_segments_put_in_logical_order_get_offsets_and_one_group_id,
    test_the_queue_manager_segments_a_message_too_big_for_its_queue,
)

pytestmark = [pytest.mark.timeout(180), pytest.mark.system]


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    for s in started_site(str(tmp_path_factory.mktemp("fastpath-segments")), FASTPATH):
        s.mqsc_here(f"DEFINE QLOCAL({SMALL}) MAXMSGL(100)\n")
        yield s


@pytest.fixture
def connect(site):
    """Client connections only: what FASTPATH changes."""
    return site.client
