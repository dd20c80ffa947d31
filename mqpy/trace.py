"""Trace: strmqtrc, endmqtrc and dspmqtrc, and the records every process writes.

As IBM MQ has it, trace is switched on and off from outside the processes it traces, and each
traced process writes its own file, ``<data root>/trace/AMQ<pid>.TRC``. The switch is the control
file ``trace/mqtrace.ctl`` (JSON): the trace specifications in effect, one per strmqtrc (up to
16). Within one specification the options are ANDed (queue manager, programs, process ids);
between specifications they are ORed. A process looks at the control file at most once a second
(one ``stat``), so a strmqtrc or endmqtrc reaches running processes within about a second,
without a signal, and costs an untraced MQI call one clock read. A process with a watcher
(:meth:`Tracer.watch`: one that runs a queue manager in it) looks when the trace directory
changes (``mqpy.fswatch``), not on a timer, and once a second only where that cannot be had.

A record is one JSON line: ``{`` when an MQI call starts, ``}`` when it ends with its CompCode
and Reason (and, with ``-t timing``, its elapsed microseconds). ``-t parms`` adds the call's
parameters: object names, options, message descriptor fields, lengths. dspmqtrc formats the
files for people.
"""

from __future__ import annotations

import fnmatch
import json
import math
import os
import sys
import threading
import time
from collections.abc import Callable, Iterable, Iterator
from typing import Any, TypeVar

import attrs

from mqpy import CMQC, config, filemodes, fswatch
from mqpy.constants import reason_name
from mqpy.version import __version__

CONTROL_FILE = "mqtrace.ctl"
MAX_SPECS = 16  # IBM: at most 16 strmqtrc invocations in effect at once
CHECK_INTERVAL = 1.0  # seconds between looks at the control file
#: the watcher's look when nothing changed, seconds (a change it was not told of: the data
#: path's directory replaced under it)
WATCH_SAFETY_INTERVAL = 300.0
#: what in the data path and its trace directory wakes the watcher
_DIR_EVENTS = (fswatch.IN_CREATE | fswatch.IN_DELETE | fswatch.IN_MOVED_TO
               | fswatch.IN_MOVED_FROM | fswatch.IN_CLOSE_WRITE | fswatch.IN_DELETE_SELF
               | fswatch.IN_MOVE_SELF)

#: IBM's trace types (strmqtrc -t / -x). mqpy records "api" (the MQI calls of an
#: application), "lqmflows" (the queue manager's daemon serving them), "comms" (a channel
#: initiator's flows) and the "parms" and "timing" details; the others are accepted, as IBM
#: accepts them, and record nothing more.
TRACE_TYPES = (
    "all", "api", "commentary", "comms", "csdata", "csflows", "detail", "lqmdata",
    "lqmflows", "otherdata", "otherflows", "parms", "remotedata", "remoteflows",
    "servicedata", "timing", "versiondata",
)

T = TypeVar("T")


def trace_dir(root: str | None = None) -> str:
    return os.path.join(config.data_root(root), "trace")


def program_name() -> str:
    """The name IBM's "Program Name" header shows: the program's file name (the
    interpreter's for ``python -c``)."""
    argv0 = sys.argv[0] if sys.argv else ""
    if argv0 in ("", "-c", "-"):
        argv0 = sys.executable or "python"
    return os.path.basename(argv0)


@attrs.frozen
class TraceSpec:
    """One strmqtrc: what it traces (all its qualifiers must match) and how."""

    qmgr: str | None = None  #: -m pattern (* and ?); None: every queue manager
    early: bool = False  #: -e: every process, connected to a queue manager or not
    types: tuple[str, ...] = ("all",)  #: -t
    exclude: tuple[str, ...] = ()  #: -x
    max_size_mb: int | None = None  #: -l: then AMQ<pid>.TRC becomes AMQ<pid>.TRS
    apps: tuple[str, ...] = ()  #: -p program name patterns
    pids: tuple[int, ...] = ()  #: -i process ids

    def matches(self, qmgr: str | None, program: str, pid: int) -> bool:
        if self.early:
            pass
        elif qmgr is None or (self.qmgr is not None
                              and not fnmatch.fnmatchcase(qmgr, self.qmgr)):
            return False
        if self.apps and not any(fnmatch.fnmatchcase(program, p) for p in self.apps):
            return False
        return not self.pids or pid in self.pids

    def traces(self, kind: str) -> bool:
        """Whether this specification records ``kind`` (a trace type or detail)."""
        if kind in self.exclude:
            return False
        if kind in ("parms", "detail"):
            return kind in self.types or "detail" in self.types
        chosen = [t for t in self.types if t not in ("parms", "detail")]
        return not chosen or "all" in chosen or kind in chosen  # only a level: all types

    def describe(self) -> str:
        """One line for strmqtrc -s."""
        parts = [f"-m {self.qmgr}" if self.qmgr else ("-e" if self.early else
                                                      "(all queue managers)")]
        parts.append("-t " + ",".join(self.types))
        if self.exclude:
            parts.append("-x " + ",".join(self.exclude))
        if self.apps:
            parts.append("-p " + ",".join(self.apps))
        if self.pids:
            parts.append("-i " + ",".join(str(p) for p in self.pids))
        if self.max_size_mb:
            parts.append(f"-l {self.max_size_mb}")
        return " ".join(parts)

    def same_target(self, other: TraceSpec) -> bool:
        """Whether ``other`` traces the same entities (a new strmqtrc for them replaces it)."""
        return (self.qmgr, self.early, self.apps, self.pids) == \
            (other.qmgr, other.early, other.apps, other.pids)


