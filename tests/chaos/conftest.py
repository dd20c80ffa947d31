"""The chaos runs' settings from the environment, and where their reports go.

MQPY_CHAOS_SEED (default 1), MQPY_CHAOS_FAULTS (10 in the short run, 100 in the soak run),
MQPY_CHAOS_SUSTAIN_MINUTES (the soak run keeps its load that long, faults spread over it:
30 for the sustained run), MQPY_CHAOS_CALIBRATE_SECONDS (how long the maximum throughput is
measured before the load is held at half of it: 60 in the sustained run, 0 -- the
applications' own pace -- otherwise), MQPY_CHAOS_REPORT_DIR (a copy of chaos-report.json and .html, the histories and the queue managers' error logs),
MQPY_CHAOS_NETNS (1: the queue managers get hosts of their own, network namespaces with
traffic control, and net_tc faults -- the soak run's default where namespaces can be made;
0: not, as runs before them, so that an older run's seed draws the same faults)."""

from __future__ import annotations

import json
import os
import shutil

import pytest

from tests.chaos.netns import hosts_for, unavailable
from tests.chaos.run import Settings, run
from tests.chaos.topology import NAMES
from tests.support.loopfs import loop_mounted


def settings(faults: int, mount: str | None, netns: bool = False,
             catch_up_s: float = 30.0) -> Settings:
    minutes = float(os.environ.get("MQPY_CHAOS_SUSTAIN_MINUTES", "0"))
    return Settings(seed=int(os.environ.get("MQPY_CHAOS_SEED", "1")),
                    faults=int(os.environ.get("MQPY_CHAOS_FAULTS", str(faults))),
                    sustain_s=minutes * 60, bucket_s=60 if minutes else 10, mount=mount,
                    calibrate_s=float(os.environ.get("MQPY_CHAOS_CALIBRATE_SECONDS",
                                                     "60" if minutes else "0")),
                    netns=netns, catch_up_s=catch_up_s)


@pytest.fixture
def file_system(tmp_path):
    """A 512 MB file system of the run's own (its full_fs faults), or None: not root."""
    try:
        with loop_mounted(str(tmp_path), "512M") as mnt:
            yield mnt
    except pytest.skip.Exception:
        yield None


def wants_hosts(default: bool) -> bool:
    """Whether the run gives its queue managers namespaces (MQPY_CHAOS_NETNS, else
    ``default``); where they cannot be made, why is printed and the run goes without."""
    wanted = os.environ.get("MQPY_CHAOS_NETNS", "1" if default else "0") == "1"
    if wanted and (why := unavailable()):
        print(f"chaos run without network namespaces: {why}")
        return False
    return wanted


def chaos_run(faults: int, work: str, mount: str | None, netns: bool = False,
              catch_up_s: float = 30.0) -> dict:
    """One run; its report, printed, and copied to MQPY_CHAOS_REPORT_DIR if set. ``netns``:
    the queue managers in namespaces of their own, made here and removed however the run
    ends. ``catch_up_s``: Settings.catch_up_s."""
    if netns:
        with hosts_for(NAMES) as hosts:
            return _kept(run(settings(faults, mount, True, catch_up_s), work, hosts=hosts),
                         work)
    return _kept(run(settings(faults, mount, catch_up_s=catch_up_s), work), work)


def _kept(report: dict, work: str) -> dict:
    keep = os.environ.get("MQPY_CHAOS_REPORT_DIR")
    if keep:
        os.makedirs(keep, exist_ok=True)
        for name in ("chaos-report.json", "chaos-report.html"):
            shutil.copy(os.path.join(work, name), os.path.join(keep, name))
        for folder in ("histories", "errors"):
            shutil.copytree(os.path.join(work, folder), os.path.join(keep, folder),
                            dirs_exist_ok=True)
    print(json.dumps({k: report[k] for k in ("seed", "commit", "date", "ok", "checker",
                                             "convergence_s", "duration_s", "growth",
                                             "load_average", "traffic_control",
                                             "error_logs")}))
    return report


def verdict(report: dict) -> str:
    """A failed run's reproduction: its seed and what went wrong."""
    return (f"chaos run failed, reproduce with MQPY_CHAOS_SEED={report['seed']} "
            f"MQPY_CHAOS_FAULTS={report['faults_injected']}: checker {report['checker']}, "
            f"convergence {report['convergence_s']}s (unsettled: {report['unsettled']}), "
            f"application errors {report['app_errors']}, faults {report['faults']}")
