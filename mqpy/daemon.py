"""The queue-manager process: ``python -m mqpy.daemon QMGR [--data-path DIR] [--ready-fd N]``.

``strmqm`` starts this detached; it can also run in the foreground. It owns the queue manager's
directory while it runs (``inprocess.start`` takes the ``qm.lock`` flock), restarts the engine from
its pagesets and log, serves the MQI on ``<qmgr dir>/qm.sock`` (``mqpy.bindings_listener``), and writes
the error-log entries an operator looks for: AMQ8003I when started, AMQ8004I when ended, AMQ7017S
/ AMQ7002S naming the damaged log or pageset file when restart is refused, and an FDC with
AMQ6184W for anything unexpected (``errorlog.fdc_guard``: never a Python traceback).

Ending, as ``endmqm`` asks through signals to the pid in ``qm.lock``:

- SIGUSR1: controlled end (``endmqm -c`` / ``-w``). The engine quiesces; the process ends once
  the last application has disconnected.
- SIGTERM / SIGINT: immediate end (``endmqm -i``). Connections are broken, units of work are
  backed out, a checkpoint is taken.
- Either way the client channels tell their clients the queue manager ends, so that
  reconnectable ones do not reconnect; or, when endmqm -r wrote ``qm.endreconnect``, to
  reconnect (``mqpy_chinit.svrconn.qmgr_ending``). A controlled end tells them as it
  begins too (``svrconn.qmgr_quiescing``), as IBM's endmqm -c stands for STOP CHANNEL
  MODE(QUIESCE). The client host's instances are told here; runmqchi's and runmqlsr's read
  the word written in ``qm.clients`` (``qmstatus.CLIENTS_FILE``).
- SIGKILL (``endmqm -p`` after its grace period): nothing runs; the next start recovers.

``qm.status`` in the queue-manager directory records the life cycle for ``dspmq`` (Starting,
Running, Quiescing, Ended normally / immediately / unexpectedly / pre-emptively). With
``--ready-fd``, the process reports to the starting command through that pipe: error messages
as lines, then ``READY`` once the socket accepts connections.

Services (``DEFINE SERVICE``) are this process's children: CONTROL(QMGR) and STARTONLY
ones start once the socket serves, CONTROL(QMGR) ones are stopped at the end
(``mqpy.services``).

Checkpoints and the periodic expiry scan run in the engine's own thread. The command server
runs here, in a thread (:func:`_start_command_server`); the channel initiator is a separate
process (runmqchi), started and restarted here. With qm.ini ``Channels: MQIBindType=FASTPATH``
this process also serves the plain SVRCONN connections its channel initiator's listener hands
over (the channel initiator's client host, found through ``mqpy.extensions``): their
conversations are this process's, ending with it.
"""

from __future__ import annotations

import argparse
import gc
import importlib.util
import os
import signal
import subprocess
import sys
from collections.abc import Callable, Mapping
from typing import IO, TYPE_CHECKING, Any

import trio

from mqpy import (
    CMQC,
    amqmsgs,
    config,
    errorlog,
    events,
    extensions,
    filemodes,
    inprocess,
    outfiles,
    services,
)
from mqpy.bindings_listener import BindingsServer
from mqpy.engine import recoverylog
from mqpy.engine.log import LogCorrupt
from mqpy.engine.logreplay import ReplayProgress, progress_after
from mqpy.engine.pageset import PagesetError
from mqpy.errors import MQMIError
from mqpy.monitor.publisher import publish_resource_statistics
from mqpy.mqi import attach
from mqpy.pcf import PCFMessage
from mqpy.programs import program
from mqpy.qmstatus import (
    CLIENTS_END_FILE,
    CLIENTS_FILE,
    END_RECONNECT_FILE,
    QUIESCING,
    describe_status,
    read_flag,
    read_status,
    take_flag,
    write_flag,
    write_status,
)
from mqpy.security import policy
from mqpy.stats.collector import start_statistics

if TYPE_CHECKING:
    from mqpy.engine.qmgr import QueueManagerEngine

__all__ = [
    "EXIT_CONFIG",
    "EXIT_LOG_NOT_AVAILABLE",
    "EXIT_NOT_EXIST",
    "EXIT_RUNNING",
    "READY",
    "main",
]

