"""Mutated real sessions against a deployed queue manager, each on a fresh connection
(make soak).

A queue manager started by strmqm, its channel initiator's listener and a runmqlsr of its
own are fed mutations (``tests.soak.mutations``) of three recorded sessions: a client over a
SVRCONN channel, a sender channel's session and a bindings application. After every batch of
flows the queue manager must still be whole: the same daemon, channel initiator and listener
processes, alive; a normal client (through either listener) and a normal bindings
application still doing MQCONN, MQPUT, MQGET and MQDISC; each process's resident memory
within its unfuzzed measure plus ``RSS_MARGINS``; no traceback or exception repr in any error
log, ``*.out`` file or FDC; and every flow the server rejected (ended with flows unanswered,
or after a STATUS with an error code) explained by an AMQ error or warning in the error log,
written by a process the flow reached and naming no other flow's source address (each TCP
flow comes from a loopback address of its own; flows run one at a time), or held back by the
queue manager's limit on refusal lines (``mqpy.admission``: LOG_LINES of a message id every
LOG_WINDOW seconds, the rest counted in the next line), which the run checks was reached.

Seeded and bounded: ``MQPY_FUZZ_SEED`` (default 1), ``MQPY_FUZZ_FLOWS`` (default 800) and
``MQPY_FUZZ_SECONDS`` (default 200: no flow starts after it; set-up and recording take about
10 seconds more). A JSON summary is written to the test's directory and printed.
"""

from __future__ import annotations

import collections
import glob
import json
import os
import random
import re
import socket
import subprocess
import threading
import time
from collections.abc import Callable

import attrs
import pytest

import mqpy
from mqpy import CMQC, bindings
from mqpy.admission import LOG_LINES, LOG_WINDOW
from tests.support.installation import chinit_command
from tests.support.site import CHANNEL, QM, Site

from . import recordings
from .mutations import flood_first, mutate
from .sessions import CLIENT, Conversation, Outcome, replay, segment_type

SEED = int(os.environ.get("MQPY_FUZZ_SEED", "1"))
FLOWS = int(os.environ.get("MQPY_FUZZ_FLOWS", "800"))
SECONDS = float(os.environ.get("MQPY_FUZZ_SECONDS", "200"))
BATCH = 50
TURN_WAIT = 0.5  # seconds a turn's answers are awaited
DEADLINE = 3.0  # seconds a flow may take, its server's end included
FLOOD_DEADLINE = 6.0
FLOOD_BYTES = 256 << 20  # past RSS_MARGIN: a server that keeps it all fails the bound
PREAUTH_FLOOD_EVERY = 100  # flows: one of them floods before any authentication
TARGETS = ("chinit", "runmqlsr", "bindings")
#: resident memory allowed above each process's own measure before the first flow (about
#: 50 MB for the daemon, 45 MB for the channel initiator and for runmqlsr): 200 MB, and for
#: the daemon as much again as one bindings flow may hold once connected (MAX_MSG_SIZE,
#: 100 MB: a flood after MQCONN is cut there, and took the daemon up to +200 MB here)
RSS_MARGIN = 200 << 20
RSS_MARGINS = {"daemon": RSS_MARGIN + bindings.MAX_MSG_SIZE,
               "chinit": RSS_MARGIN, "runmqlsr": RSS_MARGIN}
SETTLE, SETTLE_MAX = 0.1, 1.0  # a log quiet this long after a flow unlike its recording
AMQ_WAIT = 3.0  # seconds a rejected flow's AMQ message is awaited (at first)
AMQ_WAIT_AFTER = 0.2  # ... once 10 rejected flows of its transport went without one
_AMQ = re.compile(r"^(AMQ\d{4}[WES]): (.*)$", re.M)  # (not information: an explanation)
_TRACE = re.compile(r"Traceback \(most recent call last\)|\b[A-Z]\w*(?:Error|Exception)\("
                    r"|ExceptionGroup|sub-exceptions?\)")
