"""Problem determination output: the error logs (AMQERR01-03.LOG) and FFST (FDC) files.

Owns the on-disk layout operators and their tools already read, spec operations-dlq-clusters
§1 and acceptance 7.1-7.5:

- **Error logs.** ``<qmgr dir>/errors/AMQERR01.LOG`` when the queue manager is known,
  ``<root>/qmgrs/@SYSTEM/errors`` when it is not (:func:`errors_dir`), ``<root>/errors`` for
  errors before any configuration could be read (:func:`early_errors_dir`). Newest entries
  are in AMQERR01; when it would grow past ErrorLogSize (qm.ini ``QMErrorLog`` stanza,
  :mod:`mqpy.qmerrorlog`, 32 MB by default) AMQERR02 becomes AMQERR03 (the old 03 is lost),
  01 becomes 02, and a fresh 01 takes the entry. The stanza's ExcludeMessage and
  SuppressMessage leave entries out. Each entry is laid out as IBM MQ 9.1 writes it on UNIX::

      05/14/2024 09:12:07 AM - Process(4242.7) User(mqm) Program(runmqchi)
                          Host(box1) Installation(Installation1)
                          VRMF(9.2.5.0) QMgr(QM1)
                          Time(2024-05-14T09:12:07.123Z)
                          ArithInsert1(5) ArithInsert2(3)
                          CommentInsert1(TO.QM2)
                          CommentInsert2(box2(1414))
                         ␣
      AMQ9526E: Message sequence number error for channel 'TO.QM2'.

      EXPLANATION:
      ...wrapped at 79 columns...
      ACTION:
      ...␣
      ----- mcaflow.py : 212 --------------------------------------------------------

  Zero arithmetic and empty comment inserts are left out, as IBM does. The trailer names
  the Python source file and line that wrote the entry (IBM names its C file). The queue
  manager and the channel initiator append to the same files; an ``fcntl.flock`` on
  ``AMQERR01.LCK`` serialises rotate + append between processes, and each entry goes out
  in one ``write`` on an O_APPEND descriptor (flushed, never fsynced: the error log is not
  part of the durability contract).

- **FFST.** A severe, unexpected failure writes a First Failure Symptom Report to
  ``AMQ<pid>.<n>.FDC`` (:func:`write_fdc`): IBM's boxed header, the Python stack of the
  failure, the stacks of every thread and the caller's state. Like IBM, one process keeps
  appending records to the one file it opened; ``n`` starts at 0 and only goes up when a
  file of that name exists already (a reused process id). Each record is announced by an
  AMQ6184W (AMQ6183W without a queue manager) error-log entry naming the file.
  :func:`fdc_guard` wraps a process entry point so that an operator sees an AMQ message and
  an exit status, never a Python traceback.

This module writes files and nothing else: no sockets, no threads of its own. The syslog
``user.error`` record IBM also writes for an FDC (7.5) is :func:`syslog_alert`, which the
caller passes in; it is not sent by default.
"""

from __future__ import annotations

import contextlib
import datetime as _dt
import fcntl
import getpass
import os
import platform
import re
import struct
import sys
import syslog
import textwrap
import threading
import traceback
from collections.abc import Callable, Iterator, Mapping
from types import TracebackType
from typing import IO, Any

import attrs

from mqpy import amqmsgs, config, filemodes, version
from mqpy.amqmsgs import AMQMessage
from mqpy.outfiles import shift_generations
from mqpy.printable import printable
from mqpy.qmerrorlog import QMErrorLogConfig, Suppression

__all__ = [
    "ErrorLog",
    "FFST_TITLE",
    "LogEntry",
    "SYSTEM_QMGR_DIR",
    "VRMF",
    "early_errors_dir",
    "errors_dir",
    "fdc_guard",
    "format_entry",
    "format_fdc",
    "parse_log",
    "qmerrorlog_rules",
    "read_entries",
    "syslog_alert",
    "write_fdc",
]

