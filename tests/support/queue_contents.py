"""What differential tests compare of two paths: the replies a bindings busy thread sent and
what an engine connection's queues hold (each message got back with its MQMD), the ids the
queue manager made given by their order."""

from __future__ import annotations

import contextlib
import re
from collections.abc import Callable, Iterator
from typing import Any

import mqpy
from mqpy import CMQC
from mqpy.engine import fastpath


def got_back(conn: Any, names: tuple[str, ...], ids: dict[bytes, int]) -> list:
    """Every message of the queues ``names`` got (destructively) from ``conn``: (data, MQMD
    fields) each, a MsgId, CorrelId or GroupId the queue manager made ("AMQ ...") replaced
    by its order in ``ids``; each queue's list ending with the reason its last get failed."""
    seen: list = []
    for name in names:
        hin = conn.open(mqpy.OD(ObjectName=name), CMQC.MQOO_INPUT_SHARED)
        while True:
            md = mqpy.MD()
            try:
                data = conn.get(hin, md, mqpy.GMO(), None)
            except mqpy.MQMIError as e:
                seen.append(e.reason)
                break
            fields = dict(md.__dict__)
            for field in ("MsgId", "CorrelId", "GroupId"):
                if fields[field].startswith(b"AMQ "):
                    fields[field] = ids.setdefault(fields[field], len(ids))
            seen.append((data, fields))
    return seen


_NEW_ID = re.compile(rb"AMQ .{20}", re.DOTALL)


def served_one_read_each(spell: Callable[[Any], object], session: Any,
                         requests: list[bytes], ids: dict[bytes, int]) -> list:
    """``requests`` given to ``session``'s socket one read each and served in ``spell``s
    (``bindings_thread._serve_spell``) until none is left or one is left for the loop: the
    replies sent (a MsgId the queue manager made replaced by its order in ``ids``), the last
    spell's outcome and what was left for the loop."""
    session.sock.chunks = requests[::-1]
    outcome = None
    while session.sock.chunks and not session.received:
        outcome = spell(session)

    def known(found: re.Match) -> bytes:
        return b"<%d>" % ids.setdefault(found.group(), len(ids))

    return [[_NEW_ID.sub(known, reply) for reply in session.sock.sent], repr(outcome),
            list(session.received)]


def counting_calls(monkeypatch: Any, module: Any, name: str, declined: object = None,
                   reads: list[bool] | None = None) -> list[bool]:
    """``module.name`` replaced by one that records, for each call, whether it answered
    something other than ``declined`` (None unless said: a fast path that served the
    call); ``reads``: another's record (of the function that reads a request), a call
    recorded as served only when that one was not called in it (served from what was
    kept of the last request, not read again)."""
    original = getattr(module, name)
    served: list[bool] = []

    def counting(*args: Any) -> Any:
        before = 0 if reads is None else len(reads)
        found = original(*args)
        served.append(found is not declined and (reads is None or len(reads) == before))
        return found

    monkeypatch.setattr(module, name, counting)
    return served


class ServedExamples:
    """Of a differential run's examples, how many a fast path served: those in whose fast
    way (:meth:`fast_way`) one of the functions ``paths`` counts (``(module, name)``, then
    :func:`counting_calls`' ``declined`` and ``reads`` if said) served a call."""

    def __init__(self, monkeypatch: Any, *paths: tuple) -> None:
        self.names = [path[1] for path in paths]
        self.calls = [counting_calls(monkeypatch, *path) for path in paths]
        self.examples = 0  # whose fast way ran
        self.served = 0

    @contextlib.contextmanager
    def fast_way(self) -> Iterator[None]:
        """An example's fast way run in the block: counted, and counted served when a call
        of ``paths`` it made served."""
        starts = [len(calls) for calls in self.calls]
        yield
        self.examples += 1
        self.served += any(any(calls[start:]) for calls, start in zip(self.calls, starts,
                                                                      strict=True))

    def __repr__(self) -> str:
        return f"<{' or '.join(self.names)} served {self.served} of {self.examples} examples>"


def alike_three_ways(run: Callable[[str], list], root: Any, monkeypatch: Any, module: Any,
                     name: str, least: int) -> list:
    """``run(folder)``'s outcome with the bytes path ``module.name`` (which served at least
    ``least`` calls), then without it, then with the engine's fast paths off too: asserted
    alike; the first returned."""
    served = counting_calls(monkeypatch, module, name)
    fast = run(str(root / "fast"))
    assert sum(served) >= least
    monkeypatch.setattr(module, name, lambda *args: None)
    assert run(str(root / "general")) == fast
    monkeypatch.setattr(fastpath, "ENABLED", False)
    assert run(str(root / "engine-general")) == fast
    return fast