# ------------------------------------------------------------------ the control file


def read_specs(root: str | None = None) -> list[TraceSpec]:
    """The specifications in effect ([] when tracing is off or the file is unreadable)."""
    try:
        with open(os.path.join(trace_dir(root), CONTROL_FILE), encoding="utf-8") as f:
            rows = json.load(f)
        return [TraceSpec(qmgr=r.get("qmgr"), early=bool(r.get("early")),
                          types=tuple(r.get("types") or ("all",)),
                          exclude=tuple(r.get("exclude") or ()),
                          max_size_mb=r.get("max_size_mb"), apps=tuple(r.get("apps") or ()),
                          pids=tuple(int(p) for p in r.get("pids") or ()))
                for r in rows]
    except (OSError, ValueError, TypeError, AttributeError):
        return []


def write_specs(specs: Iterable[TraceSpec], root: str | None = None) -> None:
    """Replace the specifications (atomically: a process never reads half a file)."""
    directory = trace_dir(root)
    filemodes.makedirs(directory)
    path = os.path.join(directory, CONTROL_FILE)
    rows = [attrs.asdict(s) for s in specs]
    if not rows:
        try:
            os.remove(path)
        except FileNotFoundError:
            pass
        return
    tmp = f"{path}.{os.getpid()}.tmp"
    with filemodes.open_file(tmp, "w", encoding="utf-8") as f:
        json.dump(rows, f)
    os.replace(tmp, path)


def start(spec: TraceSpec, root: str | None = None) -> list[TraceSpec]:
    """strmqtrc: add ``spec``, replacing one for the same entities. ValueError past 16."""
    specs = [s for s in read_specs(root) if not s.same_target(spec)]
    if len(specs) >= MAX_SPECS:
        raise ValueError(f"at most {MAX_SPECS} trace specifications can be in effect")
    specs.append(spec)
    write_specs(specs, root)
    return specs


def end(*, qmgr: str | None = None, apps: tuple[str, ...] = (), pids: tuple[int, ...] = (),
        early: bool = False, everything: bool = False, root: str | None = None) -> int:
    """endmqtrc: end the specifications its parameters describe; how many ended. With no
    parameters it ends early tracing (IBM's rule); ``everything`` (-a) ends all."""
    specs = read_specs(root)
    if everything:
        keep: list[TraceSpec] = []
    elif qmgr is None and not apps and not pids:
        keep = [s for s in specs if not s.early]
    else:
        def described(s: TraceSpec) -> bool:
            return ((qmgr is None or s.qmgr == qmgr) and (not apps or s.apps == apps)
                    and (not pids or s.pids == pids) and s.early == early)
        keep = [s for s in specs if not described(s)]
    write_specs(keep, root)
    return len(specs) - len(keep)


# ------------------------------------------------------------------ a traced process


