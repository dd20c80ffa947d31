"""Control commands: crtmqm, dltmqm, strmqm, endmqm, dspmq, dspmqver.

They behave as IBM MQ's on UNIX, down to the console lines scripts grep for and the return
codes (IBM's ansible modules test 5, 8, 16, 40 and 72, for instance). Each takes ``--data-path``
(else ``$MQPY_DATA_PATH``, else the per-user default, see ``mqpy.config``).

- ``strmqm`` starts ``python -m mqpy.daemon`` detached (new session, stdio on /dev/null) and
  waits on a pipe until the daemon says its socket accepts connections, or relays the
  daemon's reason (AMQ7017S for a damaged log ...) and its exit status.
- ``endmqm`` signals the pid recorded in ``qm.lock``: SIGUSR1 for a controlled end (-c, the
  default, returns at once; -w waits), SIGTERM for -i (waits), SIGTERM then SIGKILL after
  a short grace for -p; -r is written in ``qm.endreconnect`` before the signal.
- ``dspmq`` reads ``qm.lock`` (held while running) and ``qm.status`` written by the daemon.

Console messages are IBM's wording; the evidence for an id is given beside it below.
"""

from __future__ import annotations

import atexit
import fcntl
import gc
import json
import os
import platform
import select
import shutil
import signal
import subprocess
import sys
import time
import typing

import click

import mqpy
from mqpy import config, filemodes, localqmgrs, outfiles
from mqpy.programs import program
from mqpy.qmstanzas import LogConfig
from mqpy.qmstatus import (
    END_RECONNECT_FILE,
    describe_status,
    read_status,
    write_flag,
    write_status,
)
from mqpy.version import CMDLEVEL, VRMF
from mqpy_cli.progress import ProgressLine
from mqpy_cli.usage import MSG_BAD_ARGUMENT, RC_INVALID_ARGS, IBMCommand

#: a control command's process ends soon after it starts, its imports' objects alive until
#: then: at its exit the interpreter's collections would walk them all for the few that are
#: garbage (a tenth of dspmq's CPU). They are left to the process's end (``gc.freeze``).
atexit.register(gc.freeze)

# --------------------------------------------------------------------------- IBM's texts

MSG_CREATED = "IBM MQ queue manager created."  # AMQ8001I
MSG_DELETED = "IBM MQ queue manager '{qmgr}' deleted."  # AMQ8002I
MSG_STARTING = "IBM MQ queue manager '{qmgr}' starting."
MSG_STARTED = "IBM MQ queue manager '{qmgr}' started using V{vrmf}."  # AMQ8003I
MSG_ENDING = "IBM MQ queue manager '{qmgr}' ending."
MSG_ENDED = "IBM MQ queue manager '{qmgr}' ended."  # AMQ8004I
MSG_WAITING = "Waiting for queue manager '{qmgr}' to end."
MSG_QUIESCE = ("Quiesce request accepted. The queue manager will stop when all outstanding "
               "work is complete.")
MSG_RUNNING = "IBM MQ queue manager running."  # strmqm / dltmqm, no id
MSG_DEFAULT_OBJECTS = "Creating or replacing default objects for {qmgr}."  # crtmqm, strmqm -c
MSG_EXISTS = "AMQ8110E: IBM MQ queue manager already exists."
MSG_NOT_EXIST = "AMQ8118E: IBM MQ queue manager does not exist."
MSG_NOT_AVAILABLE = "AMQ8146E: IBM MQ queue manager not available."
# [C] AMQ7048E's line (what scripts match in dspmq's output); AMQ7027E (mqpy_cli.usage)
MSG_NAME_NOT_KNOWN = "AMQ7048E: The queue manager name is either not valid or not known."
MSG_FAILED_START = "AMQ6184W: The queue manager '{qmgr}' ended unexpectedly ({rc})."
MSG_LOG_PATH = "AMQ7064E: Log path not valid or inaccessible."
MSG_FILE_ERROR = "AMQ7002S: An error occurred manipulating a file."

# --------------------------------------------------------------------------- return codes

