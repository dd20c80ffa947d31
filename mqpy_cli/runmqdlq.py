"""runmqdlq [QName [QMgrName]] < rules.tbl: the dead-letter queue handler.

The rules table comes from stdin (``-f FILE`` reads it from a file instead). The queue and queue
manager may also be given as ``-q`` and ``-m``; command-line names win over INPUTQ/INPUTQM in
the table, and a blank or missing queue means the queue manager's DEADQ. The whole table is
validated before anything is opened: a table with errors prints every error (AMQ8758 closes
the list) and processes nothing. SIGINT/SIGTERM end the handler after the message in hand,
with the summary.

Exit codes: 0 ended normally (WAIT or a signal); 10 the queue manager ended under the handler;
20 rules-table errors, no queue manager, or no usable dead-letter queue. AMQ8716/AMQ8717 are
mqpy's own ids for "no DEADQ" and "DLQ cannot be opened" (IBM's texts are not in the seeds).
"""

from __future__ import annotations

import os
import signal
import sys
import threading
from typing import TextIO

import click

import mqpy
from mqpy import CMQC, config, constants
from mqpy.dlq import RulesTable, format_errors, parse_rules
from mqpy.dlq.handler import DeadLetterHandler
from mqpy_cli.usage import IBMCommand

EXIT_OK = 0
EXIT_ENDED = 10
EXIT_ERROR = 20


@click.command(cls=IBMCommand, rc=EXIT_ERROR, ibm_usage=(
    "Usage: runmqdlq [-c] [-f RulesFile] [-q QName] [-m QMgrName] [QName [QMgrName]]"))
@click.argument("qname", required=False)
@click.argument("qmgr_name", required=False)
@click.option("-q", "opt_queue", default=None, help="Dead-letter queue to process.")
@click.option("-m", "opt_qmgr", default=None, help="Queue manager (default: the default one).")
@click.option(
    "-f", "rules_file", type=click.File("r"), default=None, help="Rules table (default stdin)."
)
@click.option("-c", "client", is_flag=True,
              help="Connect as a client (MQSERVER, else the CCDT of MQCCDTURL).")
@click.option("--data-path", default=None, help="Data root (default $MQPY_DATA_PATH).")
@click.pass_context
def runmqdlq(
    ctx: click.Context,
    qname: str | None,
    qmgr_name: str | None,
    opt_queue: str | None,
    opt_qmgr: str | None,
    rules_file: TextIO | None,
    client: bool,
    data_path: str | None,
) -> None:
    """Process the messages on a dead-letter queue as the rules table read from stdin says
    (``-c``: through a client connection)."""
    if qname is not None and opt_queue is not None:
        ctx.command.refuse(ctx, "-q")  # type: ignore[attr-defined] - the queue named twice
    if qmgr_name is not None and opt_qmgr is not None:
        ctx.command.refuse(ctx, "-m")  # type: ignore[attr-defined]
    cmd_queue = qname if qname is not None else opt_queue
    cmd_qmgr = qmgr_name if qmgr_name is not None else opt_qmgr
    if data_path:
        os.environ[config.ENV_DATA_PATH] = config.data_root(data_path)

    text = (rules_file or sys.stdin).read()
    parsed = parse_rules(text)
    if not isinstance(parsed, RulesTable):
        click.echo(format_errors(parsed))
        sys.exit(EXIT_ERROR)
    table = parsed
    queue, qmgr = table.control.resolve_input(cmd_queue, cmd_qmgr)

    try:
        qm = _connect(qmgr or "", client)
    except mqpy.MQMIError as e:
        click.echo(
            f"AMQ8146E: IBM MQ queue manager not available.\n"
            f"Queue manager {qmgr or '(default)'}: reason {e.reason}, "
            f"{constants.reason_name(e.reason)}.",
            err=True,
        )
        sys.exit(EXIT_ERROR)

    stop = threading.Event()
    code = EXIT_OK
    try:
        try:
            # resolve_input's None = the queue manager's DEADQ; "" says exactly that here.
            handler = DeadLetterHandler(qm, table, queue=queue or "")
            handler.open()
        except mqpy.MQMIError as e:
            click.echo(_no_dlq(queue, qm.get_name(), e.reason), err=True)
            sys.exit(EXIT_ERROR)
        previous = {}
        if threading.current_thread() is threading.main_thread():
            for signum in (signal.SIGINT, signal.SIGTERM):
                previous[signum] = signal.signal(signum, lambda *_: stop.set())
        try:
            handler.run(stop)
        except mqpy.MQMIError as e:
            click.echo(
                f"The dead-letter queue handler could not go on: reason {e.reason} "
                f"({constants.reason_name(e.reason)}).",
                err=True,
            )
            code = EXIT_ENDED
        finally:
            for signum, old in previous.items():
                signal.signal(signum, old)
    finally:
        try:
            qm.disconnect()
        except mqpy.Error:
            pass
    sys.exit(code)


def _connect(qmgr: str, client: bool) -> mqpy.QueueManager:
    """A bindings connection, or a client one from MQSERVER / MQCCDTURL (runmqdlq -c)."""
    if not client:
        return mqpy.connect(qmgr)
    qm = mqpy.QueueManager(None)
    qm.connect_with_options(qmgr, opts=CMQC.MQCNO_CLIENT_BINDING)
    return qm


def _no_dlq(queue: str | None, qmgr: str, reason: int) -> str:
    if not queue and reason == CMQC.MQRC_UNKNOWN_OBJECT_NAME:
        return f"AMQ8716E: Queue manager {qmgr} has no dead-letter queue (DEADQ) and none was named."
    return (
        f"AMQ8717E: Dead-letter queue {queue or '(DEADQ)'} on {qmgr} cannot be opened "
        f"(reason {reason}, {constants.reason_name(reason)})."
    )


if __name__ == "__main__":
    runmqdlq()
