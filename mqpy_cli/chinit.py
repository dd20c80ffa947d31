"""runmqchi, runmqlsr and runmqchl: the channel initiator, a listener, one channel.

Each is an MQI application of its queue manager (bindings to the running daemon). Definitions
are read through the command server, so the queue manager's command server must be running
(strmqm starts it).
"""

from __future__ import annotations

import functools
import gc
import os
import signal
import sys
from collections.abc import Callable

import click
import trio

import mqpy
from mqpy import amqmsgs, bindings, config, errorlog, filemodes
from mqpy.channelcommands import INITQ, command_key
from mqpy.fap import mqiparams
from mqpy.qmstatus import CLIENTS_END_FILE, take_flag
from mqpy.security.policy import owner
from mqpy_chinit import lsrcontrol, qmconn, svrconn
from mqpy_chinit.admin import MQSCAdmin
from mqpy_chinit.chinit import ChannelInitiator
from mqpy_chinit.cluster.directory import cache_path
from mqpy_chinit.runmqchl import run_channel
from mqpy_chinit.states import ChannelState, ChannelStatus
from mqpy_cli.reattach import ReattachingAdmin


def _setup(qmgr: str, data_path: str | None) -> tuple[str, str | None]:
    filemodes.restrict_umask()  # (its files, the cluster cache among them: see filemodes)
    if data_path:
        os.environ[config.ENV_DATA_PATH] = config.data_root(data_path)
    name = qmgr or config.default_qmgr(data_path) or ""
    return name, data_path


def _connect(name: str, data_path: str | None, appl_name: str = "runmqchi"):
    try:
        qm = _bind(name, data_path, appl_name)
    except mqpy.MQMIError as e:
        click.echo(f"AMQ8146E: IBM MQ queue manager not available. (reason {e.reason})",
                   err=True)
        sys.exit(20)
    return qm


def _bind(name: str, data_path: str | None, appl_name: str = "runmqchi"):
    """Bindings as the queue manager's own process: the channel initiator asserts its (the
    owner's) identity, so CHCKLOCL does not ask it for a password (as MQ's runmqchi)."""
    qm = mqpy.QueueManager(None)
    qm._conn = bindings.connect(name, data_path,
                                security=mqiparams.ConnSecurity(user=owner()),
                                appl_name=appl_name)
    qm._name = qm._conn.qmgr_name
    return qm


def _error_log(name: str, data_path: str | None):
    """Channel events to the console and to the queue manager's AMQERR01.LOG."""
    qmdir = config.qmgr_dir(name, data_path)
    log = errorlog.ErrorLog(os.path.join(qmdir, "errors"), qmgr=name, program="runmqchi")

    def write(msgid: str, text: str) -> None:
        print(f"{msgid}: {errorlog.printable(text)}", flush=True)
        try:
            log.write_event(msgid, text)
        except (OSError, ValueError) as exc:
            print(f"AMQ6119S: cannot write the error log: {exc}", file=sys.stderr)
    return write


async def _until_signalled(scope: trio.CancelScope,
                           on_signal: Callable[[], object] | None = None) -> None:
    with trio.open_signal_receiver(signal.SIGTERM, signal.SIGINT) as signals:
        async for _ in signals:
            if on_signal is not None:
                on_signal()
            scope.cancel()
            return


def _clients_told(chinit: ChannelInitiator, qmdir: str) -> None:
    """runmqchi ended by its queue manager's end (the daemon wrote how its clients are to
    be told): every SVRCONN instance ends, its client told the queue manager ends, or to
    reconnect (endmqm -r); ended otherwise, its instances just end."""
    told = take_flag(qmdir, CLIENTS_END_FILE)
    if told is not None:
        svrconn.qmgr_ending(chinit, told == "RECONNECT")


def _channel_limits(name: str, data_path: str | None) -> config.ChannelsConfig:
    """qm.ini's Channels numbers, checked as strmqm checks them: a value that is not valid
    (qm.ini edited since strmqm) is AMQ8940E and exit 20, as a queue manager that cannot be
    served."""
    try:
        return config.QMgrConfig.load(name, data_path).channel_limits
    except config.ConfigError as e:
        rendered = amqmsgs.AMQ8940.render({**e.inserts, "qmgr": name})
        print(f"{amqmsgs.AMQ8940.msgid}: {rendered.text}\n{rendered.explanation}",
              file=sys.stderr)
        sys.exit(20)


