"""mqpy generate: seeded synthetic records in the exporter's layout."""

from __future__ import annotations

import glob
import json
import os

from click.testing import CliRunner

from mqpy import amqmsgs
from mqpy.stats.generator import ERROR_IDS, generate
from mqpy_cli.statscmd import cli


def _tree(root: str) -> dict[str, bytes]:
    out = {}
    for p in sorted(glob.glob(os.path.join(root, "**", "*.jsonl"), recursive=True)):
        with open(p, "rb") as f:
            out[os.path.relpath(p, root)] = f.read()
    return out


def test_same_seed_same_files_other_seed_other_data(tmp_path):
    """Given the same arguments twice and once with another seed, then the first two trees are
    byte-identical and the third differs; partitions cover each day and queue manager."""
    args = ["generate", "--days", "2", "--qmgrs", "2", "--queues", "3"]
    runner = CliRunner()
    for sub, seed in (("a", "7"), ("b", "7"), ("c", "8")):
        r = runner.invoke(cli, [*args, "--seed", seed, "--out", str(tmp_path / sub)])
        assert r.exit_code == 0, r.output
    a, b, c = (_tree(str(tmp_path / s)) for s in "abc")
    assert a == b
    assert {os.path.dirname(k) for k in a} == {os.path.dirname(k) for k in c}
    assert sorted(a.values()) != sorted(c.values())
    dirs = {os.path.dirname(k) for k in a if k.startswith("QueueStatistics")}
    assert dirs == {f"QueueStatistics/date=2024-01-0{d}/qmgr=QM{m}" for d in (1, 2)
                    for m in (1, 2)}


def test_given_a_relative_out_folder_that_does_not_exist_then_generate_makes_it(
        tmp_path, monkeypatch):
    """Given `--out gen/` (relative, not there yet), when `mqpy generate` runs, then the
    folder is made and the records are in it."""
    monkeypatch.chdir(tmp_path)
    r = CliRunner().invoke(cli, ["generate", "--days", "1", "--qmgrs", "1", "--queues", "2",
                                 "--out", "gen/"])
    assert r.exit_code == 0, r.output
    assert _tree(str(tmp_path / "gen"))


def test_given_a_week_of_data_then_no_depth_exceeds_maxdepth_and_full_queues_fail_puts(
        tmp_path):
    """Given a week of generated data, then no queue's QMaxDepth exceeds its MAXDEPTH, and
    a queue that reaches MAXDEPTH refuses the puts beyond it (MQRC_Q_FULL 2053), counted as
    PutsFailed in an interval whose QMaxDepth is MAXDEPTH, as a real queue manager does."""
    generate(str(tmp_path), days=7, qmgrs=2, queues=5, seed=1)
    qs = [json.loads(line) for k, v in _tree(str(tmp_path)).items()
          if k.startswith("QueueStatistics") for line in v.splitlines()]
    over = [(q["queue"], q["max_depth"], q["max_depth_limit"]) for q in qs
            if q["max_depth"] > q["max_depth_limit"]]
    assert not over
    failed = [q for q in qs if q["puts_failed"] > 0]
    assert failed and all(q["max_depth"] == q["max_depth_limit"] for q in failed)


def test_generated_error_log_entries_use_ibms_ids_and_message_lines():
    """Given the generator's error-log entries, then each id is the catalogue's (with its
    severity letter) and each text begins as IBM's message line does (AMQ9002I is "Channel
    '...' is starting.", never "Channel program started.")."""
    for msgid, text, _ in ERROR_IDS:
        known = amqmsgs.lookup(msgid)
        assert known.msgid == msgid
        line = known.text.split("{")[0]
        assert text.startswith(line), (msgid, text, known.text)
    assert ("AMQ9002I", "Channel 'TO.QM2' is starting.") in [(m, t) for m, t, _ in ERROR_IDS]
