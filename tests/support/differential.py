"""Two queue managers side by side for differential runs: the same requests served by a
path from bytes on one and the general way on the other, the queue managers kept from one
example to the next (each example leaves their queues as it found them) until the two
differ, so that hundreds of examples cost seconds."""

from __future__ import annotations

import contextlib
import os
import time
from collections.abc import Callable
from typing import Any

import pytest

from mqpy import config, trace
from mqpy.engine import mqget, mqput
from tests.support.queue_contents import ServedExamples

__all__ = ["EnginePair", "fixed_clock", "pair_fixture", "untraced"]

_WHEN = 1_790_000_000.25  # the instant of every put and get of a differential run


class _Clock:
    """``time`` for the engine's MQPUT and MQGET: one instant (PutDate, PutTime and the
    expiry left alike in every run); waits on the real monotonic clock."""

    monotonic = staticmethod(time.monotonic)

    @staticmethod
    def time() -> float:
        return _WHEN


def fixed_clock(monkeypatch: pytest.MonkeyPatch) -> None:
    """The engine's MQPUT and MQGET see one instant (_Clock)."""
    monkeypatch.setattr(mqput, "time", _Clock)
    monkeypatch.setattr(mqget, "time", _Clock)


def untraced(monkeypatch: pytest.MonkeyPatch, root: Any, *modules: Any) -> None:
    """No strmqtrc in effect for this process (its data root ``root``, with none) and a
    tracer of their own for ``modules`` (their ``TRACER``): a path from bytes that steps
    aside for a traced call is not kept from serving by a strmqtrc elsewhere or by what an
    earlier test left in ``mqpy.trace.TRACER`` (``process_qmgr``, the specifications it
    read, when it looks again)."""
    monkeypatch.setenv(config.ENV_DATA_PATH, str(root))
    tracer = trace.Tracer()
    for module in modules:
        monkeypatch.setattr(module, "TRACER", tracer)


class EnginePair:
    """Queue managers ``make(folder)`` ((engine, connection, handles) each) for the path from
    bytes and for the general one. ``run((engine, connection, handles), build)``: what an
    example gives; ``patch(monkeypatch, general)``: the run's patches (``general``: the path
    from bytes off). ``served``: what :meth:`count_served` counts."""

    def __init__(self, root: Any, make: Callable[[str], tuple], run: Callable[..., list],
                 patch: Callable[[pytest.MonkeyPatch, bool], None]) -> None:
        self.root, self.make, self.run, self.patch = str(root), make, run, patch
        self.made = 0
        self.engines: tuple | None = None
        self.served: list[ServedExamples] = []

    def count_served(self, monkeypatch: pytest.MonkeyPatch, *paths: tuple) -> ServedExamples:
        """From now on, the examples whose run from bytes one of ``paths`` served a call in
        (:class:`ServedExamples`)."""
        self.served.append(ServedExamples(monkeypatch, *paths))
        return self.served[-1]

    def handles(self) -> dict[str, int]:
        """The handles of both connections (the same numbers), the queue managers made if
        they are not."""
        if self.engines is None:
            self.made += 1
            self.engines = tuple(self.make(os.path.join(self.root, f"{way}{self.made}"))
                                 for way in ("fast", "general"))
        return self.engines[0][2]

    def both_ways(self, build: Callable[[dict[str, int]], Any]) -> tuple[list, list]:
        """What ``build``'s example gives from bytes, then the general way; the queue
        managers made again for the next example when they differ (or a run failed)."""
        self.handles()
        assert self.engines is not None
        try:
            with pytest.MonkeyPatch.context() as patch:
                self.patch(patch, False)
                with contextlib.ExitStack() as counted:
                    for served in self.served:
                        counted.enter_context(served.fast_way())
                    fast = self.run(self.engines[0], build)
                self.patch(patch, True)
                general = self.run(self.engines[1], build)
        except BaseException:
            self.close()
            raise
        if fast != general:
            self.close()
        return fast, general

    def close(self) -> None:
        for eng, _, _ in self.engines or ():
            eng.close()
        self.engines = None

    def once(self, build: Callable[[dict[str, int]], Any]) -> tuple[list, list]:
        """:meth:`both_ways` on queue managers of their own, closed after."""
        try:
            return self.both_ways(build)
        finally:
            self.close()


def pair_fixture(make: Callable[[str], tuple], run: Callable[..., list],
                 patch: Callable[[pytest.MonkeyPatch, bool], None]) -> Any:
    """A ``pair`` fixture: an :class:`EnginePair` of these in the test's folder, closed at
    its end."""
    @pytest.fixture
    def pair(tmp_path: Any) -> Any:
        made = EnginePair(tmp_path, make, run, patch)
        try:
            yield made
        finally:
            made.close()

    return pair