#: IBM's strmqm return codes.
EXIT_RUNNING = 5
EXIT_NOT_EXIST = 16
EXIT_LOG_NOT_AVAILABLE = 23
EXIT_UNEXPECTED = errorlog.EXIT_UNEXPECTED  # 71
EXIT_CONFIG = 39  #: strmqm's "invalid parameter": a qm.ini value it cannot start with

READY = "READY"
#: the prefix of a progress line on the ready pipe, before the message's id and text (shown
#: at once by the starter)
PROGRESS = "PROGRESS "
PROGRAM = "mqpy.daemon"

#: Console lines IBM's control commands print (no message id on the running case).
MSG_RUNNING = "IBM MQ queue manager running."
MSG_NOT_EXIST = "AMQ8118E: IBM MQ queue manager does not exist."
#: said to strmqm (which still reports the queue manager started: it serves) when the channel
#: initiator it starts did not come up
MSG_CHINIT_NOT_STARTED = ("AMQ9570E: The channel initiator of queue manager '{qmgr}' did not "
                          "start; see errors/runmqchi.out and AMQERR01.LOG in the queue "
                          "manager's directory. The queue manager goes on trying to start it.")


class _Console:
    """Where the process tells its starter what happened: the ready pipe, else stderr."""

    def __init__(self, ready_fd: int | None) -> None:
        self.stream: IO[str] = (os.fdopen(ready_fd, "w", buffering=1, encoding="utf-8")
                                if ready_fd is not None else sys.stderr)
        self.piped = ready_fd is not None

    def say(self, line: str) -> None:
        try:
            print(line, file=self.stream, flush=True)
        except (OSError, ValueError):
            pass  # the starter has gone; the error log still has it

    def ready(self) -> None:
        if self.piped:
            self.say(READY)
            self.close()

    def close(self) -> None:
        if self.piped and not self.stream.closed:
            try:
                self.stream.close()
            except OSError:
                pass


def _replay_progress(name: str, log: errorlog.ErrorLog, console: _Console) -> ReplayProgress:
    """A long log replay's progress (AMQ7229I, AMQ7230I): in the error log, and on the
    starter's console as PROGRESS lines (strmqm shows them while it waits)."""

    def say(message: amqmsgs.AMQMessage, inserts: Mapping[str, object]) -> None:
        log.write(message, inserts=inserts)
        text = message.render({**inserts, "qmgr": name}).text
        console.say(f"{PROGRESS}{message.msgid} {text}")

    return ReplayProgress(say, after=progress_after(os.environ))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m mqpy.daemon",
                                     description="Run a queue manager (started by strmqm).")
    parser.add_argument("qmgr")
    parser.add_argument("--data-path", default=None)
    parser.add_argument("--ready-fd", type=int, default=None)
    args = parser.parse_args(argv)
    filemodes.restrict_umask()  # (and the channel initiator's and services' too, children)
    # strmqcsv's SIGUSR2 before the task that reads it runs, or after, is no end: a handler
    # (not SIG_IGN, which the children would inherit) that does nothing
    signal.signal(signal.SIGUSR2, _no_action)
    console = _Console(args.ready_fd)
    try:
        return _main(args.qmgr, args.data_path, console)
    except KeyboardInterrupt:
        return 1
    finally:
        console.close()
        _leave_to_the_end()


def _no_action(signum: int, frame: object) -> None:
    """A signal this process takes and does nothing with."""


def _leave_to_the_end() -> None:
    """What is alive now lives until the process ends: out of the cyclic garbage collector's
    reach (``gc.freeze``), so that neither its later collections nor the interpreter's at the
    exit walk it again. Called once the queue manager serves (its start's modules, classes
    and catalogue) and as the process ends (at its exit the collections would otherwise walk
    every object left, a fifth of a short run's CPU)."""
    gc.freeze()


def _main(name: str, root: str | None, console: _Console) -> int:
    if root:  # for what reads the data root from the environment (trace, its children)
        os.environ[config.ENV_DATA_PATH] = config.data_root(root)
    qmdir = config.qmgr_dir(name, root)
    if not os.path.exists(os.path.join(qmdir, "pageset00")):
        console.say(MSG_NOT_EXIST)
        return EXIT_NOT_EXIST
    if inprocess.is_locked(qmdir):
        console.say(MSG_RUNNING)
        return EXIT_RUNNING
    errdir = os.path.join(qmdir, "errors")
    log = errorlog.ErrorLog(errdir, qmgr=name, program=PROGRAM)
    with errorlog.fdc_guard(errdir, "XC130001", PROGRAM, qmgr=name, errorlog=log,
                            stream=console.stream):
        return _run(name, root, qmdir, log, console)


