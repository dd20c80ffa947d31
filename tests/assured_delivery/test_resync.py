"""A sending channel's resynchronisation at its start (resync): its in-doubt batch against the
partner's record decides commit, back out or a stop; spec dqm-intercommunication 9.31-9.32."""

from __future__ import annotations

from mqpy.fap.statuscodes import StatusCode
from mqpy.syncrecord import SyncRecord, parse_prepare_key, prepare_key
from mqpy_chinit import resync
from mqpy_chinit.sender_batch import EndChannel

OLD, NEW = b"OLD-LUW1", b"NEW-LUW2"


def _indoubt(partner: str = "QM2"):
    """Batch 11..20 in doubt under NEW, after batch ..10 hardened under OLD."""
    return parse_prepare_key(prepare_key("C", 10, 20, NEW, partner, prev_luwid=OLD))


def _record(seq: int = 10, luwid: bytes = OLD, **kw) -> SyncRecord:
    return SyncRecord("C", "S", seq, luwid, "QM2", **kw)


def test_given_an_in_doubt_batch_the_committed_record_is_the_one_its_key_names():
    """Given a batch in doubt, then the record as committed is the one before it (the record
    itself is locked by the in-doubt unit of work), and the RESYNC flow proposes the in-doubt
    batch's number and LUWID."""
    rec = resync.committed_record(_record(20, NEW), _indoubt())
    assert (rec.seq, rec.luwid) == (10, OLD)
    assert resync.proposal(rec, _indoubt()) == (20, NEW)
    assert resync.proposal(_record(), None) == (10, OLD)


def test_given_the_receiver_has_the_in_doubt_luwid_then_the_batch_is_committed():
    """Given a batch in doubt, when the receiver's record has its number and LUWID (it
    committed it), then the batch is committed and the channel starts from it (9.31,
    9.32)."""
    decided = resync.resolve("C", _record(), _indoubt(), 20, NEW)
    assert decided == resync.Resolution(True, 20, NEW)


def test_given_the_receiver_is_still_at_the_batch_before_then_the_batch_is_backed_out():
    """Given a batch in doubt, when the receiver's record is the batch before it (it never
    committed it), then the batch is backed out (its messages are sent again) and the
    channel starts from the record (9.32)."""
    decided = resync.resolve("C", _record(), _indoubt(), 10, OLD)
    assert decided == resync.Resolution(False, 10, OLD)


def test_given_the_receiver_has_neither_then_the_channel_stops_with_a_sequence_error():
    """Given a batch in doubt, when the receiver's record is neither the batch nor the one
    before, then nothing is resolved: the partner is told MSG_SEQUENCE_ERROR and the channel
    stops (AMQ9526E, no retry)."""
    decided = resync.resolve("C", _record(), _indoubt(), 15, b"ELSEWHER")
    assert isinstance(decided, EndChannel)
    assert (decided.msgid, decided.retry, decided.close) == (
        "AMQ9526E", False, StatusCode.MSG_SEQUENCE_ERROR)
    assert "sent 20, expected 15" in decided.text


def test_given_the_same_number_but_another_luwid_then_the_in_doubt_batch_is_not_committed():
    """Given a batch in doubt, when the receiver has its number under another LUWID, then it
    is not committed (only the LUWID proves the receiver committed this batch)."""
    decided = resync.resolve("C", _record(), _indoubt(), 20, b"ELSEWHER")
    assert isinstance(decided, EndChannel)


def test_given_nothing_in_doubt_and_the_records_agree_then_the_channel_starts_from_them():
    decided = resync.resolve("C", _record(), None, 10, OLD)
    assert decided == resync.Resolution(None, 10, OLD)


def test_given_nothing_in_doubt_and_the_records_differ_then_the_channel_stops():
    """Given nothing in doubt, when the receiver's number differs, then the channel stops
    with a sequence number error naming the next numbers each end expects (AMQ9526E)."""
    decided = resync.resolve("C", _record(), None, 7, OLD)
    assert isinstance(decided, EndChannel) and decided.msgid == "AMQ9526E"
    assert "sent 11, expected 8" in decided.text


def test_given_a_batch_in_doubt_with_another_queue_manager_then_the_channel_stops():
    """Given a batch in doubt with QMX, when QM2 answers the start, then the channel stops
    (AMQ9510E): only RESOLVE CHANNEL can settle it; the same partner, or one not recorded,
    carries on."""
    wrong = resync.wrong_partner("C", _indoubt("QMX"), "QM2")
    assert wrong is not None and (wrong.msgid, wrong.retry) == ("AMQ9510E", False)
    assert resync.wrong_partner("C", _indoubt("QM2"), "QM2") is None
    assert resync.wrong_partner("C", _indoubt(""), "QM2") is None
    assert resync.wrong_partner("C", None, "QM2") is None


def test_given_reset_channel_then_the_new_number_is_sent_first_unless_a_batch_is_in_doubt():
    """Given RESET CHANNEL issued at the sender, then the receiver is told the new number
    before the resynchronisation, but not while a batch is in doubt."""
    assert resync.reset_first(_record(reset=True), None)
    assert not resync.reset_first(_record(reset=True), _indoubt())
    assert not resync.reset_first(_record(), None)
