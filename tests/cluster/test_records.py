"""Repository records and their byte form (records.py)."""

from __future__ import annotations

import json

import pytest

from mqpy import CMQC
from mqpy_chinit.cluster import (
    ClusterCommand,
    ClusterQmgrRecord,
    ClusterQueueRecord,
    DeletionRecord,
    RecordFormatError,
    RepositoryType,
    Subscription,
    SubscriptionKind,
    decode,
    encode,
)

QMGR = ClusterQmgrRecord("INVENTORY", "QM1", "QM1_X", "TO.QM1", "host1(1414)",
                         RepositoryType.FULL, suspended=True, clwlprty=3, clwlrank=2,
                         clwlwght=80, netprty=1, published=5.0, sequence=7, expiry=99.0)
QUEUE = ClusterQueueRecord("INVENTORY", "Q1", "QM1", "QM1_X",
                           defbind=CMQC.MQBND_BIND_NOT_FIXED, defpsist=True, defprty=4,
                           put_enabled=False, clwlprty=1, clwlrank=2, clwluseq="ANY",
                           published=1.0, sequence=2, expiry=3.0)
DELETE = DeletionRecord("QMGR", "INVENTORY", "QM9", "QM9_X", forced=True, published=1.0,
                        sequence=2, expiry=3.0)
SUB = Subscription("INVENTORY", SubscriptionKind.QUEUE, "Q1", "QM2", "QM2_X", "TO.QM2",
                   published=1.0, expiry=2.0)


@pytest.mark.parametrize("body", [QMGR, QUEUE, DELETE, SUB])
def test_every_body_round_trips_alone_and_in_a_command(body):
    """Given any record or subscription, when encoded and decoded (as kept on
    SYSTEM.CLUSTER.REPOSITORY.QUEUE, or carried in a command on SYSTEM.CLUSTER.COMMAND.QUEUE),
    then it comes back equal."""
    assert decode(encode(body)) == body
    command = ClusterCommand("QM1", "QM1_X", body, forwarded=True)
    assert decode(encode(command)) == command


def test_bytes_are_deterministic():
    """Given equal records, when encoded, then the bytes are equal (duplicates compare)."""
    assert encode(QMGR) == encode(ClusterQmgrRecord(**{
        f: getattr(QMGR, f) for f in ("cluster", "qmgr", "qmid", "channel", "conname",
                                      "repository", "suspended", "clwlprty", "clwlrank",
                                      "clwlwght", "netprty", "published", "sequence",
                                      "expiry")}))


def test_a_newer_body_version_is_refused_with_not_a_repository_msg():
    """Given a body written by a newer version, when decoded, then RecordFormatError with
    feedback MQFB_NOT_A_REPOSITORY_MSG (for the DLQ), never a half-read record."""
    payload = json.loads(encode(QUEUE))
    payload["version"] = 2
    with pytest.raises(RecordFormatError) as info:
        decode(json.dumps(payload).encode())
    assert info.value.feedback == CMQC.MQFB_NOT_A_REPOSITORY_MSG == 280


def test_unknown_fields_are_ignored_and_missing_optional_fields_default():
    """Given a same-version body with an extra field and without an optional one, when
    decoded, then the extra is ignored and the default applies."""
    payload = json.loads(encode(QUEUE))
    payload["future_attribute"] = 1
    del payload["clwlrank"]
    record = decode(json.dumps(payload).encode())
    assert record.clwlrank == 0 and record.queue == "Q1"


@pytest.mark.parametrize("data", [b"\xff\xfe", b"[1]", b'{"format": "OTHER", "version": 1}',
                                  b'{"format": "MQPYCLUS", "version": 1, "type": "NOPE"}',
                                  b'{"format": "MQPYCLUS", "version": 1, "type": "QUEUE"}'])
def test_anything_else_is_not_a_repository_message(data):
    """Given bytes that are not a complete repository body, when decoded, then
    RecordFormatError."""
    with pytest.raises(RecordFormatError):
        decode(data)


def test_deletion_marker_has_the_key_of_what_it_deletes():
    """Given a queue deletion marker, then its key is the queue record's key, so it replaces
    it in a repository."""
    marker = DeletionRecord("QUEUE", "INVENTORY", "Q1", "QM1_X")
    assert marker.key == QUEUE.key
    assert DELETE.key == ("QMGR", "INVENTORY", "QM9_X")
