"""``make compat``'s reading of a run: which set-up commands were refused, each test's outcome
per file from pytest's JUnit report, and a result line that counts as failures only those
outside the files allowed to fail."""

from __future__ import annotations

from collections import Counter

from tests.peer import pymqi_suite

RUNMQSC = """\
     1 : DEFINE QLOCAL('DEV.QUEUE.1') REPLACE
AMQ8006I: IBM MQ queue created.
     2 : DEFINE TOPIC('DEV.BASE.TOPIC') TOPICSTR('dev/') REPLACE
AMQ8101S: IBM MQ error (8FA) has occurred.
"""

REPORT = """<?xml version="1.0" encoding="utf-8"?><testsuites><testsuite>
<testcase classname="test_pcf.TestPCF" name="a" file="test_pcf.py"/>
<testcase classname="test_pcf.TestPCF" name="b"><failure message="x"/></testcase>
<testcase classname="test_tls.TestTLS" name="c"><error message="y"/></testcase>
<testcase classname="test_mq80.TestMQ80" name="d"><skipped message="z"/></testcase>
</testsuite></testsuites>"""


def test_refused_set_up_commands_are_named():
    """Given runmqsc's output, then the commands answered by an E or S message are listed."""
    assert pymqi_suite.refused_commands(RUNMQSC) == ["DEFINE TOPIC('DEV.BASE.TOPIC') "
                                                     "TOPICSTR('dev/') REPLACE"]


def test_outcomes_and_the_result_line(tmp_path):
    """Given a JUnit report, then outcomes are counted per file, and the result line counts
    the failure outside the allowed files only (the error in test_tls.py aside)."""
    report = tmp_path / "report.xml"
    report.write_text(REPORT)
    per_file = pymqi_suite.outcomes(str(report))
    assert per_file == {"test_pcf.py": Counter(passed=1, failed=1),
                        "test_tls.py": Counter(error=1), "test_mq80.py": Counter(skipped=1)}
    assert pymqi_suite.summary(per_file) == ("pymqi: 1 passed, 1 failed, 1 skipped", 1, 1)
