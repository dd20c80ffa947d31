"""PCFExecute objects left for the cycle collector: the queue manager and channel initiator
of tests/client (in this process, the collector can run on the channel's event loop), and
a way to leave an object that only the collector can free."""

from __future__ import annotations

import gc
import threading
import time
from collections.abc import Callable

from tests.client.conftest import Env, env  # noqa: F401 - env is a fixture

__all__ = ["PROMPTLY", "Env", "in_a_cycle", "returns_promptly"]

#: seconds: a collection that makes no call returns well within this
PROMPTLY = 5.0


def in_a_cycle(obj: object) -> None:
    """Drop ``obj`` into a reference cycle: only the cycle collector frees it (as a test's
    ``pytest.raises`` traceback keeps its frame's locals)."""
    gc.collect()
    holder: dict[str, object] = {"obj": obj}
    holder["self"] = holder


def returns_promptly(fn: Callable[[], object]) -> bool:
    """Whether ``fn``, run on a thread of its own, returned within PROMPTLY seconds."""
    thread = threading.Thread(target=fn, daemon=True)
    t0 = time.monotonic()
    thread.start()
    thread.join(PROMPTLY)
    return not thread.is_alive() and time.monotonic() - t0 < PROMPTLY
