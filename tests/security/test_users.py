"""The user repository: salted scrypt hashes in a queue-manager-owned file."""

from __future__ import annotations

import os
import stat

import pytest

from mqpy.security.users import (
    UserError,
    UserFile,
    hash_password,
    verify_password,
)


@pytest.fixture
def users(tmp_path):
    return UserFile(str(tmp_path / "mqusers"))


def test_created_user_verifies_and_wrong_password_does_not(users):
    """Given alice added with a password, then that password verifies and others do not."""
    users.add("alice", "correct horse", ["apps"])
    assert users.verify("alice", "correct horse")
    assert not users.verify("alice", "correct hors")
    assert not users.verify("alice", "")
    assert not users.verify("mallory", "correct horse")
    assert users.groups("alice") == ("apps",)


def test_same_password_gives_different_hashes(users):
    """Given two users with the same password, then their stored hashes differ (a fresh salt
    each), and both verify."""
    users.add("alice", "same-pw")
    users.add("bob", "same-pw")
    a, b = users.get("alice").password, users.get("bob").password
    assert a != b
    assert a.startswith("scrypt$16384$8$1$")
    assert users.verify("alice", "same-pw") and users.verify("bob", "same-pw")
    assert "same-pw" not in open(users.path).read()


def test_hash_format_carries_its_parameters():
    """A hash made with other scrypt parameters still verifies (they travel with it)."""
    h = hash_password("pw", n=2 ** 10, r=4, p=1)
    assert h.split("$")[:4] == ["scrypt", "1024", "4", "1"]
    assert verify_password("pw", h) and not verify_password("px", h)
    assert not verify_password("pw", "garbage")


def test_file_is_private_and_survives_reload(users):
    """The repository is mode 0600 and another reader sees the same users."""
    users.add("alice", "pw1")
    assert stat.S_IMODE(os.stat(users.path).st_mode) == 0o600
    again = UserFile(users.path)
    assert again.verify("alice", "pw1")


def test_passwd_and_delete(users):
    """Given alice, when her password changes the old one stops working; when she is deleted
    she cannot authenticate at all."""
    users.add("alice", "old")
    users.set_password("alice", "new")
    assert users.verify("alice", "new") and not users.verify("alice", "old")
    users.delete("alice")
    assert users.get("alice") is None and not users.verify("alice", "new")
    with pytest.raises(UserError):
        users.delete("alice")


def test_duplicate_and_bad_names_are_refused(users):
    users.add("alice", "pw")
    with pytest.raises(UserError):
        users.add("alice", "pw")
    for bad in ("", "has:colon", "a" * 13, "sp ace"):
        with pytest.raises(UserError):
            users.add(bad, "pw")


def test_owner_is_privileged_and_has_no_password(users):
    """Given a new repository for owner 'qmowner', then the owner is in mqm (privileged) and
    cannot authenticate with any password until one is set."""
    users.ensure_owner("qmowner")
    assert users.is_admin("qmowner")
    assert not users.verify("qmowner", "")
    users.ensure_owner("someone-else")  # only the first call creates
    assert users.get("someone-else") is None
