"""DISPLAY CHSTATUS / LSSTATUS (and PCF Inquire Channel Status / Inquire Listener Status) by
a user outside mqm: as IBM's command server does, a generic inquiry answers only the rows of
channels and listeners the user has dsp authority on; a specific one the user may not
display is refused (2035, AMQ8135E in an escape answer, AMQ8077W in the error log).

The status rows come from a channel initiator; here a small one in the test serves the
channel-command protocol on SYSTEM.CHANNEL.INITQ (mqpy.channelcommands) with fixed rows, so
what is checked is only what the command server lets through.
"""

from __future__ import annotations

import json
import threading

import pytest

from mqpy import CMQC, CMQCFC, pcf
from mqpy.channelcommands import COMMAND_FORMAT, INITQ
from mqpy.security.policy import set_authority
from mqpy.structs.tables import GMO, MD, OD, PMO

from .requester import reason

pytestmark = pytest.mark.timeout(60)

CHANNELS = [{"CHANNEL": name, "CHLTYPE": chltype, "CONNAME": "127.0.0.1", "CURRENT": None,
             "RQMNAME": "", "STATUS": "RUNNING", "SUBSTATE": "RECEIVE", "XMITQ": "",
             "MSGS": 3}
            for name, chltype in (("PAY.SVRCONN", "SVRCONN"), ("PAY.RCVR", "RCVR"),
                                  ("OPS.SVRCONN", "SVRCONN"))]
LISTENERS = [{"LISTENER": name, "STATUS": "RUNNING", "PORT": port, "TRPTYPE": "TCP"}
             for name, port in (("PAY.LSTR", 1414), ("OPS.LSTR", 1415))]


def _matches(pattern: str, name: str) -> bool:
    return name.startswith(pattern[:-1]) if pattern.endswith("*") else name == pattern


class ChannelInitiator:
    """Answers STATUS and LSSTATUS channel commands with CHANNELS / LISTENERS, as the
    channel initiator's command loop does (mqpy_chinit.chinit)."""

    def __init__(self, eng) -> None:
        self.conn = eng.connect("chinit")
        self.initq = self.conn.open(OD(ObjectName=INITQ.encode()), CMQC.MQOO_INPUT_SHARED)
        self.stopping = threading.Event()
        self.thread = threading.Thread(target=self._serve, daemon=True)
        self.thread.start()

    def _serve(self) -> None:
        while not self.stopping.is_set():
            md = MD()
            try:
                data = self.conn.get(self.initq, md, GMO(Options=CMQC.MQGMO_WAIT,
                                                         WaitInterval=200), None)
            except Exception:  # noqa: BLE001 - 2033 between requests, or the end
                continue
            if md.Format != COMMAND_FORMAT:
                continue
            req = json.loads(data)
            rows = {"STATUS": CHANNELS, "LSSTATUS": LISTENERS}.get(req["command"], [])
            key = "CHANNEL" if req["command"] == "STATUS" else "LISTENER"
            reply = {"ok": True, "status": [r for r in rows
                                            if _matches(req.get("channel", "*"), r[key])]}
            self.conn.put1(OD(ObjectName=md.ReplyToQ), MD(CorrelId=md.MsgId,
                                                         Format=COMMAND_FORMAT),
                           PMO(), json.dumps(reply).encode())

    def stop(self) -> None:
        self.stopping.set()
        self.thread.join(5)


@pytest.fixture
def site(carol):
    """carol (outside mqm) with dsp on the PAY.* channels and listeners only; the channel
    and listener definitions exist; a channel initiator answers with three channels'
    and two listeners' status."""
    eng = carol.eng
    for row in CHANNELS:
        eng.define("CHANNEL", row["CHANNEL"], {"CHLTYPE": row["CHLTYPE"]})
    for row in LISTENERS:
        eng.define("LISTENER", row["LISTENER"], {"TRPTYPE": "TCP", "PORT": row["PORT"]})
    set_authority(eng, "channel", "PAY.*", ["+dsp"], principal="carol")
    set_authority(eng, "listener", "PAY.*", ["+dsp"], principal="carol")
    chinit = ChannelInitiator(eng)
    try:
        yield carol
    finally:
        chinit.stop()


def _chl(name: str) -> pcf.Parameter:
    return pcf.CFST(CMQCFC.MQCACH_CHANNEL_NAME, name.encode())


def _names(replies, parameter) -> set[str]:
    return {r.get(parameter).decode().strip() for r in replies
            if r.header.CompCode == CMQC.MQCC_OK and r.get(parameter) is not None}