_WRITER = re.compile(r"Process\((\d+)\.")
_FUZZ_ADDRESS = re.compile(r"\b127\.(?!0\.0\.1\b)\d+\.\d+\.\d+\b")

pytestmark = [pytest.mark.soak, pytest.mark.timeout(900)]


def source_address(n: int) -> str:
    """Flow ``n``'s own loopback address: what the log says of it is told apart."""
    return f"127.{10 + n // 64516}.{n // 254 % 254 + 1}.{n % 254 + 1}"


class LogTail:
    """What AMQERR01.LOG gained since the last look (a rotation to AMQERR02 followed)."""

    def __init__(self, errors: str) -> None:
        self.errors = errors
        self.offset = self._size("AMQERR01.LOG")

    def _size(self, name: str) -> int:
        try:
            return os.path.getsize(os.path.join(self.errors, name))
        except OSError:
            return 0

    def _read(self, name: str, start: int) -> bytes:
        try:
            with open(os.path.join(self.errors, name), "rb") as f:
                f.seek(start)
                return f.read()
        except OSError:
            return b""

    def new(self) -> str:
        data = b""
        if self._size("AMQERR01.LOG") < self.offset:  # rotated: the old 01 is 02 now
            data, self.offset = self._read("AMQERR02.LOG", self.offset), 0
        more = self._read("AMQERR01.LOG", self.offset)
        self.offset += len(more)
        return (data + more).decode("utf-8", "replace")


def amq_lines(text: str, pids: set[int], own: str | None) -> list[str]:
    """The AMQ error and warning messages in ``text`` that may be a flow's: written by one
    of ``pids`` (the processes its connection reached) and naming no other flow's address
    (``own``: this flow's, for a TCP flow)."""
    out = []
    for entry in re.split(r"\n(?=\d\d/\d\d/\d{4} )", text):
        writer = _WRITER.search(entry)
        if writer is None or int(writer.group(1)) not in pids:
            continue
        if set(_FUZZ_ADDRESS.findall(entry)) - {own}:
            continue
        out += [f"{m.group(1)}: {' '.join(m.group(2).split())[:160]}"
                for m in _AMQ.finditer(entry)]
    return out


def rss(pid: int) -> int:
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) * 1024
    return 0


def alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] not in ("Z", "X")
    except OSError:
        return False


def within(seconds: float, fn: Callable[[], None]) -> str | None:
    """Run ``fn`` in a thread; what went wrong (its exception, or that it hung), or None."""
    failure: list[str] = ["did not finish in %.0f s" % seconds]

    def run() -> None:
        try:
            fn()
            failure[0] = ""
        except Exception as exc:  # noqa: BLE001 - reported, whatever it is
            failure[0] = repr(exc)

    t = threading.Thread(target=run, daemon=True)
    t.start()
    t.join(seconds)
    return failure[0] or None


def put_and_get(qm: mqpy.QueueManager) -> None:
    """MQPUT and MQGET (by its MsgId) of one message, then MQDISC."""
    try:
        q = mqpy.Queue(qm, recordings.NORMAL_QUEUE,
                       CMQC.MQOO_OUTPUT | CMQC.MQOO_INPUT_AS_Q_DEF)
        body = b"normal %d" % time.monotonic_ns()
        md = mqpy.MD()
        q.put(body, md)
        got = q.get(None, mqpy.MD(MsgId=md.MsgId),
                    mqpy.GMO(Options=CMQC.MQGMO_WAIT, WaitInterval=5000,
                             MatchOptions=CMQC.MQMO_MATCH_MSG_ID))
        assert got == body, (got, body)
        q.close()
    finally:
        qm.disconnect()


