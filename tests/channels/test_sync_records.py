"""An MCA's sync record on SYSTEM.CHANNEL.SYNCQ, replaced batch after batch through the
handle it keeps open (``syncq.ChannelSyncQ``): whatever path a replacement takes, one record
per channel end (and partner) remains, holding the last committed batch."""

from __future__ import annotations

import mqpy
from mqpy import CMQC, syncrecord
from mqpy.browsing import browse
from mqpy_chinit import syncq


def _records(qm, channel: str, role: str) -> list[syncrecord.SyncRecord]:
    return [syncrecord.SyncRecord.from_bytes(data) for _md, data in
            browse(qm, syncrecord.SYNCQ, correl_id=syncrecord.correl_id(channel, role))]


def _batch(keeper: syncq.ChannelSyncQ, qm, seq: int, partner: str = "QM2") -> None:
    keeper.replace_in_uow(syncrecord.SyncRecord("TO.QM2", "S", seq, seq.to_bytes(8, "big"),
                                                partner))
    qm.commit()


def test_batches_replace_the_record_they_put(two_qmgrs):
    """Given a sender's record replaced by three committed batches through one open handle,
    then exactly one record is left and it names the third batch."""
    qm1, _ = two_qmgrs
    qm = qm1.connect()
    try:
        keeper = syncq.ChannelSyncQ(qm)
        for seq in (50, 100, 150):
            _batch(keeper, qm, seq)
        assert [r.seq for r in _records(qm, "TO.QM2", "S")] == [150]
        assert keeper.msgid is not None  # the next batch takes one round trip
    finally:
        qm.disconnect()


def test_a_backed_out_batch_leaves_the_record_before_it(two_qmgrs):
    """Given a batch whose record replacement was backed out (the partner backed its batch
    out), when the next batch replaces the record, then the record it put before the backed
    out one is the one replaced: one record, the new batch's."""
    qm1, _ = two_qmgrs
    qm = qm1.connect()
    try:
        keeper = syncq.ChannelSyncQ(qm)
        _batch(keeper, qm, 50)
        keeper.replace_in_uow(syncrecord.SyncRecord("TO.QM2", "S", 100, bytes(8), "QM2"))
        qm.backout()
        assert [r.seq for r in _records(qm, "TO.QM2", "S")] == [50]
        _batch(keeper, qm, 100)
        assert [r.seq for r in _records(qm, "TO.QM2", "S")] == [100]
    finally:
        qm.disconnect()


def test_a_record_replaced_by_reset_channel_is_found_again(two_qmgrs):
    """Given a channel's record replaced behind the MCA's back (RESET CHANNEL replaces it
    on another connection), when the MCA's next batch replaces it, then the reset record
    is removed as a fresh search would: one record, the batch's."""
    qm1, _ = two_qmgrs
    qm, other = qm1.connect(), qm1.connect()
    try:
        keeper = syncq.ChannelSyncQ(qm)
        _batch(keeper, qm, 50)
        syncrecord.replace_in_uow(other, syncrecord.SyncRecord("TO.QM2", "S", 0, bytes(8),
                                                               "QM2", reset=True))
        other.commit()
        _batch(keeper, qm, 100)
        assert [(r.seq, r.reset) for r in _records(qm, "TO.QM2", "S")] == [(100, False)]
    finally:
        other.disconnect()
        qm.disconnect()


def test_a_receiver_replaces_only_its_partners_record(two_qmgrs):
    """Given a generic receiver with records for two partners, when batches from one
    partner are committed, then the other partner's record is untouched."""
    _, qm2 = two_qmgrs
    qm = qm2.connect()
    try:
        for partner in ("QMA", "QMB"):
            syncrecord.replace_in_uow(qm, syncrecord.SyncRecord("TO.QM2", "R", 7, bytes(8),
                                                                partner))
        qm.commit()
        keeper = syncq.ChannelSyncQ(qm)
        for seq in (10, 20):
            keeper.replace_in_uow(syncrecord.SyncRecord("TO.QM2", "R", seq, bytes(8), "QMA"))
            qm.commit()
        got = {r.partner_qm: r.seq for r in _records(qm, "TO.QM2", "R")}
        assert got == {"QMA": 20, "QMB": 7}
        assert len(_records(qm, "TO.QM2", "R")) == 2
    finally:
        qm.disconnect()


def test_the_record_steps_run_with_other_calls(two_qmgrs):
    """Given a record the MCA has put, when its replacement steps run after other puts in
    one run of calls (a receiver's last puts), then the run reports the replacement done
    and the record is the new one once committed."""
    qm1, _ = two_qmgrs
    qm1.define("QLOCAL", "T")
    qm = qm1.connect()
    try:
        keeper = syncq.ChannelSyncQ(qm)
        _batch(keeper, qm, 1)
        from mqpy.fap.mqicalls import run_in_order

        put = ("put1", (mqpy.OD(ObjectName=b"T"), mqpy.MD(), mqpy.PMO(
            Options=CMQC.MQPMO_SYNCPOINT), b"payload"))
        steps = keeper.steps(syncrecord.SyncRecord("TO.QM2", "S", 2, bytes(8), "QM2"))
        results = run_in_order(qm.connection(), [put, *steps])
        assert keeper.done(results[1:])
        qm.commit()
        assert [r.seq for r in _records(qm, "TO.QM2", "S")] == [2]
        assert qm1.depth("T") == 1
    finally:
        qm.disconnect()
