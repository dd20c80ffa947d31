"""INITIAL_DATA negotiation: IBM's "fewer resources" rules, value by value."""

from __future__ import annotations

import attrs
import pytest

from mqpy.fap.initialdata import CapFlags1, InitErrorFlags1, InitialData
from mqpy.fap.negotiation import MIN_TRANSMISSION_SIZE, negotiate, reproposal
from mqpy.fap.statuscodes import StatusCode

OURS = InitialData(
    fap_level=10,
    channel_name="QM1.TO.QM2",
    qmgr_name="QM1",
    cap_flags1=CapFlags1.SPLIT_MESSAGE | CapFlags1.MSG_SEQ,
    max_msg_batch=50,
    max_transmission_size=32766,
    max_msg_size=4194304,
    seq_wrap_value=999999999,
    heartbeat_interval=300,
    conv_per_socket=10,
)


def _theirs(**changes: object) -> InitialData:
    return attrs.evolve(OURS, qmgr_name="QM2", **changes)


@pytest.mark.parametrize(
    ("ours", "theirs", "agreed"),
    [(60, 300, 300), (300, 60, 300), (0, 300, 0), (300, 0, 0), (0, 0, 0), (20, 20, 20)],
)
def test_heartbeat_interval_the_larger_wins_and_zero_at_either_end_is_zero(
    ours: int, theirs: int, agreed: int
) -> None:
    """Given HBINT at each end, then the negotiated HBINT is the larger, 0 if either is 0.
    spec: aliases-channels-storage 4.10; dqm-intercommunication 9.22."""
    result = negotiate(attrs.evolve(OURS, heartbeat_interval=ours), _theirs(heartbeat_interval=theirs))
    assert result.ok and result.agreed.heartbeat_interval == agreed
    assert result.reply.heartbeat_interval == agreed


def test_a_partner_too_old_for_the_heartbeat_field_gets_no_heartbeats() -> None:
    """Given a FAP-3 partner (44-byte ID, no HBINT), then the negotiated HBINT is 0."""
    result = negotiate(OURS, _theirs(fap_level=3))
    assert result.agreed.fap_level == 3 and result.agreed.heartbeat_interval == 0


def test_batch_size_is_the_lower() -> None:
    """Given SDR BATCHSZ 50 and RCVR BATCHSZ 20, then 20. spec: dqm-intercommunication 9.21."""
    assert negotiate(OURS, _theirs(max_msg_batch=20)).agreed.max_msg_batch == 20
    assert negotiate(attrs.evolve(OURS, max_msg_batch=20), _theirs()).agreed.max_msg_batch == 20


def test_transmission_and_message_sizes_are_the_lower_and_zero_defers() -> None:
    """Given different sizes, then the lower; a MaxMsgSize of 0 at one end takes the other's."""
    agreed = negotiate(OURS, _theirs(max_transmission_size=4096, max_msg_size=1000)).agreed
    assert (agreed.max_transmission_size, agreed.max_msg_size) == (4096, 1000)
    assert negotiate(OURS, _theirs(max_msg_size=0)).agreed.max_msg_size == 4194304
    assert negotiate(attrs.evolve(OURS, max_msg_size=0), _theirs(max_msg_size=0)).agreed.max_msg_size == 0


def test_fap_level_is_the_lower_and_a_higher_partner_is_told_ours() -> None:
    """Given a partner at FAP 14, then FAP_LEVEL is flagged and our reply proposes 10; the
    partner's re-proposal at 10 is then accepted."""
    result = negotiate(OURS, _theirs(fap_level=14))
    assert not result.ok and result.status is None
    assert result.error_flags == InitErrorFlags1.FAP_LEVEL
    assert result.reply.fap_level == 10 and result.reply.init_error_flags1 == InitErrorFlags1.FAP_LEVEL
    second = reproposal(_theirs(fap_level=14), result.reply)
    assert second is not None and second.fap_level == 10
    assert negotiate(OURS, second).agreed.fap_level == 10
    assert negotiate(OURS, _theirs(fap_level=6)).agreed.fap_level == 6


def test_sequence_wrap_must_match_else_wrap_value_error() -> None:
    """Given SEQWRAP 999999999 against 999999, then SEQ_WRAP_VALUE and STATUS
    WRAP_VALUE_ERROR, and no re-proposal can fix it; an auto-defined channel adopts it."""
    result = negotiate(OURS, _theirs(seq_wrap_value=999999))
    assert result.status == StatusCode.WRAP_VALUE_ERROR
    assert result.error_flags & InitErrorFlags1.SEQ_WRAP_VALUE
    assert reproposal(_theirs(seq_wrap_value=999999), result.reply) is None
    adopted = negotiate(OURS, _theirs(seq_wrap_value=999999), adopt_seq_wrap=True)
    assert adopted.agreed.seq_wrap_value == 999999


@pytest.mark.parametrize(
    ("change", "flag"),
    [
        (dict(max_msg_batch=0), InitErrorFlags1.MAX_MSG_PER_BATCH),
        (dict(max_msg_batch=10000), InitErrorFlags1.MAX_MSG_PER_BATCH),
        (dict(max_transmission_size=100), InitErrorFlags1.MAX_TRANSMISSION_SIZE),
        (dict(heartbeat_interval=1000000), InitErrorFlags1.HEARTBEAT_INTERVAL),
        (dict(seq_wrap_value=99), InitErrorFlags1.SEQ_WRAP_VALUE),
    ],
)
def test_an_unacceptable_value_is_flagged_with_our_counter_proposal(change: dict, flag: InitErrorFlags1) -> None:
    """Given an out-of-range value, then its InitErrorFlags1 bit is set in the reply."""
    result = negotiate(OURS, _theirs(**change))
    assert not result.ok and result.error_flags == flag == result.reply.init_error_flags1
    assert result.reply.max_transmission_size >= MIN_TRANSMISSION_SIZE


def test_an_ebcdic_partner_that_cannot_convert_is_refused() -> None:
    """Given a CCSID 500 partner without CONVERSION_CAPABLE, then CCSID_NOT_SUPPORTED; with
    it, the partner converts and the channel starts. spec: dqm-intercommunication 3."""
    refused = negotiate(OURS, _theirs(ccsid=500))
    assert refused.status == StatusCode.CCSID_NOT_SUPPORTED and refused.error_flags & InitErrorFlags1.CCSID
    assert negotiate(OURS, _theirs(ccsid=500, cap_flags1=CapFlags1.CONVERSION_CAPABLE)).ok


def test_capabilities_are_what_both_ends_have_and_shared_conversations_the_lower() -> None:
    """Given one end without SPLIT_MESSAGE, then no split messages; SHARECNV 10 vs 1 -> 1."""
    agreed = negotiate(OURS, _theirs(cap_flags1=CapFlags1.MSG_SEQ, conv_per_socket=1)).agreed
    assert not agreed.split_messages and agreed.cap_flags1 == CapFlags1.MSG_SEQ
    assert agreed.conv_per_socket == 1


def test_the_reply_echoes_the_partners_capabilities_and_names_the_channel() -> None:
    """Given a proposal, then the reply echoes its CapFlags and carries its channel name."""
    result = negotiate(attrs.evolve(OURS, channel_name=""), _theirs(cap_flags1=CapFlags1.RUNTIME))
    assert result.reply.echoed_cap_flags1 == CapFlags1.RUNTIME
    assert result.reply.channel_name == "QM1.TO.QM2" and result.reply.qmgr_name == "QM1"
