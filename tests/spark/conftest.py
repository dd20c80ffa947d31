"""One Spark session for every test here (local[2], loopback, no UI)."""

from __future__ import annotations

import os

import pytest

pyspark = pytest.importorskip("pyspark")


@pytest.fixture(scope="session")
def spark():
    os.environ["SPARK_LOCAL_IP"] = "127.0.0.1"
    from mqpy.spark.session import get_session

    s = get_session("local[2]", shuffle_partitions=2)
    yield s
    s.stop()
