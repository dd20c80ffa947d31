"""The report's columnar copy of the exported records.

The exporter streams JSON Lines (``<RecordType>/date=<day>/qmgr=<QM>/*.jsonl``); reading a year
of them again for every report is the slow part of the job. The copy keeps the same records as
Parquet, partitioned the same way (``<store>/<RecordType>/date=/qmgr=/``), and each run converts
only the partitions whose files changed since the last one (a manifest of their names, sizes
and modification times), replaces those, and drops partitions that left the input. The report
then reads the Parquet files. Local folders are listed with ``os``; other file systems
(``hdfs://``, ``s3a://``) through Hadoop's FileSystem, as Spark reads them.
"""

from __future__ import annotations

import json
import os
from typing import Any

from pyspark.sql import DataFrame, SparkSession
from pyspark.sql import functions as F

MANIFEST = "_manifest.json"
PARTITION_COLUMNS = ("date", "qmgr")

#: a partition folder (relative to its record type) -> its files' (name, size, mtime)
Listing = dict[str, list[tuple[str, int, int]]]


def default_store(input_dir: str) -> str:
    """Where the copy lives when no other place is given: beside the exporter's own
    ``_state`` folder in its output (a name Spark and the report's input check skip)."""
    return input_dir.rstrip("/") + "/_parquet"


def _is_uri(path: str) -> bool:
    return "://" in path


def _partition_of(relative: str) -> str | None:
    """``date=D/qmgr=Q`` for a file's folder in the exporter's layout, else None."""
    parts = relative.split("/")
    if len(parts) == 2 and parts[0].startswith("date=") and parts[1].startswith("qmgr="):
        return relative
    return None


def _visible(name: str) -> bool:
    return name.endswith(".jsonl") and not name.startswith(("_", "."))


def _list_local(base: str) -> Listing:
    found: Listing = {}
    for here, dirs, files in os.walk(base):
        dirs[:] = [d for d in dirs if not d.startswith(("_", "."))]
        partition = _partition_of(os.path.relpath(here, base).replace(os.sep, "/"))
        for name in filter(_visible, files):
            if partition is not None:
                st = os.stat(os.path.join(here, name))
                found.setdefault(partition, []).append((name, st.st_size, st.st_mtime_ns))
    return found


def _hadoop(spark: SparkSession, path: str) -> tuple[Any, Any]:
    jvm = spark.sparkContext._jvm
    p = jvm.org.apache.hadoop.fs.Path(path)
    return p.getFileSystem(spark.sparkContext._jsc.hadoopConfiguration()), p


def _list_hadoop(spark: SparkSession, base: str) -> Listing:
    fs, root = _hadoop(spark, base)
    found: Listing = {}
    if not fs.exists(root):
        return found
    prefix = fs.makeQualified(root).toString().rstrip("/") + "/"
    files = fs.listFiles(root, True)
    while files.hasNext():
        st = files.next()
        relative = st.getPath().toString()[len(prefix):]
        folder, _, name = relative.rpartition("/")
        partition = _partition_of(folder)
        if partition is not None and _visible(name):
            found.setdefault(partition, []).append(
                (name, int(st.getLen()), int(st.getModificationTime())))
    return found


def list_partitions(spark: SparkSession, base: str) -> Listing:
    """The exporter's partitions below ``base`` (one record type) with their files."""
    listing = _list_hadoop(spark, base) if _is_uri(base) else _list_local(base)
    return {p: sorted(files) for p, files in listing.items()}


def _read_manifest(spark: SparkSession, store: str) -> dict[str, Any]:
    path = f"{store}/{MANIFEST}"
    if not _is_uri(store):
        try:
            with open(path, encoding="utf-8") as f:
                return json.load(f)
        except (OSError, ValueError):
            return {}  # no copy yet, or a damaged manifest: convert everything again
    fs, p = _hadoop(spark, path)
    if not fs.exists(p):
        return {}
    return json.loads("".join(r.value for r in spark.read.text(path).collect()) or "{}")


def _write_manifest(spark: SparkSession, store: str, manifest: dict[str, Any]) -> None:
    text = json.dumps(manifest, sort_keys=True)
    path = f"{store}/{MANIFEST}"
    if not _is_uri(store):
        os.makedirs(store, exist_ok=True)
        with open(f"{path}.tmp", "w", encoding="utf-8") as f:
            f.write(text)
        os.replace(f"{path}.tmp", path)
        return
    spark.createDataFrame([(text,)], "value string").coalesce(1).write.mode("overwrite").text(path)


def _delete(spark: SparkSession, path: str) -> None:
    """Remove a partition's folder, and its date's folder once no queue manager is left."""
    fs, p = _hadoop(spark, path)
    if fs.exists(p):
        fs.delete(p, True)
    day = p.getParent()
    if fs.exists(day) and len(fs.listStatus(day)) == 0:
        fs.delete(day, True)


def refresh(spark: SparkSession, input_dir: str, store: str,
            schemas: dict[str, Any]) -> dict[str, int]:
    """Bring the copy up to date with the input; per record type, how many partitions were
    converted (new or changed) or removed."""
    old = _read_manifest(spark, store)
    new: dict[str, Any] = {}
    changes: dict[str, int] = {}
    for record_type, schema in schemas.items():
        base = f"{input_dir.rstrip('/')}/{record_type}"
        listing = list_partitions(spark, base)
        before = old.get(record_type, {})
        changed = sorted(p for p, files in listing.items()
                         if before.get(p) != [list(f) for f in files])
        gone = sorted(set(before) - set(listing))
        if changed:
            (spark.read.schema(schema).option("basePath", base)
             .option("pathGlobFilter", "*.jsonl").json([f"{base}/{p}" for p in changed])
             .write.mode("overwrite").option("partitionOverwriteMode", "dynamic")
             .partitionBy(*PARTITION_COLUMNS).parquet(f"{store}/{record_type}"))
        for p in gone:
            _delete(spark, f"{store}/{record_type}/{p}")
        new[record_type] = {p: [list(f) for f in files] for p, files in listing.items()}
        changes[record_type] = len(changed) + len(gone)
    _write_manifest(spark, store, new)
    return changes


def read(spark: SparkSession, store: str, record_type: str, schema: Any) -> DataFrame | None:
    """One record type from the copy, with the export's columns; None when it holds none."""
    path = f"{store}/{record_type}"
    fs, p = _hadoop(spark, path)
    if not fs.exists(p) or not any(s.getPath().getName().startswith(PARTITION_COLUMNS[0] + "=")
                                   for s in fs.listStatus(p)):
        return None
    df = spark.read.parquet(path)
    return df.select(*[F.col(n).cast(schema[n].dataType) for n in schema.fieldNames()])