LOG_NAMES = ("AMQERR01.LOG", "AMQERR02.LOG", "AMQERR03.LOG")
LOCK_NAME = "AMQERR01.LCK"
#: Directory name used under ``qmgrs/`` when no queue manager is known.
SYSTEM_QMGR_DIR = "@SYSTEM"
#: Width of every line IBM writes to an error log or FDC header.
PAGE_WIDTH = 79
#: Continuation indent of the header lines of an entry (IBM UNIX layout).
INDENT = " " * 20
DEFAULT_INSTALLATION = "Installation1"
FFST_TITLE = "IBM MQ First Failure Symptom Report"
#: Exit status of a command that stopped on an unexpected error (IBM control commands: 71).
EXIT_UNEXPECTED = 71


#: the IBM MQ level mqpy implements (``9.2.5.0``), for the VRMF() header field and FDC LVLS
VRMF = version.VRMF


# ------------------------------------------------------------------ service objects
# IBM's texts and inserts as its "Managing services" page shows the log entries of a server
# and a command service (amqzmgr0); severity letter I as mqpy's other informational ids.

AMQ5028 = AMQMessage(  # [C] text from IBM's "Managing services" example
    "AMQ5028I", "The Server '{service}' has started. ProcessId({pid}).",
    "The Server process has started.", arith=("pid",), comment=("service",))
AMQ5029 = AMQMessage(  # [C]
    "AMQ5029I", "The Server '{service}' has ended. ProcessId({pid}).",
    "The Server process has ended.", arith=("pid",), comment=("service",))
AMQ5030 = AMQMessage(  # [C]
    "AMQ5030I", "The Command '{service}' has started. ProcessId({pid}).",
    "The Command has started.", arith=("pid",), comment=("service",))
AMQ8934 = AMQMessage(  # [X] mqpy's own: IBM's id for a program that cannot start is unknown
    "AMQ8934E", "A program of service '{service}' could not be run: {detail}.",
    "The program named by the service's STARTCMD or STOPCMD could not be run (it does not "
    "exist, is not executable, or an STDOUT or STDERR file could not be opened).",
    "Correct the service definition with ALTER SERVICE and start it again.",
    comment=("service", "detail"))


# ---------------------------------------------------------------------------- directories


def errors_dir(qmgr_dir: str | None, data_root: str) -> str:
    """Where error logs go: the queue manager's ``errors`` directory, else ``@SYSTEM``'s.

    spec: operations-dlq-clusters 7.1 and 7.3 (queue manager unknown or down).
    """
    if qmgr_dir:
        return os.path.join(qmgr_dir, "errors")
    return os.path.join(data_root, "qmgrs", SYSTEM_QMGR_DIR, "errors")


def early_errors_dir(data_root: str, default_prefix: str | None = None) -> str:
    """Where errors go before any queue manager configuration could be read.

    ``DefaultPrefix`` from a readable ``AllQueueManagers`` stanza wins; otherwise the data
    root's own ``errors`` directory (spec: operations-dlq-clusters 7.4).
    """
    return os.path.join(default_prefix or data_root, "errors")


def qmerrorlog_rules(directory: str) -> QMErrorLogConfig:
    """The QMErrorLog rules for an errors directory: its queue manager's qm.ini stanza
    (``<qmgr dir>/errors``), IBM's defaults for the @SYSTEM and early directories."""
    return config.qmerrorlog_of(os.path.dirname(os.path.abspath(directory)))


# ---------------------------------------------------------------------------- formatting


def _now() -> _dt.datetime:
    return _dt.datetime.now(_dt.timezone.utc)


def _user() -> str:
    try:
        return getpass.getuser()
    except Exception:  # no passwd entry (containers)
        return str(os.getuid())


def _program() -> str:
    return os.path.basename(sys.argv[0]) if sys.argv and sys.argv[0] else "python"


def _local_stamp(when: _dt.datetime) -> str:
    """``MM/DD/YYYY hh:mm:ss AM`` in local time, without the locale's say in AM/PM."""
    t = when.astimezone()
    hour = t.hour % 12 or 12
    return (f"{t.month:02d}/{t.day:02d}/{t.year:04d} {hour:02d}:{t.minute:02d}:"
            f"{t.second:02d} {'AM' if t.hour < 12 else 'PM'}")


def _utc_stamp(when: _dt.datetime) -> str:
    t = when.astimezone(_dt.timezone.utc)
    return t.strftime("%Y-%m-%dT%H:%M:%S.") + f"{t.microsecond // 1000:03d}Z"


