"""amqsrua reads the resource statistics a queue manager publishes as IBM's sample does:
the classes, types and elements from the metadata topics, the selection from its options or
its prompts, and each publication printed in IBM's layout (the queue's name before each
per-queue line, a count with its rate, per cents); -n publications, then exit 0; 20 for an
error. (The queue manager of these tests publishes every second: MQPY_MONINT.)"""

from __future__ import annotations

import re

from mqpy import CMQCFC, pcf
from mqpy.monitor import elements, publications
from mqpy_cli.samples import amqsrua

from .conftest import QM, read_until, sample, started

#: IBM's heading (PutDate and PutTime are the publication's MQMD's, ``%8.8s``)
_HEAD = re.compile(r"^Publication received PutDate:.{8} PutTime:.{8} "
                   r"Interval:\d+\.\d{3} seconds$")


def test_given_class_and_type_when_amqsrua_runs_then_it_prints_the_cpu_summary(site):
    rua = sample(site.env(), "amqsrua", "-m", QM, "-c", "CPU", "-t", "SystemSummary",
                 "-n", "1", timeout=90)
    assert rua.returncode == 0, rua.stdout + rua.stderr
    lines = rua.stdout.splitlines()
    assert _HEAD.match(lines[0]), lines
    assert re.fullmatch(r"User CPU time percentage \d+\.\d\d%", lines[1])
    assert re.fullmatch(r"CPU load - one minute average \d+\.\d\d", lines[3])
    assert re.fullmatch(r"RAM total bytes \d+MB", lines[7])
    assert lines[8:] == [""]


def test_given_puts_to_a_queue_when_amqsrua_follows_its_statq_then_it_counts_them(site):
    """STATQ PUT of SAMP.RUA through the client variant: each line starts with the queue's
    name padded to 48; the interval of the puts shows their count and rate."""
    rua = started(site.env(client=True), "amqsruac", "-c", "STATQ", "-t", "PUT",
                  "-o", "SAMP.RUA", "-n", "30")
    try:
        read_until(rua, "Publication received", timeout=90)
        sample(site.env(), "amqsput", "SAMP.RUA", QM, stdin="a\nb\nc\n")
        prefix = "SAMP.RUA".ljust(48) + " "
        while True:
            line = read_until(rua, prefix + "MQPUT/MQPUT1 count")[-1]
            if line != prefix + "MQPUT/MQPUT1 count 0 ":
                break
        assert re.fullmatch(re.escape(prefix) + r"MQPUT/MQPUT1 count 3 \d+/sec", line)
    finally:
        rua.kill()
        rua.wait()


def test_given_no_class_when_amqsrua_runs_then_it_prompts_for_class_type_and_queue(site):
    rua = sample(site.env(), "amqsrua", "-m", QM, "-n", "1",
                 stdin="STATQ\nGET\nSAMP.RUA\n", timeout=90)
    assert rua.returncode == 0, rua.stdout + rua.stderr
    lines = rua.stdout.splitlines()
    assert lines[:6] == [
        "CPU : Platform central processing units", "DISK : Platform persistent data stores",
        "STATMQI : API usage statistics", "STATQ : API per-queue usage statistics",
        "Enter Class selection", "==> PUT : MQPUT and MQPUT1"]
    assert lines[6:10] == [
        "GET : MQGET", "Enter Type selection",
        "==> An object name is required for Class(STATQ) Type(GET)", "Enter object name"]
    assert _HEAD.match(lines[10].removeprefix("==> ")), lines[10]
    assert lines[11] == "SAMP.RUA".ljust(48) + " MQGET count 0 "
    assert re.fullmatch(re.escape("SAMP.RUA".ljust(48)) + r" Queue depth \d+", lines[-2])


def test_given_an_unknown_class_or_option_when_amqsrua_runs_then_20(site):
    bad = sample(site.env(), "amqsrua", "-m", QM, "-c", "NOPE", "-t", "X")
    assert (bad.returncode, bad.stdout) == (20, "Class NOPE not recognised\n")
    typed = sample(site.env(), "amqsrua", "-m", QM, stdin="WHAT\n")
    assert typed.returncode == 20
    assert typed.stdout.splitlines()[-1] == "==> Invalid Class (WHAT) supplied"
    usage = sample(site.env(), "amqsrua", "-x")
    assert usage.returncode == 20
    assert usage.stdout.splitlines() == ["amqsrua [-m QMGR-NAME] [-c CLASS-NAME]",
                                         "\t [-o object name] [-t TYPE-NAME]",
                                         "\t [-n publication count]"]


def test_given_a_data_publication_when_amqsrua_shows_it_then_it_has_its_put_date_and_time(
        site):
    rua = sample(site.env(), "amqsrua", "-m", QM, "-c", "DISK", "-t", "Log", "-n", "1",
                 timeout=90)
    assert re.match(r"Publication received PutDate:20\d{6} PutTime:\d{8} ",
                    rua.stdout.splitlines()[0]), rua.stdout


def test_the_interval_and_a_delta_are_shown_as_ibms_sample_shows_them():
    assert amqsrua.interval_text(10_000_000) == "10.000 seconds"
    assert amqsrua.interval_text(279_974_000) == "4 minutes,39.974 seconds"
    assert amqsrua.interval_text(90_061_000_000) == "1 days,1 hours,1 minutes,1.000 seconds"
    delta = amqsrua.Element(0, 2, "MQPUT/MQPUT1 count")
    assert amqsrua.element_line(delta, 30, 10_000_000) == "MQPUT/MQPUT1 count 30 3/sec"
    assert amqsrua.element_line(delta, 30, 5000) == "MQPUT/MQPUT1 count 30 "


def test_the_types_metadata_names_its_class_and_flags_as_ibms_does():
    msg = pcf.parse(publications.types_message(QM, elements.STATQ))
    assert msg.get(CMQCFC.MQIAMO_MONITOR_CLASS) == elements.STATQ.index
    assert msg.get(CMQCFC.MQIAMO_MONITOR_FLAGS) == CMQCFC.MQIAMO_MONITOR_FLAGS_OBJNAME
