"""IBM MQ service objects carried out: the programs a queue manager starts and stops.

A SERVICE definition (``DEFINE SERVICE``) names a program (STARTCMD and STARTARG), perhaps a
program that stops it (STOPCMD and STOPARG), files for its standard output and error, and how
it is controlled. IBM's rules, as its "Working with services" pages give them:

- SERVTYPE(SERVER): one instance at a time, whose status DISPLAY SVSTATUS shows (STARTING,
  RUNNING or STOPPING, PID, STARTDA, STARTTI); the queue manager logs AMQ5028 when it starts and
  AMQ5029 when it ends, by itself or by STOP SERVICE. SERVTYPE(COMMAND): started as often as
  asked, no status, AMQ5030 at each start.
- CONTROL(QMGR): started when the queue manager starts, stopped when it ends;
  CONTROL(STARTONLY): started, never stopped; CONTROL(MANUAL): START and STOP SERVICE only.
- Replaceable inserts ``+NAME+`` in STARTCMD, STARTARG, STOPCMD, STOPARG, STDOUT and STDERR:
  MQ_INSTALL_PATH, MQ_DATA_PATH, QMNAME, MQ_SERVICE_NAME, MQ_Q_MGR_DATA_PATH,
  MQ_Q_MGR_DATA_NAME, MQ_SERVER_PID (STOPCMD and STOPARG only: the server's process id, 0
  when none runs), and any variable of a ``service.env`` file. The process's environment is
  the queue manager's plus those variables: ``<data path>/service.env`` (machine scope), then
  ``<queue manager directory>/service.env``, which wins.
- STDOUT / STDERR: appended to (created if missing); blank: discarded.
- STOP SERVICE of a service with a blank STOPCMD is MQRCCF_NO_STOP_CMD; STOP SERVICE runs
  STOPCMD and returns (IBM: "processed asynchronously"): the server keeps its status,
  STOPPING, until it ends.

STARTING is IBM's "in the process of initializing": here, from START SERVICE until the
program's process exists (PID 0 meanwhile), which is as long as the fork and exec take; a
second START then is MQRCCF_SERVICE_RUNNING and a STOP MQRCCF_SERVICE_REQUEST_PENDING.

mqpy's own choices where IBM says nothing: at the queue manager's end a CONTROL(QMGR) server
is asked to stop by its STOPCMD or, with none, by SIGTERM; one still running after a grace
period gets SIGKILL. Services run where the queue manager runs: in the daemon strmqm
started, or in the application's process for an embedded queue manager.

The planning (inserts, command lines, environment, ``service.env``) is pure and unit-tested;
:class:`ServiceRunner` starts, stops and reaps the processes, one runner per queue manager
(:func:`runner_for`).
"""

from __future__ import annotations

import os
import re
import shlex
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterable, Mapping
from typing import TYPE_CHECKING, Any

import attrs

from mqpy import CMQCFC, errorlog, filemodes

if TYPE_CHECKING:
    from mqpy.engine.qmgr import QueueManagerEngine

__all__ = [
    "Context",
    "Launch",
    "ServiceError",
    "ServiceRunner",
    "Running",
    "SERVICE_ENV",
    "parse_service_env",
    "plan_start",
    "plan_stop",
    "runner_for",
    "split_args",
    "substitute",
]

SERVICE_ENV = "service.env"
#: seconds a server is given to end (after its STOPCMD, or SIGTERM) at the queue manager's
#: end, and after SIGTERM before SIGKILL
GRACE = 10.0

_TOKEN = re.compile(r"\+([A-Za-z_][A-Za-z0-9_]*)\+")
_STOP_ONLY = "MQ_SERVER_PID"


class ServiceError(Exception):
    """A service command refused: the PCF reason, and a line for the operator if any."""

    def __init__(self, reason: int, detail: str = "") -> None:
        super().__init__(detail or str(reason))
        self.reason = reason
        self.detail = detail


# ---------------------------------------------------------------------- planning (pure)


