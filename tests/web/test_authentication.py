"""Basic credentials checked against the installation's user files (what mqpyuser writes),
without a queue manager running: the same password work whether or not the user exists, so
that response times do not tell which users exist; a success remembered until a file
changes."""

from __future__ import annotations

import base64

import pytest

from mqpy import config
from mqpy.security import users as usersmod
from mqpy.security.users import UserFile, users_path
from mqpy_cli.web.config import WebConfig
from mqpy_cli.web.errors import RestError
from mqpy_cli.web.security import Authenticator


@pytest.fixture
def installation(tmp_path):
    root = str(tmp_path)
    for qm in ("QM1", "QM2"):
        config.register_qmgr(qm, root)
        UserFile(users_path(config.qmgr_dir(qm, root))).add(f"user.{qm}", "pw", ["apps"])
    return root


def _basic(user: str, password: str) -> str:
    return "Basic " + base64.b64encode(f"{user}:{password}".encode()).decode()


def test_a_user_of_any_queue_manager_logs_in_with_roles_by_name_or_group(installation):
    roles = {"MQWebUser": (frozenset(), frozenset({"apps"})),
             "MQWebAdminRO": (frozenset({"USER.QM2"}), frozenset())}
    auth = Authenticator(WebConfig(installation, roles=roles))
    assert auth.authenticate(_basic("user.QM1", "pw")).roles == {"MQWebUser"}
    assert auth.authenticate(_basic("user.QM2", "pw")).roles == {"MQWebUser", "MQWebAdminRO"}


def test_an_unknown_user_costs_the_same_password_work(installation, monkeypatch):
    calls = []
    real = usersmod.verify_password
    monkeypatch.setattr(usersmod, "verify_password",
                        lambda pw, stored: calls.append(stored) or real(pw, stored))
    auth = Authenticator(WebConfig(installation))
    with pytest.raises(RestError):
        auth.authenticate(_basic("user.QM1", "wrong"))
    known = len(calls)
    with pytest.raises(RestError):
        auth.authenticate(_basic("nobody", "wrong"))
    assert known >= 1 and len(calls) - known == known


def test_a_success_is_remembered_until_a_user_file_changes(installation, monkeypatch):
    auth = Authenticator(WebConfig(installation))
    auth.authenticate(_basic("user.QM1", "pw"))
    calls = []
    monkeypatch.setattr(usersmod, "verify_password", lambda pw, stored: calls.append(1))
    auth.authenticate(_basic("user.QM1", "pw"))
    assert calls == []
    monkeypatch.undo()
    UserFile(users_path(config.qmgr_dir("QM1", installation))).set_password("user.QM1", "new")
    with pytest.raises(RestError):
        auth.authenticate(_basic("user.QM1", "pw"))


def test_a_remembered_caller_is_known_without_password_work(installation, monkeypatch):
    """Given credentials that checked out once, when the same credentials come again and no
    user file changed, then ``known`` gives the caller with no password work (so that the
    server need not hand it to a worker thread); wrong credentials, and any after a user
    file changed, are not known (None: the full check decides)."""
    auth = Authenticator(WebConfig(installation))
    assert auth.known(_basic("user.QM1", "pw")) is None  # never checked yet
    auth.authenticate(_basic("user.QM1", "pw"))
    monkeypatch.setattr(usersmod, "verify_password", lambda pw, stored: pytest.fail("work"))
    assert auth.known(_basic("user.QM1", "pw")).user == "user.QM1"
    assert auth.known(_basic("user.QM1", "other")) is None
    assert auth.known("Bearer x") is None
    UserFile(users_path(config.qmgr_dir("QM2", installation))).add("another", "pw")
    assert auth.known(_basic("user.QM1", "pw")) is None