def _wrap(text: str) -> list[str]:
    """Wrap at 79 columns paragraph by paragraph; never split words or hostnames."""
    out: list[str] = []
    for i, para in enumerate(text.split("\n\n")):
        if i:
            out.append("")
        out += textwrap.wrap(para, PAGE_WIDTH, break_long_words=False,
                             break_on_hyphens=False) or [""]
    return out


def _caller() -> tuple[str, int]:
    """File and line of the first frame outside this module: the trailer's 'amqxxxx.c : n'."""
    frame = sys._getframe(1)
    while frame is not None and frame.f_code.co_filename == __file__:
        frame = frame.f_back  # type: ignore[assignment]
    if frame is None:
        return "errorlog.py", 0
    return os.path.basename(frame.f_code.co_filename), frame.f_lineno


def format_entry(rendered: amqmsgs.Rendered, *, when: _dt.datetime, pid: int, tid: int,
                 user: str, program: str, host: str, installation: str, vrmf: str,
                 qmgr: str | None, comp: str, line: int) -> str:
    """One error-log entry, trailer included, exactly as it is appended to AMQERR01.LOG."""
    head = [f"{_local_stamp(when)} - Process({pid}.{tid}) User({user}) Program({program})",
            f"{INDENT}Host({host}) Installation({installation})",
            f"{INDENT}VRMF({vrmf})" + (f" QMgr({qmgr})" if qmgr else ""),
            f"{INDENT}Time({_utc_stamp(when)})"]
    arith = " ".join(f"ArithInsert{i}({v})" for i, v in enumerate(rendered.arith, 1) if v)
    if arith:
        head.append(INDENT + arith)
    head += [f"{INDENT}CommentInsert{i}({printable(str(v))})"
             for i, v in enumerate(rendered.comment, 1) if v]
    action = _wrap(rendered.action)
    action[-1] += " "  # IBM leaves a blank after the last word of the action
    trailer = f"----- {comp} : {line} "
    body = [*head, INDENT[:-1], *_wrap(f"{rendered.msgid}: {printable(rendered.text)}"), "",
            "EXPLANATION:", *_wrap(rendered.explanation), "ACTION:", *action,
            trailer + "-" * max(PAGE_WIDTH - len(trailer), 5)]
    return "\n".join(body) + "\n"


# ---------------------------------------------------------------------------- writing


@contextlib.contextmanager
def _locked(directory: str) -> Iterator[None]:
    fd = os.open(os.path.join(directory, LOCK_NAME), os.O_RDWR | os.O_CREAT,
                 filemodes.FILE_MODE)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        os.close(fd)  # closing drops the lock


_DEFAULT = object()