class TraceFile:
    """This process's AMQ<pid>.TRC: JSON lines, written under a lock (threads share it)."""

    def __init__(self, directory: str, spec: TraceSpec) -> None:
        self.path = os.path.join(directory, f"AMQ{os.getpid()}.TRC")
        self.spec = spec
        self.limit = spec.max_size_mb * 1024 * 1024 if spec.max_size_mb else 0
        self._lock = threading.Lock()
        filemodes.makedirs(directory)
        self._f = self._open()

    def _open(self) -> Any:
        f = filemodes.open_file(self.path, "a", encoding="utf-8")  # (kept open while tracing)
        if f.tell() == 0:
            f.write(json.dumps({"header": {
                "pid": os.getpid(), "program": program_name(), "argv": sys.argv,
                "mqpy": __version__, "python": sys.version.split()[0],
                "started": time.time(), "trace": self.spec.describe()}}) + "\n")
        return f

    def write(self, record: dict[str, Any]) -> None:
        line = json.dumps(record, default=_printable) + "\n"
        with self._lock:
            f = self._f
            if f is None:
                return
            try:
                f.write(line)
                f.flush()
                if self.limit and f.tell() >= self.limit:
                    # as IBM: the full file becomes AMQ<pid>.TRS, a new AMQ<pid>.TRC starts
                    f.close()
                    self._f = None
                    os.replace(self.path, self.path[:-4] + ".TRS")
                    self._f = self._open()
            except OSError as exc:
                # a full disk or a trace directory taken away: the process stops tracing
                # (an MQI call never fails for its trace), and says so once
                self._stop(exc)

    def _stop(self, exc: OSError) -> None:
        f, self._f = self._f, None
        if f is not None:
            try:
                f.close()
            except OSError:
                pass
        sys.stderr.write(f"mqpy trace: {self.path}: {exc.strerror or exc}; tracing stopped "
                         "in this process.\n")

    def close(self) -> None:
        with self._lock:
            if self._f is not None:
                self._f.close()
                self._f = None


def _printable(value: Any) -> Any:
    """A field value in a record: text as text, binary (MsgId ...) as hex."""
    if isinstance(value, bytes):
        if not value.strip(b"\x00"):
            return "NONE" if value else ""
        text = value.rstrip(b" \x00")
        return text.decode("ascii") if all(32 <= c < 127 for c in text) \
            else value.hex().upper()
    return str(value)


