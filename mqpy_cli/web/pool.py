"""MQI connections kept between requests, as IBM's mqweb keeps its own: idle connections per
(queue manager, identity), each with its command-server reply queue once it has needed one,
lent to one request at a time. A connection is not lent again once it is older than
``max_age``, once its queue manager has restarted (another pid in qm.lock), or after a
request on it failed with a reason that says the connection is gone."""

from __future__ import annotations

import contextlib
import hashlib
import os
import threading
import time
from collections.abc import Iterator

import attrs

import mqpy
from mqpy import CMQC, config
from mqpy_cli.web.errors import RestError
from mqpy_cli.web.mqconn import CommandServer, connect

#: reasons after which a connection is dropped rather than lent again
GONE = frozenset({CMQC.MQRC_CONNECTION_BROKEN, CMQC.MQRC_Q_MGR_NOT_AVAILABLE,
                  CMQC.MQRC_Q_MGR_STOPPING, CMQC.MQRC_Q_MGR_QUIESCING,
                  CMQC.MQRC_CONNECTION_QUIESCING, CMQC.MQRC_CONNECTION_STOPPING,
                  CMQC.MQRC_HCONN_ERROR, CMQC.MQRC_HOBJ_ERROR})


def qmgr_pid(qmgr: str, data_path: str) -> str:
    """What says which run of the queue manager this is: qm.lock's pid ("" if none, or
    when the name cannot be a file's: a NUL in it)."""
    try:
        with open(os.path.join(config.qmgr_dir(qmgr, data_path), "qm.lock")) as f:
            return f.read().split()[0]
    except (OSError, IndexError, ValueError):
        return ""


@attrs.define
class Session:
    """One connection lent to one request."""

    qm: mqpy.QueueManager
    run_of: str
    made: float
    server: CommandServer | None = None

    def command_server(self) -> CommandServer:
        if self.server is None:
            self.server = CommandServer(self.qm)
        return self.server

    def close(self) -> None:
        if self.server is not None:
            self.server.close()
        with contextlib.suppress(mqpy.MQMIError):
            self.qm.disconnect()


class ConnectionPool:
    def __init__(self, data_path: str, max_idle: int = 4, max_age: float = 60.0) -> None:
        self.data_path = data_path
        self.max_idle = max_idle
        self.max_age = max_age
        self._salt = os.urandom(16)
        self._idle: dict[tuple, list[Session]] = {}
        self._lock = threading.Lock()

    def _key(self, qmgr: str, user: str | None, password: str | None) -> tuple:
        secret = hashlib.sha256(self._salt + (password or "").encode("utf-8", "replace"))
        return (qmgr, user, secret.digest())

    def _take(self, key: tuple, run_of: str) -> Session | None:
        stale = []
        found = None
        with self._lock:
            idle = self._idle.get(key, [])
            while idle:
                s = idle.pop()
                if s.run_of == run_of and time.monotonic() - s.made < self.max_age:
                    found = s
                    break
                stale.append(s)
        for s in stale:
            s.close()
        return found

    def _give_back(self, key: tuple, session: Session) -> None:
        with self._lock:
            idle = self._idle.setdefault(key, [])
            if len(idle) < self.max_idle:
                idle.append(session)
                return
        session.close()

    @contextlib.contextmanager
    def session(self, qmgr: str, user: str | None = None,
                password: str | None = None) -> Iterator[Session]:
        """A connection to ``qmgr`` as ``user`` (none: the server's own), lent for a block."""
        key = self._key(qmgr, user, password)
        run_of = qmgr_pid(qmgr, self.data_path)
        session = self._take(key, run_of)
        if session is None:
            session = Session(connect(qmgr, self.data_path, user, password), run_of,
                              time.monotonic())
        try:
            yield session
        except RestError as e:
            if e.reason in GONE:
                session.close()
            else:
                self._give_back(key, session)
            raise
        except BaseException:
            session.close()
            raise
        self._give_back(key, session)

    @contextlib.contextmanager
    def command_server(self, qmgr: str, user: str | None = None,
                       password: str | None = None) -> Iterator[CommandServer]:
        with self.session(qmgr, user, password) as s:
            yield s.command_server()

    @contextlib.contextmanager
    def connection(self, qmgr: str, user: str | None = None,
                   password: str | None = None) -> Iterator[mqpy.QueueManager]:
        with self.session(qmgr, user, password) as s:
            yield s.qm

    def close(self) -> None:
        """Every idle connection ended (the server is stopping)."""
        with self._lock:
            sessions = [s for idle in self._idle.values() for s in idle]
            self._idle.clear()
        for s in sessions:
            s.close()