class ErrorLog:
    """The error logs of one errors directory, appended to by any process of the installation.

    ``qmgr`` and ``program`` are defaults for :meth:`write`. ``rules`` (default: the
    queue manager's qm.ini QMErrorLog stanza, :func:`qmerrorlog_rules`) decide the size at
    which the files rotate and the entries left out; ``max_size`` overrides their
    ErrorLogSize. ``clock`` stamps entries and times SuppressInterval. Files are created on
    the first write, not before (spec: operations-dlq-clusters 7.1).
    """

    def __init__(self, directory: str, *, qmgr: str | None = None, program: str | None = None,
                 max_size: int | None = None, rules: QMErrorLogConfig | None = None,
                 installation: str = DEFAULT_INSTALLATION, vrmf: str = VRMF,
                 host: str | None = None, user: str | None = None,
                 clock: Callable[[], _dt.datetime] = _now) -> None:
        if max_size is not None and max_size <= 0:
            raise ValueError("ErrorLogSize must be positive")
        self.directory = directory
        self.qmgr = qmgr
        self.program = program or _program()
        self._max_size = max_size
        self._rules = rules
        self._suppression = Suppression.of_directory(directory)
        self.installation = installation
        self.vrmf = vrmf
        self.host = host or platform.node() or "localhost"
        self.user = user or _user()
        self.clock = clock

    @property
    def rules(self) -> QMErrorLogConfig:
        return self._rules if self._rules is not None else qmerrorlog_rules(self.directory)

    @property
    def max_size(self) -> int:
        """ErrorLogSize: AMQERR01.LOG is rotated before it would grow past it."""
        return self._max_size if self._max_size is not None else self.rules.error_log_size

    @max_size.setter
    def max_size(self, size: int) -> None:
        self._max_size = size

    @property
    def path(self) -> str:
        """AMQERR01.LOG, where the newest entries are."""
        return os.path.join(self.directory, LOG_NAMES[0])

    def write_event(self, msgid: str, text: str, *, program: str | None = None) -> str:
        """Append an entry whose text is already composed (channel events and the like).

        The explanation and action come from the catalogue when it knows ``msgid`` and they
        need no inserts (the message line may); otherwise they say only that the text is the
        whole message."""
        if len(msgid) == 7:
            msgid += "I"
        known = amqmsgs.MESSAGES.get(msgid)
        explanation, action = "See the message text.", "None."
        if known is not None and known.fixed_explanation:
            explanation, action = known.explanation, known.action
        msg = AMQMessage(msgid, text.replace("{", "{{").replace("}", "}}"),
                         explanation, action)
        return self.write(msg, program=program)

    def write(self, msg: AMQMessage, *, inserts: Mapping[str, object] | None = None,
              qmgr: Any = _DEFAULT, program: str | None = None, comp: str | None = None,
              line: int | None = None) -> str:
        """Append one entry for ``msg``; return the entry's text, ``""`` when the
        QMErrorLog rules left it out (ExcludeMessage, or SuppressMessage within its interval).

        A ``qmgr`` insert the message needs is taken from the log's queue manager when not
        given. ``comp``/``line`` default to the calling Python file and line.
        """
        qm = self.qmgr if qmgr is _DEFAULT else qmgr
        values = dict(inserts or {})
        if "qmgr" in msg.names and "qmgr" not in values and qm:
            values["qmgr"] = qm
        rendered = msg.render(values)
        if comp is None or line is None:
            c_comp, c_line = _caller()
            comp = comp if comp is not None else c_comp
            line = line if line is not None else c_line
        rules = self.rules
        if self._suppression.excluded(rules, msg.msgid):
            return ""
        text = ""
        try:
            filemodes.makedirs(self.directory)
            with _locked(self.directory):
                # Timestamp under the lock, so file order is time order across processes.
                when = self.clock()
                if not self._suppression.allows(rules, msg.msgid, when):
                    return ""
                text = format_entry(rendered, when=when, pid=os.getpid(),
                                    tid=threading.get_native_id(), user=self.user,
                                    program=program or self.program, host=self.host,
                                    installation=self.installation, vrmf=self.vrmf, qmgr=qm,
                                    comp=comp, line=line)
                data = text.encode("utf-8")
                self._rotate_if_needed(len(data))
                fd = os.open(self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT,
                             filemodes.FILE_MODE)
                try:
                    view = memoryview(data)
                    while view:
                        view = view[os.write(fd, view):]
                finally:
                    os.close(fd)
        except OSError as exc:
            text = text or f"{rendered.msgid}: {rendered.text}\n"
            _unwritten(self.path, exc, text)
        return text

    def _rotate_if_needed(self, incoming: int) -> None:
        """02 -> 03 (old 03 lost), 01 -> 02, when 01 would pass ErrorLogSize (spec 7.2)."""
        try:
            size = os.stat(self.path).st_size
        except FileNotFoundError:
            return
        if size == 0 or size + incoming <= self.max_size:
            return
        shift_generations([os.path.join(self.directory, n) for n in LOG_NAMES])


# ---------------------------------------------------------------------------- reading


@attrs.frozen(slots=True)
class LogEntry:
    """One parsed error-log entry. ``timestamp`` is UTC (from the Time() line when present)."""

    timestamp: _dt.datetime
    pid: int
    tid: int
    user: str
    program: str
    host: str
    installation: str
    vrmf: str
    qmgr: str | None
    msgid: str
    text: str
    explanation: str
    action: str
    arith_inserts: tuple[int, int] = (0, 0)
    comment_inserts: tuple[str, str, str] = ("", "", "")
    source: str = ""
    file: str = ""


