"""A bindings call's check that nothing traces it (``Tracer.untraced_until``: one clock read
while no strmqtrc is in effect) answers as ``Tracer.spec_for`` does at every moment, so a
strmqtrc or endmqtrc reaches a running application within CHECK_INTERVAL as before."""

from __future__ import annotations

import random
from collections.abc import Iterator

import pytest

from mqpy import trace
from mqpy.trace import CHECK_INTERVAL, TraceSpec

QMGR = "QM1"


class _Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def clock(monkeypatch, tmp_path) -> Iterator[_Clock]:
    """The process's monotonic clock made ``fake`` for the test; afterwards the process's
    own tracer (``trace.TRACER``, whose watcher may have looked by the fake clock meanwhile)
    looks again by the real one, so no later test of this process finds this test's trace
    specifications in it (the fake clock runs ahead of a freshly booted machine's)."""
    monkeypatch.setenv("MQPY_DATA_PATH", str(tmp_path))
    fake = _Clock()
    real = trace.time.monotonic
    trace.time.monotonic = fake
    try:
        yield fake
    finally:
        monkeypatch.undo()  # (the data path too, before the tracer looks again)
        trace.time.monotonic = real
        trace.TRACER.look_again()


def _untraced_fast(tracer: trace.Tracer, now: float) -> bool:
    """The bindings calls' check (``bindings_calls.PackedCalls._packable``, less the fast
    paths' switch)."""
    return now < tracer.untraced_until or tracer.spec_for(QMGR) is None


@pytest.mark.parametrize("seed", range(20))
def test_given_strmqtrc_and_endmqtrc_at_random_moments_then_the_quick_check_answers_as_spec_for(
        clock, seed):
    """Given two tracers on the same clock, one asked by the quick check and one by
    spec_for alone, when trace specifications (this queue manager's, another's) come and go
    at random moments, then both say at every call whether it is traced alike."""
    rng = random.Random(seed)
    quick, general = trace.Tracer(), trace.Tracer()
    specs = ([], [TraceSpec(qmgr=QMGR)], [TraceSpec(qmgr="OTHER")])
    for _ in range(200):
        clock.now += rng.choice((0.0, 0.01, 0.3, CHECK_INTERVAL / 2, CHECK_INTERVAL, 2.5))
        if rng.random() < 0.2:
            trace.write_specs(rng.choice(specs))
        assert _untraced_fast(quick, clock.now) == (general.spec_for(QMGR) is None)


def test_given_an_untraced_process_when_strmqtrc_runs_then_its_calls_are_traced_within_the_interval(
        clock):
    """Given calls untraced (the quick check true), when strmqtrc traces this queue manager,
    then the calls are still quick until CHECK_INTERVAL after the last look, and traced
    from then on; endmqtrc likewise stops it within the interval."""
    tracer = trace.Tracer()
    assert _untraced_fast(tracer, clock.now)
    looked = clock.now
    trace.start(TraceSpec(qmgr=QMGR))
    clock.now = looked + CHECK_INTERVAL * 0.99
    assert clock.now < tracer.untraced_until
    clock.now = looked + CHECK_INTERVAL
    assert not _untraced_fast(tracer, clock.now)
    assert tracer.untraced_until < clock.now  # traced: every call asks spec_for
    trace.end(everything=True)
    clock.now += CHECK_INTERVAL
    assert _untraced_fast(tracer, clock.now)
    assert tracer.untraced_until == clock.now + CHECK_INTERVAL


def test_given_a_look_forced_by_look_again_then_the_quick_check_looks_again(clock):
    """Given calls untraced and a strmqtrc, when ``look_again`` is called (as
    tests/daemon/test_trace.py does), then the next call looks and is traced."""
    tracer = trace.Tracer()
    assert _untraced_fast(tracer, clock.now)
    trace.start(TraceSpec(qmgr=QMGR))
    tracer.look_again()
    assert not _untraced_fast(tracer, clock.now)
