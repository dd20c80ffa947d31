"""qm.ini's QMErrorLog stanza as the administrator writes it: ErrorLogSize decides when
AMQERR01 rotates, ExcludeMessage entries are never written, SuppressMessage entries are
written once per SuppressInterval; a value IBM would not take is refused naming it."""

from __future__ import annotations

import datetime as dt
import os

import pytest

from mqpy import amqmsgs as M
from mqpy import config
from mqpy.errorlog import ErrorLog, qmerrorlog_rules, read_entries
from mqpy.qmerrorlog import DEFAULT_ERROR_LOG_SIZE, QMErrorLogConfig
from tests.errorlog.conftest import T0


class Clock:
    """A clock the test moves: SuppressInterval is timed by it."""

    def __init__(self) -> None:
        self.now = T0

    def __call__(self) -> dt.datetime:
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += dt.timedelta(seconds=seconds)


def _qmgr(tmp_path, stanza: str) -> str:
    """A queue manager directory whose qm.ini has ``stanza``; its errors directory."""
    qmdir = tmp_path / "qmgrs" / "QM1"
    qmdir.mkdir(parents=True)
    (qmdir / "qm.ini").write_text("QueueManager:\n   Name=QM1\n" + stanza)
    return str(qmdir / "errors")


def _log(errors: str, clock: Clock, **kw) -> ErrorLog:
    return ErrorLog(errors, qmgr="QM1", program="runmqchi", host="box1", user="mqm",
                    clock=clock, **kw)


def _not_put(log: ErrorLog, n: int) -> None:
    for _ in range(n):
        log.write_event("AMQ9544W", "Messages not put to destination queue. During the "
                        "processing of channel 'TO.QM2' a message for queue 'MISSING' at "
                        "'QM2' could not be put (reason 2085) and was put to the dead-letter "
                        "queue 'DLQ'.")


def _ids(errors: str) -> list[str]:
    return [e.msgid for e in read_entries(errors)]


def test_given_no_stanza_then_ibm_defaults_apply(tmp_path):
    """Given a qm.ini without QMErrorLog, when its error log is written, then ErrorLogSize is
    IBM's 32 MB, nothing is excluded or suppressed and SuppressInterval is 30 seconds."""
    errors = _qmgr(tmp_path, "")
    assert qmerrorlog_rules(errors) == QMErrorLogConfig()
    assert (DEFAULT_ERROR_LOG_SIZE, QMErrorLogConfig().suppress_interval) == (33554432, 30)
    assert _log(errors, Clock()).max_size == 33554432


def test_given_two_thousand_undeliverable_messages_then_the_earlier_entries_are_kept(tmp_path):
    """Given the default QMErrorLog and an entry written before the flood, when a channel
    writes 2,000 AMQ9544W entries, then AMQERR01 has not rotated (32 MB, as IBM's) and the
    first entry is still there."""
    errors = _qmgr(tmp_path, "")
    clock = Clock()
    log = _log(errors, clock)
    log.write(M.AMQ9002, inserts=dict(channel="TO.QM2"))
    _not_put(log, 2000)
    assert sorted(os.listdir(errors)) == ["AMQERR01.LCK", "AMQERR01.LOG"]
    ids = _ids(errors)
    assert ids[0] == "AMQ9002I" and len(ids) == 2001


def test_given_an_error_log_size_then_amqerr01_rotates_at_it(tmp_path):
    """Given ErrorLogSize=32768 (IBM's smallest), when entries pass it, then AMQERR01 was
    copied to AMQERR02 and AMQERR01 stays within 32768 bytes."""
    errors = _qmgr(tmp_path, "QMErrorLog:\n   ErrorLogSize=32768\n")
    log = _log(errors, Clock())
    _not_put(log, 60)
    assert os.path.exists(os.path.join(errors, "AMQERR02.LOG"))
    assert os.path.getsize(log.path) <= 32768


def test_given_an_excluded_message_then_it_is_never_written(tmp_path):
    """Given ExcludeMessage=9544,9002, when a channel starts and 50 messages are not put,
    then the error log has neither, and other entries are written."""
    errors = _qmgr(tmp_path, "QMErrorLog:\n   ExcludeMessage=9544,9002\n")
    log = _log(errors, Clock())
    log.write(M.AMQ9002, inserts=dict(channel="TO.QM2"))
    _not_put(log, 50)
    log.write(M.AMQ9001, inserts=dict(channel="TO.QM2", host="box2"))
    assert _ids(errors) == ["AMQ9001I"]


