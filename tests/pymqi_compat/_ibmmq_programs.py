"""The queue manager IBM's ``ibmmq`` example programs expect, for the tests that run them:
QM1 with its channel initiator and command server, the objects of IBM's developer
configuration (DEV.QUEUE.1, DEV.QUEUE.2, DEV.APP.SVRCONN, DEV.ADMIN.SVRCONN), and where a
program connects from (``Where``): over a client connection the program's own constants
(its channel and ``host(port)``), over bindings the same calls with channel and conn_info
None (ibmmq's connect then makes MQCONN, as its dlq_browse example does)."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

import pytest

import mqpy as mq
from tests.client.conftest import Env, drain
from tests.pymqi_compat.conftest import program_env

QMGR = "QM1"
APP_CHANNEL = "DEV.APP.SVRCONN"
ADMIN_CHANNEL = "DEV.ADMIN.SVRCONN"
QUEUE_1 = "DEV.QUEUE.1"
QUEUE_2 = "DEV.QUEUE.2"
MODES = ("bindings", "client")


@dataclass
class Where:
    """What a program's constants become in one mode."""

    env: Env
    client: bool

    @property
    def conn_info(self) -> str | None:
        return self.env.conn_info if self.client else None

    def channel(self, name: str = APP_CHANNEL) -> str | None:
        return name if self.client else None


def module_env(tmp_path_factory: pytest.TempPathFactory, name: str) -> Iterator[Env]:
    """QM1 for a module's tests, with the developer configuration's objects;
    MQPY_DATA_PATH is QM1's data path, so that ``mq.connect('QM1')`` finds it."""

    def define(made: Env) -> None:
        for channel in (APP_CHANNEL, ADMIN_CHANNEL):
            made.define("CHANNEL", channel, CHLTYPE="SVRCONN")
        for queue in (QUEUE_1, QUEUE_2):
            made.define("QLOCAL", queue, MAXDEPTH=5000)

    yield from program_env(tmp_path_factory, name, define)


def emptied(env: Env) -> None:
    """DEV.QUEUE.1 and DEV.QUEUE.2 emptied (after a test)."""
    qmgr = env.client(channel=APP_CHANNEL)
    try:
        for queue in (QUEUE_1, QUEUE_2):
            drain(qmgr, queue)
    finally:
        qmgr.disconnect()


def where_in(env: Env, mode: str) -> Iterator[Where]:
    yield Where(env, mode == "client")
    emptied(env)


__all__ = ["ADMIN_CHANNEL", "APP_CHANNEL", "MODES", "QMGR", "QUEUE_1", "QUEUE_2", "Where",
           "emptied", "module_env", "mq", "where_in"]
