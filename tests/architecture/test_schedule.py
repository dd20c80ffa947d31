"""The suite's schedule names files that exist (tests/support/schedule.py)."""

from __future__ import annotations

import os

from tests.support.schedule import LONGEST

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def test_every_file_scheduled_first_exists():
    missing = [p for p in LONGEST if not os.path.isfile(os.path.join(ROOT, p))]
    assert missing == []


def test_no_file_is_scheduled_twice():
    assert len(set(LONGEST)) == len(LONGEST)