@attrs.frozen(slots=True)
class Context:
    """Where a queue manager's services run: the values of the common inserts."""

    qmgr: str
    qmgr_data_path: str  #: the queue manager's directory
    data_path: str  #: MQ_DATA_PATH, the installation's data directory
    install_path: str = attrs.field(factory=lambda: os.path.join(sys.prefix, ""))
    service_env: Mapping[str, str] = attrs.field(factory=dict)  #: service.env variables
    base_env: Mapping[str, str] = attrs.field(factory=lambda: dict(os.environ))

    def tokens(self, service: str, *, server_pid: int | None = None) -> dict[str, str]:
        """The inserts a definition's strings may use; MQ_SERVER_PID only when stopping."""
        out = dict(self.service_env)
        out.update({
            "MQ_INSTALL_PATH": self.install_path,
            "MQ_DATA_PATH": os.path.join(self.data_path, ""),
            "QMNAME": self.qmgr,
            "MQ_SERVICE_NAME": service,
            "MQ_Q_MGR_DATA_PATH": self.qmgr_data_path,
            "MQ_Q_MGR_DATA_NAME": os.path.basename(self.qmgr_data_path.rstrip("/")),
        })
        if server_pid is not None:
            out[_STOP_ONLY] = str(server_pid)
        return out


@attrs.frozen(slots=True)
class Launch:
    """One program to run: its command line, environment and output files ("" discards)."""

    argv: tuple[str, ...]
    env: Mapping[str, str]
    stdout: str = ""
    stderr: str = ""


def substitute(text: str, tokens: Mapping[str, str]) -> str:
    """``+NAME+`` replaced by its value; an unknown name is left as written."""
    return _TOKEN.sub(lambda m: tokens.get(m.group(1), m.group(0)), text)


def split_args(text: str) -> list[str]:
    """STARTARG / STOPARG as a command line's arguments: blank-separated, with shell-style
    quotes keeping blanks inside one argument (IBM: "as you would on a command line")."""
    try:
        return shlex.split(text)
    except ValueError:  # an unbalanced quote: the words as they are
        return text.split()


def parse_service_env(text: str) -> dict[str, str]:
    """A service.env file: ``NAME=value`` lines; blank lines and ``#`` comments ignored."""
    out: dict[str, str] = {}
    for raw in text.splitlines():
        line = raw.strip()
        if not line or line.startswith("#") or "=" not in line:
            continue
        name, value = line.split("=", 1)
        name = name.strip()
        if name:
            out[name] = value.strip()
    return out


def read_service_env(data_path: str, qmgr_data_path: str) -> dict[str, str]:
    """The machine-scope then the queue-manager-scope service.env (the second wins)."""
    out: dict[str, str] = {}
    for directory in (data_path, qmgr_data_path):
        try:
            with open(os.path.join(directory, SERVICE_ENV), encoding="utf-8") as f:
                out.update(parse_service_env(f.read()))
        except OSError:
            continue
    return out


def _plan(command: str, args: str, definition: Mapping[str, object], ctx: Context,
          tokens: Mapping[str, str]) -> Launch | None:
    program = substitute(command, tokens).strip()
    if not program:
        return None
    return Launch(
        argv=(program, *split_args(substitute(args, tokens))),
        env={**ctx.base_env, **ctx.service_env},
        stdout=substitute(str(definition.get("STDOUT") or ""), tokens).strip(),
        stderr=substitute(str(definition.get("STDERR") or ""), tokens).strip(),
    )


def plan_start(name: str, definition: Mapping[str, object], ctx: Context) -> Launch | None:
    """The start program of service ``name``; None when STARTCMD is blank."""
    tokens = ctx.tokens(name)
    return _plan(str(definition.get("STARTCMD") or ""), str(definition.get("STARTARG") or ""),
                 definition, ctx, tokens)


def plan_stop(name: str, definition: Mapping[str, object], ctx: Context,
              server_pid: int = 0) -> Launch | None:
    """The stop program of service ``name``; None when STOPCMD is blank."""
    tokens = ctx.tokens(name, server_pid=server_pid)
    return _plan(str(definition.get("STOPCMD") or ""), str(definition.get("STOPARG") or ""),
                 definition, ctx, tokens)


