"""runmqsc, strmqcsv, endmqcsv, dspmqcsv.

runmqsc reads MQSC from standard input and prints IBM's report. Without ``-v`` it connects
to the queue manager (``-m`` names the local one when ``-w`` sends to a remote one), opens a
temporary dynamic reply queue from SYSTEM.MQSC.REPLY.QUEUE, and sends every command as an
MQCMD_ESCAPE PCF message to SYSTEM.ADMIN.COMMAND.QUEUE, where the command server runs it.
Syntax is checked here first, so ``-v`` needs no queue manager. Exit codes as IBM: 0 every
command processed, 10 some had errors, 20 nothing could be run (AMQ8146E).

The client side of that exchange is :class:`mqpy.mqsc.client.MQSCClient`, which the channel
initiator uses too; :func:`run_local` runs the same path in-process, against an embedded engine
and a command-server thread.
"""

from __future__ import annotations

import atexit
import gc
import os
import signal
import sys
import time
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, Any

import click

from mqpy import CMQC, config, filemodes, localqmgrs
from mqpy.command import COMMAND_QUEUE
from mqpy.errors import MQMIError
from mqpy.mqsc.messages import message
from mqpy.mqsc.results import Result
from mqpy.mqsc.transcript import EXIT_FAILED, run_transcript, transcript_head
from mqpy_cli.usage import IBMCommand

#: a control command's process ends soon after it starts, its imports' objects alive until
#: then: at its exit the interpreter's collections would walk them all for the few that are
#: garbage (a tenth of dspmq's CPU). They are left to the process's end (``gc.freeze``).
atexit.register(gc.freeze)

if TYPE_CHECKING:
    from mqpy.mqi import QueueManager

__all__ = ["dspmqcsv", "endmqcsv", "run_client", "run_local", "runmqsc",
           "strmqcsv"]

#: how long local runmqsc waits for each answer (IBM waits for the command server).
LOCAL_WAIT = 60


def _connect(name: str, data_path: str | None, user: str | None = None,
             password: str | None = None, client: bool = False) -> QueueManager:
    """A bindings connection, or with ``client`` (runmqsc -c) a client connection through
    MQSERVER or MQCCDTURL; MQRC_Q_MGR_NOT_AVAILABLE if the queue manager is not reachable.
    ``user`` / ``password``: runmqsc -u, an MQCSP checked by CONNAUTH."""
    # the MQI (its structures, properties, the bindings and client flows) is imported by
    # the commands that connect: runmqsc -v checks the syntax without it
    from mqpy.mqi import QueueManager

    if client:
        qm = QueueManager(None)
        qm.connect_with_options(name, user=user, password=password,
                                opts=CMQC.MQCNO_CLIENT_BINDING)
        return qm
    if not name:
        raise MQMIError(CMQC.MQCC_FAILED, CMQC.MQRC_Q_MGR_NOT_AVAILABLE)
    if data_path and user is None and localqmgrs.running(name, data_path) is not None:
        # an engine runs in this process (run_local): its modules are loaded already
        from mqpy.embedding import embedded

        return embedded(name, data_path=data_path, create=False)
    qm = QueueManager(None)
    qm.connect(name, data_path=data_path, user=user, password=password)  # bindings (strmqm)
    return qm


def run_client(qmgr_name: str, source: str | Iterable[str], *, verify: bool = False,
               echo: bool = True, wait: float | None = None, local_qmgr: str | None = None,
               data_path: str | None = None, emit: Callable[[str], None] | None = None,
               user: str | None = None, password: str | None = None, client: bool = False
               ) -> tuple[list[str], int]:
    """runmqsc's work: the report lines and the exit code (``client``: runmqsc -c)."""
    out: list[str] = []

    def say(line: str) -> None:
        out.append(line)
        if emit is not None:
            emit(line)

    for line in transcript_head(qmgr_name):
        say(line)
    if verify:
        _, code = run_transcript(source, lambda c: Result([]), verify_only=True, echo=echo,
                                 emit=say)
        return out, code
    target = (local_qmgr or config.default_qmgr(data_path) or "") if wait else qmgr_name
    try:
        qm = _connect(target, data_path, user, password, client)
    except MQMIError as e:
        if e.reason == CMQC.MQRC_NOT_AUTHORIZED:
            say(message("AMQ8135E"))  # [C] IBM's line, as runmqsc prints it
        else:
            say(message("AMQ8146E"))
        return out, EXIT_FAILED
    from mqpy.mqsc.client import MQSCClient  # with the MQI (see _connect)

    try:
        client = MQSCClient(qm, remote_qmgr=qmgr_name if wait else "",
                            wait=wait or LOCAL_WAIT)
    except MQMIError:
        say(message("AMQ8146E"))
        qm.disconnect()
        return out, EXIT_FAILED
    try:
        _, code = run_transcript(source, client.execute, echo=echo, emit=say)
    finally:
        client.close()
        qm.disconnect()
    return out, code


def run_local(engine: Any, text: str | Iterable[str], *, verify_only: bool = False,
              echo: bool = True) -> tuple[list[str], int]:
    """runmqsc against an engine running in this process, through a command-server thread
    (started for the call unless one already runs)."""
    # the command server's side, imported only here: runmqsc itself sends to the daemon's
    from mqpy.cmdserver import command_server_status, start_command_server, stop_command_server

    root = os.path.dirname(os.path.dirname(engine.qmdir))
    started = command_server_status(engine.name, root) != "Running"
    if started and not verify_only:
        start_command_server(engine.name, root)
    try:
        return run_client(engine.name, text, verify=verify_only, echo=echo, data_path=root)
    finally:
        if started and not verify_only:
            stop_command_server(engine.name, root)