RC_OK = 0
RC_BEING_CREATED = 3
RC_RUNNING = 5
RC_EXISTS = 8
RC_NOT_EXIST = 16
RC_LOG_NOT_AVAILABLE = 23
RC_INVALID_PARAMETER = 39
RC_NOT_AVAILABLE = 40
RC_STOPPING = 49
RC_UNEXPECTED = 71
RC_NAME_ERROR = 72
RC_LOG_LOCATION = 100  # crtmqm: log location invalid

#: the ready pipe's progress lines (mqpy.daemon.PROGRESS), and the id of the one that is
#: rewritten in place on a terminal (the records a log replay has read so far)
PROGRESS = "PROGRESS "
REPLAY_RECORDS = "AMQ7229I"
START_TIMEOUT = 120.0  # seconds strmqm waits for the daemon (a long log replay)
PREEMPT_GRACE = 2.0  # endmqm -p: seconds between SIGTERM and SIGKILL

_data_path = click.option("--data-path", envvar=config.ENV_DATA_PATH, default=None,
                          type=click.Path(file_okay=False),
                          help="Data root (default $MQPY_DATA_PATH or a per-user directory).")


def _err(text: str) -> None:
    """An error message on stderr, unless the command was given -z (strmqm, endmqm): then
    only its return code says what happened."""
    ctx = click.get_current_context(silent=True)
    if ctx is None or not ctx.params.get("quiet"):
        click.echo(text, err=True)


def _qmdir(name: str, root: str | None) -> str:
    return config.qmgr_dir(name, root)


def _exists(name: str, root: str | None) -> bool:
    return os.path.exists(os.path.join(_qmdir(name, root), "pageset00"))


def _pid(qmdir: str) -> int | None:
    """The pid in qm.lock, written by the process that holds it."""
    try:
        with open(os.path.join(qmdir, "qm.lock"), encoding="ascii") as f:
            return int(f.read().split()[0])
    except (OSError, ValueError, IndexError):
        return None


def _wait_ended(qmdir: str, timeout: float | None = None) -> bool:
    """Wait until nothing holds qm.lock (the queue manager process has ended). Without a
    timeout, on the lock itself: the wait ends as the daemon lets it go, not at a poll's next
    turn."""
    if timeout is None:
        _wait_for_lock(os.path.join(qmdir, "qm.lock"))
        return True
    deadline = time.monotonic() + timeout
    while localqmgrs.is_locked(qmdir):
        if time.monotonic() > deadline:
            return False
        time.sleep(0.05)
    return True


def _wait_for_lock(path: str) -> None:
    """Block until the queue manager's process lets qm.lock go (its flock taken shared, and
    given back at once: a strmqm a moment later finds it free)."""
    try:
        fd = os.open(path, os.O_RDONLY)
    except FileNotFoundError:
        return
    try:
        fcntl.flock(fd, fcntl.LOCK_SH)
    finally:
        os.close(fd)


def dspmq_status(qmdir: str) -> str:
    """dspmq's STATUS(...) for a queue manager directory."""
    recorded = read_status(qmdir)
    if localqmgrs.is_locked(qmdir):
        if recorded in ("Starting", "Quiescing", "Ending immediately", "Ending pre-emptively"):
            return recorded
        return "Running"
    if recorded is None:
        return "Ended normally"  # created, never started (IBM's dspmq says so)
    if recorded.startswith("Ended"):
        return recorded
    return "Ended unexpectedly"  # it said it was running, and nobody holds the lock


# --------------------------------------------------------------------------- crtmqm


#: crtmqm's options that set a queue-manager attribute: option, attribute, (low, high) or
#: the longest text
CREATION_ATTRIBUTES = (("-c", "DESCR", 64), ("-d", "DEFXMITQ", 48),
                       ("-h", "MAXHANDS", (0, 999999999)), ("-t", "TRIGINT", (0, 999999999)),
                       ("-x", "MAXUMSGS", (1, 999999999)))
#: the listener crtmqm -p defines, started and stopped with the queue manager [M]
PORT_LISTENER = "SYSTEM.LISTENER.TCP.1"