def _run(name: str, root: str | None, qmdir: str, log: errorlog.ErrorLog,
         console: _Console) -> int:

    previous = read_status(qmdir)
    try:
        qmini = config.QMgrConfig.load(name, root)  # checked before anything starts
    except config.ConfigError as e:
        entry = amqmsgs.AMQ8940
        log.write(entry, inserts=e.inserts)
        rendered = entry.render({**e.inserts, "qmgr": name})
        console.say(f"{entry.msgid}: {rendered.text}")
        console.say(rendered.explanation)
        return EXIT_CONFIG
    if _refuse_exposed(name, qmdir, qmini.log_dir, log, console):
        return EXIT_UNEXPECTED
    write_status(qmdir, "Starting")
    try:
        with recoverylog.watching_replay(_replay_progress(name, log, console)):
            eng = inprocess.start(name, root)
    except MQMIError as e:
        write_status(qmdir, previous or "Ended immediately")
        if e.reason == CMQC.MQRC_Q_MGR_NOT_AVAILABLE:  # qm.lock taken since we looked
            console.say(MSG_RUNNING)
            return EXIT_RUNNING
        console.say(MSG_NOT_EXIST)
        return EXIT_NOT_EXIST
    except LogCorrupt as e:
        write_status(qmdir, "Ended unexpectedly")
        entry = amqmsgs.AMQ7017
        log.write(entry, inserts={"offset": e.offset, "lsn": e.lsn, "logfile": e.path})
        console.say(f"{entry.msgid}: {entry.text}")
        console.say(entry.render({"offset": e.offset, "lsn": e.lsn, "logfile": e.path,
                                  "qmgr": name}).explanation)
        return EXIT_LOG_NOT_AVAILABLE
    except PagesetError as e:
        write_status(qmdir, "Ended unexpectedly")
        entry = amqmsgs.AMQ7002
        inserts = {"offset": 0, "path": e.path, "detail": e.detail}
        log.write(entry, inserts=inserts)
        console.say(f"{entry.msgid}: {entry.text}")
        console.say(entry.render({**inserts, "qmgr": name}).explanation)
        return EXIT_UNEXPECTED
    end = "immediate"
    try:
        _install_security(eng)
        log.write(amqmsgs.AMQ8003, inserts={"vrmf": errorlog.VRMF})
        write_status(qmdir, "Running")
        end = _serve(eng, root, qmdir, console,
                     log if qmini.channel_limits.fastpath else None,
                     peer_limits=qmini.channel_limits.peer)
    finally:
        write_status(qmdir, QUIESCING if end == "controlled" else "Ending immediately")
        inprocess.stop(name, root)
        log.write(amqmsgs.AMQ8004)
        write_status(qmdir, {"controlled": "Ended normally",
                             "failed": "Ended unexpectedly"}.get(end, "Ended immediately"))
    return EXIT_UNEXPECTED if end == "failed" else 0


def _refuse_exposed(name: str, qmdir: str, log_dir: str, log: errorlog.ErrorLog,
                    console: _Console) -> bool:
    """Does the queue manager's data let others read or write it (``filemodes.exposed``)?
    Then it does not start: AMQ7001S names the first such path and its mode."""
    found = filemodes.exposed(qmdir, log_dir)
    if not found:
        return False
    path, mode = found[0]
    more = f", and {len(found) - 1} more paths" if len(found) > 1 else ""
    entry = amqmsgs.AMQ7001
    inserts = {"path": path, "mode": f"{mode:04o}", "more": more}
    log.write(entry, inserts=inserts)
    console.say(f"{entry.msgid}: {entry.text}")
    console.say(entry.render({**inserts, "qmgr": name}).explanation)
    return True


