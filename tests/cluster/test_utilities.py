"""MS0G-like utilities: dumprepos, and clusxq on the cluster transmission queue."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

import mqpy
from mqpy import CMQC, inprocess
from mqpy.fap.channeldefs import CLUSTER_XMITQ, cluster_correl_id
from mqpy_chinit.cluster import utilities
from mqpy_chinit.cluster.directory import Cache, cache_path, instance_to_dict, write_cache
from mqpy_chinit.cluster.manager import REPOSITORY_QUEUE, record_correl_id
from mqpy_chinit.cluster.records import ClusterQueueRecord, encode
from mqpy_chinit.cluster.workload import QueueInstance
from mqpy_cli.cluster import clusxq


@pytest.fixture
def qm(tmp_path):
    root = str(tmp_path / "QM1")
    inprocess.create("QM1", root, dead_letter_queue="SYSTEM.DEAD.LETTER.QUEUE")
    eng = inprocess.start("QM1", root)
    eng.define("QLOCAL", "FULLQ", {"MAXDEPTH": 1})
    conn = mqpy.embedded("QM1", data_path=root, create=False)
    conn.put1("FULLQ", b"already here")
    conn.engine = eng
    yield conn
    conn.disconnect()
    inprocess.stop_all()


def _on_xmitq(qm, channel: str, queue: str, qmgr: str, body: bytes) -> None:
    xqh = mqpy.XQH()
    xqh.RemoteQName, xqh.RemoteQMgrName = queue.encode(), qmgr.encode()
    xqh.MsgDesc = mqpy.MD(Persistence=CMQC.MQPER_PERSISTENT)
    qm.put1(CLUSTER_XMITQ, xqh.pack() + body,
            mqpy.MD(Format=CMQC.MQFMT_XMIT_Q_HEADER, CorrelId=cluster_correl_id(channel)))


def _load(qm) -> None:
    _on_xmitq(qm, "TO.QM2", "INVQ", "QM2", b"user 1")
    _on_xmitq(qm, "TO.QM2", "INVQ", "QM2", b"user 2")
    _on_xmitq(qm, "TO.QM2", "SYSTEM.CLUSTER.COMMAND.QUEUE", "QM2", b"{}")
    _on_xmitq(qm, "TO.QM3", "FULLQ", "QM3", b"user 3")


def test_statistics_and_display_by_channel_and_kind(qm):
    """Given user and internal messages for two channels on SYSTEM.CLUSTER.TRANSMIT.QUEUE,
    when clusxq -s runs, then it counts them per channel without changing anything; -xc TO.QM2
    lists only TO.QM2's internal message.  spec: operations-dlq-clusters 7.29"""
    _load(qm)
    stats = utilities.statistics(utilities.xmitq(qm, "statistics"))
    assert stats["TO.QM2"]["user"] == 2 and stats["TO.QM2"]["internal"] == 1
    assert stats["TO.QM3"] == {"internal": 0, "user": 1, "bytes": 6}
    shown = utilities.xmitq(qm, "display", "TO.QM2", "c")
    assert [(m.channel, m.internal, m.remote_q) for m in shown] == \
        [("TO.QM2", True, "SYSTEM.CLUSTER.COMMAND.QUEUE")]
    assert qm.engine.queue_status(CLUSTER_XMITQ)["CURDEPTH"] == 4


def test_delete_only_the_named_channel(qm):
    """Given messages for TO.QM2 and TO.QM3, when clusxq -xd TO.QM2 runs, then only TO.QM2's
    three messages are gone.  spec: operations-dlq-clusters 7.29"""
    _load(qm)
    gone = utilities.xmitq(qm, "delete", "TO.QM2")
    assert len(gone) == 3
    assert [m.channel for m in utilities.xmitq(qm, "display")] == ["TO.QM3"]


def test_reput_goes_through_the_workload_choice_and_failures_to_the_dlq(qm):
    """Given user messages for INVQ on TO.QM2 (QM2 since removed; INVQ now only on QM4) and
    one for FULLQ, a local queue that is full, when clusxq -xru runs, then the INVQ messages
    are re-put to channel TO.QM4 and the FULLQ one goes to the dead-letter queue with reason
    MQRC_Q_FULL (2053); the internal message is left alone.  spec:
    operations-dlq-clusters 7.29"""
    write_cache(cache_path(qm.engine.qmdir), Cache(qmgr="QM1", clusters=["INV"], queues={
        "INVQ": [instance_to_dict(QueueInstance("INVQ", "QM4", "QM4_id", "INV", "TO.QM4"))]}))
    _load(qm)
    done = utilities.xmitq(qm, "reput", "", "u")
    assert len(done) == 3
    left = sorted((m.channel, m.remote_q) for m in utilities.xmitq(qm, "display"))
    assert left == [("TO.QM2", "SYSTEM.CLUSTER.COMMAND.QUEUE"), ("TO.QM4", "INVQ"),
                    ("TO.QM4", "INVQ")]
    dlq = mqpy.Queue(qm, "SYSTEM.DEAD.LETTER.QUEUE", CMQC.MQOO_INPUT_AS_Q_DEF)
    dlh = mqpy.DLH().unpack(dlq.get())
    assert dlh.Reason == CMQC.MQRC_Q_FULL
    dlq.close()


def test_dump_repository(qm):
    """Given a record and a stray message on SYSTEM.CLUSTER.REPOSITORY.QUEUE, when dumprepos
    runs, then it prints the record as JSON and names the stray message as not a record."""
    record = ClusterQueueRecord("INV", "INVQ", "QM2", "QM2_id", published=1.0, sequence=1,
                                expiry=2.0)
    qm.put1(REPOSITORY_QUEUE, encode(record), mqpy.MD(CorrelId=record_correl_id(record.key)))
    qm.put1(REPOSITORY_QUEUE, b"junk")
    lines = utilities.dump_repository(qm)
    assert json.loads(lines[0])["queue"] == "INVQ"
    assert lines[1].startswith("(not a repository record")


def test_clusxq_usage_error():
    """A mode that is not -s or -x[d|r][c|u] is refused with the usage and exit code 20."""
    result = CliRunner().invoke(clusxq, ["QM1", "-xdr"])
    assert result.exit_code == 20 and "usage: clusxq" in result.output
