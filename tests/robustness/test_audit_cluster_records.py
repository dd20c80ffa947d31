"""A repository record comes from another queue manager of the cluster (a command on
SYSTEM.CLUSTER.COMMAND.QUEUE). A record whose fields are not of their types (a list for a queue
manager's name, a string or NaN for a time, a name with a line break or longer than any MQ
name) is not a repository record: ``decode`` refuses it (the repository manager dead-letters
it), so that it never reaches the repository, whose lifetimes, displays and workload choices
compare every record it holds with the others."""

from __future__ import annotations

import json
import random

import pytest

from mqpy_chinit.cluster import records as rec
from mqpy_chinit.cluster.records import ClusterCommand, RecordFormatError, decode, encode
from mqpy_chinit.cluster.repository import Repository

_QMGR = rec.ClusterQmgrRecord(cluster="CL", qmgr="QM2", qmid="QM2_1", channel="TO.QM2",
                              conname="host2(1414)", published=1.0, sequence=1,
                              expiry=99.0, channel_attrs={"HBINT": 300})
_QUEUE = rec.ClusterQueueRecord(cluster="CL", queue="Q", qmgr="QM2", qmid="QM2_1",
                                published=1.0, sequence=1, expiry=99.0)
_VALUES = [None, True, -1, 2**70, 1e308, "", "x" * 1000, [], {}, [1], {"a": 1}, "\n", "*",
           0, "QM1_1", "CL", "Q\nAMQ9999E", "\u03a9"]


def _command(body: dict) -> bytes:
    return json.dumps({"format": rec.CLUSTER_RECORD_FORMAT, "version": rec.BODY_VERSION,
                       "type": "COMMAND", "sender": "QM2", "sender_qmid": "QM2_1",
                       "forwarded": False, "body": body}).encode()


def _body(record) -> dict:
    return json.loads(encode(ClusterCommand(sender="QM2", sender_qmid="QM2_1",
                                            body=record)))["body"]


def _repository() -> Repository:
    repo = Repository("QM1", "QM1_1", lambda: 50.0, repos="CL")
    repo.receive(decode(_command(_body(_QMGR))))
    return repo


def _still_serves(repo: Repository) -> None:
    repo.tick()
    repo.display_clusqmgr("*", {})
    repo.display_qcluster("*")
    repo.resolve_queue("Q")


@pytest.mark.parametrize(("field", "value"), [
    ("expiry", None), ("expiry", []), ("published", "soon"), ("published", float("nan")),
    ("sequence", [1]), ("qmgr", {"a": 1}), ("qmgr", "QM\nAMQ9999E: forged"),
    ("qmid", None), ("channel", "\u03a9" * 3), ("cluster", "C" * 49), ("suspended", "yes"),
    ("clwlrank", "high"), ("conname", 5),
])
def test_a_member_record_with_a_field_not_of_its_type_is_no_repository_record(field, value):
    """Given a full repository, when a member's record arrives with ``field`` not of its
    type, then it is refused as no repository record and the repository goes on."""
    body = _body(_QMGR)
    body[field] = value
    with pytest.raises(RecordFormatError):
        decode(_command(body))
    _still_serves(_repository())


def test_no_record_of_mutated_fields_stops_the_repository():
    """Given records with one or two fields changed to any of many values, when each arrives
    at a full repository, then either it is refused, or it is taken and the repository's
    lifetimes, displays and resolution still run (seeded: the same draws every run)."""
    draw = random.Random(20261129)
    for _ in range(3000):
        body = _body(draw.choice([_QMGR, _QUEUE]))
        for _ in range(draw.randint(1, 2)):
            key = draw.choice([k for k in body if k != "type"])
            body[key] = draw.choice(_VALUES)
        try:
            command = decode(_command(body))
        except RecordFormatError:
            continue
        repo = _repository()
        try:
            repo.receive(command)
        except RecordFormatError:
            continue
        _still_serves(repo)