_TRAILER = re.compile(r"^-{5}.*-{10,}$")
_FIRST = re.compile(r"^(?P<date>\d\d/\d\d/\d{4} \d\d:\d\d:\d\d(?: [AP]M)?) - "
                    r"Process\((?P<pid>\d+)\.(?P<tid>\d+)\) User\((?P<user>.*?)\) "
                    r"Program\((?P<program>.*)\)\s*$")
_MSG = re.compile(r"^(?P<id>AMQ\d{4,5}[IWEST]?): (?P<text>.*)$")
_SOURCE = re.compile(r"^-{5} (?P<src>.+?) -+$")
_FIELD = re.compile(r"\s*(\w+)\(")


def _fields(line: str) -> dict[str, str]:
    """``Name(value) Name(value)`` with balanced parentheses inside values."""
    out: dict[str, str] = {}
    s = line.strip()
    if s.startswith("CommentInsert") and s.endswith(")") and "(" in s:
        name, value = s.split("(", 1)
        return {name: value[:-1]}
    i = 0
    while i < len(s):
        m = _FIELD.match(s, i)
        if not m:
            break
        depth, j = 1, m.end()
        while j < len(s) and depth:
            depth += {"(": 1, ")": -1}.get(s[j], 0)
            j += 1
        out[m.group(1)] = s[m.end():j - 1]
        i = j
    return out


def _unwrap(lines: list[str]) -> str:
    paras: list[list[str]] = [[]]
    for ln in lines:
        if ln.strip():
            paras[-1].append(ln.strip())
        elif paras[-1]:
            paras.append([])
    return "\n\n".join(" ".join(p) for p in paras if p)


def _parse_local(date: str) -> _dt.datetime:
    """The local date line, for entries older than 9.1 that have no Time() line.

    UNIX writes MM/DD/YYYY with AM/PM; Windows follows the locale, often DD/MM/YYYY.
    """
    clock = "%I:%M:%S %p" if date.endswith("M") else "%H:%M:%S"
    for day in ("%m/%d/%Y", "%d/%m/%Y"):
        try:
            local = _dt.datetime.strptime(date, f"{day} {clock}")
        except ValueError:
            continue
        return local.astimezone().astimezone(_dt.timezone.utc)
    raise ValueError(f"unrecognised error-log date {date!r}")


def _parse_block(lines: list[str], source: str, file: str) -> LogEntry | None:
    while lines and not lines[0].strip():
        lines = lines[1:]
    if not lines:
        return None
    first = _FIRST.match(lines[0])
    if not first:
        return None
    fields: dict[str, str] = {}
    i = 1
    while i < len(lines) and lines[i].startswith(" ") and lines[i].strip():
        fields.update(_fields(lines[i]))
        i += 1
    while i < len(lines) and not lines[i].strip():
        i += 1
    if i >= len(lines) or not _MSG.match(lines[i]):
        return None
    msg_lines: list[str] = []
    while i < len(lines) and lines[i].strip():
        msg_lines.append(lines[i])
        i += 1
    m = _MSG.match(_unwrap(msg_lines))
    assert m is not None
    try:
        expl_at = lines.index("EXPLANATION:", i)
        act_at = lines.index("ACTION:", expl_at)
    except ValueError:
        return None
    when = (_dt.datetime.strptime(fields["Time"], "%Y-%m-%dT%H:%M:%S.%fZ")
            .replace(tzinfo=_dt.timezone.utc) if "Time" in fields
            else _parse_local(first["date"]))
    return LogEntry(
        timestamp=when, pid=int(first["pid"]), tid=int(first["tid"]), user=first["user"],
        program=first["program"], host=fields.get("Host", ""),
        installation=fields.get("Installation", ""), vrmf=fields.get("VRMF", ""),
        qmgr=fields.get("QMgr"), msgid=m["id"], text=m["text"],
        explanation=_unwrap(lines[expl_at + 1:act_at]), action=_unwrap(lines[act_at + 1:]),
        arith_inserts=(int(fields.get("ArithInsert1", 0)), int(fields.get("ArithInsert2", 0))),
        comment_inserts=(fields.get("CommentInsert1", ""), fields.get("CommentInsert2", ""),
                         fields.get("CommentInsert3", "")),
        source=source, file=file)


