"""The policy keeps its authority decisions while nothing they depend on changes.

A decision is good while the user file (its stamp: mtime, size, inode) and the authority
records are the same, so setmqaut, SET AUTHREC, mqpyuser's group changes and REFRESH
SECURITY all apply to the very next check, as they did when every check read everything.
"""

from __future__ import annotations

import os

import pytest

import mqpy
from mqpy import CMQC
from mqpy.mqsc.processor import MQSCProcessor
from mqpy.security.policy import set_authority
from mqpy.security.users import UserFile, users_path
from mqpy.structs.tables import OD


@pytest.fixture
def carol(secured):
    secured.users.add("carol", "carol-pw", ["apps"])
    set_authority(secured.eng, "qmgr", secured.eng.name, ["+connect"], principal="carol")
    secured.eng.define("QLOCAL", "Q1", {})
    secured.conn = secured.eng.connect("app", user="carol", password="carol-pw")
    return secured


def opens(conn, name: str, options: int = CMQC.MQOO_OUTPUT) -> bool:
    try:
        conn.close(conn.open(OD(ObjectName=name.encode()), options), 0)
        return True
    except mqpy.MQMIError as exc:
        assert exc.reason == CMQC.MQRC_NOT_AUTHORIZED
        return False


def mqsc(secured, text: str) -> None:
    result = MQSCProcessor(secured.eng).execute_text(text)
    assert result.ok, result.lines


def test_setmqaut_and_set_authrec_apply_to_the_next_open(carol):
    """Given carol refused Q1 twice (the refusal decided once, then remembered), when
    setmqaut grants +put, then her next open succeeds, and again; when SET AUTHREC takes
    it away, then the next is refused."""
    assert not opens(carol.conn, "Q1")
    assert not opens(carol.conn, "Q1")
    set_authority(carol.eng, "queue", "Q1", ["+put"], principal="carol")
    assert opens(carol.conn, "Q1")
    assert opens(carol.conn, "Q1")
    mqsc(carol, "SET AUTHREC PROFILE(Q1) OBJTYPE(QUEUE) PRINCIPAL('carol') AUTHRMV(PUT)")
    assert not opens(carol.conn, "Q1")
    mqsc(carol, "SET AUTHREC PROFILE(Q1) OBJTYPE(QUEUE) PRINCIPAL('carol') AUTHADD(PUT)")
    assert opens(carol.conn, "Q1")
    mqsc(carol, "DELETE AUTHREC PROFILE(Q1) OBJTYPE(QUEUE) PRINCIPAL('carol')")
    assert not opens(carol.conn, "Q1")


def test_a_group_change_in_the_user_file_applies_at_once(carol):
    """Given group payers holds +put on Q1 and carol is not in it (refused, remembered), when
    another writer of the user file (mqpyuser in its own process) puts her in payers, then
    her next open succeeds; out of it again, refused; in mqm, everything; REFRESH SECURITY
    changes nothing of that."""
    set_authority(carol.eng, "queue", "Q1", ["+put"], group="payers")
    assert not opens(carol.conn, "Q1")
    other = UserFile(users_path(carol.eng.qmdir))  # not the policy's own UserFile
    other.set_groups("carol", ["apps", "payers"])
    assert opens(carol.conn, "Q1")
    other.set_groups("carol", ["apps"])
    assert not opens(carol.conn, "Q1")
    mqsc(carol, "REFRESH SECURITY")
    assert not opens(carol.conn, "Q1")
    other.set_groups("carol", ["mqm"])
    mqsc(carol, "REFRESH SECURITY TYPE(AUTHSERV)")
    assert opens(carol.conn, "Q1", CMQC.MQOO_OUTPUT | CMQC.MQOO_SET_ALL_CONTEXT)


def test_a_rewrite_of_the_same_size_and_time_is_seen(carol):
    """Given carol's refusal remembered, when the user file is replaced by one of exactly
    the same size and modification time that puts her in group paid (which holds +put)
    instead of apps, then her next open succeeds: the file's inode says it changed."""
    set_authority(carol.eng, "queue", "Q1", ["+put"], group="paid")
    path = users_path(carol.eng.qmdir)
    assert not opens(carol.conn, "Q1")
    before = os.stat(path)
    text = open(path, encoding="utf-8").read()
    changed = text.replace(":apps\n", ":paid\n", 1)
    assert len(changed) == len(text) and changed != text
    tmp = path + ".new"
    with open(tmp, "w", encoding="utf-8") as f:
        f.write(changed)
    os.utime(tmp, ns=(before.st_atime_ns, before.st_mtime_ns))
    os.replace(tmp, path)
    after = os.stat(path)
    assert (after.st_size, after.st_mtime_ns) == (before.st_size, before.st_mtime_ns)
    assert opens(carol.conn, "Q1")


def test_an_open_reads_the_user_file_stamp_once(carol, monkeypatch):
    """Given carol with +put +setall on Q1 and +setall on the queue manager, when she opens
    Q1 for output with set-all context (checks on the queue and on the queue manager), then
    the user file is looked at once for the whole check, not once per authority asked."""
    set_authority(carol.eng, "queue", "Q1", ["+put", "+setall"], principal="carol")
    set_authority(carol.eng, "qmgr", carol.eng.name, ["+setall"], principal="carol")
    options = CMQC.MQOO_OUTPUT | CMQC.MQOO_SET_ALL_CONTEXT
    assert opens(carol.conn, "Q1", options)
    stamps = []
    real = UserFile._stamp
    monkeypatch.setattr(UserFile, "_stamp", lambda self: stamps.append(1) or real(self))
    assert opens(carol.conn, "Q1", options)
    assert len(stamps) == 1


def test_an_allowed_open_allows_only_the_same_open(carol):
    """Given carol's open of Q1 for output allowed (and remembered), then an open with more
    options, of another queue, or with another alternate user is still judged on its own."""
    set_authority(carol.eng, "queue", "Q1", ["+put"], principal="carol")
    set_authority(carol.eng, "qmgr", carol.eng.name, ["+altusr"], principal="carol")
    carol.eng.define("QLOCAL", "Q2", {})
    carol.users.add("dave", None, ["apps"])
    carol.users.add("erin", None, ["apps"])
    set_authority(carol.eng, "queue", "Q1", ["+put"], principal="dave")
    assert opens(carol.conn, "Q1")
    assert opens(carol.conn, "Q1")
    assert not opens(carol.conn, "Q1", CMQC.MQOO_OUTPUT | CMQC.MQOO_SET_ALL_CONTEXT)
    assert not opens(carol.conn, "Q2")

    def as_alternate(user: str) -> bool:
        od = OD(ObjectName=b"Q1", AlternateUserId=user.encode())
        try:
            carol.conn.close(carol.conn.open(
                od, CMQC.MQOO_OUTPUT | CMQC.MQOO_ALTERNATE_USER_AUTHORITY), 0)
            return True
        except mqpy.MQMIError as exc:
            assert exc.reason == CMQC.MQRC_NOT_AUTHORIZED
            return False

    assert as_alternate("dave")
    assert as_alternate("dave")
    assert not as_alternate("erin")
