"""Automatic client reconnection's rules (``mqpy.reconnect``), alone: no socket, no clock.

Given the MQCNO's options, mqclient.ini's CHANNELS DefRecon and the channel's DEFRECON, when
the connection is made, then it reconnects (or not) as IBM's client does; given a broken
connection, the waits between attempts follow ReconDelay and end at MQReconnectTimeout; given
the call in flight when it broke, its answer is IBM's (MQRC_CALL_INTERRUPTED, MQRC_BACKED_OUT,
or made again). Also the client configuration file and the channel definitions that carry
these values."""

from __future__ import annotations

import json

import pytest

import mqpy
from mqpy import CMQC, CMQXC, config
from mqpy.clientchannel import ChannelDefinition, load_ccdt
from mqpy.reconnect import (
    DEFAULT_RECON_DELAY,
    Mode,
    Outcome,
    Schedule,
    after_backout,
    delays,
    in_flight_outcome,
    incompatible,
    mode_of_defrecon,
    parse_recon_delay,
    resolve_mode,
)

R, RQ, RD = CMQC.MQCNO_RECONNECT, CMQC.MQCNO_RECONNECT_Q_MGR, CMQC.MQCNO_RECONNECT_DISABLED


@pytest.mark.parametrize(("options", "ini", "channel", "mode"), [
    (CMQC.MQCNO_RECONNECT_AS_DEF, None, None, Mode.NO),  # MQCONN of an old program
    (R, None, None, Mode.YES),
    (RQ, None, None, Mode.QMGR),
    (RD, Mode.YES, Mode.YES, Mode.DISABLED),
    (0, None, Mode.YES, Mode.YES),  # the channel's DEFRECON for AS_DEF
    (0, Mode.QMGR, Mode.YES, Mode.QMGR),  # mqclient.ini's DefRecon before the channel's
    (0, Mode.NO, Mode.YES, Mode.NO),
    (R, Mode.DISABLED, None, Mode.DISABLED),  # disabled whatever the program asks
    (R, None, Mode.DISABLED, Mode.DISABLED),
    (R, Mode.NO, None, Mode.YES),  # a program's option before a default of NO
])
def test_the_reconnect_option_resolves_as_ibm_says(options, ini, channel, mode):
    assert resolve_mode(options, ini, channel) is mode
    assert mode.reconnects == (mode in (Mode.YES, Mode.QMGR))


def test_defrecon_values_read_from_the_ini_the_mqcd_and_mqsc():
    assert mode_of_defrecon("yes") is Mode.YES
    assert mode_of_defrecon(" QMGR ") is Mode.QMGR
    assert mode_of_defrecon("Disabled") is Mode.DISABLED
    assert mode_of_defrecon(CMQXC.MQRCN_Q_MGR) is Mode.QMGR
    assert mode_of_defrecon(None) is None
    assert mode_of_defrecon("sometimes") is None


def test_recon_delay_is_parsed_and_a_bad_one_is_the_default():
    assert parse_recon_delay("(1000,200)(2000,200)(4000,1000)") == DEFAULT_RECON_DELAY
    assert parse_recon_delay("(100)(250,50)") == ((100, 0), (250, 50))
    assert parse_recon_delay(None) == DEFAULT_RECON_DELAY
    assert parse_recon_delay("(100,x)") == DEFAULT_RECON_DELAY
    assert parse_recon_delay("100,200") == DEFAULT_RECON_DELAY


def test_the_first_retry_is_about_a_second_and_the_waits_grow_with_a_random_part():
    assert delays(DEFAULT_RECON_DELAY, 0, lambda: 0.0) == 1.0
    assert delays(DEFAULT_RECON_DELAY, 0, lambda: 0.5) == pytest.approx(1.1)
    assert delays(DEFAULT_RECON_DELAY, 1, lambda: 0.0) == 2.0
    assert delays(DEFAULT_RECON_DELAY, 2, lambda: 0.999) == pytest.approx(4.999)
    assert delays(DEFAULT_RECON_DELAY, 9, lambda: 0.0) == 4.0  # the last pair from then on


def test_attempts_stop_at_the_reconnect_timeout():
    schedule = Schedule(started=100.0, timeout=5.0)
    assert schedule.next_wait(100.0, lambda: 0.0) == 1.0
    assert schedule.next_wait(101.0, lambda: 0.0) == 2.0
    assert schedule.next_wait(103.0, lambda: 0.0) == 2.0  # cut to the deadline (105)
    assert schedule.next_wait(105.0, lambda: 0.0) is None
    assert Schedule(started=0.0).deadline == 1800.0  # MQReconnectTimeout's default


