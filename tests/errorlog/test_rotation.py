"""AMQERR01 -> 02 -> 03 rotation at ErrorLogSize, and reading the three files in order."""

from __future__ import annotations

import os

import pytest

from mqpy import amqmsgs as M
from mqpy.errorlog import ErrorLog, parse_log, read_entries


def _channels(entries) -> list[str]:
    return [e.comment_inserts[0] for e in entries]


def _files(directory) -> list[str]:
    return sorted(n for n in os.listdir(directory) if n.endswith(".LOG"))


def test_first_error_creates_amqerr01(log_factory, tmp_path):
    """Given QM1 with no errors yet, when the first entry is written, then
    qmgrs/QM1/errors/AMQERR01.LOG exists and nothing else. spec: operations-dlq-clusters 7.1"""
    errors = tmp_path / "qmgrs" / "QM1" / "errors"
    log = log_factory(errors)
    assert not errors.exists()
    log.write(M.AMQ8003, inserts=dict(vrmf="0.1.0.0"))
    assert _files(errors) == ["AMQERR01.LOG"]


def test_rotation_moves_01_to_02_to_03_and_drops_the_old_03(log_factory, tmp_path):
    """Given a small ErrorLogSize, when entries are written until three rotations happen,
    then each time 02 became 03 (old 03 lost), 01 became 02, and the new entry started a
    fresh 01, so 01 always holds the newest. spec: operations-dlq-clusters 7.2"""
    one = len(log_factory(tmp_path / "probe").write(M.AMQ9002, inserts=dict(channel="C.000")))
    log = log_factory(max_size=3 * one)  # three entries per file
    for i in range(12):
        log.write(M.AMQ9002, inserts=dict(channel=f"C.{i:03d}"))
    d = log.directory
    assert _files(d) == ["AMQERR01.LOG", "AMQERR02.LOG", "AMQERR03.LOG"]
    per_file = {n: _channels(parse_log(open(os.path.join(d, n)).read())) for n in _files(d)}
    assert per_file == {"AMQERR03.LOG": ["C.003", "C.004", "C.005"],
                        "AMQERR02.LOG": ["C.006", "C.007", "C.008"],
                        "AMQERR01.LOG": ["C.009", "C.010", "C.011"]}
    assert all(os.path.getsize(os.path.join(d, n)) <= 3 * one for n in _files(d))


def test_rotation_happens_only_when_01_would_pass_the_limit(log_factory):
    """Given AMQERR01 one byte short of room for another entry, then the entry goes to a
    fresh 01; with exactly enough room it is appended."""
    log = log_factory(max_size=10**6)
    size = len(log.write(M.AMQ9002, inserts=dict(channel="C.001")))
    log.max_size = 2 * size
    log.write(M.AMQ9002, inserts=dict(channel="C.002"))
    assert _files(log.directory) == ["AMQERR01.LOG"]
    log.write(M.AMQ9002, inserts=dict(channel="C.003"))
    assert _files(log.directory) == ["AMQERR01.LOG", "AMQERR02.LOG"]
    assert _channels(read_entries(log.directory)) == ["C.001", "C.002", "C.003"]


def test_an_entry_bigger_than_the_limit_is_still_written_whole(log_factory):
    """Given ErrorLogSize smaller than one entry, then each entry still lands whole in 01."""
    log = log_factory(max_size=100)
    for i in range(3):
        log.write(M.AMQ9002, inserts=dict(channel=f"C.{i}"))
    assert _channels(read_entries(log.directory)) == ["C.0", "C.1", "C.2"]


