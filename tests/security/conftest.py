"""Fixtures for the security suite: an embedded queue manager with the policy installed.

Each test has its own data path; the queue manager is ended at teardown whatever happened.
Password hashing uses the real scrypt cost, so tests add only the users they need.
"""

from __future__ import annotations

import pytest

import mqpy
from mqpy import inprocess
from mqpy.cmdserver import COMMAND_QUEUE, start_command_server, stop_command_server
from mqpy.security.policy import install, set_authority
from mqpy.security.users import UserFile, users_path
from tests.support.channel_pair import DLQ
from tests.support.embedded import ended_at_teardown
from tests.support.qmgr import QMgr

QM = "QMSEC"


class SecuredQMgr:
    def __init__(self, root: str) -> None:
        self.name = QM
        self.root = root
        self.qm = mqpy.embedded(QM, data_path=root)  # connected before security is on
        self.eng = inprocess.running(QM, root)
        self.policy = install(self.eng, self.eng.qmdir)
        self.users = UserFile(users_path(self.eng.qmdir))

    def errors(self) -> str:
        import os

        path = os.path.join(self.eng.qmdir, "errors", "AMQERR01.LOG")
        return open(path, encoding="utf-8").read() if os.path.exists(path) else ""


@pytest.fixture
def secured(tmp_path):
    yield from ended_at_teardown(SecuredQMgr(str(tmp_path)))


@pytest.fixture
def carol(secured):
    """carol: +connect and +dsp on the queue manager, +put on the command queue, +get on her
    reply queue; queues Q1, PAY.IN, PAY.OUT; the command server running; her requests go
    through ``secured.requester``."""
    from .requester import REPLY, Requester

    eng = secured.eng
    secured.users.add("carol", "carol-pw", ["apps"])
    set_authority(eng, "qmgr", eng.name, ["+connect", "+dsp"], principal="carol")
    set_authority(eng, "queue", COMMAND_QUEUE, ["+put"], principal="carol")
    for q in ("Q1", "PAY.IN", "PAY.OUT", REPLY):
        eng.define("QLOCAL", q, {})
    set_authority(eng, "queue", REPLY, ["+get"], principal="carol")
    start_command_server(QM, secured.root)
    try:
        secured.requester = Requester(eng.connect("app", user="carol", password="carol-pw"))
        yield secured
    finally:
        stop_command_server(QM, secured.root)


@pytest.fixture
def pair(tmp_path):
    """pair(dlq=True) -> (QM1, QM2): two queue managers of this process, QM2 with the policy
    installed and users bob and carol (tests.support.putaut runs a channel between them)."""
    def make(name: str, dlq: bool) -> QMgr:
        root = str(tmp_path / name)
        inprocess.create(name, root, dead_letter_queue=DLQ if dlq else "")
        return QMgr(name, root, inprocess.start(name, root))

    def build(dlq: bool = True) -> tuple[QMgr, QMgr]:
        qm1, qm2 = make("QM1", True), make("QM2", dlq)
        install(qm2.engine, qm2.engine.qmdir)
        users = UserFile(users_path(qm2.engine.qmdir))
        for user in ("bob", "carol"):
            users.add(user, None)
        return qm1, qm2

    yield build
    inprocess.stop_all()