def _creation_attributes(given: dict[str, str | int | None]) -> dict[str, object]:
    """The attributes crtmqm's options ask for (``given``: option -> value or None); exits
    with AMQ7027E and 39 for a value out of range."""
    attributes: dict[str, object] = {}
    for option, keyword, limit in CREATION_ATTRIBUTES:
        value = given[option]
        if value is None:
            continue
        ok = (len(value) <= limit if isinstance(limit, int) and isinstance(value, str)
              else isinstance(value, int) and limit[0] <= value <= limit[1])  # type: ignore[index]
        if not ok:
            _err(MSG_BAD_ARGUMENT.format(arg=f"{option} {value}", command="crtmqm"))
            sys.exit(RC_INVALID_PARAMETER)
        attributes[keyword] = value
    return attributes


def _apply_creation_options(qmgr: str, data_path: str | None, attributes: dict[str, object],
                            port: int | None) -> None:
    """Give the new queue manager the attributes and the -p listener its options ask for
    (started in this process for that, then ended: it has never run for dspmq)."""
    if not attributes and port is None:
        return
    from mqpy import inprocess  # the engine: see crtmqm

    eng = inprocess.start(qmgr, data_path)
    try:
        if attributes:
            eng.alter_qmgr(attributes)
        if port is not None:
            eng.define("LISTENER", PORT_LISTENER, {"TRPTYPE": "TCP", "PORT": port,
                                                   "CONTROL": "QMGR"})
    finally:
        inprocess.stop(qmgr, data_path)


@click.command(cls=IBMCommand, rc=RC_INVALID_PARAMETER,
               context_settings={"help_option_names": ["--help"]}, ibm_usage=(
                   "Usage: crtmqm [-z] [-q] [-c Text] [-d DefXmitQ] [-h MaxHandles] "
                   "[-ld LogPath] [-lf LogFilePages] [-lp LogPrimaryFiles] "
                   "[-ls LogSecondaryFiles] [-p Port] [-t TrigInt] [-u DeadQ] "
                   "[-x MaxUMsgs] QMgrName"))
@click.option("-q", "make_default", is_flag=True, help="Make this the default queue manager.")
@click.option("-z", "quiet", is_flag=True, help="Suppress error messages.")
@click.option("-c", "descr", default=None, help="Description (DESCR, 64 characters).")
@click.option("-d", "xmitq", default=None, help="Default transmission queue (DEFXMITQ).")
@click.option("-h", "handles", type=int, default=None, help="Handles a connection may hold.")
@click.option("-t", "trigint", type=int, default=None, help="Trigger interval (ms).")
@click.option("-x", "umsgs", type=int, default=None, help="Uncommitted messages a unit of "
              "work may hold (MAXUMSGS).")
@click.option("-p", "port", type=click.IntRange(1, 65535), default=None,
              help="A TCP listener on this port, started with the queue manager.")
