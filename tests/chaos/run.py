"""One chaos run, seeded and bounded: the network built (tests.chaos.topology), the
applications started (tests.chaos.workload), ``faults`` faults injected at random moments
(tests.chaos.faults), then the putting side stopped and the network given
``converge_limit_s`` to converge -- every channel RUNNING or INACTIVE, nothing in doubt,
every transmission queue empty -- then the getting side stopped, every final queue drained
and every history checked (tests.chaos.checker). The report (tests.chaos.report) is written
to the run's directory and returned.

Sustained load (``sustain_s``): the applications run that long, the faults spread over it.
"""

from __future__ import annotations

import os
import random
import re
import shutil
import subprocess
import time

import attrs

import mqpy
from mqpy import CMQC
from mqpy.errorlog import LOG_NAMES, read_entries
from tests.chaos import checker, pacing, report
from tests.chaos.apps import dead_letter_reason, ident_of
from tests.chaos.faults import Faults, Filler
from tests.chaos.monitor import Monitor
from tests.chaos.netns import Hosts
from tests.chaos.topology import FINAL_QUEUES, NAMES, XMITQS, Topology
from tests.chaos.workload import Workload

#: where each destination's messages may end (qmgr/queue, #reason on a dead-letter queue)
PLACES = {
    "DEST.B": {"QMB/DEST.B"},
    "CQ": {"QMB/CQ", "QMC/CQ"},
    "NOSUCH.Q": {f"QMB/PARKED#{CMQC.MQRC_UNKNOWN_OBJECT_NAME}",
                 f"QMB/SYSTEM.DEAD.LETTER.QUEUE#{CMQC.MQRC_UNKNOWN_OBJECT_NAME}"},
    "REQ.B": {"QMB/REQ.B"},
    "REPLY.A": {"QMA/REPLY.A"},
}
#: destinations reached through one channel (A.TO.B, B.TO.A): their order is checked
ORDERED = {"DEST.B", "REQ.B", "REPLY.A"}
SETTLED = ("RUNNING", "INACTIVE")


@attrs.define
class Settings:
    seed: int
    faults: int = 10
    gap_s: tuple[float, float] = (0.5, 2.5)
    sustain_s: float = 0.0
    bucket_s: float = 60.0
    converge_limit_s: float = 60.0
    #: how long the consumers are given, once the network converged, to empty their queues
    #: before they stop (the final drain takes what they left; the report says whether they
    #: caught up)
    catch_up_s: float = 30.0
    mount: str | None = None  # a file system of the run's own (full_fs faults), or None
    #: > 0: the maximum throughput measured this long, the producers then held to half of
    #: it (tests.chaos.pacing); 0: the producers keep their own pace
    calibrate_s: float = 0.0
    #: the queue managers have hosts of their own (tests.chaos.netns) and net_tc faults
    netns: bool = False


def commit_id() -> str:
    here = os.path.dirname(os.path.abspath(__file__))
    proc = subprocess.run(["git", "-C", here, "rev-parse", "--short", "HEAD"],
                          capture_output=True, text=True)
    return proc.stdout.strip() or "unknown"


def unsettled(net: Topology) -> list[str]:
    """Why the network has not converged yet (empty: it has)."""
    why = []
    for name in NAMES:
        if not net.running(name):
            why.append(f"{name} not running")
            continue
        if net.site.chinit_pid(name) is None:
            why.append(f"{name} has no channel initiator")
            continue
        current = net.command(name, "DISPLAY CHSTATUS(*) STATUS")
        if "AMQ8417I" not in current and "AMQ8420I" not in current:  # no status, not none
            why.append(f"{name} channel status unknown: {current[:80]}")
        for channel, status in re.findall(r"CHANNEL\(([^)]*)\)[\s\S]*?STATUS\((\w+)\)",
                                          current):
            if status not in SETTLED:
                why.append(f"{name} {channel} {status}")
        saved = net.command(name, "DISPLAY CHSTATUS(*) SAVED")
        for channel in re.findall(r"CHANNEL\(([^)]*)\)(?:(?!AMQ8417I)[\s\S])*?INDOUBT\(YES\)",
                                  saved):
            why.append(f"{name} {channel} in doubt")
    for name, queue in XMITQS:
        if net.running(name) and (n := net.depth(name, queue)):
            why.append(f"{name} {queue} holds {n}")
    return why


