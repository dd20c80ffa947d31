"""A start naming a channel the queue manager does not have is answered "not found", as
IBM's is: a client's MQCONN fails MQRC_UNKNOWN_CHANNEL_NAME (2540), a sender ends with
AMQ9520E "Channel not defined remotely", and the queue manager logs AMQ9519E "Channel not
found" -- not a CHLAUTH block (AMQ9776E, 2035) of a channel that does not exist. The queue
manager is started by strmqm with its default CHLAUTH records (the tests run as its owner,
whom the back-stop rule blocks on any channel that exists)."""

from __future__ import annotations

import pytest
import trio

import mqpy
from mqpy import CMQC
from tests.channels.pairs import started
from tests.support.site_here import HereSite
from tests.support.waiting import wait_until

pytestmark = pytest.mark.timeout(180)


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    s = HereSite(str(tmp_path_factory.mktemp("unknown") / "data"))
    try:
        s.start()
        s.mqsc("DELETE CHANNEL(SYSTEM.ADMIN.SVRCONN)\n", ok=False)
        yield s
    finally:
        s.stop()


@pytest.mark.parametrize("channel", ["NO.SUCH.CHL", "SYSTEM.ADMIN.SVRCONN"])
def test_a_client_naming_an_unknown_channel_gets_2540_and_amq9519(site, channel):
    """Given a channel name the queue manager does not have (SYSTEM.ADMIN.SVRCONN not
    defined either), when a client connects with it, then MQCONN fails 2540 and the log
    says AMQ9519E for that name, not AMQ9776E."""
    site.mark()
    with pytest.raises(mqpy.MQMIError) as err:
        mqpy.connect("QMS", channel, site.conn_info)
    assert (err.value.comp, err.value.reason) == (CMQC.MQCC_FAILED,
                                                  CMQC.MQRC_UNKNOWN_CHANNEL_NAME)
    log = site.wait_for_log(f"Channel '{channel}' not found.")
    assert "AMQ9519E" in log and "127.0.0.1" in log
    assert "AMQ9776E" not in log and "AMQ9777E" not in log


async def test_a_sender_calling_an_unknown_receiver_is_told_not_defined_remotely(
        site, two_qmgrs):
    """Given a sender whose receiver the queue manager does not define (CHAD disabled),
    when it starts, then it ends with AMQ9520E (STATUS NO_CHANNEL) and the receiving side
    logs AMQ9519E, not a CHLAUTH block."""
    qm1, _ = two_qmgrs
    qm1.define("QLOCAL", "QMS", USAGE="XMITQ")
    qm1.define("CHANNEL", "QM1.TO.NOWHERE", CHLTYPE="SDR", CONNAME=site.conn_info,
               XMITQ="QMS", SHORTRTY=0, LONGRTY=0)
    site.mark()
    async with trio.open_nursery() as nursery:
        await started(nursery, qm1, "QM1.TO.NOWHERE")
        await wait_until(lambda: any(m == "AMQ9520E" for m, _ in qm1.log), 30)
        nursery.cancel_scope.cancel()
    log = site.wait_for_log("Channel 'QM1.TO.NOWHERE' not found.")
    assert "AMQ9519E" in log
    assert "AMQ9776E" not in log and "AMQ9777E" not in log
