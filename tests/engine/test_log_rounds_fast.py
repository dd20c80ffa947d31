"""A usual force round is staged straight from the log buffer and written by one call
(``groupcommit._FAST_ROUNDS``); every other round is taken and written as before. Given the
same appends and forces, the two write the same bytes to the same segment files, and read
back the same records."""

from __future__ import annotations

import os

import pytest

from mqpy.engine import groupcommit
from mqpy.engine.log import PAGE_SIZE, LogConfig
from mqpy.engine.recoverylog import RecoveryLog
from tests.engine.test_log_direct import _direct_works

pytestmark = pytest.mark.skipif(not groupcommit._FAST_ROUNDS,
                                reason="no O_DIRECT or RWF_DSYNC here")

#: 512 KB segments, six of them: the rounds below cross segment boundaries, and one record
#: is larger than the stage (both taken the general way)
CONFIG = LogConfig(LogFilePages=128, LogPrimaryFiles=4, LogSecondaryFiles=2)
SIZES = (30, 1400, 4096 - 28, 5000, 17, 9000, 70_000, 1, 270_000, 2200, 100, 40_000)


def _tail(log: RecoveryLog) -> bytes:
    """What the segment file holds from the log's end to the end of that page."""
    end = log.end_lsn
    segno, off = divmod(end, log.segment_size)
    with open(log.path_of(segno), "rb") as f:
        f.seek(off)
        return f.read(-end % PAGE_SIZE)


def _workload(path: str) -> tuple[list[tuple[int, int, bytes]], int]:
    """Appends of varied sizes (key prefixes on some), forced after one to three of them;
    the records read back and the number of rounds staged the fast way. After each force
    the rest of the log's last page is zeros."""
    log = RecoveryLog(path, CONFIG)
    list(log.scan(0))
    staged = 0
    real = log._stage_round_locked

    def counting():
        nonlocal staged
        out = real()
        staged += out is not None
        return out

    log._stage_round_locked = counting
    for i in range(60):
        size = SIZES[i % len(SIZES)]
        payload = bytes([i % 251]) * size
        if i % 3 == 1:
            log.append(1, payload, prefix=i.to_bytes(20, "little"))
        else:
            log.append(2 + i % 5, payload, reserved=i % 4 == 0)
        if i % 3 != 2 or i % 7 == 0:
            log.force()
            assert _tail(log) == bytes(-log.end_lsn % PAGE_SIZE)
    log.force()
    log.close()
    back = RecoveryLog(path, CONFIG)
    try:
        records = [(r.lsn, r.rtype, r.payload) for r in back.scan(0)]
    finally:
        back.close()
    return records, staged


def _files(path: str) -> dict[str, bytes]:
    out = {}
    for name in sorted(os.listdir(path)):
        with open(os.path.join(path, name), "rb") as f:
            out[name] = f.read()
    return out


def test_staged_rounds_write_what_the_general_rounds_write(tmp_path, monkeypatch):
    # given two empty logs, on a file system that takes O_DIRECT
    if not _direct_works(str(tmp_path)):
        pytest.skip("this file system refuses O_DIRECT")
    general, fast = tmp_path / "general", tmp_path / "fast"
    general.mkdir()
    fast.mkdir()
    # when the same appends and forces go to one with staged rounds off and to the other on
    monkeypatch.setattr(groupcommit, "_FAST_ROUNDS", False)
    records_general, staged_general = _workload(str(general))
    monkeypatch.setattr(groupcommit, "_FAST_ROUNDS", True)
    records_fast, staged_fast = _workload(str(fast))
    # then most rounds were staged, none with it off, and the segment files hold the same
    # bytes (records, the pages' zeros after them) and give back the same records
    assert staged_general == 0
    assert staged_fast >= 25
    assert len(records_fast) == 60
    assert records_fast == records_general
    assert _files(str(fast)) == _files(str(general))