def converge(net: Topology, apps: Workload, limit: float, began: float
             ) -> tuple[float | None, list[str]]:
    """Seconds from ``began`` (the last fault's end, monotonic) until the network settled
    (None: not within ``limit`` * 3, at least 180 s), and what was still unsettled at the
    last look."""
    why: list[str] = ["not looked at"]
    while time.monotonic() - began < max(limit * 3, 180):
        net.heal()
        apps.heal()
        try:
            why = unsettled(net)
        except mqpy.MQMIError as e:  # a queue manager restarting
            why = [f"MQRC {e.reason}"]
        if not why:
            return round(time.monotonic() - began, 1), []
        time.sleep(1)
    return None, why


def drain(net: Topology) -> list[str]:
    """Every message left on a final queue, got and committed, and every one stranded on a
    transmission queue, browsed (its channel may hold it open exclusively): a history."""
    lines = []
    for uow, (name, queue) in enumerate(FINAL_QUEUES + XMITQS, 1):
        qm = net.bind(name)
        got = collectingly(qm, name, queue, browse=(name, queue) in XMITQS)
        qm.commit()
        qm.disconnect()
        for where, ids in got.items():
            lines += [f"g {uow}{where} {where} {' '.join(ids)}", f"C {uow}{where}"]
    return lines


def collectingly(qm: mqpy.QueueManager, name: str, queue: str, browse: bool = False
                 ) -> dict[str, list[str]]:
    """Get (or browse) every message on ``queue`` under syncpoint: where -> ids (where
    names the queue, and a dead-letter header's reason)."""
    q = mqpy.Queue(qm, queue, CMQC.MQOO_BROWSE if browse else CMQC.MQOO_INPUT_AS_Q_DEF)
    gmo = CMQC.MQGMO_BROWSE_NEXT if browse else CMQC.MQGMO_SYNCPOINT
    out: dict[str, list[str]] = {}
    while True:
        try:
            data = q.get(None, mqpy.MD(), mqpy.GMO(Options=gmo))
        except mqpy.MQMIError as e:
            assert e.reason == CMQC.MQRC_NO_MSG_AVAILABLE, e
            return out
        where = f"{name}/{queue}{dead_letter_reason(data)}"
        out.setdefault(where, []).append(ident_of(data) or "?")