@click.option("-u", "dead_letter_queue", default="", help="Dead-letter queue name.")
@click.option("-ld", "log_path", default=None, help="Log directory.")
@click.option("-lf", "log_file_pages", type=int, default=None, help="Log file size in 4 KB pages.")
@click.option("-lp", "log_primary", type=int, default=None, help="Primary log files.")
@click.option("-ls", "log_secondary", type=int, default=None, help="Secondary log files.")
@_data_path
@click.argument("qmgr")
def crtmqm(make_default: bool, quiet: bool, descr: str | None, xmitq: str | None,
           handles: int | None, trigint: int | None, umsgs: int | None, port: int | None,
           dead_letter_queue: str, log_path: str | None, log_file_pages: int | None,
           log_primary: int | None, log_secondary: int | None, data_path: str | None,
           qmgr: str) -> None:
    """Create a queue manager."""
    # the engine (pagesets, log, system objects), imported by the commands that run one
    # here (crtmqm, strmqm -c) and by no other: dspmq, endmqm and strmqm start in a third of
    # the time without it
    from mqpy import inprocess
    from mqpy.engine.objects import SYSTEM_OBJECTS

    filemodes.restrict_umask()
    attributes = _creation_attributes({"-c": descr, "-d": xmitq, "-h": handles,
                                       "-t": trigint, "-x": umsgs})
    if not config.valid_qmgr_name(qmgr):
        _err(MSG_BAD_ARGUMENT.format(arg=qmgr, command="crtmqm"))
        sys.exit(RC_NAME_ERROR)
    for label, value, low in (("-lf", log_file_pages, 4), ("-lp", log_primary, 1),
                              ("-ls", log_secondary, 0)):
        if value is not None and value < low:
            _err(MSG_BAD_ARGUMENT.format(arg=f"{label} {value}", command="crtmqm"))
            sys.exit(RC_INVALID_PARAMETER)
    if _exists(qmgr, data_path):
        _err(MSG_EXISTS)
        sys.exit(RC_EXISTS)
    qmdir = _qmdir(qmgr, data_path)
    defaults = LogConfig()
    cfg = config.QMgrConfig(qmgr, qmdir)
    cfg.log = LogConfig(
        LogFilePages=log_file_pages or defaults.LogFilePages,
        LogPrimaryFiles=log_primary or defaults.LogPrimaryFiles,
        LogSecondaryFiles=defaults.LogSecondaryFiles if log_secondary is None
        else log_secondary)
    made = [] if os.path.exists(qmdir) else [qmdir]  # removed again if creating fails
    if log_path:
        cfg.log_path = os.path.join(os.path.abspath(log_path), config.qmgr_dirname(qmgr))
        if not os.path.exists(cfg.log_path):
            made.append(cfg.log_path)
        try:  # the log path must exist and take the queue manager's log directory
            if not os.path.isdir(log_path):
                raise NotADirectoryError(log_path)
            filemodes.makedirs(cfg.log_path)
        except OSError:
            _err(MSG_LOG_PATH)
            sys.exit(RC_LOG_LOCATION)
    try:
        inprocess.create(qmgr, data_path, dead_letter_queue=dead_letter_queue, cfg=cfg,
                     make_default=make_default)
    except FileExistsError:
        _err(MSG_EXISTS)
        sys.exit(RC_EXISTS)
    except inprocess.QMgrLocked:
        _err(MSG_RUNNING)
        sys.exit(RC_RUNNING)
    except OSError as exc:  # a full disk, a directory it may not write: nothing half-made
        for directory in made:
            shutil.rmtree(directory, ignore_errors=True)
        _err(f"{MSG_FILE_ERROR} ({exc})")
        sys.exit(RC_UNEXPECTED)
    _apply_creation_options(qmgr, data_path, attributes, port)
    click.echo(MSG_CREATED)
    click.echo(f"Directory '{qmdir}' created.")
    click.echo("The queue manager is associated with installation 'Installation1'.")
    click.echo(MSG_DEFAULT_OBJECTS.format(qmgr=qmgr))
    created = len(SYSTEM_OBJECTS) + (1 if dead_letter_queue else 0)
    click.echo(f"Default objects statistics : {created} created. 0 replaced. 0 failed.")
    click.echo("Completing setup.")
    click.echo("Setup completed.")


def _named_or_default(qmgr: str | None, data_path: str | None) -> str:
    """The queue manager named, else the default one (mqs.ini); AMQ8118E and 16 if none."""
    name = qmgr or config.default_qmgr(data_path)
    if not name:
        _err(MSG_NOT_EXIST)
        sys.exit(RC_NOT_EXIST)
    return name


def _ended_qmdir(qmgr: str, data_path: str | None) -> str:
    """The directory of an existing queue manager that is not running, or exit with its message."""
    qmdir = _qmdir(qmgr, data_path)
    if not _exists(qmgr, data_path):
        _err(MSG_NOT_EXIST)
        sys.exit(RC_NOT_EXIST)
    if localqmgrs.is_locked(qmdir):
        _err(MSG_RUNNING)
        sys.exit(RC_RUNNING)
    return qmdir


# --------------------------------------------------------------------------- dltmqm


