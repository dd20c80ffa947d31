"""qm.ini stanzas written more than once, or in IBM's other spelling: every occurrence is
read, as IBM MQ reads them since APAR IT34389 (before it, a second Channels, SSL, TCP ...
stanza was silently ignored); a key given again later in the file wins."""

from __future__ import annotations

import os

import pytest

from mqpy import config


def _load(tmp_path, text: str) -> config.QMgrConfig:
    qmdir = config.qmgr_dir("INIQM", str(tmp_path))
    os.makedirs(qmdir, exist_ok=True)
    with open(os.path.join(qmdir, "qm.ini"), "w") as f:
        f.write(text)
    return config.QMgrConfig.load("INIQM", str(tmp_path))


def test_a_second_channels_stanza_adds_its_keys_to_the_first(tmp_path):
    """Given two Channels stanzas, the second naming keys the first does not, when qm.ini is
    loaded, then the keys of both are in force."""
    cfg = _load(tmp_path, "Channels:\n   MaxChannels=5\nLog:\n   LogFilePages=64\n"
                          "Channels:\n   MaxActiveChannels=3\n   MQIBindType=FASTPATH\n")
    assert cfg.channel_limits == config.ChannelsConfig(
        max_channels=5, max_active_channels=3, mqi_bind_type="FASTPATH")
    assert cfg.log.LogFilePages == 64


@pytest.mark.parametrize("kind, key, first, second, read", [
    ("Channels", "MaxChannels", "5", "9", lambda c: c.channel_limits.max_channels),
    ("Log", "LogPrimaryFiles", "2", "4", lambda c: c.log.LogPrimaryFiles),
    ("TuningParameters", "LogLoad", "100", "200", lambda c: c.tuning.LogLoad),
])
def test_a_key_given_again_in_a_later_stanza_of_its_kind_wins(tmp_path, kind, key, first,
                                                              second, read):
    """Given every stanza kind qm.ini's numbers come from written twice with the same key
    (the second spelled in capitals), when qm.ini is loaded, then the later value is used."""
    cfg = _load(tmp_path, f"{kind}:\n   {key}={first}\n{kind}:\n   {key.upper()}={second}\n")
    assert read(cfg) == int(second)


def test_a_bad_value_in_a_second_stanza_is_refused_not_ignored(tmp_path):
    """Given a second Channels stanza with MaxInitiators=4 (out of its range), when qm.ini is
    loaded, then it is a ConfigError naming it (strmqm refuses with AMQ8940E)."""
    with pytest.raises(config.ConfigError) as err:
        _load(tmp_path, "Channels:\n   MaxChannels=5\nChannels:\n   MaxInitiators=4\n")
    assert (err.value.stanza, err.value.key, err.value.value) == (
        "Channels", "MaxInitiators", "4")


def test_stanza_names_are_read_whatever_their_case(tmp_path):
    """Given IBM's spelling CHANNELS: and LOG: (its sample qm.ini writes CHANNELS:), when
    qm.ini is loaded, then their keys are read, and the log path comes from LOG:."""
    cfg = _load(tmp_path, "CHANNELS:\n   MaxChannels=6\nLOG:\n   LogPath=/var/x\n")
    assert cfg.channel_limits.max_channels == 6
    assert cfg.log_path == "/var/x"
    assert config.log_dir_of("INIQM", str(tmp_path)) == "/var/x"


def test_setting_a_channels_value_keeps_one_value_in_force(tmp_path):
    """Given two Channels stanzas both naming MaxChannels, when a tool sets MaxChannels, then
    the loaded value is the one set."""
    _load(tmp_path, "Channels:\n   MaxChannels=5\nCHANNELS:\n   maxchannels=9\n")
    config.set_channels_value("INIQM", "MaxChannels", "7", str(tmp_path))
    assert config.QMgrConfig.load("INIQM", str(tmp_path)).channel_limits.max_channels == 7


def test_mqs_ini_lists_a_queue_manager_stanza_each_whatever_its_case(tmp_path):
    """Given mqs.ini with a QueueManager stanza, one spelled QUEUEMANAGER: and one without
    a Name, and DefaultQueueManager written twice, when the queue managers are listed, then
    both named ones are, the nameless one is skipped (no KeyError), and the later default
    is the default."""
    root = str(tmp_path)
    with open(config.mqs_ini(root), "w") as f:
        f.write("QueueManager:\n   Name=QA\nQUEUEMANAGER:\n   name=QB\nQueueManager:\n"
                "   Prefix=/x\nDefaultQueueManager:\n   Name=QA\n"
                "DefaultQueueManager:\n   Name=QB\n")
    assert config.list_qmgrs(root) == ["QA", "QB"]
    assert config.default_qmgr(root) == "QB"