def _install_security(eng: QueueManagerEngine) -> None:
    """Security is always on, as in MQ; what it checks is MQSC's business: QMGR CONNAUTH
    names an AUTHINFO (CHCKLOCL / CHCKCLNT), QMGR CHLAUTH(ENABLED|DISABLED) switches the
    channel authentication records, setmqaut grants object authorities. The first start
    creates IBM's defaults (``mqpy.security.policy.ensure_defaults``); the owner is in mqm."""
    policy.install(eng)


def _serve(eng: QueueManagerEngine, root: str | None, qmdir: str, console: _Console,
           fastpath_log: errorlog.ErrorLog | None = None,
           peer_limits: config.PeerLimits | None = None) -> str:
    """Serve the socket until endmqm; return how it ended ("controlled" or "immediate").
    With ``fastpath_log`` (qm.ini MQIBindType=FASTPATH) the client host serves the plain
    SVRCONN sockets the channel initiator hands over, logging there."""

    outcome = {"end": "immediate"}

    async def serve() -> None:
        server = BindingsServer(eng, limits=peer_limits)
        async with trio.open_nursery() as nursery:
            await nursery.start(server.run)
            # the channel initiator's process starts as soon as it can connect, so that its
            # start (its imports: a third of a second of CPU) runs beside this process's
            # next steps. It reads its definitions, its listeners among them, through the
            # command server, which starts after the client host: a listener it starts
            # finds the host for its first hand-off.
            chinit = {"proc": _start_chinit(eng.name, root, qmdir)}
            host = await _start_client_host(eng, qmdir, fastpath_log, nursery,
                                            peer_limits)
            stop_command_server = _start_command_server(eng.name, root)
            csv = {"stop": stop_command_server}
            nursery.start_soon(_watch_command_server_requests, eng, root, qmdir, csv)
            stop_statistics = _start_statistics(eng)
            nursery.start_soon(publish_resource_statistics, eng)
            nursery.start_soon(_watch_engine, eng, outcome, nursery.cancel_scope)
            if not await _chinit_ready(eng, chinit["proc"]) and chinit["proc"] is not None:
                console.say(MSG_CHINIT_NOT_STARTED.format(qmgr=eng.name))
            if chinit["proc"] is not None:
                nursery.start_soon(_watch_chinit, eng, root, qmdir, chinit)
            # CONTROL(QMGR) and STARTONLY services, once applications can connect
            await trio.to_thread.run_sync(_start_services, eng)
            _start_stop_event(eng, events.queue_manager_active(eng.name))
            take_flag(qmdir, END_RECONNECT_FILE)  # (one left by an end that never read it)
            write_flag(qmdir, CLIENTS_FILE, None)  # (the last end's word to the clients)
            try:
                with trio.open_signal_receiver(signal.SIGTERM, signal.SIGINT,
                                               signal.SIGUSR1) as signals:
                    _leave_to_the_end()
                    console.ready()
                    async for signum in signals:
                        if signum != signal.SIGUSR1:
                            outcome["end"] = "immediate"
                            _start_stop_event(eng, events.queue_manager_not_active(
                                eng.name, quiescing=False))
                            break
                        if outcome["end"] != "controlled":
                            outcome["end"] = "controlled"
                            _start_stop_event(eng, events.queue_manager_not_active(
                                eng.name, quiescing=True))
                            # the clients' word first: runmqchi, ending as the engine
                            # quiesces, tells its clients what it says
                            reconnect = _clients_quiescing(qmdir)
                            eng.quiesce()
                            write_status(qmdir, QUIESCING)
                            if host is not None:
                                host.qmgr_quiescing(reconnect)
                            # services end as the end begins: a connected one (a trigger
                            # monitor) would otherwise hold the controlled end for ever
                            nursery.start_soon(trio.to_thread.run_sync, _stop_services, eng)
                            nursery.start_soon(_end_when_idle, server, host,
                                               nursery.cancel_scope)
            finally:
                # the clients told the queue manager ends (not when it fails: they
                # reconnect then, as after a crash), reconnecting ones to reconnect or not
                # as endmqm said (-r), each as its channel instance ends
                told = _clients_told(qmdir, outcome["end"])
                if host is not None and told is not None:
                    host.qmgr_ending(told == "RECONNECT")
                if told is not None:  # runmqchi's and runmqlsr's instances
                    write_flag(qmdir, CLIENTS_FILE, f"ENDING {told}")
                # CONTROL(QMGR) services end first, while this loop still serves their
                # stop programs' MQI calls
                with trio.CancelScope(shield=True):
                    await trio.to_thread.run_sync(_stop_services, eng)
                proc, chinit["proc"] = chinit["proc"], None
                # in a worker thread: the channel initiator's last MQI calls (its MQDISC
                # among them) need this event loop to answer them while it ends; it tells
                # its own clients what the file written here says
                write_flag(qmdir, CLIENTS_END_FILE, told)
                with trio.CancelScope(shield=True):
                    await trio.to_thread.run_sync(_stop_chinit, proc)
                write_flag(qmdir, CLIENTS_END_FILE, None)
                stop_statistics()
                if csv["stop"] is not None:
                    csv["stop"]()
            server.ending = True  # the connections left are ended by the queue manager
            nursery.cancel_scope.cancel()

    trio.run(serve)
    return outcome["end"]