def start_stamp(when: float) -> tuple[str, str]:
    """STARTDA and STARTTI as MQSC shows them."""
    lt = time.localtime(when)
    return time.strftime("%Y-%m-%d", lt), time.strftime("%H.%M.%S", lt)


# ---------------------------------------------------------------------- running them


@attrs.define
class Running:
    """A server service's instance: its process and status."""

    name: str
    proc: Any  # subprocess.Popen; None while STARTING
    started: float
    #: STARTING while its start program is being launched, RUNNING once it has a process,
    #: STOPPING while its stop program runs
    status: str = "RUNNING"

    @property
    def pid(self) -> int:
        """The program's process id; 0 while it is STARTING (it has none yet)."""
        return 0 if self.proc is None else int(self.proc.pid)


def _spawn(launch: Launch) -> subprocess.Popen:
    """Start ``launch`` in a session of its own. What stops it is a ServiceError with IBM's
    reason and the cause: an output file that cannot be opened (MQRCCF_FILE_NOT_AVAILABLE),
    a program that does not exist or cannot be run (MQRCCF_PROGRAM_NOT_AVAILABLE,
    MQRCCF_PROGRAM_AUTH_FAILED)."""
    opened: list[Any] = []
    try:
        files = []
        for path in (launch.stdout, launch.stderr):
            if not path:
                files.append(subprocess.DEVNULL)
                continue
            try:
                f = filemodes.open_file(path, "ab")  # (closed below, once the child has it)
            except (OSError, ValueError) as exc:  # ValueError: a NUL in the path
                raise ServiceError(CMQCFC.MQRCCF_FILE_NOT_AVAILABLE,
                                   f"'{path}': {getattr(exc, 'strerror', None) or exc}"
                                   ) from None
            opened.append(f)
            files.append(f)
        try:
            return subprocess.Popen(list(launch.argv), env=dict(launch.env),
                                    stdin=subprocess.DEVNULL, stdout=files[0],
                                    stderr=files[1], start_new_session=True, close_fds=True)
        except OSError as exc:
            reason = (CMQCFC.MQRCCF_PROGRAM_AUTH_FAILED if isinstance(exc, PermissionError)
                      else CMQCFC.MQRCCF_PROGRAM_NOT_AVAILABLE)
            where = exc.filename or launch.argv[0]
            raise ServiceError(reason, f"'{where}': {exc.strerror or exc}") from None
        except ValueError as exc:  # a NUL inside the command or an argument
            raise ServiceError(CMQCFC.MQRCCF_PROGRAM_NOT_AVAILABLE,
                               f"'{launch.argv[0]}': {exc}") from None
    finally:
        for f in opened:
            f.close()


def _alive(proc: Any) -> bool:
    """Running, or (None) still being launched."""
    return proc is None or proc.poll() is None


