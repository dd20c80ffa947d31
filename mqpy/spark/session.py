"""The Spark session the reports run in.

Local mode binds everything to loopback (SPARK_LOCAL_IP, spark.driver.host) and turns the UI
off: a report is a batch job, and tests must not open ports on other interfaces. With a
``spark://`` or ``yarn`` master nothing is forced, so the same job runs unchanged on a cluster.
"""

from __future__ import annotations

import os
from typing import Any


def get_session(master: str = "local[*]", app: str = "mqpy-capacity-report",
                shuffle_partitions: int = 4) -> Any:
    from pyspark.sql import SparkSession  # lazy: pyspark (and its JVM) loads only for a report

    builder = (SparkSession.builder.master(master).appName(app)
               .config("spark.ui.enabled", "false")
               .config("spark.sql.shuffle.partitions", str(shuffle_partitions))
               .config("spark.ui.showConsoleProgress", "false")
               .config("spark.sql.session.timeZone", "UTC"))
    if master.startswith("local"):
        os.environ.setdefault("SPARK_LOCAL_IP", "127.0.0.1")
        builder = (builder.config("spark.driver.host", "127.0.0.1")
                   .config("spark.driver.bindAddress", "127.0.0.1"))
    spark = builder.getOrCreate()
    spark.sparkContext.setLogLevel("ERROR")
    return spark
