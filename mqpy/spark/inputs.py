"""What `mqpy report` checks before Spark starts, and the progress lines it writes while
Spark works. No pyspark import here: these run in a second, with or without pyspark."""

from __future__ import annotations

import os
import time
from collections.abc import Iterator
from typing import TextIO

INSTALL_HINT = "pip install 'mqpy[spark]'"


class ReportInputError(Exception):
    """An input the report cannot run on; the message says which and why."""


def _is_uri(path: str) -> bool:
    return "://" in path


def _has_records(root: str) -> bool:
    """True when some ``*.jsonl`` file lies below ``root`` outside the exporter's own
    ``_batches``/``_state`` folders and temporary dot-files (which Spark skips too)."""
    return next(_record_files(root), None) is not None


def _record_files(root: str) -> Iterator[str]:
    """The exported ``*.jsonl`` record files below ``root``, as :func:`_has_records` sees them."""
    for here, dirs, files in os.walk(root):
        dirs[:] = [d for d in dirs if not d.startswith(("_", "."))]
        yield from (os.path.join(here, f) for f in files
                    if f.endswith(".jsonl") and not f.startswith(("_", ".")))


def input_bytes(path: str) -> int | None:
    """The size of the exported records below ``path``; None for a URI (hdfs://, s3a://),
    whose size the report does not look up before Spark starts."""
    if _is_uri(path):
        return None
    return sum(os.path.getsize(f) for f in _record_files(path))


def check_input(path: str) -> str:
    """The input folder, absolute; raises ReportInputError when it is missing or holds no
    exported records. A URI (hdfs://, s3a://) is left to Spark."""
    if _is_uri(path):
        return path
    full = os.path.abspath(path)
    if os.path.exists(full) and not os.path.isdir(full):
        raise ReportInputError(f"the input {full} is a file, not the exporter's output folder")
    if not os.path.isdir(full):
        raise ReportInputError(f"the input folder {full} does not exist")
    if not _has_records(full):
        raise ReportInputError(f"no exported records in {full} (expected "
                               "<RecordType>/date=YYYY-MM-DD/qmgr=<QM>/*.jsonl, "
                               "as `mqpy export` writes them)")
    return full


def bench_path(path: str) -> str:
    """``make bench`` results, a relative path taken from the current folder; raises
    ReportInputError naming the absolute path tried when it is not there."""
    full = os.path.abspath(path)
    if not os.path.isfile(full):
        raise ReportInputError(f"no benchmark results at {full} (run `make bench` in the mqpy "
                               "checkout, or give --persistent-rate/--nonpersistent-rate)")
    return full


def pyspark_missing() -> str | None:
    """None when pyspark imports; otherwise what to tell the user."""
    try:
        import pyspark  # noqa: F401  lazy: an optional dependency, checked before it is used
    except ImportError:
        return f"the report runs on Apache Spark, which is not installed: {INSTALL_HINT}"
    return None


class Progress:
    """``mqpy report: <step> (<s> s)`` per step: rewritten in place on a terminal, one plain
    line each otherwise (logs, pipes)."""

    def __init__(self, stream: TextIO, tty: bool | None = None) -> None:
        self.stream = stream
        self.tty = stream.isatty() if tty is None else tty
        self.t0 = time.monotonic()
        self._open = False

    def __call__(self, step: str) -> None:
        line = f"mqpy report: {step} ({time.monotonic() - self.t0:.0f} s)"
        if self.tty:
            self.stream.write(f"\r\x1b[K{line}")
            self._open = True
        else:
            self.stream.write(line + "\n")
        self.stream.flush()

    def done(self) -> None:
        """End a line left open on a terminal."""
        if self._open:
            self.stream.write("\n")
            self.stream.flush()
            self._open = False
