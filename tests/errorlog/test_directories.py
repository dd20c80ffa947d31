"""Where error logs go: the queue manager's errors directory, @SYSTEM, or the early one."""

from __future__ import annotations

import os

from mqpy import amqmsgs as M
from mqpy.errorlog import early_errors_dir, errors_dir, read_entries


def test_known_queue_manager_uses_its_own_errors_directory(tmp_path):
    """spec: operations-dlq-clusters 7.1"""
    qmdir = str(tmp_path / "qmgrs" / "QM1")
    assert errors_dir(qmdir, str(tmp_path)) == os.path.join(qmdir, "errors")


def test_channel_error_without_a_queue_manager_goes_to_system(log_factory, tmp_path):
    """Given the queue manager is unknown or down, when a channel error is logged, then it
    lands in qmgrs/@SYSTEM/errors/AMQERR01.LOG with no QMgr field.
    spec: operations-dlq-clusters 7.3"""
    d = errors_dir(None, str(tmp_path))
    assert d == os.path.join(str(tmp_path), "qmgrs", "@SYSTEM", "errors")
    log_factory(d, qmgr=None).write(M.AMQ9202, inserts=dict(rc=111, host="box2(1414)",
                                                            channel="TO.QM2"))
    assert os.path.exists(os.path.join(d, "AMQERR01.LOG"))
    (e,) = read_entries(d)
    assert e.msgid == "AMQ9202E" and e.qmgr is None


def test_early_errors_use_default_prefix_when_readable(tmp_path):
    """Given unreadable configuration, errors go to <root>/errors; given a readable
    DefaultPrefix=P, to P/errors. spec: operations-dlq-clusters 7.4"""
    root = str(tmp_path)
    assert early_errors_dir(root) == os.path.join(root, "errors")
    assert early_errors_dir(root, "/srv/mq") == os.path.join("/srv/mq", "errors")


def test_an_error_log_the_disk_will_not_take_goes_to_stderr_and_the_caller_carries_on(
        tmp_path, capsys):
    """Given an errors directory that cannot be written (here a file stands in its place, as
    a full or read-only disk would refuse it), when an entry is written, then it does not
    raise (an error about an error must not end a queue manager): the entry goes to stderr."""
    from mqpy.errorlog import ErrorLog

    blocked = tmp_path / "errors"
    blocked.write_text("not a directory")
    text = ErrorLog(str(blocked), qmgr="QM1").write(M.AMQ6119, inserts={"detail": "28 - full"})
    assert "AMQ6119S" in text
    err = capsys.readouterr().err
    assert "could not write" in err and "AMQ6119S" in err and "28 - full" in err
