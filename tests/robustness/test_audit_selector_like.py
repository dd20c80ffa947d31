"""A selection string is an application's text (MQOPEN's and MQSUB's SelectionString), and a
message property another application's: matching a LIKE pattern against a property (at each
message an MQGET looks at, and at each publication, under the engine's lock) must take a time
bounded by their lengths. A regular expression of ``.*`` pieces backtracks: ``p LIKE
'%a%a%a%a%b'`` against a property of 200 ``a`` took 2.2 s of CPU, one more ``%a`` about a
minute; a selection string may be 10240 characters."""

from __future__ import annotations

import time

import pytest

import mqpy
from mqpy.selection.evaluate import compile_selector

BUDGET_S = 2.0


@pytest.mark.timeout(10)
def test_a_hostile_like_pattern_is_matched_in_bounded_time():
    """Given a selector of many ``%`` pieces, when a long property that almost matches is
    tested, then the answer (no) comes within a small CPU budget."""
    selector = compile_selector("p LIKE '" + "%a" * 12 + "%b'")
    started = time.process_time()
    assert selector.matches({"p": "a" * 10240}, mqpy.MD()) is False
    assert time.process_time() - started < BUDGET_S