@attrs.define
class Flow:
    n: int
    kind: str
    target: str  # "chinit", "runmqlsr" or "bindings"
    mutation: str
    detail: str
    outcome: Outcome | None = None
    rejected: bool = False
    amq: list[str] = attrs.Factory(list)
    #: rejected with no line of its own while the daemon's refusal lines were at their limit
    held_back: bool = False

    def report(self) -> dict[str, object]:
        out = self.outcome or Outcome()
        return {"flow": self.n, "kind": self.kind, "target": self.target,
                "mutation": self.mutation, "detail": self.detail,
                "rejected": self.rejected,
                "server": {"answers": [f"{t:#04x}" for t in out.answers],
                           "closed_early": out.closed_early,
                           "ended_after_last": out.ended_after_last, "held": out.held,
                           "error_statuses": out.error_statuses,
                           "turns_sent": out.turns_sent, "bytes_sent": out.bytes_sent,
                           "last_answer": out.answer_text[:64].hex()},
                "amq": self.amq[:4]}


@attrs.define
class Fuzzing:
    site: Site
    tmp: str
    lsr: subprocess.Popen
    lsr_port: int
    convs: dict[str, Conversation]
    pids: dict[str, int] = attrs.Factory(dict)
    baseline: dict[str, int] = attrs.Factory(dict)
    max_rss: dict[str, int] = attrs.Factory(dict)
    batch_rss: dict[str, int] = attrs.Factory(dict)  # the largest since the last check
    findings: dict[str, list[object]] = attrs.Factory(lambda: collections.defaultdict(list))
    traces_seen: collections.Counter = attrs.Factory(collections.Counter)
    missing_by_transport: collections.Counter = attrs.Factory(collections.Counter)
    #: when each bindings refusal line was seen, by message id (the daemon's limiter's view)
    refusal_lines: dict[str, collections.deque] = attrs.Factory(
        lambda: collections.defaultdict(collections.deque))
    flows: list[Flow] = attrs.Factory(list)
    stopped: str = ""
    seconds: float = 0.0

    # -- the processes ------------------------------------------------------------------

    def processes(self) -> dict[str, int]:
        return {"daemon": self.site.inst.pid(QM) or 0,
                "chinit": self.site.inst.chinit_pid(QM) or 0, "runmqlsr": self.lsr.pid}

    def sample_rss(self) -> None:
        """Resident memory after every flow (and batch): the largest kept."""
        for name, pid in self.pids.items():
            try:
                size = rss(pid)
            except OSError:
                continue
            self.max_rss[name] = max(self.max_rss.get(name, 0), size)
            self.batch_rss[name] = max(self.batch_rss.get(name, 0), size)

    # -- one flow -----------------------------------------------------------------------

    def connect(self, flow: Flow) -> socket.socket:
        if flow.target == "bindings":
            return recordings.unix_connection(bindings.socket_path(self.site.qmdir))
        port = self.site.port if flow.target == "chinit" else self.lsr_port
        return socket.create_connection(("127.0.0.1", port), timeout=DEADLINE,
                                        source_address=(source_address(flow.n), 0))

    def run_flow(self, flow: Flow, turns: list, tail: LogTail) -> None:
        """Replay ``turns`` on a fresh connection; whether the server rejected the flow
        (ended it with flows unanswered, or after a STATUS with an error code); its AMQ
        messages."""
        conv = self.convs[flow.kind]
        flood = flow.mutation == "flood"
        start = time.monotonic()
        with self.connect(flow) as sock:
            out = flow.outcome = replay(
                sock, turns, turn_wait=TURN_WAIT,
                deadline=start + (FLOOD_DEADLINE if flood else DEADLINE),
                flood_bytes=FLOOD_BYTES if flood else 0)
        recorded = [segment_type(s.data) for s in conv.segments if s.way != CLIENT]
        flow.rejected = not (out.answers == recorded and conv.server_ended_first) and (
            out.closed_early or (out.ended_after_last and bool(out.error_statuses)))
        self.sample_rss()
        flow.amq = self.amq_lines(flow, tail.new())
        if out.answers != recorded[:len(out.answers)] or out.closed_early \
                or out.ended_after_last:
            self.settle(flow, tail)
        if flow.rejected and not flow.amq:
            if flow.target == "bindings" and self.at_log_limit():
                flow.held_back = True
            else:
                self.await_amq(flow, tail)
        if flow.target == "bindings":
            for line in flow.amq:
                self.refusal_lines[line[:9]].append(time.monotonic())

    def at_log_limit(self) -> bool:
        """Whether the daemon has written LOG_LINES lines of some refusal message in the
        last LOG_WINDOW seconds: a further refusal of that kind is counted, not written."""
        now = time.monotonic()
        for seen in self.refusal_lines.values():
            while seen and now - seen[0] > LOG_WINDOW:
                seen.popleft()
            if len(seen) >= LOG_LINES:
                return True
        return False

    def settle(self, flow: Flow, tail: LogTail) -> None:
        """What the server logs of a flow unlike its recording, until the log is quiet
        ``SETTLE`` seconds (at most ``SETTLE_MAX``): the next flow's window holds none of it."""
        quiet = time.monotonic()
        until = quiet + SETTLE_MAX
        while time.monotonic() - quiet < SETTLE and time.monotonic() < until:
            time.sleep(0.02)
            if more := tail.new():
                flow.amq += self.amq_lines(flow, more)
                quiet = time.monotonic()

    def await_amq(self, flow: Flow, tail: LogTail) -> None:
        """A rejected flow's AMQ message awaited ``AMQ_WAIT`` seconds (``AMQ_WAIT_AFTER``
        once ten of its transport's went without one: the run stays bounded)."""
        transport = "bindings" if flow.target == "bindings" else "tcp"
        wait = AMQ_WAIT if self.missing_by_transport[transport] < 10 else AMQ_WAIT_AFTER
        until = time.monotonic() + wait
        while not flow.amq and time.monotonic() < until:
            time.sleep(0.05)
            flow.amq = self.amq_lines(flow, tail.new())
        if not flow.amq:
            self.missing_by_transport[transport] += 1

    def amq_lines(self, flow: Flow, text: str) -> list[str]:
        """``flow``'s AMQ messages in ``text``: the daemon's for a bindings flow; for a TCP
        flow, its listener's process's or the daemon's, naming no other flow's address."""
        daemon = self.pids["daemon"]
        if flow.target == "bindings":
            return amq_lines(text, {daemon}, None)
        return amq_lines(text, {daemon, self.pids[flow.target]}, source_address(flow.n))

    # -- after every batch --------------------------------------------------------------

    def check(self, batch: list[Flow]) -> None:
        first, last = batch[0].n, batch[-1].n
        where = f"after flows {first}-{last}"
        now = self.processes()
        for name, pid in self.pids.items():
            if now[name] != pid or not alive(pid):
                self.findings["process"].append(
                    f"{where}: {name} was pid {pid}, now {now[name]} "
                    f"({'alive' if alive(now[name]) else 'not running'})")
                self.stopped = "a process ended"
        if not self.stopped:
            for name, fn in (
                    ("client via chinit listener",
                     lambda: put_and_get(self.site.client())),
                    ("client via runmqlsr",
                     lambda: put_and_get(mqpy.connect(QM, CHANNEL,
                                                      f"127.0.0.1({self.lsr_port})"))),
                    ("bindings application", lambda: put_and_get(self.site.bindings()))):
                failure = within(60, fn)
                if failure:
                    self.findings["normal"].append(f"{where}: {name}: {failure}")
                    self.stopped = "a normal application failed"
        self.sample_rss()
        for name, size in self.batch_rss.items():
            if size > self.baseline[name] + RSS_MARGINS[name]:
                self.findings["rss"].append(
                    f"{where}: {name} resident {size >> 20} MB > bound "
                    f"{(self.baseline[name] + RSS_MARGINS[name]) >> 20} MB; this batch's floods: "
                    + "; ".join(f"#{f.n} {f.kind}: {f.detail}" for f in batch
                                if f.mutation == "flood"))
        self.batch_rss = {}
        by_address = {source_address(f.n): f for f in batch if f.target != "bindings"}
        for line, count in self.traces().items():
            if count > self.traces_seen[line]:
                flows = [by_address[a].report() for a in _FUZZ_ADDRESS.findall(line)
                         if a in by_address]
                self.findings["trace"].append({"where": where, "line": line,
                                               "flow": flows[0] if flows else None})
        self.traces_seen = self.traces()
        for flow in batch:
            if flow.rejected and not flow.amq and not flow.held_back:
                self.findings["rejected_without_amq"].append(flow.report())

    def traces(self) -> collections.Counter:
        """``(file, line)`` of every traceback or exception repr in the queue manager's
        error logs, ``*.out`` files and FDCs, and the runmqlsr's output."""
        root = self.site.inst.root
        paths = glob.glob(os.path.join(root, "**", "errors", "*"), recursive=True)
        paths.append(os.path.join(self.tmp, "runmqlsr.out"))
        found: collections.Counter = collections.Counter()
        for path in paths:
            if path.endswith(".FDC"):
                found[f"{os.path.basename(path)}: an FDC was written"] += 1
                continue
            try:
                with open(path, encoding="utf-8", errors="replace") as f:
                    for line in f:
                        if _TRACE.search(line):
                            found[f"{os.path.basename(path)}: {line.strip()[:240]}"] += 1
            except (OSError, IsADirectoryError):
                pass
        return found

    # -- the whole run ------------------------------------------------------------------

    def run(self) -> None:
        rng = random.Random(SEED)
        pool = [seg for conv in self.convs.values() for seg in conv.client_segments()]
        tail = LogTail(os.path.join(self.site.qmdir, "errors"))
        self.pids = self.processes()
        assert all(self.pids.values()), self.pids
        self.baseline = {name: rss(pid) for name, pid in self.pids.items()}
        self.check([Flow(-1, "baseline", "-", "none", "normal applications only")])
        assert not self.findings, dict(self.findings)
        self.baseline = {name: max(size, rss(self.pids[name]))
                         for name, size in self.baseline.items()}
        self.max_rss, self.batch_rss = dict(self.baseline), {}
        self.traces_seen = self.traces()
        started = time.monotonic()
        batch: list[Flow] = []
        for n in range(FLOWS):
            if time.monotonic() - started > SECONDS:
                self.stopped = f"time bound ({SECONDS:.0f} s) reached"
                break
            if n % PREAUTH_FLOOD_EVERY == PREAUTH_FLOOD_EVERY // 2:  # each way in, in turn
                target = TARGETS[n // PREAUTH_FLOOD_EVERY % len(TARGETS)]
                kind = "bindings" if target == "bindings" else rng.choice(["svrconn", "sender"])
                mutation, detail, turns = flood_first(rng, self.convs[kind])
            else:
                kind = rng.choice(sorted(self.convs))
                target = "bindings" if kind == "bindings" else rng.choice(TARGETS[:2])
                mutation, detail, turns = mutate(rng, self.convs[kind], pool)
            flow = Flow(n, kind, target, mutation, detail)
            late = tail.new()  # a previous flow's late messages are its own
            if self.flows and late:
                self.flows[-1].amq += self.amq_lines(self.flows[-1], late)
            self.run_flow(flow, turns, tail)
            self.flows.append(flow)
            batch.append(flow)
            if len(batch) == BATCH or n == FLOWS - 1:
                self.check(batch)
                batch = []
                if self.stopped:
                    break
        if batch:
            self.check(batch)
        self.seconds = time.monotonic() - started

    def summary(self) -> dict[str, object]:
        def count(pred: Callable[[Flow], bool]) -> dict[str, int]:
            return dict(collections.Counter(f.mutation for f in self.flows if pred(f)))

        return {
            "seed": SEED, "flows_planned": FLOWS, "time_bound_s": SECONDS,
            "flows_sent": len(self.flows), "seconds": round(self.seconds, 1),
            "stopped": self.stopped,
            "by_target": dict(collections.Counter(f.target for f in self.flows)),
            "rejected": sum(f.rejected for f in self.flows),
            "accepted": sum(not f.rejected for f in self.flows),
            "held": sum(bool(f.outcome and f.outcome.held) for f in self.flows),
            "rejected_by_mutation": count(lambda f: f.rejected),
            "unmutated_rejected": [f.report() for f in self.flows
                                   if f.mutation == "none" and f.rejected],
            "rss_baseline_mb": {k: v >> 20 for k, v in self.baseline.items()},
            "rss_max_mb": {k: v >> 20 for k, v in self.max_rss.items()},
            "rss_bound_mb": {k: (v + RSS_MARGINS[k]) >> 20 for k, v in self.baseline.items()},
            "preauth_floods": [f"#{f.n} {f.target}: {f.outcome.bytes_sent >> 20} MB sent, "
                               + ("ended by the server" if f.outcome.closed_early
                                  else "taken until the client ended it")
                               for f in self.flows if f.mutation == "flood" and f.outcome
                               and "first flow" in f.detail],
            "amq_ids_of_rejections": dict(collections.Counter(
                line[:8] for f in self.flows if f.rejected for line in f.amq[:1])),
            "rejected_without_amq_by_kind": dict(collections.Counter(
                f"{f.kind}/{f.mutation}" for f in self.flows
                if f.rejected and not f.amq and not f.held_back)),
            "rejected_held_back_by_log_limit": sum(f.held_back for f in self.flows),
            "findings": {k: len(v) for k, v in self.findings.items()},
            "examples": {k: v[:8] for k, v in self.findings.items()},
        }


def start_runmqlsr(site: Site, out: str) -> tuple[subprocess.Popen, int]:
    """runmqlsr on 127.0.0.1, a free port; its output in ``out``."""
    with open(out, "w") as f:
        proc = subprocess.Popen(chinit_command(site.inst, "runmqlsr", "-m", QM, "-t", "tcp",
                                               "-i", "127.0.0.1", "-p", "0"),
                                env=site.inst.env, stdout=f, stderr=subprocess.STDOUT)
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        with open(out) as f:
            text = f.read()
        if "AMQ8021I" in text:
            return proc, int(re.search(r"port (\d+)", text).group(1))
        assert proc.poll() is None, text
        time.sleep(0.1)
    raise AssertionError("runmqlsr did not start")


@pytest.fixture
def fuzzing(tmp_path):
    site = Site(str(tmp_path / "data"))
    lsr = None
    try:
        site.start()
        site.mqsc(recordings.SITE_MQSC)
        convs = {c.kind: c for c in (recordings.record_client(site),
                                     recordings.record_bindings(site),
                                     recordings.record_sender(site, str(tmp_path / "src")))}
        lsr, port = start_runmqlsr(site, str(tmp_path / "runmqlsr.out"))
        yield Fuzzing(site, str(tmp_path), lsr, port, convs)
    finally:
        if lsr is not None:
            lsr.kill()
            lsr.wait()
        site.stop()


def test_mutated_sessions_leave_the_queue_manager_whole(fuzzing, tmp_path):
    """Given a queue manager started by strmqm with its channel initiator's listener and a
    runmqlsr, when mutations of a recorded client, sender-channel and bindings session are
    sent, each on a fresh connection, then after every batch the processes are the same and
    alive, normal applications still work through each way in, resident memory stays
    within its bound, no log holds a traceback, and every rejected flow has an AMQ
    message."""
    fuzzing.run()
    summary = fuzzing.summary()
    text = json.dumps(summary, indent=1, default=str)
    (tmp_path / "fuzz-summary.json").write_text(text)
    (tmp_path / "fuzz-flows.jsonl").write_text(
        "".join(json.dumps(f.report()) + "\n" for f in fuzzing.flows))
    print(text)
    assert not summary["unmutated_rejected"], "a recording replayed as it was is rejected"
    assert not fuzzing.findings, text