def run(settings: Settings, work: str, log=print, hosts: Hosts | None = None) -> dict:
    """One run; ``hosts``: the queue managers' namespaces (settings.netns), made by the
    caller, who removes them."""
    rng = random.Random(settings.seed)
    began, began_epoch, commit = time.monotonic(), time.time(), commit_id()
    root = os.path.join(settings.mount or work, "data")
    os.makedirs(root, exist_ok=True)
    net = Topology(root, hosts)
    faults: Faults | None = None
    apps = Workload(net, work, settings.seed)
    monitor = Monitor(net, apps, settings.bucket_s / 6, began)
    try:
        net.build()
        net.wait_cluster_queue_known()
        apps.start_all()
        monitor.start()
        warm = apps.wait_committing()
        log(f"chaos seed {settings.seed}: network up and loaded in "
            f"{time.monotonic() - began:.1f}s" + ("" if warm else f" (idle: {apps.idle()})"))
        load = pacing.calibrate(apps, settings.calibrate_s, PLACES, log) \
            if settings.calibrate_s else None
        faults = Faults(net, apps, rng, began,
                        Filler(settings.mount) if settings.mount else None)
        load_began = time.monotonic()
        mean_gap = settings.sustain_s / max(settings.faults, 1) if settings.sustain_s else 0
        for _ in range(settings.faults):
            time.sleep(rng.uniform(0.5 * mean_gap, 1.5 * mean_gap) if mean_gap
                       else rng.uniform(*settings.gap_s))
            fault = faults.inject()
            log(f"  {fault.at:7.1f}s {fault.kind} {fault.target} {fault.detail}")
        time.sleep(max(0.0, settings.sustain_s - (time.monotonic() - load_began)))
        time.sleep(max(0.0, faults.effects_end() - faults.now()))
        for link in net.links.values():
            link.heal()
        faults.heal_network()
        last_fault = faults.now()
        stopped_puts = apps.stop("put")
        convergence, why = converge(net, apps, settings.converge_limit_s,
                                    began + last_fault)
        log(f"  converged in {convergence}s after the last fault" if convergence is not None
            else f"  not converged: {why}")
        apps_drained = _consumed(net, settings.catch_up_s)
        log(f"  {time.monotonic() - began:7.1f}s consumers caught up: {apps_drained}")
        stopped_gets = apps.stop("get")
        net.dlq_handler.terminate()
        net.dlq_handler.wait(10)
        log(f"  {time.monotonic() - began:7.1f}s getting side stopped")
        histories = apps.read_histories()
        histories["drain"] = drain(net)
        monitor.stop()
        log(f"  {time.monotonic() - began:7.1f}s drained")
        verdict = checker.check(histories, PLACES, ORDERED,
                                {f"{name}/{queue}" for name, queue in XMITQS})
        bucket = settings.bucket_s
        minutes = report.per_minute(monitor.samples, monitor.log_use,
                                    report.latencies(histories, began_epoch, bucket), bucket,
                                    report.puts(histories, began_epoch, bucket))
        out = {
            "seed": settings.seed, "commit": commit,
            "date": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(began_epoch)),
            "settings": attrs.asdict(settings),
            "faults_injected": len(faults.done),
            "faults": [attrs.asdict(f) for f in faults.done],
            "last_fault_s": last_fault, "convergence_s": convergence,
            "convergence_limit_s": settings.converge_limit_s, "unsettled": why,
            "consumers_caught_up": apps_drained,
            "killed_at_stop": stopped_puts + stopped_gets,
            "checker": verdict.summary(), "app_errors": apps.errors(),
            "duration_s": round(time.monotonic() - began, 1), "bucket_s": bucket,
            "load_average": [round(x, 2) for x in os.getloadavg()],
            "traffic_control": (("netem" if hosts.netem else "tbf, pfifo (no netem)")
                                if hosts is not None else None),
            "load": load,
            "per_minute": minutes, "growth": report.growth(minutes),
            "error_logs": error_log_use(net),
        }
        out["ok"] = verdict.ok and convergence is not None and \
            convergence <= settings.converge_limit_s
        report.write(out, os.path.join(work, "chaos-report.json"),
                     os.path.join(work, "chaos-report.html"))
        log(f"  {time.monotonic() - began:7.1f}s checked and reported")
        return out
    finally:
        if faults is not None:
            faults.heal_network()
        apps.teardown()
        net.teardown()
        for name in NAMES:  # the error logs, kept with the report
            shutil.copytree(os.path.join(net.site.qmdir(name), "errors"),
                            os.path.join(work, "errors", name), dirs_exist_ok=True)


def error_log_use(net: Topology) -> dict[str, dict[str, int]]:
    """Each queue manager's error log: its bytes (AMQERR01-03), its entries and how many
    are AMQ9544W (a message dead-lettered by a receiving channel)."""
    out = {}
    for name in NAMES:
        errors = os.path.join(net.site.qmdir(name), "errors")
        entries = read_entries(errors)
        out[name] = {
            "bytes": sum(os.path.getsize(os.path.join(errors, f)) for f in LOG_NAMES
                         if os.path.exists(os.path.join(errors, f))),
            "entries": len(entries),
            "AMQ9544W": sum(e.msgid == "AMQ9544W" for e in entries)}
    return out


def _consumed(net: Topology, timeout: float = 30) -> bool:
    """Whether the consumers emptied the queues they read within ``timeout`` seconds (the
    final drain takes what they left)."""
    deadline = time.monotonic() + timeout
    watched = (("QMB", "DEST.B"), ("QMB", "CQ"), ("QMC", "CQ"), ("QMB", "REQ.B"),
               ("QMA", "REPLY.A"))
    while time.monotonic() < deadline:
        try:
            if not any(net.depth(name, queue) for name, queue in watched):
                return True
        except mqpy.MQMIError:
            pass
        time.sleep(0.5)
    return False
