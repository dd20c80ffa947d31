"""The channel-command key: one per queue manager, in its directory, readable by its owner
only, the same for the command server and the channel initiator whichever makes it first."""

from __future__ import annotations

import json
import os
import stat
from concurrent.futures import ThreadPoolExecutor

from mqpy.channelcommands import KEY_FILE, command_key, signed, verified


def test_the_key_is_made_once_for_its_owner_only(tmp_path):
    """Given a queue manager's directory without a key, when the key is asked for twice,
    then one file of mode 0600 holds it and both answers are it."""
    first, second = command_key(str(tmp_path)), command_key(str(tmp_path))
    assert first == second and len(first) == 32
    assert stat.S_IMODE(os.stat(tmp_path / KEY_FILE).st_mode) == 0o600
    assert os.listdir(tmp_path) == [KEY_FILE]  # no draft left


def test_processes_asking_at_once_get_one_key(tmp_path):
    """Given many askers at once, then they all get the same key."""
    with ThreadPoolExecutor(8) as pool:
        keys = set(pool.map(lambda _: command_key(str(tmp_path)), range(32)))
    assert len(keys) == 1


def test_a_signed_request_is_verified_and_a_changed_one_is_not(tmp_path):
    """Given a request signed with the key, then it verifies; with one field changed after
    signing, or with another key, it does not."""
    key = command_key(str(tmp_path))
    request = {"command": "STOP", "channel": "TO.QM2", "mode": "FORCE"}
    assert verified(json.loads(signed(request, key)), key)
    changed = json.loads(signed(request, key))
    changed["channel"] = "TO.QM3"
    assert not verified(changed, key)
    assert not verified(json.loads(signed(request, b"another")), key)
    assert not verified(json.loads(signed(request, key)), None)