@click.command(cls=IBMCommand, ibm_usage="Usage: dltmqm [-z] QMgrName")
@click.option("-z", "quiet", is_flag=True, help="Suppress error messages.")
@_data_path
@click.argument("qmgr")
def dltmqm(quiet: bool, data_path: str | None, qmgr: str) -> None:
    """Delete a queue manager (it must be ended)."""
    qmdir = _ended_qmdir(qmgr, data_path)
    log_dir = config.log_dir_of(qmgr, data_path)
    config.unregister_qmgr(qmgr, data_path)
    if not log_dir.startswith(qmdir + os.sep):
        shutil.rmtree(log_dir, ignore_errors=True)
    shutil.rmtree(qmdir, ignore_errors=True)
    click.echo(MSG_DELETED.format(qmgr=qmgr))


# --------------------------------------------------------------------------- strmqm


@click.command(cls=IBMCommand, ibm_usage="Usage: strmqm [-z] [-c] [QMgrName]")
@click.option("-z", "quiet", is_flag=True, help="Suppress error messages.")
@click.option("-c", "recreate", is_flag=True,
              help="Recreate the default and system objects, then stop.")
@_data_path
@click.argument("qmgr", required=False)
def strmqm(quiet: bool, recreate: bool, data_path: str | None, qmgr: str | None) -> None:
    """Start a queue manager (without a name: the default one); its daemon runs detached
    until endmqm. -c: start it, replace its default and system objects with IBM's
    definitions, and stop it again."""
    filemodes.restrict_umask()
    qmgr = _named_or_default(qmgr, data_path)
    _ended_qmdir(qmgr, data_path)  # exits with IBM's code when missing or running
    click.echo(MSG_STARTING.format(qmgr=qmgr))
    if recreate:
        _recreate_default_objects(qmgr, data_path)
        return
    shown = ProgressLine(sys.stdout)
    rc, lines = start_daemon(qmgr, data_path, progress=lambda msgid, text: (
        shown.update(text) if msgid == REPLAY_RECORDS else shown.line(text)))
    shown.finish()
    for line in lines:
        _err(line)
    if rc != RC_OK:
        sys.exit(rc)
    click.echo(MSG_STARTED.format(qmgr=qmgr, vrmf=VRMF))


def _recreate_default_objects(qmgr: str, data_path: str | None) -> None:
    """strmqm -c: the queue manager started in this process, its default and system objects
    replaced (reset to their definitions) or defined again, and ended; crtmqm's report."""
    # the engine, imported only for strmqm -c: a plain strmqm starts the daemon, which runs it
    from mqpy import inprocess
    from mqpy.engine.defaultobjects import recreate_default_objects

    root = config.data_root(data_path)
    try:
        eng = inprocess.start(qmgr, root)
    except inprocess.QMgrLocked:
        _err(MSG_RUNNING)
        sys.exit(RC_RUNNING)
    try:
        done = recreate_default_objects(eng)
    finally:
        inprocess.stop(qmgr, root)
    click.echo(MSG_DEFAULT_OBJECTS.format(qmgr=qmgr))
    click.echo(f"Default objects statistics : {done.created} created. {done.replaced} "
               f"replaced. {done.failed} failed.")
    click.echo("Completing setup.")
    click.echo("Setup completed.")


#: What the daemon writes to its stdout and stderr (anything the error log and FDCs do not
#: take: the interpreter's own complaints), beside the channel initiator's runmqchi.out.
DAEMON_OUTPUT = "daemon.out"


def _daemon_output(qmgr: str, root: str) -> typing.BinaryIO | int:
    """The daemon's output file in the queue manager's errors directory, rotated if full
    (:mod:`mqpy.outfiles`) and appended to; the null device if it cannot be opened (the
    daemon starts all the same)."""
    path = os.path.join(config.qmgr_dir(qmgr, root), "errors", DAEMON_OUTPUT)
    try:
        return outfiles.OutputFile(path).open()  # (closed once the daemon has it)
    except OSError:
        return subprocess.DEVNULL


