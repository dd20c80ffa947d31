"""Every numbered behaviour of the spec digests is named by a test (``spec: <id>``) or listed in
docs/spec-coverage.md as not applying or not built, with its reason; the figure the doc gives
is the one the files give."""

from __future__ import annotations

import os
import re

import pytest

from tests.architecture.spec_coverage import (
    NOT_APPLYING,
    NOT_BUILT,
    SPEC_DIR,
    coverage,
    named_in,
)

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

pytestmark = pytest.mark.skipif(not os.path.isdir(SPEC_DIR),
                                reason=f"the spec digests are not at {SPEC_DIR}")


def test_given_the_digests_when_counted_then_every_behaviour_is_named_by_a_test_or_listed():
    """A behaviour neither named by a test nor listed with a reason fails, by id and text."""
    found = coverage(ROOT)
    missing = [f"{i}: {found.behaviours[i].text[:100]}" for i in found.unaccounted()]
    assert not missing, "\n".join(["neither tested nor listed in docs/spec-coverage.md:",
                                   *missing])


def test_given_the_coverage_doc_when_read_then_it_lists_only_behaviours_that_exist():
    """A listed id that is no numbered behaviour (a typo, a renumbered digest) fails."""
    found = coverage(ROOT)
    listed = set(found.listed[NOT_APPLYING]) | set(found.listed[NOT_BUILT])
    assert sorted(listed - set(found.behaviours)) == []


def test_given_the_coverage_doc_when_read_then_its_figure_is_the_counted_one():
    """The doc's figure line is the one the files give, so it is never typed out of date."""
    found = coverage(ROOT)
    with open(os.path.join(ROOT, "docs", "spec-coverage.md"), encoding="utf-8") as f:
        doc = f.read()
    figure = re.search(r"^\d+ numbered behaviours: .*$", doc, re.MULTILINE)
    assert figure is not None and figure.group(0) == found.figure()


def test_given_the_ways_tests_name_behaviours_when_read_then_each_id_is_found():
    """Ids after ``spec:`` in docstrings and comments, listed with ``;`` or ``,``, an id
    without its document, and ``rule``/``use``/``item`` lists are all read; a section number
    that is no behaviour (``2.13``) and text outside a ``spec:`` passage are not."""
    known = {"dqm-intercommunication 9.39", "dqm-intercommunication 9.50",
             "dqm-intercommunication 9.26", "dqm-intercommunication 1 item 7",
             "aliases-channels-storage 1 item 2", "aliases-channels-storage 1 item 5",
             "aliases-channels-storage 4.13", "operations-dlq-clusters 3 item 5",
             "operations-dlq-clusters 7.1"}
    source = '''
def test_a():
    """Given ... spec: dqm-intercommunication 9.39, 9.50, 9.26"""
    # dqm-intercommunication 1 rule 7 is not named here: no spec: before it

def test_b():
    """spec: aliases-channels-storage 1 uses 2 and 5; aliases-channels-storage 2.13 (monitoring);
    operations-dlq-clusters 3 item 5"""

# spec: operations-dlq-clusters 7.1
# aliases-channels-storage 4.13 (a comment block continues)
x = 1  # dqm-intercommunication 1 item 7 does not count here either
'''
    assert named_in(source, known) == known - {"dqm-intercommunication 1 item 7"}