def _clients_quiescing(qmdir: str) -> bool:
    """A controlled end begins: the word for runmqchi's and runmqlsr's client channel
    instances written (``qm.clients``: they tell their clients and go on); whether they are
    to reconnect (endmqm -r), for the client host's."""
    reconnect = read_flag(qmdir, END_RECONNECT_FILE) is not None
    write_flag(qmdir, CLIENTS_FILE, "QUIESCING " + ("RECONNECT" if reconnect else "QUIESCE"))
    return reconnect


def _clients_told(qmdir: str, end: str) -> str | None:
    """How the clients are told the queue manager ends: "RECONNECT" after ``endmqm -r``
    (its ``qm.endreconnect`` taken here), "QUIESCE" after another endmqm, None when the
    queue manager failed (``end``)."""
    reconnect = take_flag(qmdir, END_RECONNECT_FILE) is not None
    if end == "failed":
        return None
    return "RECONNECT" if reconnect else "QUIESCE"


def _start_stop_event(eng: QueueManagerEngine, msg: PCFMessage) -> None:
    """A start or stop event on SYSTEM.ADMIN.QMGR.EVENT while STRSTPEV is ENABLED; one that
    cannot be put is lost, as IBM's, and the queue manager goes on."""
    if not events.start_stop_enabled(eng.catalog.qmgr):
        return
    try:
        qm = attach(eng)
    except MQMIError:  # the engine stopped (its log failed): _watch_engine ends the daemon
        return
    try:
        events.put_event(qm, msg)
    finally:
        qm.disconnect()


async def _watch_engine(eng: QueueManagerEngine, outcome: dict, scope: Any) -> None:
    """A log that cannot be written stops the engine (AMQ6119S, every call 2009): the queue
    manager then ends, "Ended unexpectedly", rather than serve nothing but 2009. The engine
    tells of its log's failures (``on_log_failure``, in the thread that met it): this task
    sleeps until one stops it."""
    stopped = trio.Event()
    token = trio.lowlevel.current_trio_token()
    told = eng.data.on_log_failure

    def on_log_failure(exc: Exception) -> None:
        if told is not None:
            told(exc)  # the engine's own: AMQ6708, or AMQ6119 and the stop
        if eng.failed is not None:
            try:
                token.run_sync_soon(stopped.set)
            except trio.RunFinishedError:
                pass  # the daemon's loop has ended already

    eng.data.on_log_failure = on_log_failure
    try:
        if eng.failed is None:  # (looked at after the hook is in place: none is missed)
            await stopped.wait()
    finally:
        eng.data.on_log_failure = told
    outcome["end"] = "failed"
    scope.cancel()


async def _end_when_idle(server: Any, host: Any, scope: Any) -> None:
    """A controlled end: once no application is connected, through the bindings socket or
    as a client the client host serves."""
    await server.wait_idle()
    if host is not None:
        await host.wait_idle()
        await server.wait_idle()  # (one may have connected meanwhile)
    scope.cancel()