def start_daemon(qmgr: str, data_path: str | None, timeout: float = START_TIMEOUT,
                 progress: typing.Callable[[str, str], None] | None = None
                 ) -> tuple[int, list[str]]:
    """Spawn the daemon detached; return (0, []) once it serves, else its rc and messages.
    Its progress lines (a long log replay's) go to ``progress(msgid, text)`` as they come."""
    root = config.data_root(data_path)
    read_fd, write_fd = os.pipe()
    out = _daemon_output(qmgr, root)
    try:
        child = subprocess.Popen(
            program("mqpy.daemon", qmgr, "--data-path", root, "--ready-fd", str(write_fd)),
            stdin=subprocess.DEVNULL, stdout=out, stderr=out,
            pass_fds=(write_fd,), start_new_session=True, close_fds=True)
    finally:
        os.close(write_fd)
        if out is not subprocess.DEVNULL:
            out.close()
    lines: list[str] = []
    buffer = b""
    deadline = time.monotonic() + timeout
    with os.fdopen(read_fd, "rb", buffering=0) as pipe:
        while True:
            left = deadline - time.monotonic()
            if left <= 0 or not select.select([pipe], [], [], left)[0]:
                return RC_UNEXPECTED, [f"The queue manager '{qmgr}' did not start within "
                                       f"{timeout:.0f} seconds."]
            chunk = pipe.read(4096)
            if not chunk:
                break
            buffer += chunk
            *complete, buffer = buffer.split(b"\n")
            for raw in complete:
                line = raw.decode("utf-8", "replace")
                if line == "READY":
                    return RC_OK, lines
                if line.startswith(PROGRESS):
                    if progress is not None:
                        msgid, _, text = line[len(PROGRESS):].partition(" ")
                        progress(msgid, text)
                    continue
                lines.append(line)
    rc = child.wait()
    if rc < 0:  # killed by a signal: IBM's "unexpected error", the signal in the message
        lines.append(MSG_FAILED_START.format(qmgr=qmgr, rc=describe_status(rc)))
        return RC_UNEXPECTED, lines
    if rc == 0:  # ended before serving, without saying why
        rc = RC_UNEXPECTED
    if not lines:
        lines.append(MSG_FAILED_START.format(qmgr=qmgr, rc=rc))
    return rc, lines


# --------------------------------------------------------------------------- endmqm


@click.command(cls=IBMCommand,
               ibm_usage="Usage: endmqm [-z] [-c | -w | -i | -p] [-r] [QMgrName]")
@click.option("-c", "mode", flag_value="c", default=True, help="Controlled end (default).")
@click.option("-w", "mode", flag_value="w", help="Controlled end; wait until it has ended.")
@click.option("-i", "mode", flag_value="i", help="Immediate end.")
@click.option("-p", "mode", flag_value="p", help="Pre-emptive end.")
@click.option("-r", "reconnect", is_flag=True,
              help="Reconnectable clients try to reconnect.")
@click.option("-z", "quiet", is_flag=True, help="Suppress error messages.")
@_data_path
@click.argument("qmgr", required=False)
def endmqm(mode: str, reconnect: bool, quiet: bool, data_path: str | None,
           qmgr: str | None) -> None:
    """End a queue manager (without a name: the default one). Its client channels tell
    their clients it ends: reconnectable clients (``mqpy.reconnect``) do not reconnect,
    as IBM's, unless -r (written for the daemon in ``qm.endreconnect`` before the signal)."""
    qmgr = _named_or_default(qmgr, data_path)
    qmdir = _qmdir(qmgr, data_path)
    if not _exists(qmgr, data_path):
        _err(MSG_NOT_EXIST)
        sys.exit(RC_NOT_EXIST)
    pid = _pid(qmdir) if localqmgrs.is_locked(qmdir) else None
    if pid is None:
        _err(MSG_NOT_AVAILABLE)
        sys.exit(RC_NOT_AVAILABLE)
    write_flag(qmdir, END_RECONNECT_FILE, "RECONNECT" if reconnect else None)
    try:
        if mode in ("c", "w"):
            os.kill(pid, signal.SIGUSR1)
            if mode == "c":
                click.echo(MSG_QUIESCE)
                return
            click.echo(MSG_WAITING.format(qmgr=qmgr))
            _wait_ended(qmdir)
        else:
            click.echo(MSG_ENDING.format(qmgr=qmgr))
            os.kill(pid, signal.SIGTERM)
            if mode == "p":
                if not _wait_ended(qmdir, PREEMPT_GRACE):
                    os.kill(pid, signal.SIGKILL)
                    _wait_ended(qmdir)
                write_status(qmdir, "Ended pre-emptively")
            else:
                _wait_ended(qmdir)
    except ProcessLookupError:
        pass  # it ended by itself meanwhile
    click.echo(MSG_ENDED.format(qmgr=qmgr))


