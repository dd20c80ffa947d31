"""A receiving queue manager reads the destination from the transmission header and, where a
queue-manager alias has the header's queue-manager name, puts the message where the alias
says: on itself, or on towards another queue manager."""

from __future__ import annotations

import trio

from mqpy import XQH
from tests.support.channel_pair import CHANNEL, browse, define_pair, finish, start_chinit
from tests.support.waiting import wait_until

XQH_LEN = 428


async def test_given_an_alias_named_like_the_header_qm_then_its_rqmname_is_substituted(
        qm1, qm2):
    """Given QM2 holds QREMOTE(OLDNAME) RNAME(' ') RQMNAME(QM2) and QREMOTE(VIA) RNAME(' ')
    RQMNAME(QMC) XMITQ(QMC), when messages for TARGET@OLDNAME and X@VIA arrive over the
    channel, then the first is on QM2's TARGET and the second on xmitq QMC with its header
    naming X@QMC.

    spec: aliases-channels-storage 1 item 3"""
    async with trio.open_nursery() as nursery:
        r2 = await start_chinit(nursery, qm2, listen=True)
        define_pair(qm1, qm2, r2.port, HBINT=0)
        for alias in ("OLDNAME", "VIA"):
            qm1.define("QREMOTE", alias, RNAME="", RQMNAME=alias, XMITQ="QM2")
        qm2.define("QREMOTE", "OLDNAME", RNAME="", RQMNAME="QM2")
        qm2.define("QLOCAL", "QMC", USAGE="XMITQ")
        qm2.define("QREMOTE", "VIA", RNAME="", RQMNAME="QMC", XMITQ="QMC")
        qm1.put("TARGET", b"for the old name", qmgr="OLDNAME")
        qm1.put("X", b"onwards", qmgr="VIA")
        r1 = await start_chinit(nursery, qm1)
        r1.chinit.start_channel(CHANNEL)
        await wait_until(lambda: qm2.committed("TARGET") == 1 and qm2.committed("QMC") == 1)
        finish(nursery)
    assert qm2.drain("TARGET") == [b"for the old name"]
    (raw,) = browse(qm2, "QMC")
    xqh = XQH().unpack(raw[:XQH_LEN])
    assert (xqh.RemoteQName.rstrip(b" \x00"), xqh.RemoteQMgrName.rstrip(b" \x00")) == (
        b"X", b"QMC")
    assert raw[XQH_LEN:] == b"onwards"
