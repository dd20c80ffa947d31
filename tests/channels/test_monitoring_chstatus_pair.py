"""What DISPLAY CHSTATUS and PCF's Inquire Channel Status show of a sender / receiver pair
between two queue managers: the fields IBM's "Inquire Channel Status (Response)" lists for a
current instance that monitoring programs read (MCAJobName, LocalAddress, RemoteProduct,
RemoteVersion, MCAStatus, CurrentMsgs), each end showing what its partner announced in its
initial data. A mqpy MCA announces the ProductId ``MQPY`` and the version mqpy reports as its
MQCA_VERSION (where IBM's queue managers announce ``MQMM`` and theirs)."""

from __future__ import annotations

import re

import trio

import mqpy
from mqpy import CMQC, CMQCFC, CMQXC, cmdserver
from mqpy.engine.mqinq import version_of
from tests.support.channel_pair import CHANNEL, chstatus, define_pair, finish, mqsc, start_chinit
from tests.support.qmgr import QMgr
from tests.support.waiting import wait_until


def _pcf_status(qm: QMgr) -> dict:
    """Inquire Channel Status of the pair's channel, sent by pymqi's PCFExecute over a
    bindings connection to ``qm`` (its command server started for it)."""
    cmdserver.start_command_server(qm.name, qm.root)
    conn = mqpy.QueueManager(None)
    conn.connect(qm.name, data_path=qm.root)
    try:
        pcf = mqpy.PCFExecute(conn)
        try:
            (status,) = pcf.MQCMD_INQUIRE_CHANNEL_STATUS({CMQCFC.MQCACH_CHANNEL_NAME: CHANNEL})
        finally:
            pcf.disconnect()
    finally:
        conn.disconnect()
        cmdserver.stop_command_server(qm.name, qm.root)
    return status


def _shown(lines: list[str]) -> dict[str, str]:
    """DISPLAY CHSTATUS's KEY(value) pairs, LOCLADDR's ``host(port)`` whole."""
    shown = chstatus(lines)
    found = re.search(r"LOCLADDR\(([^()]*(?:\(\d+\))?)\)", " ".join(lines))
    shown["LOCLADDR"] = found.group(1).strip() if found else ""
    return shown


def _text(value: bytes) -> str:
    return value.decode("utf-8").strip()


async def test_each_end_shows_its_partner_s_product_and_its_own_address(qm1, qm2):
    """Given SDR QM1.TO.QM2 running to RCVR QM1.TO.QM2 at a listening QM2 with 3 messages
    moved, when DISPLAY CHSTATUS ALL and Inquire Channel Status are issued at both ends,
    then each end shows RPRODUCT(MQPY) and RVERSION the VRMF mqpy reports (RemoteProduct,
    RemoteVersion), JOBNAME 16 hex digits, MCASTAT(RUNNING), CURMSGS(0) (no batch in
    progress) and SECPROT(NONE) (SecurityProtocol MQSECPROT_NONE: no TLS); the receiver's LOCLADDR is the listener's address and port, the sender's
    its own end of the same connection (127.0.0.1 and a port), as PCF's LocalAddress."""
    async with trio.open_nursery() as nursery:
        r2 = await start_chinit(nursery, qm2, listen=True)
        define_pair(qm1, qm2, r2.port, HBINT=0)
        for i in range(3):
            qm1.put("TARGET", b"m%d" % i, qmgr="QM2")
        r1 = await start_chinit(nursery, qm1)
        r1.chinit.start_channel(CHANNEL)
        await wait_until(lambda: r1.chinit.status_of(CHANNEL).last_seqno == 3)
        sdr = _shown((await mqsc(qm1, f"DISPLAY CHSTATUS({CHANNEL}) ALL")).lines)
        rcv = _shown((await mqsc(qm2, f"DISPLAY CHSTATUS({CHANNEL}) ALL")).lines)
        sdr_pcf = await trio.to_thread.run_sync(_pcf_status, qm1)
        rcv_pcf = await trio.to_thread.run_sync(_pcf_status, qm2)
        finish(nursery)
    version = version_of(CMQC.MQCMDL_CURRENT_LEVEL)
    for end, pcf_end in ((sdr, sdr_pcf), (rcv, rcv_pcf)):
        assert (end["RPRODUCT"], end["RVERSION"]) == ("MQPY", version), end
        assert re.fullmatch(r"[0-9A-F]{16}", end["JOBNAME"])
        assert (end["MCASTAT"], end["CURMSGS"], end["SECPROT"]) == ("RUNNING", "0", "NONE")
        assert pcf_end[CMQCFC.MQIACH_SECURITY_PROTOCOL] == CMQXC.MQSECPROT_NONE
        assert _text(pcf_end[CMQCFC.MQCACH_REMOTE_PRODUCT]) == "MQPY"
        assert _text(pcf_end[CMQCFC.MQCACH_REMOTE_VERSION]) == version
        assert _text(pcf_end[CMQCFC.MQCACH_MCA_JOB_NAME]) == end["JOBNAME"]
        assert _text(pcf_end[CMQCFC.MQCACH_LOCAL_ADDRESS]) == end["LOCLADDR"]
        assert pcf_end[CMQCFC.MQIACH_MCA_STATUS] == CMQCFC.MQMCAS_RUNNING
        assert pcf_end[CMQCFC.MQIACH_CURRENT_MSGS] == 0
    assert rcv["LOCLADDR"] == f"127.0.0.1({r2.port})"
    assert re.fullmatch(r"127\.0\.0\.1\(\d+\)", sdr["LOCLADDR"])
    assert sdr["LOCLADDR"] != rcv["LOCLADDR"] and sdr["JOBNAME"] != rcv["JOBNAME"]