def test_generic_chstatus_shows_only_displayable_channels(site):
    """Given channel status rows for PAY.SVRCONN, PAY.RCVR and OPS.SVRCONN and carol with dsp
    on PAY.* only, when she sends DISPLAY CHSTATUS(*) (escape) and Inquire Channel Status
    '*' (PCF), then she is answered (not refused) with the two PAY channels only."""
    text = site.requester.mqsc_text("DISPLAY CHSTATUS(*)")
    assert "CHANNEL(PAY.SVRCONN)" in text and "CHANNEL(PAY.RCVR)" in text, text
    assert "OPS.SVRCONN" not in text and "AMQ8135E" not in text
    replies = site.requester.command(CMQCFC.MQCMD_INQUIRE_CHANNEL_STATUS, [_chl("*")])
    assert all(r.header.CompCode == CMQC.MQCC_OK for r in replies)
    assert _names(replies, CMQCFC.MQCACH_CHANNEL_NAME) == {"PAY.SVRCONN", "PAY.RCVR"}


def test_generic_chstatus_with_nothing_displayable_is_not_found(site):
    """Given carol may display no OPS channel, when she asks for CHSTATUS(OPS.*), then the
    answer is "no status" (AMQ8420I, MQRCCF_CHL_STATUS_NOT_FOUND), as for a channel that
    has none: the rows she may not see are not there for her."""
    text = site.requester.mqsc_text("DISPLAY CHSTATUS(OPS.*)")
    assert "AMQ8420I" in text and "OPS.SVRCONN" not in text, text
    replies = site.requester.command(CMQCFC.MQCMD_INQUIRE_CHANNEL_STATUS, [_chl("OPS.*")])
    assert reason(replies) == CMQCFC.MQRCCF_CHL_STATUS_NOT_FOUND


def test_specific_chstatus_needs_dsp_on_the_channel(site):
    """Given carol without dsp on OPS.SVRCONN, when she asks for its status by name, then the
    escape answer is AMQ8135E and the PCF one 2035, with AMQ8077W in the error log; her
    own PAY.SVRCONN is shown."""
    assert site.requester.mqsc_text("DISPLAY CHSTATUS(OPS.SVRCONN)") == \
        "AMQ8135E: Not authorized."
    replies = site.requester.command(CMQCFC.MQCMD_INQUIRE_CHANNEL_STATUS,
                                     [_chl("OPS.SVRCONN")])
    assert reason(replies) == CMQC.MQRC_NOT_AUTHORIZED
    assert "Entity 'carol' has insufficient authority to access object 'OPS.SVRCONN'" in \
        " ".join(site.errors().split())
    assert "CHANNEL(PAY.SVRCONN)" in site.requester.mqsc_text("DISPLAY CHSTATUS(PAY.SVRCONN)")


def test_generic_lsstatus_shows_only_displayable_listeners(site):
    """Given two running listeners and carol with dsp on PAY.* listeners, when she sends
    DISPLAY LSSTATUS(*), then PAY.LSTR is shown and OPS.LSTR is not; LSSTATUS(OPS.LSTR)
    by name is refused with AMQ8135E."""
    text = site.requester.mqsc_text("DISPLAY LSSTATUS(*)")
    assert "LISTENER(PAY.LSTR)" in text and "OPS.LSTR" not in text, text
    assert site.requester.mqsc_text("DISPLAY LSSTATUS(OPS.LSTR)") == \
        "AMQ8135E: Not authorized."


def test_generic_inquire_listener_status_shows_only_displayable_listeners(site):
    """PCF Inquire Listener Status '*' answers one response per running listener carol may
    display (name, status, port, transport); a listener she may not display, by name, is
    refused with 2035."""
    name = CMQCFC.MQCACH_LISTENER_NAME
    replies = site.requester.command(CMQCFC.MQCMD_INQUIRE_LISTENER_STATUS,
                                     [pcf.CFST(name, b"*")])
    assert all(r.header.CompCode == CMQC.MQCC_OK for r in replies)
    assert _names(replies, name) == {"PAY.LSTR"}
    (row,) = replies
    assert row.get(CMQCFC.MQIACH_LISTENER_STATUS) == 2  # MQSVC_STATUS_RUNNING
    assert row.get(CMQCFC.MQIACH_PORT) == 1414
    assert row.get(CMQCFC.MQIACH_XMIT_PROTOCOL_TYPE) == CMQC.MQXPT_TCP
    refused = site.requester.command(CMQCFC.MQCMD_INQUIRE_LISTENER_STATUS,
                                     [pcf.CFST(name, b"OPS.LSTR")])
    assert reason(refused) == CMQC.MQRC_NOT_AUTHORIZED


def test_owner_sees_every_status_row(site):
    """The owner (in mqm) is not filtered: every channel's status is shown."""
    from .requester import Requester

    owner = next(u for u, e in site.users.load().items() if "mqm" in e.groups)
    admin = Requester(site.eng.connect("admin", user=owner))
    replies = admin.command(CMQCFC.MQCMD_INQUIRE_CHANNEL_STATUS, [_chl("*")])
    assert _names(replies, CMQCFC.MQCACH_CHANNEL_NAME) == {r["CHANNEL"] for r in CHANNELS}