# --------------------------------------------------------------------------- dspmq


def _qmname(name: str) -> str:
    """dspmq's QMNAME() field, wide enough for a 48-character name (IBM's layout)."""
    return f"{'QMNAME(' + name + ')':<56}"


def format_dspmq_line(name: str, status: str) -> str:
    """dspmq's line for a queue manager in ``status``."""
    return f"{_qmname(name)} STATUS({status})"


#: dspmq -o's fields in the order IBM prints them; "all" shows them all
DSPMQ_OUTPUTS = ("status", "default", "standby", "installation")
INSTALLATION = "Installation1"


def _installation_path() -> str:
    return os.path.dirname(os.path.abspath(mqpy.__file__))


def _host_name() -> str:
    """This machine's name, for dspmq's instances (socket is imported by the few dspmq
    runs that show one, not by every control command)."""
    import socket

    return socket.gethostname()


def _dspmq_record(name: str, status: str, default: str | None, instances: bool
                  ) -> dict[str, object]:
    """One queue manager for ``dspmq -o json``: every field dspmq -o all shows, by name."""
    running = status not in _ENDED
    record: dict[str, object] = {
        "name": name, "status": status, "default": name == default,
        "standby": "Not permitted" if running else "Not applicable",
        "installationName": INSTALLATION, "installationPath": _installation_path(),
        "installationVersion": VRMF}
    if instances:
        record["instances"] = ([{"host": _host_name(), "mode": "Active"}]
                               if running else [])
    return record


def _dspmq_fields(name: str, status: str, default: str | None, shown: set[str]) -> str:
    """The fields after QMNAME() that ``shown`` (dspmq -o) asks for, in IBM's order."""
    running = status not in _ENDED
    fields = {
        "status": f"STATUS({status})",
        "default": f"DEFAULT({'yes' if name == default else 'no'})",
        # one instance a queue manager: a running one does not take a standby
        "standby": f"STANDBY({'Not permitted' if running else 'Not applicable'})",
        "installation": f"INSTNAME({INSTALLATION}) INSTPATH({_installation_path()}) "
                        f"INSTVER({VRMF})",
    }
    return " ".join(fields[o] for o in DSPMQ_OUTPUTS if o in shown)


_ENDED = ("Ended normally", "Ended immediately", "Ended unexpectedly", "Ended pre-emptively")


@click.command(cls=IBMCommand, rc=RC_INVALID_ARGS, ibm_usage=(
    "Usage: dspmq [-a] [-m QMgrName] [-n] [-o all | -o default | -o installation | "
    "-o json | -o standby | -o status] [-s] [-x]"))
@click.option("-m", "qmgr", default=None, help="Only this queue manager.")
@click.option("-o", "outputs", multiple=True,
              type=click.Choice(("all", "json", *DSPMQ_OUTPUTS)),
              help="What to show (status is the default); repeatable. json: every field of "
                   "each queue manager as one JSON document, for scripts.")
