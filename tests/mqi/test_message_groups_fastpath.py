"""The message group tests of test_message_groups again against a queue manager with qm.ini
``Channels: MQIBindType=FASTPATH``, where the daemon serves its clients itself
(``mqpy_chinit.clienthost``) and the client keeps requests it sends again and again: a call
with group options or a message in a group gets the same answers there."""

from __future__ import annotations

import pytest

from tests.support.fastpath import FASTPATH
from tests.support.site_here import here_started_site

from .test_message_groups import (  # noqa: F401 - collected here too
    q,
    test_a_group_got_half_in_syncpoint_in_logical_order_is_inconsistent_uow,
    test_a_group_id_of_none_without_logical_order_is_made_new,
    test_a_group_of_mixed_persistence_is_inconsistent_persistence,
    test_a_group_put_in_logical_order_gets_one_new_group_id_and_numbered_messages,
    test_a_group_put_in_syncpoint_and_backed_out_leaves_nothing,
    test_a_message_in_no_group_has_group_status_not_in_group,
    test_a_put_not_in_logical_order_after_an_unfinished_group_warns_incomplete_group,
    test_all_msgs_available_takes_a_group_only_once_its_last_message_is_there,
    test_browse_in_logical_order_follows_the_group,
    test_get_selects_by_group_id_and_msg_seq_number,
    test_logical_order_returns_each_group_whole_in_sequence,
    test_logical_order_waits_for_the_next_message_of_its_group,
    test_msg_flags_ibm_does_not_define_are_msg_flags_error,
)

pytestmark = [pytest.mark.timeout(180), pytest.mark.system]


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    yield from here_started_site(str(tmp_path_factory.mktemp("fastpath-groups")), FASTPATH)


@pytest.fixture
def connect(site):
    """Client connections only: what FASTPATH changes."""
    return site.client