def parse_log(text: str, file: str = "") -> list[LogEntry]:
    """Entries of one error-log file's text, in file order; an unfinished tail is dropped."""
    entries: list[LogEntry] = []
    block: list[str] = []
    for line in text.split("\n"):
        if _TRAILER.match(line):
            m = _SOURCE.match(line)
            entry = _parse_block(block, m["src"] if m else "", file)
            if entry is not None:
                entries.append(entry)
            block = []
        else:
            block.append(line)
    return entries


def read_entries(directory: str) -> list[LogEntry]:
    """Every entry of AMQERR03, 02 and 01, oldest first (append order, not clock order)."""
    out: list[LogEntry] = []
    for name in reversed(LOG_NAMES):
        path = os.path.join(directory, name)
        try:
            with open(path, encoding="utf-8", errors="replace") as f:
                text = f.read()
        except FileNotFoundError:
            continue
        out += parse_log(text, name)
    return out


# ---------------------------------------------------------------------------- FFST

_fdc_lock = threading.Lock()
#: (pid, errors directory) -> [path of this process's FDC file, next FDCSequenceNumber]
_fdc_files: dict[tuple[int, str], list[Any]] = {}

_DAYS = ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday")
_MONTHS = ("January", "February", "March", "April", "May", "June", "July", "August",
           "September", "October", "November", "December")
_LABEL = 18
_VALUE = PAGE_WIDTH - 2 - _LABEL - 3 - 2


def _box_line(text: str = "") -> str:
    return f"| {text:<{PAGE_WIDTH - 4}} |"


def _box_field(label: str, value: object) -> list[str]:
    chunks = textwrap.wrap(str(value), _VALUE, break_long_words=True,
                           replace_whitespace=True) or [""]
    out = [_box_line(f"{label:<{_LABEL}}:- {chunks[0]}")]
    out += [_box_line(" " * (_LABEL + 3) + c) for c in chunks[1:]]
    return out


def _unwritten(path: str, exc: OSError, text: str) -> None:
    """An entry the disk would not take (full, read-only, gone): it goes to stderr instead,
    and the caller carries on; an error about an error must not end a queue manager."""
    with contextlib.suppress(OSError, ValueError):
        sys.stderr.write(f"mqpy: could not write {path} ({exc.strerror or exc}); "
                         f"the entry follows.\n{text}")
        sys.stderr.flush()


def _fdc_open(directory: str) -> tuple[str, int]:
    """This process's FDC file (created AMQ<pid>.<n>.FDC on first use) and the record number."""
    pid = os.getpid()
    key = (pid, os.path.realpath(directory))
    with _fdc_lock:
        known = _fdc_files.get(key)
        if known is None:
            filemodes.makedirs(directory)
            n = 0
            while True:
                path = os.path.join(directory, f"AMQ{pid}.{n}.FDC")
                try:
                    os.close(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL,
                                     filemodes.FILE_MODE))
                    break
                except FileExistsError:
                    n += 1
            known = _fdc_files[key] = [path, 0]
        seq = known[1]
        known[1] += 1
        return known[0], seq


def _innermost(tb: TracebackType | None) -> tuple[str, int]:
    last = None
    while tb is not None:
        last, tb = tb, tb.tb_next
    if last is None:
        return "", 0
    return last.tb_frame.f_code.co_filename, last.tb_lineno


