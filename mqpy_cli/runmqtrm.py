"""runmqtrm [-m QMgr] [-q InitQ]: the trigger monitor."""

from __future__ import annotations

import sys
import threading

import click

import mqpy
from mqpy.trigmon import DEFAULT_INITQ, TriggerMonitor
from mqpy_cli.mqconn import mqconn


@click.command(context_settings={"help_option_names": ["-h", "--help"]})
@click.option("-m", "qmgr", default="", help="Queue manager (default: the default one).")
@click.option("-q", "initq", default=DEFAULT_INITQ, help="Initiation queue.")
@click.option("--data-path", default=None, help="Data root (default $MQPY_DATA_PATH).")
def runmqtrm(qmgr: str, initq: str, data_path: str | None) -> None:
    """Start the applications that trigger messages on INITQ name."""
    qm = mqconn(qmgr, data_path)
    stop = threading.Event()
    try:
        TriggerMonitor(qm, initq, out=sys.stdout).serve(stop)
    except KeyboardInterrupt:
        stop.set()
    except mqpy.MQMIError as e:
        click.echo(f"AMQ8147E: IBM MQ object {initq} not found or not usable "
                   f"(reason {e.reason}).", err=True)
        sys.exit(10)
    finally:
        try:
            qm.disconnect()
        except mqpy.MQMIError:
            pass