@click.option("-s", "status_flag", is_flag=True, help="Same as -o status.")
@click.option("-a", "active_only", is_flag=True, help="Only queue managers that are running.")
@click.option("-x", "instances", is_flag=True, help="Each running instance and its mode.")
@click.option("-n", "untranslated", is_flag=True, help="Untranslated output (always so).")
@_data_path
def dspmq(qmgr: str | None, outputs: tuple[str, ...], status_flag: bool, active_only: bool,
          instances: bool, untranslated: bool, data_path: str | None) -> None:
    """Display queue managers and their status."""
    names = config.list_qmgrs(data_path)
    if qmgr is not None:
        if not _exists(qmgr, data_path):
            _err(MSG_NAME_NOT_KNOWN)
            sys.exit(RC_NAME_ERROR)
        names = [qmgr]
    shown = set(DSPMQ_OUTPUTS) if "all" in outputs else set(outputs)
    if status_flag or not shown:
        shown.add("status")
    default = config.default_qmgr(data_path)
    records = []
    for name in names:
        if not _exists(name, data_path):
            continue
        status = dspmq_status(_qmdir(name, data_path))
        if active_only and status in _ENDED:
            continue
        if "json" in outputs:
            records.append(_dspmq_record(name, status, default, instances))
            continue
        click.echo(f"{_qmname(name)} {_dspmq_fields(name, status, default, shown)}")
        if instances and status not in _ENDED:
            click.echo(f"    INSTANCE({_host_name()}) MODE(Active)")
    if "json" in outputs:
        click.echo(json.dumps({"queueManagers": records}, indent=2))


# --------------------------------------------------------------------------- dspmqver


#: dspmqver's fields with IBM's -f values (1 to 8 as IBM documents them; the rest [M])
DSPMQVER_FIELDS = (
    (1, "Name"), (2, "Version"), (4, "Level"), (8, "BuildType"), (16, "Platform"),
    (32, "Mode"), (64, "O/S"), (8192, "O/S Details"), (512, "InstName"), (256, "InstDesc"),
    (1024, "Primary"), (128, "InstPath"), (2048, "DataPath"), (4096, "MaxCmdLevel"),
    (0, "Python"),  # mqpy's own: shown without -f, or with -a
)
#: dspmqver -p: the components installed here (1: the queue manager and its commands)
SERVER_COMPONENT = 1


def _dspmqver_values(data_path: str | None) -> dict[str, str]:
    return {
        "Name": "mqpy (an IBM MQ-style queue manager in Python)",
        "Version": VRMF,
        "Level": f"p{CMDLEVEL}-L0",
        "BuildType": "IKAP - (Production)",
        "Platform": f"mqpy for {platform.system()} ({platform.machine()} platform)",
        "Mode": f"{64 if sys.maxsize > 2**32 else 32}-bit",
        "O/S": f"{platform.system()} {platform.release()}",
        "O/S Details": platform.platform(),
        "InstName": INSTALLATION,
        "InstDesc": "",
        "Primary": "N/A",
        "InstPath": _installation_path(),
        "DataPath": config.data_root(data_path),
        "MaxCmdLevel": str(CMDLEVEL),
        "Python": platform.python_version(),
    }


@click.command(cls=IBMCommand, ibm_usage=(
    "Usage: dspmqver [-a] [-p Components] [-f Fields] [-b] [-v] [-i]"))
@click.option("-a", "all_", is_flag=True, help="All fields and components (the default).")
@click.option("-p", "components", type=click.IntRange(1), default=SERVER_COMPONENT,
              help="Components (sum of values; 1: the queue manager).")
@click.option("-f", "fields", type=click.IntRange(1), default=None,
              help="Fields (sum of values; 1 Name, 2 Version, 4 Level, 8 BuildType ...).")
@click.option("-b", "bare", is_flag=True, help="Values only, without the field names.")
@click.option("-v", "verbose", is_flag=True, help="Verbose (the same fields here).")
@click.option("-i", "installations", is_flag=True, help="Every installation (one here).")
@_data_path
def dspmqver(all_: bool, components: int, fields: int | None, bare: bool, verbose: bool,
             installations: bool, data_path: str | None) -> None:
    """Display version information."""
    if not components & SERVER_COMPONENT:
        return  # no other component of IBM's is installed
    values = _dspmqver_values(data_path)
    for bit, label in DSPMQVER_FIELDS:
        if fields is None or all_ or fields & bit:
            value = values[label]
            click.echo(value if bare else f"{label + ':':<13}{value}".rstrip())