def format_fdc(*, probe_id: str, component: str, exc: BaseException | None, qmgr: str | None,
               major_errorcode: str, minor_errorcode: str, probe_description: str,
               extra: Mapping[str, object], seq: int, when: _dt.datetime,
               probe_type: str = "INCORROUT", probe_severity: int = 2,
               program: str | None = None) -> str:
    """One First Failure Symptom Report record: IBM's header box, then the stacks and state."""
    local = when.astimezone()
    offset = local.utcoffset() or _dt.timedelta(0)
    src_file, src_line = _innermost(exc.__traceback__ if exc else None)
    uid = os.getuid()
    head: list[tuple[str, object]] = [
        ("Date/Time", f"{_DAYS[local.weekday()][:3]} {_MONTHS[local.month - 1]} "
                      f"{local.day:02d} {local.year} {local:%H:%M:%S} {local.tzname()}"),
        ("UTC Time", f"{when.timestamp():.6f}"),
        ("UTC Time Offset", f"{int(offset.total_seconds() // 60)} ({local.tzname()})"),
        ("Host Name", platform.node() or "localhost"),
        ("Operating System", f"{platform.system()} {platform.release()}"),
        ("PIDS", "mqpy"),
        ("LVLS", VRMF),
        ("Product Long Name", f"mqpy for {platform.system()} ({platform.machine()} platform)"),
        ("Vendor", "mqpy"),
        ("Probe Id", probe_id),
        ("Application Name", "MQM"),
        ("Component", component),
        ("SCCS Info", os.path.basename(src_file) if src_file else "-"),
        ("Line Number", src_line),
        ("Build Level", f"mqpy {VRMF} (Python {platform.python_version()})"),
        ("UserID", f"{uid:08d} ({_user()})"),
        ("Program Name", program or _program()),
        ("Addressing mode", f"{8 * _pointer_size()}-bit"),
        ("Process", os.getpid()),
        ("Thread", f"{threading.get_native_id()} ({threading.current_thread().name})"),
        ("QueueManager", qmgr or "-"),
        ("Major Errorcode", major_errorcode),
        ("Minor Errorcode", minor_errorcode),
        ("Probe Type", probe_type),
        ("Probe Severity", probe_severity),
        ("Probe Description", probe_description),
        ("FDCSequenceNumber", seq),
    ]
    if exc is not None:
        head.append(("Comment1", f"{type(exc).__name__}: {exc}"))
    border = "+" + "-" * (PAGE_WIDTH - 2) + "+"
    out = [border, _box_line(FFST_TITLE), _box_line("=" * len(FFST_TITLE)), _box_line()]
    for label, value in head:
        out += _box_field(label, value)
    out += [_box_line(), border, ""]

    out.append("MQM Function Stack")
    if exc is not None and exc.__traceback__ is not None:
        out += [fs.name for fs in traceback.extract_tb(exc.__traceback__)]
    else:
        out += [fs.name for fs in _stack(sys._getframe())]
    out.append("")
    if exc is not None:
        out.append("Python Traceback")
        out += "".join(traceback.format_exception(exc)).rstrip("\n").split("\n")
        out.append("")
    out.append("Thread Stacks")
    names = {t.ident: t.name for t in threading.enumerate()}
    for ident, frame in sys._current_frames().items():
        out.append(f"Thread {ident} ({names.get(ident, '?')}):")
        out += "".join(_stack(frame).format()).rstrip("\n").split("\n")
    out.append("")
    out.append("Component Data")
    for key, value in extra.items():
        try:
            shown = repr(value)
        except Exception as e:  # a broken __repr__ must not lose the report
            shown = f"<repr failed: {type(e).__name__}>"
        out.append(f"{key:<{_LABEL}}:- {shown}")
    out += ["", ""]
    return "\n".join(out)


def _stack(frame: Any) -> traceback.StackSummary:
    """A thread's stack without this module's own frames (the recorder is not the failure)."""
    frames = [fs for fs in traceback.extract_stack(frame) if fs.filename != __file__]
    return traceback.StackSummary.from_list(frames)


def _pointer_size() -> int:
    return struct.calcsize("P")