def test_read_entries_returns_03_02_01_in_time_order(log_factory):
    """Given entries spread over AMQERR03, 02 and 01, when read_entries runs, then they come
    back oldest first with their timestamps ascending."""
    one = len(log_factory(log_factory().directory + "x").write(
        M.AMQ9002, inserts=dict(channel="C.000")))
    log = log_factory(max_size=2 * one)
    for i in range(6):
        log.write(M.AMQ9002, inserts=dict(channel=f"C.{i:03d}"))
    entries = read_entries(log.directory)
    assert _channels(entries) == [f"C.{i:03d}" for i in range(6)]
    assert [e.file for e in entries] == ["AMQERR03.LOG"] * 2 + ["AMQERR02.LOG"] * 2 + \
        ["AMQERR01.LOG"] * 2
    assert [e.timestamp for e in entries] == sorted(e.timestamp for e in entries)


def test_read_entries_of_an_empty_directory_is_empty(tmp_path):
    assert read_entries(str(tmp_path)) == []


def test_unfinished_last_entry_is_not_returned(log_factory):
    """Given a crash mid-write left half an entry at the end of 01, when read, then only the
    complete entries are returned."""
    log = log_factory()
    log.write(M.AMQ9002, inserts=dict(channel="C.1"))
    text = log.write(M.AMQ9002, inserts=dict(channel="C.2"))
    with open(log.path, "a") as f:
        f.write(text[: len(text) // 2])
    assert _channels(read_entries(log.directory)) == ["C.1", "C.2"]


def test_non_positive_limit_is_refused(tmp_path):
    with pytest.raises(ValueError):
        ErrorLog(str(tmp_path), max_size=0)


# A verbatim-shaped IBM 9.1 (Windows) entry and a 9.0 entry without Time(): the parser must
# read logs written by IBM MQ too, for the exporter. Layout from public IBM error-log samples.
IBM_SAMPLE = """\
17/10/2018 13:50:18 - Process(6008.1) User(MUSR_MQADMIN) Program(amqzxma0.exe)
                      Host(FELIX-ELASTIC) Installation(Installation1)
                      VRMF(9.1.0.0) QMgr(QM2)
                      Time(2018-10-17T11:50:18.803Z)
                      ArithInsert1(5)
                      CommentInsert1(QM2)
<blank>
AMQ7229I: 5 log records accessed on queue manager 'QM2' during the log replay
phase.

EXPLANATION:
5 log records have been accessed so far on queue manager QM2 during the log
replay phase in order to bring the queue manager back to a previously known
state.
ACTION:
None.<eol>
----- amqalms0.c : 1010 -------------------------------------------------------
03/22/2019 08:17:30 AM - Process(16296.7) User(mqm) Program(amqrmppa)
                    Host(sysamq05) Installation(Installation1)
                    VRMF(8.0.0.8) QMgr(QM05)

AMQ9999: Channel 'NB.SVR' to host '10.123.1.22' ended abnormally.

EXPLANATION:
The channel program running under process ID 16296 for channel
'NB.SVR' ended abnormally.
ACTION:
Look at previous error messages for the channel program in the error logs.
-------------------------------------------------------------------------------
""".replace("<blank>", " " * 21).replace("<eol>", " ")


def test_parser_reads_ibm_written_entries(utc):
    """Given entries as IBM MQ 9.1 and 8.0 write them, when parsed, then ids, inserts, text
    and timestamps (Time() or the local date line) come out."""
    a, b = parse_log(IBM_SAMPLE)
    assert (a.msgid, a.pid, a.tid, a.program, a.qmgr) == ("AMQ7229I", 6008, 1, "amqzxma0.exe",
                                                          "QM2")
    assert a.text == "5 log records accessed on queue manager 'QM2' during the log replay phase."
    assert a.arith_inserts == (5, 0) and a.comment_inserts == ("QM2", "", "")
    assert a.timestamp.isoformat() == "2018-10-17T11:50:18.803000+00:00"
    assert a.action == "None." and a.source == "amqalms0.c : 1010"
    assert (b.msgid, b.host, b.vrmf, b.qmgr) == ("AMQ9999", "sysamq05", "8.0.0.8", "QM05")
    assert b.timestamp.isoformat() == "2019-03-22T08:17:30+00:00"
    assert b.source == ""
