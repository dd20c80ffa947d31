"""Two processes (queue manager and channel initiator) appending to one errors directory."""

from __future__ import annotations

import multiprocessing
import os
import re

from mqpy import amqmsgs as M
from mqpy.errorlog import LOG_NAMES, ErrorLog, read_entries

PER_WRITER = 150


def _writer(directory: str, name: str, max_size: int, start) -> None:
    log = ErrorLog(directory, qmgr="QM1", program=name, max_size=max_size)
    start.wait()
    for i in range(PER_WRITER):
        log.write(M.AMQ9002, inserts=dict(channel=f"{name}.{i:04d}"))


def test_two_processes_lose_and_interleave_nothing(tmp_path):
    """Given the queue manager and the channel initiator writing to the same directory at
    once, with rotation happening under them, when both finish, then every entry of both is
    present exactly once, whole, and in each writer's own order."""
    directory = str(tmp_path / "errors")
    ctx = multiprocessing.get_context("spawn")
    start = ctx.Event()
    # ~450 bytes an entry, 300 entries, 100 KB files: rotates into 02 but never discards an
    # old 03, so "nothing lost" stays checkable.
    procs = [ctx.Process(target=_writer, args=(directory, name, 100_000, start), name=name)
             for name in ("amqzxma0", "runmqchi")]
    for p in procs:
        p.start()
    start.set()
    for p in procs:
        p.join(60)
        assert p.exitcode == 0
    assert os.path.exists(os.path.join(directory, LOG_NAMES[1])), "no rotation happened"
    assert not os.path.exists(os.path.join(directory, LOG_NAMES[2])), "entries were dropped"

    entries = read_entries(directory)
    raw = "".join(open(os.path.join(directory, n)).read()
                  for n in reversed(LOG_NAMES) if os.path.exists(os.path.join(directory, n)))
    assert len(re.findall(r"^----- .* : \d+ -+$", raw, re.M)) == len(entries)
    assert len(entries) == 2 * PER_WRITER
    for name in ("amqzxma0", "runmqchi"):
        mine = [e.comment_inserts[0] for e in entries if e.program == name]
        assert mine == [f"{name}.{i:04d}" for i in range(PER_WRITER)]
        assert {e.pid for e in entries if e.program == name} == {
            p.pid for p in procs if p.name == name}
    assert [e.timestamp for e in entries] == sorted(e.timestamp for e in entries)


def test_rotation_under_two_writers_keeps_each_writers_newest_run(tmp_path):
    """Given both processes writing with a limit of a few entries, so that rotation happens
    about a hundred times while they race, when both finish, then neither crashed, no file
    passed the limit, and what survives of each writer is an unbroken run of its newest
    entries (rotation only ever drops the oldest file)."""
    directory = str(tmp_path / "errors")
    one = len(ErrorLog(str(tmp_path / "probe"), qmgr="QM1", program="amqzxma0").write(
        M.AMQ9002, inserts=dict(channel="amqzxma0.0000")))
    limit = 4 * one
    ctx = multiprocessing.get_context("spawn")
    start = ctx.Event()
    procs = [ctx.Process(target=_writer, args=(directory, name, limit, start))
             for name in ("amqzxma0", "runmqchi")]
    for p in procs:
        p.start()
    start.set()
    for p in procs:
        p.join(60)
        assert p.exitcode == 0
    for n in LOG_NAMES:
        assert os.path.getsize(os.path.join(directory, n)) <= limit
    entries = read_entries(directory)
    for name in ("amqzxma0", "runmqchi"):
        mine = [int(e.comment_inserts[0].split(".")[1]) for e in entries if e.program == name]
        assert mine == list(range(PER_WRITER - len(mine), PER_WRITER)), mine