async def _start_client_host(eng: QueueManagerEngine, qmdir: str, log: errorlog.ErrorLog | None,
                             nursery: Any, peer_limits: config.PeerLimits | None = None) -> Any:
    """MQIBindType=FASTPATH (``log`` given): the client host on ``qm.fastpath.sock``,
    serving in this event loop, beside the bindings socket; None with STANDARD, and when no
    channel initiator is installed to provide one (:data:`extensions.CLIENT_HOST`; logged).
    Its conversations end with the queue manager (their units of work backed out), not with
    the channel initiator: a channel initiator that ends or is killed leaves its handed-over
    clients connected, as IBM's running channels outlive runmqchi.
    ``peer_limits``: qm.ini's limits on unauthenticated peers, for the clients it serves."""
    if log is None:
        return None
    client_host = extensions.find(extensions.CLIENT_HOST)
    if client_host is None:
        log.write_event("AMQ9999W", "qm.ini asks for MQIBindType=FASTPATH but no channel "
                        "initiator is installed: the queue manager runs without FASTPATH "
                        "(STANDARD).")
        return None
    host = client_host.ClientHost(eng, os.path.join(qmdir, client_host.SOCKET_NAME),
                                  lambda msgid, text: log.write_event(msgid, text),
                                  peer_limits)
    await nursery.start(host.run)
    return host


def _start_command_server(name: str, root: str | None) -> Callable[[], None] | None:
    """Run the command server (``mqpy.cmdserver``, SYSTEM.ADMIN.COMMAND.QUEUE) in a thread of
    this process, as strmqm does by default; return the function that stops it."""
    if importlib.util.find_spec("mqpy.cmdserver") is None:
        return None
    from mqpy import cmdserver  # lazy and optional: a build without it starts with none

    try:
        return cmdserver.start_command_server(name, root).stop
    except MQMIError:  # the queue manager already ended (a log failure): nothing to serve
        return None


#: the control file strmqcsv and endmqcsv write (START or STOP) in the queue manager's
#: directory; they then send the daemon SIGUSR2 (``mqpy_cli.runmqsc``)
CMDSERVER_CONTROL = "cmdserver.ctl"
#: how often the control file is looked at without a signal: only a strmqcsv that could not
#: signal this process (another user's) waits for it
CMDSERVER_CONTROL_POLL = 5.0


async def _watch_command_server_requests(eng: QueueManagerEngine, root: str | None, qmdir: str,
                                         csv: dict) -> None:
    """strmqcsv / endmqcsv write START or STOP to the control file and signal; the daemon
    obeys."""
    path = os.path.join(qmdir, CMDSERVER_CONTROL)
    with trio.open_signal_receiver(signal.SIGUSR2) as signals:
        while True:
            with trio.move_on_after(CMDSERVER_CONTROL_POLL):
                async for _ in signals:
                    break
            try:
                with open(path) as f:
                    want = f.read().strip()
                os.unlink(path)
            except OSError:
                continue
            if want == "STOP" and csv["stop"] is not None:
                stop, csv["stop"] = csv["stop"], None
                await trio.to_thread.run_sync(stop)
            elif want == "START" and csv["stop"] is None:
                csv["stop"] = _start_command_server(eng.name, root)


def _start_statistics(eng: QueueManagerEngine) -> Callable[[], None]:
    """Statistics messages every STATINT (when STATMQI/STATQ are ON), as a thread."""

    try:
        return start_statistics(eng, attach(eng))
    except MQMIError:  # the queue manager already ended (a log failure): nothing to count
        return lambda: None


#: The channel initiator's output file in the queue manager's errors directory.
CHINIT_OUTPUT = "runmqchi.out"


def _start_chinit(name: str, root: str | None, qmdir: str) -> Any:
    """strmqm starts the channel initiator (runmqchi) as a process of its own, an MQI
    application of this queue manager; MQPY_NO_CHINIT=1 leaves it out."""

    if os.environ.get("MQPY_NO_CHINIT") == "1":
        return None
    cmd = program("mqpy_cli.chinit", "-m", name)
    if root:
        cmd += ["--data-path", root]
    # its standard output echoes its error-log entries: the error log has them already;
    # its standard error (the interpreter's complaints) goes to runmqchi.out, kept bounded
    output = outfiles.OutputFile(os.path.join(qmdir, "errors", CHINIT_OUTPUT))
    out = output.open()
    try:
        proc = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                stderr=out, start_new_session=True)
    finally:
        out.close()
    output.keep_bounded(proc)
    with filemodes.open_file(os.path.join(qmdir, "chinit.pid"), "w") as f:
        f.write(f"{proc.pid}\n")
    return proc