class ServiceRunner:
    """One queue manager's running services: starts, stops and reaps their processes.

    ``log(kind, name, pid)`` records AMQ5028 ("started"), AMQ5029 ("ended"), AMQ5030
    ("command") and start failures ("failed", pid 0, with the detail) in the error log.
    Each process started here is waited for by a thread of its own, so a server that ends by
    itself loses its status (and is logged) as soon as it ends, and no process is left a
    zombie."""

    def __init__(self, ctx_factory: Callable[[], Context],
                 log: Callable[..., None] | None = None, *, grace: float = GRACE) -> None:
        self._ctx_factory = ctx_factory
        self._log = log or (lambda *a, **k: None)
        self.grace = grace
        self._lock = threading.Lock()
        self.servers: dict[str, Running] = {}
        self.children: set[int] = set()  #: every process started here that still runs
        self.ending = False  #: end_all has run since the last start_all
        self.spawn: Callable[[Launch], Any] = _spawn  #: how a program is launched

    # -------------------------------------------------------------- commands

    def start(self, name: str, definition: Mapping[str, object]) -> int:
        """START SERVICE: run the start program; return its process id."""
        ctx = self._ctx_factory()
        launch = plan_start(name, definition, ctx)
        if launch is None:
            raise ServiceError(CMQCFC.MQRCCF_NO_START_CMD)
        server = definition.get("SERVTYPE") == "SERVER"
        running: Running | None = None
        with self._lock:
            if server:
                if name in self.servers:
                    raise ServiceError(CMQCFC.MQRCCF_SERVICE_RUNNING)
                # STARTING while the program is launched (outside the lock: a DISPLAY
                # SVSTATUS meanwhile shows it, and a second START is refused)
                running = self.servers[name] = Running(name, None, time.time(), "STARTING")
        try:
            proc = self._run_program(name, launch)
        except ServiceError:
            with self._lock:
                if running is not None and self.servers.get(name) is running:
                    del self.servers[name]
            raise
        with self._lock:
            self.children.add(proc.pid)
            if running is not None:
                running.proc, running.status = proc, "RUNNING"
            # under the lock: a program that ends at once is logged ended after started
            self._log("started" if server else "command", name, proc.pid)
        threading.Thread(target=self._reap, args=(name, proc, server), daemon=True,
                         name=f"amqzmgr0-{name}").start()
        return int(proc.pid)

    def _run_program(self, name: str, launch: Launch) -> Any:
        """Run a service's start or stop program; one that cannot run is logged (AMQ8934E)
        and its ServiceError raised."""
        try:
            return self.spawn(launch)
        except ServiceError as err:
            self._log("failed", name, 0, detail=err.detail)
            raise

    def stop(self, name: str, definition: Mapping[str, object]) -> None:
        """STOP SERVICE: run the stop program (a server must be running); it returns at
        once, the server keeps STATUS(STOPPING) until it ends. A server instance is this
        runner's, whatever the definition says now (an ALTER to SERVTYPE(COMMAND) does not
        orphan it); one already STOPPING is not given a second stop program."""
        with self._lock:
            running = self.servers.get(name)
            if running is None and definition.get("SERVTYPE") == "SERVER":
                raise ServiceError(CMQCFC.MQRCCF_SERVICE_STOPPED)
            if running is not None and running.status == "STOPPING":
                return
            if running is not None and running.status == "STARTING":
                # nothing to give a stop program yet (no pid): ask again once it runs
                raise ServiceError(CMQCFC.MQRCCF_SERVICE_REQUEST_PENDING)
        launch = plan_stop(name, definition, self._ctx_factory(),
                           running.pid if running is not None else 0)
        if launch is None:
            raise ServiceError(CMQCFC.MQRCCF_NO_STOP_CMD)
        proc = self._run_program(name, launch)
        with self._lock:
            self.children.add(proc.pid)
            if running is not None and name in self.servers:
                running.status = "STOPPING"
        threading.Thread(target=self._reap_stop, args=(name, proc, running), daemon=True,
                         name=f"amqzmgr0-{name}-stop").start()

    def is_running(self, name: str) -> bool:
        with self._lock:
            return name in self.servers

    def status(self) -> list[Running]:
        """The server instances running now, by name."""
        with self._lock:
            return sorted((r for r in self.servers.values() if _alive(r.proc)),
                          key=lambda r: r.name)

    # -------------------------------------------------------------- the queue manager

    def start_all(self, definitions: Iterable[tuple[str, Mapping[str, object]]]) -> None:
        """At the queue manager's start: every CONTROL(QMGR) and CONTROL(STARTONLY) service
        with a start program (a failure is logged, the others still start)."""
        self.ending = False
        for name, definition in definitions:
            if definition.get("CONTROL") not in ("QMGR", "STARTONLY"):
                continue
            try:
                self.start(name, definition)
            except ServiceError:
                continue  # a program that cannot run is logged by start; a blank STARTCMD
                # or a server already running has nothing to start

    def end_all(self, definitions: Iterable[tuple[str, Mapping[str, object]]]) -> None:
        """At the queue manager's end: CONTROL(QMGR) services are stopped (a command's stop
        program run, a server stopped by its STOPCMD or SIGTERM); waits for them, at most
        the grace period, then SIGKILLs a server that has not ended. Once per start: a
        controlled end stops the services as it begins, and again at its end does nothing."""
        with self._lock:
            if self.ending:
                return
            self.ending = True
        waiting: list[Any] = []
        for name, definition in definitions:
            if definition.get("CONTROL") != "QMGR":
                continue
            server = definition.get("SERVTYPE") == "SERVER"
            with self._lock:
                running = self.servers.get(name)
            if server and running is None:
                continue
            if running is not None and running.status == "STARTING":
                self._until_launched(running)  # then it has a pid to stop
            try:
                self.stop(name, definition)
            except ServiceError as err:
                if err.reason != CMQCFC.MQRCCF_NO_STOP_CMD or running is None \
                        or running.proc is None:
                    continue
                _signal(running.proc, signal.SIGTERM)
            if running is not None and running.proc is not None:
                waiting.append(running.proc)
        deadline = time.monotonic() + self.grace
        for proc in waiting:
            try:
                proc.wait(max(0.0, deadline - time.monotonic()))
            except subprocess.TimeoutExpired:
                _signal(proc, signal.SIGKILL)
                try:
                    proc.wait(5)
                except subprocess.TimeoutExpired:
                    pass

    def _until_launched(self, running: Running) -> None:
        """Wait (at most the grace period) for a STARTING server's launch to end."""
        deadline = time.monotonic() + self.grace
        while time.monotonic() < deadline:
            with self._lock:
                if running.status != "STARTING":
                    return
            time.sleep(0.02)

    # -------------------------------------------------------------- reaping

    def _reap(self, name: str, proc: Any, server: bool) -> None:
        proc.wait()
        with self._lock:
            self.children.discard(proc.pid)
            mine = server and self.servers.get(name) is not None \
                and self.servers[name].proc is proc
            if mine:
                del self.servers[name]
        if mine:
            self._log("ended", name, proc.pid)

    def _reap_stop(self, name: str, proc: Any, running: Running | None) -> None:
        proc.wait()
        with self._lock:
            self.children.discard(proc.pid)
            if running is not None and self.servers.get(name) is running \
                    and _alive(running.proc):
                running.status = "RUNNING"  # the stop program ended; the server did not