def _serve(name: str, data_path: str | None, *, serve_initq: bool, listen: list,
           start_listeners: bool) -> None:
    channels = _channel_limits(name, data_path)
    qm = _connect(name, data_path)
    # a listener outlives its queue manager: its questions reattach once it is back; both
    # let go of their connection as their queue manager quiesces (``_let_go``)
    admin = ReattachingAdmin(qm, lambda: _bind(name, data_path))
    log = _error_log(name, data_path)

    def connect_qm():
        """A further connection while running: its failure is an MQ error for the task that
        asked (2059 when the queue manager went ends the channel initiator, logged), never
        an exit from a worker thread."""
        return _bind(name, data_path)

    async def connect_for(security, appl: str = ""):
        """MQCONN for a client conversation: as the user CHLAUTH chose, with its MQCSP; an
        async connection, so that the client's calls need no worker thread here."""
        return await qmconn.connect(name, data_path, security=security,
                                    appl_name=appl or None)

    async def main() -> None:
        chinit = ChannelInitiator(name, connect_qm, admin, log=log, channels=channels,
                                  connect_for=connect_for,
                                  cluster_cache=cache_path(config.qmgr_dir(name, data_path)),
                                  connect_mca=lambda appl: _bind(name, data_path, appl),
                                  command_key=command_key(config.qmgr_dir(name, data_path)))
        chinit.svrconn_handler = svrconn.serve_client
        qmdir = config.qmgr_dir(name, data_path)
        let_go = functools.partial(_let_go, chinit, admin)
        if serve_initq:  # the channel initiator asks the runmqlsr processes (``lsrcontrol``)
            chinit.serves_listeners = qmdir
            chinit.on_quiescing = let_go
        else:
            # a runmqlsr: a channel the operator STOPPED stays STOPPED here (its partners
            # refused) until START CHANNEL, from before its first connection on
            chinit.remembers_states = False  # the channel initiator writes them
            await chinit.restore_stopped()
        async with trio.open_nursery() as nursery:
            nursery.start_soon(_until_signalled, nursery.cancel_scope,
                               functools.partial(_clients_told, chinit, qmdir)
                               if serve_initq else None)

            async def run_chinit(task_status=trio.TASK_STATUS_IGNORED) -> None:
                await chinit.run(listen, serve_initq=serve_initq,
                                 start_listeners=start_listeners, task_status=task_status)
                nursery.cancel_scope.cancel()  # it ended (its queue manager went): so do we

            try:
                await nursery.start(run_chinit)
            except* OSError as failed:  # the listener's port or address cannot be used
                _cannot_bind(log, listen, _first_leaf(failed))
                unserved.append(True)
            if unserved:
                nursery.cancel_scope.cancel()
                return
            if not serve_initq:  # a runmqlsr: its instances answer the channel initiator
                await nursery.start(functools.partial(
                    lsrcontrol.serve, chinit, lsrcontrol.socket_path(qmdir), log))
                svrconn.watch_from_the_start(nursery, chinit, qmdir, let_go)
            for port in chinit.ports:
                print(f"AMQ8021I: Request to start IBM MQ listener accepted (port {port}).",
                      flush=True)
            _leave_to_the_end()  # what its start made lives until it ends

    unserved: list[bool] = []
    try:
        trio.run(main)
    finally:
        admin.close()
        try:
            qm.disconnect()
        except (mqpy.MQMIError, mqpy.PYIFError):  # (a runmqlsr may have let it go)
            pass
        _leave_to_the_end()
    if unserved:
        sys.exit(20)


def _let_go(chinit: ChannelInitiator, admin: ReattachingAdmin) -> None:
    """The queue manager quiesces (or ends), in a worker thread: the process's own
    connection let go of, so that runmqchi or runmqlsr holds no controlled end (its next
    question reattaches; a connection that arrives meanwhile is served by the definitions
    its listener read before, ``listener``: refused as the queue manager refuses an MQCONN);
    a runmqlsr's message channels end too, as runmqchi's do as it quiesces."""
    if chinit.serves_listeners is None:  # a runmqlsr
        trio.from_thread.run_sync(chinit.end_message_channels)
    admin.release()