class Tracer:
    """Whether this process traces the calls it makes to one queue manager, and where to."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        #: the queue manager a channel initiator serves: what its network flows are traced for
        self.process_qmgr: str | None = None
        #: the monotonic time until which no call of this process is traced: no strmqtrc in
        #: effect when the control file was last looked at, less than CHECK_INTERVAL ago (a
        #: hot path's whole check is one clock read against it; else ``spec_for``)
        self.untraced_until = -math.inf
        self._looked = -CHECK_INTERVAL  #: when the control file was last looked at
        self._stamp: tuple[str, int, int] | None = None
        self._specs: list[TraceSpec] = []
        self._sinks: dict[str | None, TraceSpec | None] = {}
        self._file: TraceFile | None = None
        #: some strmqtrc is in effect (kept current by spec_for's look, or by watch())
        self.active = False
        self._watcher: threading.Thread | None = None

    def watch(self) -> None:
        """Keep :attr:`active` current from a thread of its own (one a process, looking at
        the control file when its directory changes, or once a second where that cannot be
        told), so that a call into an embedded queue manager, which has no request to
        trace, pays one attribute read while nothing is traced."""
        with self._lock:
            if self._watcher is not None and self._watcher.is_alive():
                return
            self._watcher = threading.Thread(target=self._watch, name="mqpy-trace-watch",
                                             daemon=True)
            self._watcher.start()

    def _watch(self) -> None:
        watch = fswatch.open_watch()
        while True:
            watched = False
            if watch is not None:
                # the data path (the trace directory made, removed) and the trace directory
                # (the control file replaced or removed): added again each time, since
                # either may be made anew; neither there yet, it looks on the timer
                watched = watch.add(config.data_root(), fswatch.IN_CREATE | fswatch.IN_DELETE
                                    | fswatch.IN_MOVED_TO | fswatch.IN_MOVED_FROM)
                watched = watch.add(trace_dir(), _DIR_EVENTS) or watched
            self._refresh(time.monotonic())
            if watch is None or not watched:
                time.sleep(CHECK_INTERVAL)
            else:
                watch.wait(WATCH_SAFETY_INTERVAL)

    def look_again(self) -> None:
        """The next call looks at the control file (a strmqtrc just run, in tests):
        ``untraced_until`` holds no more."""
        self._looked = -CHECK_INTERVAL
        self.untraced_until = -math.inf

    def spec_for(self, qmgr: str | None) -> TraceSpec | None:
        """The specification that traces this process's calls to ``qmgr`` (None: none)."""
        now = time.monotonic()
        if now - self._looked >= CHECK_INTERVAL:
            self._refresh(now)
        try:
            return self._sinks[qmgr]
        except KeyError:
            pass
        program, pid = program_name(), os.getpid()
        spec = next((s for s in self._specs if s.matches(qmgr, program, pid)), None)
        self._sinks[qmgr] = spec
        return spec

    def _refresh(self, now: float) -> None:
        with self._lock:
            self._looked = now
            directory = trace_dir()
            path = os.path.join(directory, CONTROL_FILE)
            try:
                st = os.stat(path)
                stamp: tuple[str, int, int] | None = (path, st.st_mtime_ns, st.st_ino)
            except OSError:
                stamp = None
            if stamp == self._stamp:
                self.untraced_until = -math.inf if self._specs else now + CHECK_INTERVAL
                return
            self._stamp = stamp
            self._specs = read_specs() if stamp else []
            self.active = bool(self._specs)
            self._sinks = {}
            self.untraced_until = -math.inf if self._specs else now + CHECK_INTERVAL
            if self._file is not None and (not self._specs or os.path.dirname(
                    self._file.path) != directory):
                self._file.close()  # endmqtrc: this process stops writing
                self._file = None

    def file(self, spec: TraceSpec) -> TraceFile:
        with self._lock:
            if self._file is None or self._file.spec != spec:
                if self._file is not None:
                    self._file.close()
                self._file = TraceFile(trace_dir(), spec)
            return self._file

    def call(self, qmgr: str | None, verb: str, hobj: int, values: Any,
             fn: Callable[[], T]) -> T:
        """Run one MQI call (``fn``), recorded if this process traces ``qmgr``."""
        call = self.begin(qmgr, verb, hobj, values)
        if call is None:
            return fn()
        result: Any = None
        try:
            result = fn()
            return result
        except Exception as e:
            call.failed(e)
            raise
        finally:
            call.end(result)

    def begin(self, qmgr: str | None, verb: str, hobj: int, values: Any,
              kind: str = "api") -> TracedCall | None:
        """The entry record of one call of trace type ``kind`` ("api": an application's
        MQI; "lqmflows": the queue manager serving it); None when it is not traced."""
        spec = self.spec_for(qmgr)
        if spec is None or not spec.traces(kind):
            return None
        try:
            out = self.file(spec)
        except OSError:
            return None  # the trace directory cannot be written: the call goes untraced
        call = TracedCall(out, spec, verb, threading.get_native_id())
        entry: dict[str, Any] = {"t": time.time(), "tid": call.tid, "k": "{", "fn": verb,
                                 "qm": qmgr, "hobj": hobj}
        if kind != "api":
            entry["side"] = kind
        if spec.traces("parms"):
            entry["parms"] = dict(parameters(verb, values))
        out.write(entry)
        return call


    def flows(self, direction: str, channel: str, events: Iterable[Any], size: int) -> None:
        """A channel initiator's send (``direction`` ">") or receive ("<"): the flows'
        kinds and bytes, if strmqtrc asks for comms for this process's queue manager."""
        spec = self.spec_for(self.process_qmgr)
        if spec is None or not spec.traces("comms"):
            return
        try:
            out = self.file(spec)
        except OSError:
            return
        out.write({"t": time.time(), "tid": threading.get_native_id(), "k": direction,
                   "fn": ",".join(type(e).__name__ for e in events), "channel": channel,
                   "bytes": size})


@attrs.define
class TracedCall:
    """One traced call between its entry and exit records."""

    out: TraceFile
    spec: TraceSpec
    verb: str
    tid: int
    t0: float = attrs.Factory(time.perf_counter)
    comp: int = CMQC.MQCC_OK
    reason: int = CMQC.MQRC_NONE

    def failed(self, e: BaseException) -> None:
        self.comp = getattr(e, "comp", CMQC.MQCC_FAILED)
        self.reason = getattr(e, "reason", CMQC.MQRC_UNEXPECTED_ERROR)

    def end(self, result: Any = None) -> None:
        """The exit record: CompCode and Reason (the result's, if it carries them)."""
        comp = getattr(result, "comp", self.comp)
        reason = getattr(result, "reason", self.reason)
        exit_: dict[str, Any] = {"t": time.time(), "tid": self.tid, "k": "}", "fn": self.verb,
                                 "cc": comp, "rc": reason}
        if self.spec.traces("timing"):
            exit_["us"] = round((time.perf_counter() - self.t0) * 1e6)
        if result is not None and self.spec.traces("parms"):
            exit_["parms"] = dict(reply_parameters(self.verb, result))
        self.out.write(exit_)


