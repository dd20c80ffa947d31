"""A control command's MQCONN to the queue manager it names, its data path (when given) made
the command's $MQPY_DATA_PATH; AMQ8146E and exit status 20 when that queue manager is not
available."""

from __future__ import annotations

import os
import sys

import click

import mqpy
from mqpy import config

#: the exit status of a command whose queue manager is not available
RC_NOT_AVAILABLE = 20


def mqconn(qmgr: str, data_path: str | None) -> mqpy.QueueManager:
    """A connection to ``qmgr`` (blank: the default queue manager), or AMQ8146E with the
    reason on stderr and exit status RC_NOT_AVAILABLE."""
    if data_path:
        os.environ[config.ENV_DATA_PATH] = config.data_root(data_path)
    try:
        return mqpy.connect(qmgr)
    except mqpy.MQMIError as e:
        click.echo(f"AMQ8146E: IBM MQ queue manager not available. ({e.reason})", err=True)
        sys.exit(RC_NOT_AVAILABLE)
