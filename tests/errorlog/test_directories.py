"""Where error logs go: the queue manager's errors directory, @SYSTEM, or the early one."""

from __future__ import annotations

import os

from mqpy import messages as M
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
