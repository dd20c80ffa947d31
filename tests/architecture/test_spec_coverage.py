"""Every numbered behaviour of the spec digests is named by a test (``spec: <id>``) or listed in
docs/spec-coverage.md as not applying or not built, with its reason; the figure the doc gives
is the one the files give."""

from __future__ import annotations

import os
import re

import pytest

from tests.architecture.spec_coverage import NOT_APPLYING, NOT_BUILT, SPEC_DIR, coverage

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
