"""`mqpy report --master spark://...` on a real Spark standalone cluster: a master and a
worker started on loopback with the `spark-class` launcher that ships with pyspark. Behind
`make soak`: the two JVMs and the executor take more than a minute on two cores."""

from __future__ import annotations

import csv
import math
import os
import signal
import subprocess
import sys

import pytest

from mqpy.stats.generator import generate
from tests.support.ports import free_port
from tests.support.waiting import wait_for

pytestmark = [pytest.mark.system, pytest.mark.soak, pytest.mark.timeout(1500)]

pyspark = pytest.importorskip("pyspark")


def _launcher() -> str:
    path = os.path.join(os.path.dirname(pyspark.__file__), "bin", "spark-class")
    if not os.access(path, os.X_OK):
        pytest.skip(f"pyspark's spark-class launcher is not at {path}")
    return path


def _env() -> dict[str, str]:
    return {**os.environ, "SPARK_LOCAL_IP": "127.0.0.1", "SPARK_LOCAL_HOSTNAME": "127.0.0.1",
            "PYSPARK_PYTHON": sys.executable, "PYSPARK_DRIVER_PYTHON": sys.executable,
            "SPARK_NO_DAEMONIZE": "1"}


@pytest.fixture
def standalone(tmp_path):
    """A master and one worker (2 cores) on 127.0.0.1, stopped by pid at teardown."""
    launcher, env = _launcher(), _env()
    port = free_port()
    master_url = f"spark://127.0.0.1:{port}"
    procs = []
    with open(tmp_path / "master.log", "wb") as mlog, open(tmp_path / "worker.log", "wb") as wlog:
        procs.append(subprocess.Popen(
            [launcher, "org.apache.spark.deploy.master.Master", "--host", "127.0.0.1",
             "--port", str(port), "--webui-port", str(free_port())],
            env=env, stdout=mlog, stderr=subprocess.STDOUT, start_new_session=True))
        procs.append(subprocess.Popen(
            [launcher, "org.apache.spark.deploy.worker.Worker", "--host", "127.0.0.1",
             "--webui-port", str(free_port()), "--cores", "2", "--memory", "1G",
             "--work-dir", str(tmp_path / "work"), master_url],
            env=env, stdout=wlog, stderr=subprocess.STDOUT, start_new_session=True))
    try:
        wait_for(lambda: b"Successfully registered with master"
                 in (tmp_path / "worker.log").read_bytes(), timeout=120,
                 what="the worker registered with the master")
        yield master_url
    finally:
        for p in procs:
            if p.poll() is None:
                os.killpg(p.pid, signal.SIGTERM)
        for p in procs:
            try:
                p.wait(timeout=30)
            except subprocess.TimeoutExpired:
                os.killpg(p.pid, signal.SIGKILL)
                p.wait()


def _report(src: str, out: str, master: str, *extra: str) -> None:
    done = subprocess.run(
        [os.path.join(os.path.dirname(sys.executable), "mqpy"), "report", "--input", src, "--out", out,
         "--master", master, *extra],
        env=_env(), capture_output=True, text=True, timeout=900)
    assert done.returncode == 0, done.stdout + done.stderr


def _tables(folder: str) -> dict[str, list[list[str]]]:
    tables = {}
    for name in sorted(os.listdir(folder)):
        if name.endswith(".csv"):
            with open(os.path.join(folder, name), newline="") as f:
                tables[name] = list(csv.reader(f))
    return tables


def _close(a: str, b: str) -> bool:
    try:
        return math.isclose(float(a), float(b), rel_tol=1e-6, abs_tol=1e-4)
    except ValueError:
        return a == b


def test_the_report_on_a_standalone_cluster_equals_the_local_one(standalone, tmp_path):
    """Given two days of records of two queue managers, when `mqpy report` runs with
    --master spark://127.0.0.1:PORT (the executors also writing the Parquet copy) and again
    in local mode, then every CSV table is the same."""
    src = str(tmp_path / "export")
    generate(src, days=2, qmgrs=2, queues=3, seed=11, interval=3600)
    _report(src, str(tmp_path / "cluster"), standalone, "--parquet", str(tmp_path / "copy"))
    _report(src, str(tmp_path / "local"), "local[2]", "--no-parquet")
    cluster, local = _tables(str(tmp_path / "cluster")), _tables(str(tmp_path / "local"))
    assert cluster.keys() == local.keys() and cluster
    for name, rows in local.items():
        assert len(cluster[name]) == len(rows), name
        for got, want in zip(cluster[name], rows, strict=True):
            assert len(got) == len(want) and all(map(_close, got, want)), (name, got, want)
    assert os.path.isdir(tmp_path / "copy" / "QueueStatistics")
