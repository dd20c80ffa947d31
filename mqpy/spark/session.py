"""The Spark session the reports run in.

Local mode binds everything to loopback (SPARK_LOCAL_IP, spark.driver.host) and turns the UI
off: a report is a batch job, and tests must not open ports on other interfaces. With a
``spark://`` or ``yarn`` master nothing is forced, so the same job runs unchanged on a cluster.
"""

from __future__ import annotations

import contextlib
import os
import tempfile
import zlib
from collections.abc import Iterator
from typing import Any

#: Spark's own log: errors only, on stderr, so the report's progress lines stay readable
_LOG4J2 = """status = error
appender.console.type = Console
appender.console.name = console
appender.console.target = SYSTEM_ERR
appender.console.layout.type = PatternLayout
appender.console.layout.pattern = spark %p %c{1}: %m%n
rootLogger.level = error
rootLogger.appenderRef.stdout.ref = console
"""


def _quiet_log_config() -> str:
    """A log4j2 configuration file for the driver JVM (written once per user, replaced whole)."""
    name = f"mqpy-spark-log4j2-{os.getuid()}-{zlib.crc32(_LOG4J2.encode()):08x}.properties"
    path = os.path.join(tempfile.gettempdir(), name)
    if not os.path.exists(path):
        tmp = f"{path}.{os.getpid()}"
        with open(tmp, "w") as f:
            f.write(_LOG4J2)
        os.replace(tmp, path)
    return path


#: an input this small is a few seconds' work: the driver JVM starts for a short job
SMALL_INPUT_BYTES = 32 << 20
#: shuffle partitions for an input of unknown size, and the least for a large one
DEFAULT_PARTITIONS = 4
#: input per shuffle partition above SMALL_INPUT_BYTES
BYTES_PER_PARTITION = 128 << 20
#: a local driver's heap for an input above LARGE_INPUT_BYTES (Spark's default is 1 GB): the
#: queues' aggregations hold every interval of each queue (a year at STATINT 600 is 52,560)
LARGE_INPUT_BYTES = 1 << 30
LARGE_DRIVER_MEMORY = "6g"
#: a short job's JVM: no optimising JIT tier (its compiler threads cost more CPU than they
#: save in seconds of work) and a collector without background threads
SHORT_JOB_JVM = "-XX:TieredStopAtLevel=1 -XX:+UseSerialGC"
#: a report on at most this many records runs its queries as small jobs (SMALL_JOB_SQL)
SMALL_RECORDS = 100_000
#: one shuffle partition, no adaptive query execution, whose re-planning and stage jobs cost
#: more than they save on a few thousand rows, and no generated code: each query's Java source
#: compiled by Janino (whole stages, and each projection, predicate and ordering) costs more
#: than interpreting a few thousand rows, and a short job's JVM compiles it without its
#: optimising tier. ``spark.sql.codegen.factoryMode`` is a key Spark marks internal; the
#: interpreted path it selects is the one Spark falls back to when code fails to compile, and
#: a Spark without the key ignores it and compiles as before.
SMALL_JOB_SQL = {"spark.sql.shuffle.partitions": "1", "spark.sql.adaptive.enabled": "false",
                 "spark.sql.codegen.wholeStage": "false",
                 "spark.sql.codegen.factoryMode": "NO_CODEGEN"}


def settings(master: str, *, input_bytes: int | None = None,
             shuffle_partitions: int | None = None) -> dict[str, str]:
    """The session's configuration for an input of ``input_bytes`` (None: unknown). A small
    input gets SMALL_JOB_SQL (one shuffle partition, queries interpreted) and a driver started
    for a short job; a larger one DEFAULT_PARTITIONS or one per BYTES_PER_PARTITION, and a
    large one in local mode (where the driver does the work) LARGE_DRIVER_MEMORY. An explicit
    count wins."""
    small = input_bytes is not None and input_bytes < SMALL_INPUT_BYTES
    if shuffle_partitions is None:
        shuffle_partitions = 1 if small else max(
            DEFAULT_PARTITIONS, -(-(input_bytes or 0) // BYTES_PER_PARTITION))
    java = f"-Dlog4j2.configurationFile=file:{_quiet_log_config()}"
    conf = {"spark.ui.enabled": "false", "spark.ui.showConsoleProgress": "false",
            "spark.sql.session.timeZone": "UTC",
            "spark.driver.extraJavaOptions": f"{java} {SHORT_JOB_JVM}" if small else java,
            **(SMALL_JOB_SQL if small else {}),
            "spark.sql.shuffle.partitions": str(shuffle_partitions)}
    if master.startswith("local"):
        conf.update({"spark.driver.host": "127.0.0.1", "spark.driver.bindAddress": "127.0.0.1"})
        if input_bytes is not None and input_bytes >= LARGE_INPUT_BYTES:
            conf["spark.driver.memory"] = LARGE_DRIVER_MEMORY
    return conf


def get_session(master: str = "local[*]", app: str = "mqpy-capacity-report",
                shuffle_partitions: int | None = None, input_bytes: int | None = None) -> Any:
    """A session for a report on ``input_bytes`` of records (see :func:`settings`); the JVM
    options apply when this starts the JVM, not to a session already running."""
    from pyspark.sql import SparkSession  # lazy: pyspark (and its JVM) loads only for a report

    builder = SparkSession.builder.master(master).appName(app)
    for key, value in settings(master, input_bytes=input_bytes,
                               shuffle_partitions=shuffle_partitions).items():
        builder = builder.config(key, value)
    if master.startswith("local"):
        os.environ.setdefault("SPARK_LOCAL_IP", "127.0.0.1")
    spark = builder.getOrCreate()
    spark.sparkContext.setLogLevel("ERROR")
    return spark


@contextlib.contextmanager
def sized_for(spark: Any, records: int) -> Iterator[None]:
    """Within the block, SMALL_JOB_SQL when ``records`` are at most SMALL_RECORDS; the
    session's own values again after it."""
    if records > SMALL_RECORDS:
        yield
        return
    before = {k: spark.conf.get(k, None) for k in SMALL_JOB_SQL}
    for k, v in SMALL_JOB_SQL.items():
        spark.conf.set(k, v)
    try:
        yield
    finally:
        restore_conf(spark, before)


def restore_conf(spark: Any, before: dict[str, str | None]) -> None:
    """Set each of ``before``'s keys back to its value (None: unset)."""
    for k, v in before.items():
        if v is None:
            spark.conf.unset(k)
        else:
            spark.conf.set(k, v)