def write_fdc(directory: str, probe_id: str, component: str, exc: BaseException | None, *,
              qmgr: str | None = None, major_errorcode: str = "MQRC_UNEXPECTED_ERROR",
              minor_errorcode: str = "OK", probe_description: str = "",
              extra: Mapping[str, object] | None = None, probe_type: str = "INCORROUT",
              probe_severity: int = 2, errorlog: ErrorLog | None = None,
              alert: Callable[[str, str], None] | None = None) -> str:
    """Append an FFST record to this process's ``AMQ<pid>.<n>.FDC``; return the file's path.

    Also appends AMQ6184W (AMQ6183W without a queue manager) naming the file to
    ``errorlog`` (default: the error log of ``directory``), and calls ``alert(path,
    probe_id)``, e.g. :func:`syslog_alert`. spec: operations-dlq-clusters 7.5.
    """
    desc = probe_description or (f"{type(exc).__name__}: {exc}" if exc else probe_id)
    path, seq = _fdc_open(os.path.abspath(directory))
    record = format_fdc(probe_id=probe_id, component=component, exc=exc, qmgr=qmgr,
                        major_errorcode=major_errorcode, minor_errorcode=minor_errorcode,
                        probe_description=desc, extra=extra or {}, seq=seq, when=_now(),
                        probe_type=probe_type, probe_severity=probe_severity)
    with filemodes.open_file(path, "a", encoding="utf-8") as f:
        f.write(record)
        f.flush()
    log = errorlog or ErrorLog(directory, qmgr=qmgr)
    inserts: dict[str, object] = {"pid": os.getpid(), "probe": probe_id, "fdc": path}
    if qmgr:
        log.write(amqmsgs.AMQ6184, inserts={**inserts, "qmgr": qmgr}, qmgr=qmgr)
    else:
        log.write(amqmsgs.AMQ6183, inserts=inserts)
    if alert is not None:
        alert(path, probe_id)
    return path


def syslog_alert(path: str, probe_id: str) -> None:
    """The ``user.error`` syslog record naming an FDC file, as IBM MQ on UNIX writes one."""
    syslog.openlog("mqpy", syslog.LOG_PID, syslog.LOG_USER)
    syslog.syslog(syslog.LOG_ERR, f"FFST record created: probe {probe_id}, file {path}")


# ---------------------------------------------------------------------------- fdc_guard

class fdc_guard(contextlib.ContextDecorator):  # noqa: N801 - used like contextlib's names
    """Turn an unexpected exception into an FDC, an error-log entry and an exit status.

    Use around a process entry point (``with fdc_guard(...):`` or as a decorator). On an
    exception not in ``expected`` (SystemExit and KeyboardInterrupt always pass), it writes
    the FDC, prints the one-line AMQ message to ``stream`` and raises ``SystemExit(
    exit_status)``, which Python ends with no traceback. With ``exit_status=None`` the
    exception is re-raised after recording, for callers that handle it themselves.
    """

    def __init__(self, directory: str, probe_id: str, component: str, *,
                 qmgr: str | None = None, errorlog: ErrorLog | None = None,
                 expected: tuple[type[BaseException], ...] = (),
                 exit_status: int | None = EXIT_UNEXPECTED, stream: IO[str] | None = None,
                 extra: Callable[[], Mapping[str, object]] | Mapping[str, object] | None = None,
                 alert: Callable[[str, str], None] | None = None) -> None:
        self.directory = directory
        self.probe_id = probe_id
        self.component = component
        self.qmgr = qmgr
        self.errorlog = errorlog
        self.expected = expected
        self.exit_status = exit_status
        self.stream = stream
        self.extra = extra
        self.alert = alert
        #: Path of the FDC written by the last failure, for callers and tests.
        self.fdc_path: str | None = None

    def __enter__(self) -> fdc_guard:
        return self

    def __exit__(self, etype: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> bool:
        if exc is None or isinstance(exc, (SystemExit, KeyboardInterrupt, GeneratorExit,
                                           *self.expected)):
            return False
        extra = self.extra() if callable(self.extra) else (self.extra or {})
        stream = self.stream if self.stream is not None else sys.stderr
        msg = amqmsgs.AMQ6184 if self.qmgr else amqmsgs.AMQ6183
        try:
            self.fdc_path = write_fdc(self.directory, self.probe_id, self.component, exc,
                                      qmgr=self.qmgr, errorlog=self.errorlog,
                                      minor_errorcode=type(exc).__name__, extra=extra,
                                      alert=self.alert)
            where = f" See {self.fdc_path}."
        except OSError as write_error:  # nowhere to record it: say so, still no traceback
            where = f" The FDC could not be written: {write_error}."
        text = msg.text.format(qmgr=self.qmgr)
        print(f"{msg.msgid}: {text}{where}", file=stream, flush=True)
        if self.exit_status is None:
            return False
        raise SystemExit(self.exit_status) from exc