def _leave_to_the_end() -> None:
    """What is alive now lives until the process ends: out of the cyclic garbage collector's
    reach (``gc.freeze``), so that neither its later collections nor the interpreter's at the
    exit walk it again (at the exit they would walk every object left: a fifth of a short
    run's CPU). Called once the channel initiator or listener serves, and as it ends."""
    gc.freeze()


def _first_leaf(group: BaseException) -> BaseException:
    while isinstance(group, BaseExceptionGroup):
        group = group.exceptions[0]
    return group


def _cannot_bind(log, listen: list, exc: BaseException) -> None:
    """AMQ9218E (IBM's text for a listener that cannot bind), with the system's reason."""
    ports = ", ".join(str(port) for _, port in listen) or "?"
    log("AMQ9218E", f"The TCP/IP listener program could not bind to port number {ports}. "
                    f"({getattr(exc, 'strerror', None) or exc})")


@click.command(context_settings={"help_option_names": ["-h", "--help"]})
@click.option("-m", "qmgr", default="")
@click.option("-q", "initq", default=INITQ)
@click.option("--data-path", default=None)
def runmqchi(qmgr: str, initq: str, data_path: str | None) -> None:
    """The channel initiator: listeners with CONTROL(QMGR), triggered and commanded channels."""
    name, data_path = _setup(qmgr, data_path)
    _serve(name, data_path, serve_initq=True, listen=[], start_listeners=True)


@click.command(context_settings={"help_option_names": ["-h", "--help"]})
@click.option("-t", "trptype", default="tcp", type=click.Choice(["tcp", "TCP"]))
@click.option("-p", "port", default=1414, type=click.IntRange(0, 65535))
@click.option("-i", "ipaddr", default="")
@click.option("-m", "qmgr", default="")
@click.option("--data-path", default=None)
def runmqlsr(trptype: str, port: int, ipaddr: str, qmgr: str, data_path: str | None) -> None:
    """A TCP listener: inbound channels become receiving MCAs."""
    name, data_path = _setup(qmgr, data_path)
    _serve(name, data_path, serve_initq=False, listen=[(ipaddr, port)], start_listeners=False)


@click.command(context_settings={"help_option_names": ["-h", "--help"]})
@click.option("-c", "channel", required=True)
@click.option("-m", "qmgr", default="")
@click.option("--data-path", default=None)
def runmqchl(channel: str, qmgr: str, data_path: str | None) -> None:
    """Run one sending channel in the foreground until it ends."""
    name, data_path = _setup(qmgr, data_path)
    channels = _channel_limits(name, data_path)
    qm = _connect(name, data_path)
    admin = MQSCAdmin(qm)
    definition = admin.channel(channel)
    if definition is None:
        click.echo(f"AMQ9519E: Channel '{channel}' not found.", err=True)
        sys.exit(20)
    log = _error_log(name, data_path)

    async def main() -> int:
        chinit = ChannelInitiator(name, lambda: _connect(name, data_path), admin, log=log,
                                  channels=channels)
        err = None  # (a signal ends the run with the channel's state as it is)
        async with trio.open_nursery() as nursery:
            nursery.start_soon(_until_signalled, nursery.cancel_scope)
            chinit.nursery = nursery
            chinit.statuses[channel] = ChannelStatus(channel, str(definition.get("CHLTYPE")))
            err = await run_channel(chinit, channel)  # until the channel has ended
            nursery.cancel_scope.cancel()
        if err:
            click.echo(err, err=True)
            return 20
        return _return_code(chinit.statuses[channel])

    code = trio.run(main)
    admin.close()
    sys.exit(code)


def _return_code(status: ChannelStatus) -> int:
    """runmqchl's return code, IBM's: 0 the channel ended normally (INACTIVE), 10 an operator
    stopped it (STOP CHANNEL), 20 it ended in error (STOPPED by an error, retries spent)."""
    if status.state is not ChannelState.STOPPED:
        return 0
    return 10 if status.stop_requested else 20


if __name__ == "__main__":
    runmqchi()