#: how often strmqm's wait looks whether the channel initiator serves (an in-process look at
#: the initiation queue's open handles, about a microsecond)
CHINIT_READY_POLL = 0.01


async def _chinit_ready(eng: QueueManagerEngine, proc: Any, timeout: float = 30.0) -> bool:
    """strmqm returns once the channel initiator serves SYSTEM.CHANNEL.INITQ, so that the
    operator's next START CHANNEL finds it (it has the queue open for input by then): whether
    it did (False: it ended first, or is not serving after ``timeout``)."""
    if proc is None:
        return False
    with trio.move_on_after(timeout):
        while proc.poll() is None:
            if eng.queue_status("SYSTEM.CHANNEL.INITQ")["IPPROCS"]:
                return True
            await trio.sleep(CHINIT_READY_POLL)
    return False


#: a channel initiator that ended before it ever served SYSTEM.CHANNEL.INITQ (a qm.ini it
#: refuses: exit 20) is restarted after twice the last wait, up to CHINIT_RETRY_MAX, instead of
#: every second; one that had been serving is restarted after CHINIT_RETRY_FIRST
CHINIT_RETRY_FIRST = 1.0
CHINIT_RETRY_MAX = 60.0


def chinit_restart_delay(was_ready: bool, last_delay: float | None) -> float:
    """How long to wait before restarting a channel initiator that ended, whether it had
    become ready (``was_ready``), the wait before its last restart being ``last_delay``."""
    if was_ready or last_delay is None:
        return CHINIT_RETRY_FIRST
    return min(2 * last_delay, CHINIT_RETRY_MAX)


async def _ended(proc: Any) -> None:
    """Return when ``proc`` has ended: its pidfd becomes readable, no poll (a kernel before
    Linux 5.3 has none: then it is looked at every :data:`CHINIT_EXIT_POLL` seconds)."""
    try:
        fd = os.pidfd_open(proc.pid)
    except ProcessLookupError:
        return  # ended, and reaped already
    except (OSError, AttributeError):
        while proc.poll() is None:
            await trio.sleep(CHINIT_EXIT_POLL)
        return
    try:
        await trio.lowlevel.wait_readable(fd)
    finally:
        os.close(fd)


#: without pidfds, how often the channel initiator's process is looked at
CHINIT_EXIT_POLL = 1.0


async def _watch_chinit(eng: QueueManagerEngine, root: str | None, qmdir: str, chinit: dict) -> None:
    """The channel initiator is restarted if it ends while its queue manager runs; one that
    keeps ending at once is restarted less and less often (:func:`chinit_restart_delay`)."""
    log = errorlog.ErrorLog(os.path.join(qmdir, "errors"), qmgr=eng.name, program="amqzxma0")
    ready, delay = True, None
    while True:
        proc = chinit["proc"]
        if proc is None:
            return
        await _ended(proc)
        if chinit["proc"] is not proc or eng.quiescing:
            return  # the queue manager is ending it
        proc.wait()  # (reaped: its return code)
        delay = chinit_restart_delay(ready, delay)
        log.write_event("AMQ9570E", f"The channel initiator (pid {proc.pid}) ended with "
                        f"{describe_status(proc.returncode)}; it is being restarted in "
                        f"{delay:g} seconds.")
        await trio.sleep(delay)
        if eng.quiescing or chinit["proc"] is not proc:
            return
        chinit["proc"] = _start_chinit(eng.name, root, qmdir)
        ready = await _chinit_ready(eng, chinit["proc"])


def _start_services(eng: QueueManagerEngine) -> None:
    """The queue manager's CONTROL(QMGR) and CONTROL(STARTONLY) services (``mqpy.services``:
    they run as children of this process, each logged AMQ5028 or AMQ5030)."""

    services.start_at_qmgr_start(eng)


def _stop_services(eng: QueueManagerEngine) -> None:
    """endmqm: CONTROL(QMGR) services are stopped (STARTONLY and MANUAL ones keep running)."""

    services.stop_at_qmgr_end(eng)


def _stop_chinit(proc: Any) -> None:
    if proc is None or proc.poll() is not None:
        return

    proc.terminate()
    try:
        proc.wait(10)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()


if __name__ == "__main__":
    sys.exit(main())
