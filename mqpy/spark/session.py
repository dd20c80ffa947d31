"""The Spark session the reports run in.

Local mode binds everything to loopback (SPARK_LOCAL_IP, spark.driver.host) and turns the UI
off: a report is a batch job, and tests must not open ports on other interfaces. With a
``spark://`` or ``yarn`` master nothing is forced, so the same job runs unchanged on a cluster.
"""

from __future__ import annotations

import os
import tempfile
import zlib
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


def get_session(master: str = "local[*]", app: str = "mqpy-capacity-report",
                shuffle_partitions: int = 4) -> Any:
    from pyspark.sql import SparkSession  # lazy: pyspark (and its JVM) loads only for a report

    builder = (SparkSession.builder.master(master).appName(app)
               .config("spark.ui.enabled", "false")
               .config("spark.sql.shuffle.partitions", str(shuffle_partitions))
               .config("spark.ui.showConsoleProgress", "false")
               .config("spark.sql.session.timeZone", "UTC")
               .config("spark.driver.extraJavaOptions",
                       f"-Dlog4j2.configurationFile=file:{_quiet_log_config()}"))
    if master.startswith("local"):
        os.environ.setdefault("SPARK_LOCAL_IP", "127.0.0.1")
        builder = (builder.config("spark.driver.host", "127.0.0.1")
                   .config("spark.driver.bindAddress", "127.0.0.1"))
    spark = builder.getOrCreate()
    spark.sparkContext.setLogLevel("ERROR")
    return spark
