"""An mqweb server as an operator runs it, in front of a queue manager started by strmqm
(tests.support.site): mqweb.ini written with a free 127.0.0.1 port and the roles, strmqweb
and endmqweb run as subprocesses, and the server killed by pid at teardown whatever
happened. Users: ``mqadmin`` (MQWebAdmin), ``reader`` (MQWebAdminRO), ``alice``
(MQWebUser, with the object authorities the messaging tests use), ``operator`` (MQWebAdmin
and MQWebUser, in group mqm: the console's user), ``mallory`` (a user of the queue manager in
no role)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys

import httpx

from mqpy_cli.web import config as webconfig
from mqpy_cli.web.control import running_pid
from tests.support.installation import gone
from tests.support.ports import free_port
from tests.support.site import ALICE, ALICE_PW, QM, Site

ADMIN, ADMIN_PW = "mqadmin", "mqadmin-pw"
READER, READER_PW = "reader", "reader-pw"
MALLORY, MALLORY_PW = "mallory", "mallory-pw"
#: the console's operator: MQWebAdmin for administration, MQWebUser for messages
OPERATOR, OPERATOR_PW = "operator", "operator-pw"
CSRF = {"ibm-mq-rest-csrf-token": "x"}
#: the headers of a messaging REST put of text (IBM takes text bodies only)
PUT = {**CSRF, "content-type": "text/plain;charset=utf-8"}
REST = "/ibmmq/rest/v2"

_WEB = ("import sys, importlib; m = importlib.import_module('mqpy_cli.web.control'); "
        "getattr(m, sys.argv[1]).main(args=sys.argv[2:], prog_name=sys.argv[1])")

#: what alice (MQWebUser) may do: connect, display, use APP.* queues, ask the command server
ALICE_AUTHORITY = f"""
SET AUTHREC OBJTYPE(QMGR) PRINCIPAL('{ALICE}') AUTHADD(CONNECT,DSP,INQ)
SET AUTHREC PROFILE('APP.**') OBJTYPE(QUEUE) PRINCIPAL('{ALICE}') AUTHADD(PUT,GET,BROWSE,INQ,DSP)
SET AUTHREC PROFILE(SYSTEM.ADMIN.COMMAND.QUEUE) OBJTYPE(QUEUE) PRINCIPAL('{ALICE}') AUTHADD(PUT)
SET AUTHREC PROFILE(SYSTEM.DEFAULT.MODEL.QUEUE) OBJTYPE(QUEUE) PRINCIPAL('{ALICE}') AUTHADD(GET,DSP)
SET AUTHREC PROFILE('MQWEB.**') OBJTYPE(QUEUE) PRINCIPAL('{ALICE}') AUTHADD(GET,PUT)
"""


def web_command(root: str, command: str, *args: str) -> subprocess.CompletedProcess:
    """strmqweb, endmqweb or dspmqweb run to its end against data path ``root``."""
    env = {**os.environ, "MQPY_DATA_PATH": root}
    return subprocess.run([sys.executable, "-c", _WEB, command, *args], env=env,
                          capture_output=True, text=True, timeout=90)


class WebSite:
    """A queue manager (Site) and an mqweb server in front of it."""

    def __init__(self, root: str, key_repository: str = "") -> None:
        self.site = Site(root)
        self.root = root
        self.port = free_port()
        self.key_repository = key_repository

    @property
    def base(self) -> str:
        scheme = "https" if self.key_repository else "http"
        return f"{scheme}://127.0.0.1:{self.port}"

    def write_config(self) -> None:
        webconfig.write(f"""[server]
host = 127.0.0.1
port = {self.port}
keyRepository = {self.key_repository}
secureLTPA = {"true" if self.key_repository else "false"}

[roles]
MQWebAdmin = {ADMIN}, {OPERATOR}
MQWebAdminRO = {READER}
MQWebUser = {ALICE}, {OPERATOR}
""", self.root)

    def start(self) -> WebSite:
        self.site.start()
        users = self.site_users()
        users.add(ADMIN, ADMIN_PW, ["mqm"])
        users.add(READER, READER_PW)
        users.add(MALLORY, MALLORY_PW)
        users.add(OPERATOR, OPERATOR_PW, ["mqm"])
        self.site.mqsc_here(ALICE_AUTHORITY)
        self.write_config()
        proc = web_command(self.root, "strmqweb")
        assert proc.returncode == 0, proc.stdout + proc.stderr
        return self

    def site_users(self):  # noqa: ANN201
        from mqpy.security.users import UserFile, users_path

        return UserFile(users_path(self.site.qmdir))

    def pid(self) -> int | None:
        return running_pid(self.root)

    def stop(self) -> None:
        """endmqweb, then the server killed by pid if it is still there; the queue
        manager stopped as Site stops it."""
        pid = self.pid()
        try:
            web_command(self.root, "endmqweb")
        except subprocess.TimeoutExpired:
            pass
        finally:
            if pid is not None and not gone(pid):
                os.kill(pid, signal.SIGKILL)
            self.site.stop()

    def client(self, user: str | None = ADMIN, password: str | None = None,
               **kwargs) -> httpx.Client:  # noqa: ANN003
        auth = None
        if user is not None:
            auth = (user, password if password is not None else _PASSWORDS[user])
        return httpx.Client(base_url=self.base, auth=auth, timeout=30, **kwargs)


_PASSWORDS = {ADMIN: ADMIN_PW, READER: READER_PW, ALICE: ALICE_PW, MALLORY: MALLORY_PW,
              OPERATOR: OPERATOR_PW}

__all__ = ["ADMIN", "ALICE", "CSRF", "PUT", "MALLORY", "OPERATOR", "OPERATOR_PW", "QM", "READER",
           "REST", "WebSite",
           "web_command"]
