"""Who may put on the queues the channel initiator's publish/subscribe task reads. As on
IBM MQ, SYSTEM.INTER.QMGR.CONTROL, .PUBS and .FANREQ are the queue manager's: an
application's user needs +put on them granted (setmqaut, SET AUTHREC); the defaults give
it none, so an ordinary application cannot make proxy subscriptions, publish with the
context the task sets, or ask for fan-outs."""

from __future__ import annotations

import pytest

import mqpy
from mqpy import CMQC
from mqpy.security.policy import set_authority
from mqpy.structs.tables import OD
from tests.security.conftest import SecuredQMgr
from tests.support.embedded import ended_at_teardown

pytestmark = pytest.mark.timeout(60)

_QUEUES = ("SYSTEM.INTER.QMGR.CONTROL", "SYSTEM.INTER.QMGR.PUBS", "SYSTEM.INTER.QMGR.FANREQ")


@pytest.fixture(scope="module")
def dave(tmp_path_factory):
    """A secured queue manager and dave's connection: +connect on it, nothing else."""
    for secured in ended_at_teardown(SecuredQMgr(str(tmp_path_factory.mktemp("psauth")))):
        secured.users.add("dave", "dave-pw", ["apps"])
        set_authority(secured.eng, "qmgr", secured.eng.name, ["+connect"], principal="dave")
        secured.conn = secured.eng.connect("app", user="dave", password="dave-pw")
        yield secured


def _reason(conn, name: str, options: int) -> int:
    try:
        conn.close(conn.open(OD(ObjectName=name.encode()), options), 0)
    except mqpy.MQMIError as exc:
        return exc.reason
    return CMQC.MQRC_NONE


@pytest.mark.parametrize("queue", _QUEUES)
def test_an_ordinary_application_may_not_put_on_the_inter_qmgr_queues(dave, queue):
    """Given dave, who may connect and nothing more, when he opens a SYSTEM.INTER.QMGR
    queue for output (or MQPUT1s to it), then MQRC_NOT_AUTHORIZED (2035); once +put is
    granted on it, the open succeeds (the refusal is the authority's, not the queue's)."""
    assert _reason(dave.conn, queue, CMQC.MQOO_OUTPUT) == CMQC.MQRC_NOT_AUTHORIZED
    with pytest.raises(mqpy.MQMIError) as refused:
        dave.conn.put1(OD(ObjectName=queue.encode()), mqpy.MD(), mqpy.PMO(), b"{}")
    assert refused.value.reason == CMQC.MQRC_NOT_AUTHORIZED
    set_authority(dave.eng, "queue", queue, ["+put"], principal="dave")
    try:
        assert _reason(dave.conn, queue, CMQC.MQOO_OUTPUT) == CMQC.MQRC_NONE
    finally:
        set_authority(dave.eng, "queue", queue, ["-put"], principal="dave")
