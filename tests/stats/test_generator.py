"""mqpy generate: seeded synthetic records in the exporter's layout."""

from __future__ import annotations

import glob
import os

from click.testing import CliRunner

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