def _signal(proc: Any, signum: int) -> None:
    try:
        proc.send_signal(signum)
    except (ProcessLookupError, OSError):
        pass


# ---------------------------------------------------------------------- one per queue manager

_runners: dict[str, ServiceRunner] = {}
_runners_lock = threading.Lock()


def _error_logger(qmgr: str, qmdir: str) -> Callable[..., None]:
    """AMQ5028 / AMQ5029 / AMQ5030 (and start failures) in the queue manager's error log."""
    log = errorlog.ErrorLog(os.path.join(qmdir, "errors"), qmgr=qmgr, program="amqzmgr0")
    kinds = {"started": errorlog.AMQ5028, "ended": errorlog.AMQ5029,
             "command": errorlog.AMQ5030}

    def write(kind: str, name: str, pid: int, detail: str = "") -> None:
        if kind == "failed":
            log.write(errorlog.AMQ8934, inserts={"service": name, "detail": detail})
        else:
            log.write(kinds[kind], inserts={"service": name, "pid": pid})
    return write


def runner_for(engine: QueueManagerEngine) -> ServiceRunner:
    """The service runner of the queue manager ``engine`` runs, made on first use."""
    qmdir = os.path.abspath(engine.qmdir)
    with _runners_lock:
        runner = _runners.get(qmdir)
        if runner is None:
            data_path = os.path.dirname(os.path.dirname(qmdir))
            name = engine.name

            def context() -> Context:
                return Context(name, qmdir, data_path,
                               service_env=read_service_env(data_path, qmdir))
            runner = ServiceRunner(context, _error_logger(name, qmdir))
            _runners[qmdir] = runner
        return runner


def definitions(engine: QueueManagerEngine) -> list[tuple[str, dict[str, object]]]:
    """The queue manager's SERVICE definitions, by name."""
    with engine.lock:
        found = [(o.name, dict(o.attributes)) for o in engine.catalog.objects.values()
                 if o.objtype == "SERVICE"]
    return sorted(found)


def start_at_qmgr_start(engine: QueueManagerEngine) -> None:
    runner_for(engine).start_all(definitions(engine))


def stop_at_qmgr_end(engine: QueueManagerEngine) -> None:
    runner_for(engine).end_all(definitions(engine))