PERSISTENT = mqpy.MD(Persistence=CMQC.MQPER_PERSISTENT)
NOT_PERSISTENT = mqpy.MD(Persistence=CMQC.MQPER_NOT_PERSISTENT)
AS_Q_DEF = mqpy.MD()
SYNC_PUT = mqpy.PMO(Options=CMQC.MQPMO_SYNCPOINT)
NO_SYNC_PUT = mqpy.PMO(Options=CMQC.MQPMO_NO_SYNCPOINT)
SYNC_GET = mqpy.GMO(Options=CMQC.MQGMO_SYNCPOINT)
NO_SYNC_GET = mqpy.GMO(Options=CMQC.MQGMO_WAIT)


@pytest.mark.parametrize(("verb", "md", "opts", "persistent_uow", "outcome"), [
    ("MQPUT", PERSISTENT, NO_SYNC_PUT, False, Outcome.INTERRUPTED),
    ("MQPUT1", AS_Q_DEF, NO_SYNC_PUT, False, Outcome.INTERRUPTED),  # may be persistent
    ("MQPUT", NOT_PERSISTENT, NO_SYNC_PUT, False, Outcome.RETRY),
    ("MQPUT", PERSISTENT, SYNC_PUT, False, Outcome.BACKED_OUT),
    ("MQGET", None, SYNC_GET, False, Outcome.BACKED_OUT),
    ("MQGET", None, NO_SYNC_GET, False, Outcome.RETRY),  # a waiting get goes on waiting
    ("MQCMIT", None, None, True, Outcome.INTERRUPTED),
    ("MQCMIT", None, None, False, Outcome.BACKED_OUT),
    ("MQBACK", None, None, True, Outcome.DONE),
    ("MQOPEN", None, None, False, Outcome.RETRY),
    ("MQINQ", None, None, False, Outcome.RETRY),
])
def test_the_call_in_flight_is_answered_as_ibm_documents(verb, md, opts, persistent_uow,
                                                         outcome):
    assert in_flight_outcome(verb, md, opts, persistent_uow) is outcome


def test_after_a_backed_out_unit_of_work_its_calls_say_so_until_it_ends():
    warning, failed, backed_out = CMQC.MQCC_WARNING, CMQC.MQCC_FAILED, CMQC.MQRC_BACKED_OUT
    assert after_backout("MQCMIT") == (warning, backed_out)
    assert after_backout("MQPUT", SYNC_PUT) == (failed, backed_out)
    assert after_backout("MQGET", SYNC_GET) == (failed, backed_out)
    assert after_backout("MQPUT", NO_SYNC_PUT) is None
    assert after_backout("MQBACK") is None


def test_logical_order_is_incompatible_with_reconnection():
    assert incompatible("MQPUT", mqpy.PMO(Options=CMQC.MQPMO_LOGICAL_ORDER))
    assert incompatible("MQGET", mqpy.GMO(Options=CMQC.MQGMO_LOGICAL_ORDER))
    assert not incompatible("MQGET", NO_SYNC_GET)
    assert not incompatible("MQOPEN", None)


def test_mqclient_ini_channels_stanza_is_read_from_mqclntcf(tmp_path, monkeypatch):
    ini = tmp_path / "client.ini"
    ini.write_text("CHANNELS:\n   DefRecon=QMGR\n   MQReconnectTimeout=30\n"
                   "   ReconDelay=(500,100)\nTCP:\n   KeepAlive=YES\n")
    monkeypatch.setenv("MQCLNTCF", str(ini))
    assert config.client_channels() == config.ClientChannels("QMGR", "30", "(500,100)")
    monkeypatch.setenv("MQCLNTCF", str(tmp_path / "none.ini"))
    assert config.client_channels() == config.ClientChannels()


def test_mqclient_ini_in_the_working_directory(tmp_path, monkeypatch):
    monkeypatch.delenv("MQCLNTCF", raising=False)
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.chdir(tmp_path)
    (tmp_path / "mqclient.ini").write_text("Channels:\n  defrecon=YES\n")
    assert config.client_channels().def_recon == "YES"


def test_the_channel_definitions_carry_defrecon(tmp_path):
    cd = mqpy.CD(ChannelName=b"APP.SVRCONN", ConnectionName=b"h(1414)",
                 DefReconnect=CMQXC.MQRCN_YES)
    assert ChannelDefinition.from_cd(cd).def_reconnect == "YES"
    assert ChannelDefinition.from_cd(mqpy.CD(ChannelName=b"C", ConnectionName=b"h")
                                     ).def_reconnect == "NO"
    ccdt = tmp_path / "ccdt.json"
    ccdt.write_text(json.dumps({"channel": [{
        "name": "APP.SVRCONN", "type": "clientConnection",
        "clientConnection": {"connection": [{"host": "h1", "port": 1414},
                                            {"host": "h2", "port": 1415}]},
        "connectionManagement": {"defaultReconnect": "queueManager"}}]}))
    (entry,) = load_ccdt(str(ccdt))
    assert entry.def_reconnect == "QMGR"
    assert entry.connections == (("h1", 1414), ("h2", 1415))
