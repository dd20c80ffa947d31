"""mqpy: the statistics tool — export, report, generate.

    mqpy export   --qmgr QM1 --out DIR [--loop SECONDS]     (from cron, or as a service)
    mqpy report   --input DIR --out DIR [--master local[*]|spark://host:7077]
                  [--parquet DIR | --no-parquet]
    mqpy generate --days N --qmgrs M --queues K --seed S --out DIR
"""

from __future__ import annotations

import os
import sys
import threading

import click

import mqpy
from mqpy import config
from mqpy.spark.inputs import (
    Progress,
    ReportInputError,
    bench_path,
    check_input,
    input_bytes,
    pyspark_missing,
)
from mqpy.stats.exporter import Exporter
from mqpy.stats.generator import generate as gen
from mqpy_cli.web.health import health


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
def cli() -> None:
    """mqpy statistics: export records, build capacity reports, generate test data."""


@cli.command()
@click.option("--qmgr", "-m", default="", help="Queue manager (default: the default one).")
@click.option("--out", required=True, type=click.Path(file_okay=False), help="Output root.")
@click.option("--batch", default=200, show_default=True, help="Messages per unit of work.")
@click.option("--loop", type=float, default=None, help="Run every SECONDS until interrupted.")
@click.option("--no-errors", is_flag=True, help="Do not export the AMQERR logs.")
@click.option("--data-path", default=None, help="Data root (default $MQPY_DATA_PATH).")
def export(qmgr: str, out: str, batch: int, loop: float | None, no_errors: bool,
           data_path: str | None) -> None:
    """Drain the statistics and accounting queues and the error logs into OUT (JSON Lines)."""
    if data_path:
        os.environ[config.ENV_DATA_PATH] = config.data_root(data_path)
    try:
        qm = mqpy.connect(qmgr)
    except mqpy.MQMIError as e:
        click.echo(f"AMQ8146E: IBM MQ queue manager not available. ({e.reason})", err=True)
        sys.exit(20)
    exporter = Exporter(qm, out, batch_size=batch, data_path=data_path,
                        include_errors=not no_errors)
    try:
        if loop:
            stop = threading.Event()
            try:
                exporter.run_forever(stop, loop)
            except KeyboardInterrupt:
                stop.set()
        else:
            r = exporter.run_once()
            click.echo(f"{r.messages} messages, {r.records} records, {r.error_entries} "
                       f"error-log entries exported to {r.files} files.")
    except mqpy.MQMIError as e:
        click.echo(f"AMQ8101E: export failed: reason {e.reason}.", err=True)
        sys.exit(20)
    finally:
        if qm.is_connected:
            qm.disconnect()


@cli.command()
@click.option("--input", "input_dir", required=True, help="The exporter's output root.")
@click.option("--out", required=True, type=click.Path(file_okay=False))
@click.option("--master", default="local[*]", show_default=True, help="Spark master URL.")
@click.option("--bench", default=None,
              help="`make bench` results (benchmarks/results.json), a relative path taken "
                   "from the current folder: the measured sustainable rates headroom needs.")
@click.option("--fsync-per-s", type=float, default=None, help="The disk's measured fsyncs/s.")
@click.option("--persistent-rate", type=float, default=None,
              help="The measured sustainable persistent msgs/s.")
@click.option("--nonpersistent-rate", type=float, default=None,
              help="The measured sustainable non-persistent msgs/s.")
@click.option("--maxdepth", type=int, default=5000, show_default=True,
              help="MAXDEPTH for queues whose records do not carry it.")
@click.option("--parquet", "store", default=None,
              help="The columnar copy the report reads and keeps up to date "
                   "[default: _parquet in the input folder].")
@click.option("--no-parquet", is_flag=True, help="Read the JSON Lines export directly.")
def report(input_dir: str, out: str, master: str, bench: str | None,
           fsync_per_s: float | None, persistent_rate: float | None,
           nonpersistent_rate: float | None, maxdepth: int, store: str | None,
           no_parquet: bool) -> None:
    """Capacity report (HTML with charts, tables as CSV) from exported records."""
    try:
        source = check_input(input_dir)
        bench_file = bench_path(bench) if bench else None
    except ReportInputError as e:
        click.echo(f"mqpy report: {e}.", err=True)
        sys.exit(20)
    missing = pyspark_missing()
    if missing:
        click.echo(f"mqpy report: {missing}", err=True)
        sys.exit(20)
    # lazy: the report needs pyspark (and starts its JVM); export and generate do not
    from pyspark.sql import SparkSession

    from mqpy.spark.capacity import Capacity
    from mqpy.spark.columnar import default_store
    from mqpy.spark.report import run_report
    from mqpy.spark.session import get_session

    cap = Capacity.from_bench(bench_file, fsync_per_s=fsync_per_s,
                              persistent_msgs_per_s=persistent_rate,
                              nonpersistent_msgs_per_s=nonpersistent_rate)
    progress = Progress(sys.stderr)
    progress(f"starting Spark ({master})")
    ours = SparkSession.getActiveSession() is None  # stop only a session we started
    spark = get_session(master, input_bytes=input_bytes(source))
    try:
        tables = run_report(spark, source, out, cap, default_maxdepth=maxdepth,
                            store=None if no_parquet else store or default_store(source),
                            progress=progress)
    except ReportInputError as e:
        progress.done()
        click.echo(f"mqpy report: {e}.", err=True)
        sys.exit(20)
    finally:
        progress.done()
        if ours:
            spark.stop()
    click.echo(f"report written to {os.path.join(out, 'report.html')} "
               f"({len(tables['queues'])} queues, {len(tables['channels'])} channels)")


@cli.command()
@click.option("--days", default=7, show_default=True)
@click.option("--qmgrs", default=2, show_default=True)
@click.option("--queues", default=5, show_default=True)
@click.option("--seed", default=1, show_default=True)
@click.option("--interval", default=1800, show_default=True, help="STATINT of the data.")
@click.option("--out", required=True, type=click.Path(file_okay=False))
def generate(days: int, qmgrs: int, queues: int, seed: int, interval: int, out: str) -> None:
    """Seeded synthetic records in the exporter's format."""
    n = gen(out, days=days, qmgrs=qmgrs, queues=queues, seed=seed, interval=interval)
    click.echo(f"{n} records written to {out}")


cli.add_command(health)  # mqpy health QM1: the queue manager, its command server and chinit