def test_given_a_suppressed_message_then_it_is_written_once_per_interval(tmp_path):
    """Given SuppressMessage=9544 and SuppressInterval=60, when 2,000 AMQ9544W come within a
    minute, then one is written; when the minute has passed, the next is written again; other
    messages are never held back."""
    errors = _qmgr(tmp_path, "QMErrorLog:\n   SuppressMessage=9544\n   SuppressInterval=60\n")
    clock = Clock()
    log = _log(errors, clock)
    for _ in range(2000):
        _not_put(log, 1)
        clock.advance(0.02)  # 2,000 in 40 seconds
    log.write(M.AMQ9001, inserts=dict(channel="TO.QM2", host="box2"))
    log.write(M.AMQ9001, inserts=dict(channel="TO.QM2", host="box2"))
    clock.advance(20)
    _not_put(log, 3)
    assert _ids(errors) == ["AMQ9544W", "AMQ9001I", "AMQ9001I", "AMQ9544W"]


def test_given_a_message_both_excluded_and_suppressed_then_it_is_excluded(tmp_path):
    """Given 9544 in ExcludeMessage and SuppressMessage, then it is never written (IBM: an
    id in both lists is excluded)."""
    errors = _qmgr(tmp_path, "QMErrorLog:\n   ExcludeMessage=9544\n   SuppressMessage=9544\n")
    _not_put(_log(errors, Clock()), 5)
    assert _ids(errors) == []


def test_given_a_suppressed_message_then_every_writer_of_the_process_shares_the_interval(
        tmp_path):
    """Given SuppressMessage=9544, when two error-log writers of one process (two channels)
    write it within the interval, then it is written once."""
    errors = _qmgr(tmp_path, "QMErrorLog:\n   SuppressMessage=9544\n")
    clock = Clock()
    _not_put(_log(errors, clock), 1)
    _not_put(_log(errors, clock), 1)
    assert _ids(errors) == ["AMQ9544W"]


def test_the_stanza_is_read_whatever_the_case_of_its_keys(tmp_path):
    """Given IBM's stanza spelt QMERRORLOG with lower-case keys and AMQ-prefixed ids, when
    qm.ini is loaded, then every key is read."""
    errors = _qmgr(tmp_path, "QMERRORLOG:\n   errorlogsize=1048576\n   excludemessage="
                             "AMQ9001, 9002\n   suppressmessage=9544W\n   suppressinterval=5\n")
    assert config.QMgrConfig.load("QM1", str(tmp_path)).error_log == QMErrorLogConfig(
        error_log_size=1048576, exclude=frozenset({"9001", "9002"}),
        suppress=frozenset({"9544"}), suppress_interval=5)
    assert qmerrorlog_rules(errors).error_log_size == 1048576


@pytest.mark.parametrize("key, value, wanted", [
    ("ErrorLogSize", "1024", "a number from 32768 to 2147483648"),
    ("ErrorLogSize", "2147483649", "a number from 32768 to 2147483648"),
    ("ErrorLogSize", "big", "a number from 32768 to 2147483648"),
    ("SuppressInterval", "0", "a number from 1 to 86400"),
    ("SuppressInterval", "86401", "a number from 1 to 86400"),
    ("ExcludeMessage", "9001 9002", "a comma-separated list of message numbers"),
    ("SuppressMessage", "all", "a comma-separated list of message numbers"),
])
def test_a_value_ibm_would_not_take_is_refused_naming_it(tmp_path, key, value, wanted):
    """Given a QMErrorLog value out of IBM's range or not a list of message numbers, when
    qm.ini is loaded (strmqm), then it is a ConfigError naming stanza, key and value, which
    AMQ8940E says; the error log itself falls back to IBM's defaults."""
    errors = _qmgr(tmp_path, f"QMErrorLog:\n   {key}={value}\n")
    with pytest.raises(config.ConfigError) as err:
        config.QMgrConfig.load("QM1", str(tmp_path))
    assert (err.value.stanza, err.value.key, err.value.value) == ("QMErrorLog", key, value)
    assert err.value.wanted.startswith(wanted)
    text = M.AMQ8940.render({**err.value.inserts, "qmgr": "QM1"}).explanation
    assert f"QMErrorLog: {key}={value}" in text
    assert qmerrorlog_rules(errors) == QMErrorLogConfig()
