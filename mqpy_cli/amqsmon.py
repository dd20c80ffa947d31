"""amqsmon: display statistics and accounting messages as IBM's sample does.

    amqsmon -m QM1 -t statistics [-a | -q [QueueName] | -c [ChannelName]] [-b] [-w secs]
    amqsmon -f FILE...    (mqpy: print PCF message files, e.g. a message saved by amqsbcg)

Without -b the messages shown are removed from the queue, as amqsmon does.
"""

from __future__ import annotations

import sys

import click

import mqpy
from mqpy import CMQC, pcf
from mqpy.stats.collector import ACCOUNTING_QUEUE, STATISTICS_QUEUE
from mqpy.stats.display import format_message, select
from mqpy_cli.mqconn import mqconn


def _show(data: bytes, *, mqi_only: bool, queue: str | None, channel: str | None) -> str:
    try:
        msg = pcf.parse(data)
        chosen = select(msg, mqi_only=mqi_only, queue=queue, channel=channel)
        return format_message(chosen) if chosen is not None else ""
    except Exception as exc:  # noqa: BLE001 - one bad message must not stop the display
        return f"AMQ9999E: message is not a statistics or accounting record ({exc}).\n\n"


@click.command(context_settings={"help_option_names": ["-h", "--help"]})
@click.option("-m", "qmgr", default="", help="Queue manager (default: the default one).")
@click.option("-t", "kind", type=click.Choice(["statistics", "accounting"]), default=None)
@click.option("-a", "mqi_only", is_flag=True, help="MQI records only.")
@click.option("-q", "queue", is_flag=False, flag_value="", default=None,
              help="Queue records only (optionally for one queue).")
@click.option("-c", "channel", is_flag=False, flag_value="", default=None,
              help="Channel records only (optionally for one channel).")
@click.option("-b", "browse", is_flag=True, help="Browse: leave the messages on the queue.")
@click.option("-w", "wait", type=int, default=0, help="Seconds to wait for a message.")
@click.option("-f", "files", multiple=True, type=click.Path(exists=True, dir_okay=False),
              help="Print PCF messages from files instead of a queue.")
@click.option("--data-path", default=None, help="Data root (default $MQPY_DATA_PATH).")
def amqsmon(qmgr: str, kind: str | None, mqi_only: bool, queue: str | None,
            channel: str | None, browse: bool, wait: int, files: tuple[str, ...],
            data_path: str | None) -> None:
    """Display formatted monitoring information."""
    opts = {"mqi_only": mqi_only, "queue": queue, "channel": channel}
    if files:
        for path in files:
            with open(path, "rb") as f:
                click.echo(_show(f.read(), **opts), nl=False)
        return
    if kind is None:
        click.echo("AMQ8428E: -t statistics or -t accounting is required.", err=True)
        sys.exit(10)
    qm = mqconn(qmgr, data_path)
    name = STATISTICS_QUEUE if kind == "statistics" else ACCOUNTING_QUEUE
    oo = CMQC.MQOO_BROWSE if browse else CMQC.MQOO_INPUT_SHARED
    q = mqpy.Queue(qm, name, oo | CMQC.MQOO_FAIL_IF_QUIESCING)
    first = True
    try:
        while True:
            gmo = mqpy.GMO(Options=CMQC.MQGMO_NO_SYNCPOINT | CMQC.MQGMO_FAIL_IF_QUIESCING)
            if browse:
                gmo.Options |= CMQC.MQGMO_BROWSE_FIRST if first else CMQC.MQGMO_BROWSE_NEXT
            if wait:
                gmo.Options |= CMQC.MQGMO_WAIT
                gmo.WaitInterval = wait * 1000
            first = False
            try:
                data = q.get(None, mqpy.MD(), gmo)
            except mqpy.MQMIError as e:
                if e.reason == CMQC.MQRC_NO_MSG_AVAILABLE:
                    break
                raise
            click.echo(_show(data, **opts), nl=False)
    finally:
        q.close()
        qm.disconnect()