def parameters(verb: str, values: Any) -> Iterator[tuple[str, Any]]:
    """The parameters of one call worth a trace line (names as IBM's structures have them)."""
    for value in values or ():
        fields = getattr(value, "__dict__", None)
        if fields is None or not hasattr(value, "_layout_"):
            if isinstance(value, (bytes, bytearray)):
                yield "DataLength", len(value)
            elif isinstance(value, int):
                yield {"MQOPEN": "Options", "MQCLOSE": "Options", "MQGET": "BufferLength"}.get(
                    verb, "Value"), value
            continue
        name = value._layout_.mq_name
        for field in _TRACED_FIELDS.get(name, ()):
            if field in fields:
                yield f"{name}.{field}", fields[field]


def reply_parameters(verb: str, reply: Any) -> Iterator[tuple[str, Any]]:
    """What a successful reply adds: the object handle of an MQOPEN, the message got."""
    if verb == "MQOPEN":
        yield "Hobj", getattr(reply, "hobj", 0)
    values = getattr(reply, "values", None) or ()
    if verb == "MQGET" and len(values) >= 4:
        md = values[0]
        yield "DataLength", len(values[3])
        for field in ("MsgId", "CorrelId", "Persistence", "Priority", "BackoutCount"):
            if field in getattr(md, "__dict__", {}):
                yield f"MQMD.{field}", md.__dict__[field]


_TRACED_FIELDS = {
    "MQOD": ("ObjectType", "ObjectName", "ObjectQMgrName"),
    "MQMD": ("MsgType", "Persistence", "Priority", "MsgId", "CorrelId", "Format"),
    "MQPMO": ("Options",),
    "MQGMO": ("Options", "WaitInterval", "MatchOptions"),
}

#: the process's tracer (one per process, as IBM's trace is per process)
TRACER = Tracer()


# ------------------------------------------------------------------ dspmqtrc


def format_records(lines: Iterable[str], *, header: bool = True) -> Iterator[str]:
    """dspmqtrc: a trace file's JSON lines as text, calls indented by nesting per thread."""
    depth: dict[int, int] = {}
    for number, line in enumerate(lines, 1):
        line = line.strip()
        if not line:
            continue
        try:
            rec = json.loads(line)
        except ValueError:
            rec = None
        if not isinstance(rec, dict) or not isinstance(rec.get("header", {}), dict):
            yield f"(line {number}: not a trace record)"
            continue
        if "header" in rec:
            if header:
                h = rec["header"]
                yield f"Process         : {h.get('pid')} ({h.get('program')})"
                yield f"Command line    : {' '.join(h.get('argv') or ())}"
                yield f"Version         : mqpy {h.get('mqpy')} (Python {h.get('python')})"
                yield f"Trace started   : {_when(h.get('started'))}"
                yield f"Trace options   : {h.get('trace')}"
                yield ""
                yield f"{'Timestamp':<28}{'Thread':<10}Trace data"
            continue
        tid = rec.get("tid", 0)
        if rec.get("k") in (">", "<"):  # a channel's flows (-t comms)
            arrow = "sent" if rec["k"] == ">" else "received"
            text = (f"{'  ' * depth.get(tid, 0)}{rec['k'] * 2} {rec.get('fn')} {arrow} on "
                    f"channel {rec.get('channel')} ({rec.get('bytes')} bytes)")
            yield f"{_when(rec.get('t')):<28}{tid:<10}{text}"
            continue
        if rec.get("k") == "{":
            level = depth.get(tid, 0)
            depth[tid] = level + 1
            parms = " ".join(f"{k}={v}" for k, v in (rec.get("parms") or {}).items())
            qm = f" QMgr={rec['qm']}" if rec.get("qm") else ""
            if rec.get("side"):
                qm += f" ({rec['side']})"
            text = f"{'  ' * level}{{ {rec.get('fn')}{qm} Hobj={rec.get('hobj')} {parms}"
        else:
            level = max(depth.get(tid, 1) - 1, 0)
            depth[tid] = level
            reason = rec.get("rc", 0)
            text = (f"{'  ' * level}}} {rec.get('fn')} CompCode={rec.get('cc')} "
                    f"Reason={reason} ({reason_name(reason)})")
            parms = " ".join(f"{k}={v}" for k, v in (rec.get("parms") or {}).items())
            if parms:
                text += " " + parms
            if "us" in rec:
                text += f" {rec['us']} us"
        yield f"{_when(rec.get('t')):<28}{tid:<10}{text.rstrip()}"


def _when(t: Any) -> str:
    if not isinstance(t, (int, float)):
        return "?"
    return time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(t)) + f".{int(t % 1 * 1e6):06d}"
