"""``mqpy health QM1``: whether a queue manager, its command server and its channel
initiator answer, for scripts and orchestrators (exit 0 when all three do; otherwise the
first that does not, with its reason), as text or JSON (``-o json``). It asks as any MQI
application would: MQCONN, a PCF Ping Queue Manager and Inquire Queue Manager Status."""

from __future__ import annotations

import json
import sys

import click

from mqpy import CMQCFC
from mqpy import config as mqconfig
from mqpy_cli.web import admin
from mqpy_cli.web.errors import RestError
from mqpy_cli.web.mqconn import CommandServer, connect

#: exit codes: all answer; the queue manager does not; its command server does not; its
#: channel initiator does not; the name is not one of the installation's
RC_OK, RC_QMGR, RC_CMDSERV, RC_CHINIT, RC_UNKNOWN = 0, 1, 2, 3, 4
HEALTH_WAIT_MS = 5000


def check(qmgr: str, data_path: str | None = None) -> tuple[int, dict]:
    """(exit code, report) for ``qmgr``."""
    root = mqconfig.data_root(data_path)
    report: dict = {"qmgr": qmgr, "healthy": False}
    if qmgr not in mqconfig.list_qmgrs(root):
        report["reason"] = "AMQ7048E: The queue manager name is either not valid or not known."
        return RC_UNKNOWN, report
    report["state"] = admin.qmgr_state(qmgr, root)
    try:
        qm = connect(qmgr, root)
    except RestError as e:
        report["reason"] = f"MQCONN failed with reason {e.reason}"
        return RC_QMGR, report
    try:
        server = CommandServer(qm, HEALTH_WAIT_MS)
        try:
            server.run(CMQCFC.MQCMD_PING_Q_MGR, [])
            status = admin.qmgr_status(server)
        except RestError as e:
            report["reason"] = f"the command server did not answer (reason {e.reason})"
            return RC_CMDSERV, report
        finally:
            server.close()
    finally:
        qm.disconnect()
    report.update(commandServer=status.get("commandServerState", "unknown"),
                  channelInitiator=status.get("channelInitiatorState", "unknown"),
                  connections=status.get("connectionCount"))
    if report["channelInitiator"] != "running":
        report["reason"] = f"the channel initiator is {report['channelInitiator']}"
        return RC_CHINIT, report
    report["healthy"] = True
    return RC_OK, report


@click.command(context_settings={"help_option_names": ["-h", "--help"]})
@click.argument("qmgr")
@click.option("-o", "output", type=click.Choice(["text", "json"]), default="text",
              help="text (default) or json.")
@click.option("--data-path", default=None, envvar="MQPY_DATA_PATH",
              help="The installation's data path.")
def health(qmgr: str, output: str, data_path: str | None) -> None:
    """Exit 0 when QMGR, its command server and its channel initiator all answer."""
    rc, report = check(qmgr, data_path)
    if output == "json":
        click.echo(json.dumps(report))
    elif rc == RC_OK:
        click.echo(f"{qmgr}: healthy (command server {report['commandServer']}, channel "
                   f"initiator {report['channelInitiator']}, {report['connections']} "
                   f"connections)")
    else:
        click.echo(f"{qmgr}: not healthy: {report['reason']}", err=True)
    sys.exit(rc)


if __name__ == "__main__":
    health()
