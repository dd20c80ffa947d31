"""dumprepos and clusxq: cluster operator utilities like SupportPac MS0G's.

    dumprepos QueueManager                        the repository, one record a line (JSON)
    clusxq QueueManager -s|-x[d|r][c|u] [Channel] the cluster transmission queue by channel:
        -s statistics; -x display; d delete; r re-put (failures to the DLQ);
        c internal (repository) messages only; u user messages only; no Channel = all

Both use local bindings to a running queue manager (``--data-path`` as everywhere).
"""

from __future__ import annotations

import os
import sys

import click

import mqpy
from mqpy import config
from mqpy_chinit.cluster import utilities


def _connect(qmgr: str, data_path: str | None) -> mqpy.QueueManager:
    if data_path:
        os.environ[config.ENV_DATA_PATH] = config.data_root(data_path)
    try:
        qm = mqpy.QueueManager(None)
        qm.connect(qmgr or config.default_qmgr(data_path) or "", data_path=data_path)
        return qm
    except mqpy.MQMIError as e:
        click.echo(f"AMQ8146E: IBM MQ queue manager not available. (reason {e.reason})",
                   err=True)
        sys.exit(20)


@click.command(context_settings={"help_option_names": ["-h", "--help"]})
@click.argument("qmgr")
@click.option("--data-path", default=None)
def dumprepos(qmgr: str, data_path: str | None) -> None:
    """Print SYSTEM.CLUSTER.REPOSITORY.QUEUE, one record a line."""
    qm = _connect(qmgr, data_path)
    try:
        for line in utilities.dump_repository(qm):
            click.echo(line)
    finally:
        qm.disconnect()


@click.command(context_settings={"help_option_names": ["-h", "--help"],
                                 "ignore_unknown_options": True})
@click.argument("qmgr")
@click.argument("mode")
@click.argument("channel", required=False, default="")
@click.option("--data-path", default=None)
def clusxq(qmgr: str, mode: str, channel: str, data_path: str | None) -> None:
    """Statistics, display, delete or re-put messages on SYSTEM.CLUSTER.TRANSMIT.QUEUE."""
    flags = mode.lstrip("-")
    if not flags or flags[0] not in "sx" or any(c not in "sxdrcu" for c in flags) or \
            ("d" in flags and "r" in flags) or ("c" in flags and "u" in flags) or \
            (flags[0] == "s" and len(flags) > 1 and set(flags[1:]) & set("dr")):
        click.echo("usage: clusxq QueueManager -s|-x[d|r][c|u] [Channel]", err=True)
        sys.exit(20)
    kind = "c" if "c" in flags else "u" if "u" in flags else ""
    action = "delete" if "d" in flags else "reput" if "r" in flags else \
        "statistics" if flags[0] == "s" else "display"
    qm = _connect(qmgr, data_path)
    try:
        try:
            messages = utilities.xmitq(qm, action, channel, kind)
        except mqpy.MQMIError as e:
            click.echo(f"AMQ8101S: IBM MQ error ({e.reason:X}) has occurred.", err=True)
            sys.exit(10)
        if action == "statistics":
            for name, row in sorted(utilities.statistics(messages).items()):
                click.echo(f"{name:<20} internal {row['internal']:>8} user {row['user']:>8}"
                           f" bytes {row['bytes']:>12}")
            return
        verb = {"display": "", "delete": "deleted ", "reput": "re-put "}[action]
        for m in messages:
            what = "internal" if m.internal else "user"
            click.echo(f"{verb}{m.channel:<20} {what:<8} {m.remote_q}@{m.remote_qm} "
                       f"({m.length} bytes) MsgId {m.msgid.hex()}")
        click.echo(f"{len(messages)} message(s).")
    finally:
        qm.disconnect()