# ---------------------------------------------------------------------- click commands


@click.command(cls=IBMCommand, rc=EXIT_FAILED, ibm_usage=(
    "Usage: runmqsc [-c] [-e] [-v] [-u UserId] [-w WaitTime] [-m LocalQMgrName] [QMgrName]"))
@click.option("-c", "client", is_flag=True,
              help="Connect as a client (MQSERVER, else the CCDT of MQCCDTURL).")
@click.option("-v", "verify", is_flag=True, help="Verify the commands only; run nothing.")
@click.option("-e", "no_echo", is_flag=True, help="Do not echo the input commands.")
@click.option("-w", "wait", type=click.IntRange(1, 999999), default=None,
              help="Run on a remote queue manager, waiting this many seconds per reply.")
@click.option("-m", "local_qmgr", default=None,
              help="With -w: the local queue manager to send through.")
@click.option("--data-path", default=None, envvar=config.ENV_DATA_PATH,
              help="Data root of the queue managers.")
@click.option("-u", "user", default=None,
              help="Connect as this user (its password: prompted, or the first input line).")
@click.argument("qmgr", required=False)
def runmqsc(client: bool, verify: bool, no_echo: bool, wait: int | None,
            local_qmgr: str | None, data_path: str | None, user: str | None,
            qmgr: str | None) -> None:
    """Run MQSC commands read from standard input (without a queue manager name: the
    default one, or as a client whichever MQSERVER reaches)."""
    name = qmgr or ("" if client else config.default_qmgr(data_path) or "")
    stdin = sys.stdin
    password = None
    if user is not None:  # as IBM's runmqsc -u: redirected input starts with the password
        password = (click.prompt("Enter password", hide_input=True, err=True)
                    if stdin.isatty() else stdin.readline().rstrip("\r\n"))
    _, code = run_client(name, stdin, verify=verify, echo=not no_echo, wait=wait,
                         local_qmgr=local_qmgr, data_path=data_path, emit=click.echo,
                         user=user, password=password, client=client)
    sys.exit(code)


def _command_server_running(qm: QueueManager) -> bool:
    from mqpy.mqi import Queue  # with the connection (see _connect)

    q = Queue(qm, COMMAND_QUEUE, CMQC.MQOO_INQUIRE)
    try:
        return bool(q.inquire(CMQC.MQIA_OPEN_INPUT_COUNT))
    finally:
        q.close()


def _connect_or_end(qmgr: str, data_path: str | None) -> QueueManager:
    """The command-server commands' connection; AMQ8146E and exit 40 when there is none."""
    try:
        return _connect(qmgr, data_path)
    except MQMIError:
        click.echo(message("AMQ8146E"))
        sys.exit(40)


def _wake_daemon(qmdir: str) -> None:
    """SIGUSR2 to the queue manager's process (the pid in qm.lock, when it is the daemon's:
    an embedded queue manager's process would end by it): it reads the control file now
    (``mqpy.daemon``); one that cannot be signalled reads it at its next look."""
    try:
        with open(os.path.join(qmdir, "qm.lock"), encoding="ascii") as f:
            pid = int(f.read().split()[0])
        with open(f"/proc/{pid}/cmdline", "rb") as f:
            if b"mqpy.daemon" in f.read().split(b"\0"):
                os.kill(pid, signal.SIGUSR2)
    except (OSError, ValueError, IndexError):
        pass


def _control_command_server(qmgr: str, data_path: str | None, want: str) -> None:
    """strmqcsv / endmqcsv: ask the daemon (through its control file) and wait for it."""
    qm = _connect_or_end(qmgr, data_path)
    try:
        if _command_server_running(qm) == (want == "START"):
            click.echo(f"AMQ8{'026' if want == 'START' else '025'}I: IBM MQ command server "
                       f"{'already running' if want == 'START' else 'not running'}.")
            sys.exit(0)
        qmdir = config.qmgr_dir(qmgr, data_path)
        with filemodes.open_file(os.path.join(qmdir, "cmdserver.ctl"), "w") as f:
            f.write(want + "\n")
        _wake_daemon(qmdir)
        deadline = time.monotonic() + 15
        while _command_server_running(qm) != (want == "START"):
            if time.monotonic() > deadline:
                click.echo("AMQ8102E: IBM MQ command server did not respond in time.")
                sys.exit(71)
            time.sleep(0.1)
        click.echo("AMQ8024I: IBM MQ command server started." if want == "START"
                   else "AMQ8028I: IBM MQ command server ended.")
    finally:
        qm.disconnect()


@click.command()
@click.option("--data-path", default=None, envvar=config.ENV_DATA_PATH)
@click.argument("qmgr")
def strmqcsv(data_path: str | None, qmgr: str) -> None:
    """Start the command server of QMGR (run by its daemon)."""
    _control_command_server(qmgr, data_path, "START")


@click.command()
@click.option("--data-path", default=None, envvar=config.ENV_DATA_PATH)
@click.argument("qmgr")
def endmqcsv(data_path: str | None, qmgr: str) -> None:
    """End the command server of QMGR."""
    _control_command_server(qmgr, data_path, "STOP")


@click.command()
@click.option("--data-path", default=None, envvar=config.ENV_DATA_PATH)
@click.argument("qmgr")
def dspmqcsv(data_path: str | None, qmgr: str) -> None:
    """Display the status of QMGR's command server."""
    qm = _connect_or_end(qmgr, data_path)
    try:
        state = "Running" if _command_server_running(qm) else "Stopped"
    finally:
        qm.disconnect()
    click.echo(f"AMQ8027I: IBM MQ Command Server Status ..: {state}")
