"""A sending channel's resynchronisation at its start, as pure functions: its in-doubt batch
(if any) against the partner's record decides commit, back out, or stop the channel.

The sender proposes the last batch it hardened (the in-doubt one, else its record's); the
receiver answers with its own record. Spec dqm-intercommunication 9.31-9.32: an in-doubt batch
whose LUWID the receiver holds is committed, one the receiver never committed (its record is
still at the number before the batch) is backed out, anything else is a sequence number error
(AMQ9526E) that stops the channel.
"""

from __future__ import annotations

import attrs

from mqpy.fap.statuscodes import StatusCode
from mqpy.syncrecord import InDoubt, SyncRecord
from mqpy_chinit.sender_batch import EndChannel


@attrs.frozen
class Resolution:
    """What the resynchronisation decided: ``commit`` True or False resolves the in-doubt
    batch (None: there was none); the channel starts from ``seq`` and ``luwid``."""

    commit: bool | None
    seq: int
    luwid: bytes


def wrong_partner(channel: str, indoubt: InDoubt | None, partner: str) -> EndChannel | None:
    """A batch in doubt with another queue manager than the one that answered: only RESOLVE
    CHANNEL can settle it (AMQ9510E, the channel stops)."""
    if indoubt is None or not indoubt.partner or indoubt.partner == partner:
        return None
    return EndChannel("AMQ9510E", f"Channel {channel} is in doubt with queue manager "
                      f"{indoubt.partner}, not {partner}: resolve it with RESOLVE CHANNEL.",
                      retry=False)


def committed_record(record: SyncRecord, indoubt: InDoubt | None) -> SyncRecord:
    """The record as committed: while a batch is in doubt the record is locked by its unit of
    work, and the in-doubt key says what the record held before it."""
    if indoubt is not None:
        record.seq, record.luwid = indoubt.prev_seq, indoubt.prev_luwid
    return record


def reset_first(record: SyncRecord, indoubt: InDoubt | None) -> bool:
    """RESET CHANNEL was issued here: the receiver is told the new number (RESET_DATA) before
    the resynchronisation -- not while a batch is in doubt."""
    return record.reset and indoubt is None


def proposal(record: SyncRecord, indoubt: InDoubt | None) -> tuple[int, bytes]:
    """The number and LUWID the RESYNC flow proposes: the in-doubt batch's, else the
    record's."""
    if indoubt is not None:
        return indoubt.seq, indoubt.luwid
    return record.seq, record.luwid


def resolve(channel: str, record: SyncRecord, indoubt: InDoubt | None, partner_seq: int,
            partner_luwid: bytes) -> Resolution | EndChannel:
    """The partner answered the proposal with its record (``partner_seq``, ``partner_luwid``);
    ``record`` is the committed one (:func:`committed_record`)."""
    if indoubt is not None:
        if partner_seq == indoubt.seq and partner_luwid == indoubt.luwid:
            return Resolution(True, indoubt.seq, indoubt.luwid)
        if partner_seq == record.seq:
            return Resolution(False, record.seq, record.luwid)
        return _sequence_error(channel, indoubt.seq, partner_seq)
    if partner_seq != record.seq:
        return _sequence_error(channel, record.seq + 1, partner_seq + 1)
    return Resolution(None, record.seq, record.luwid)


def _sequence_error(channel: str, sent: int, expected: int) -> EndChannel:
    return EndChannel("AMQ9526E", f"Message sequence number error for channel {channel}: sent "
                      f"{sent}, expected {expected}.", False, StatusCode.MSG_SEQUENCE_ERROR)
