"""One Spark session for every test here (local[2], loopback, no UI), started as the report
starts one for a small input (mqpy.spark.session.settings: the JIT's first tier, the serial
collector): every input here is a few megabytes at most, and that driver takes half the CPU
the default one does over this folder's reports (the optimising JIT's compiler threads)."""

from __future__ import annotations

import os

import pytest

pyspark = pytest.importorskip("pyspark")

#: the size of input the session is started for: below mqpy.spark.session.SMALL_INPUT_BYTES
INPUT_BYTES = 4 << 20


@pytest.fixture(scope="session")
def spark():
    os.environ["SPARK_LOCAL_IP"] = "127.0.0.1"
    from mqpy.spark.session import get_session

    s = get_session("local[2]", shuffle_partitions=2, input_bytes=INPUT_BYTES)
    yield s
    s.stop()
