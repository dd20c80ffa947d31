"""What differential tests compare of two paths: the replies a bindings busy thread sent and
what an engine connection's queues hold (each message got back with its MQMD), the ids the
queue manager made given by their order."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

import mqpy
from mqpy import CMQC
from mqpy.engine import fastpath


def got_back(conn: Any, names: tuple[str, ...], ids: dict[bytes, int]) -> list:
    """Every message of the queues ``names`` got (destructively) from ``conn``: (data, MQMD
    fields) each, a MsgId or CorrelId the queue manager made ("AMQ ...") replaced by its
    order in ``ids``; each queue's list ending with the reason its last get failed."""
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
            for field in ("MsgId", "CorrelId"):
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


def counting_calls(monkeypatch: Any, module: Any, name: str) -> list[bool]:
    """``module.name`` replaced by one that records, for each call, whether it answered
    something other than None (a fast path that served the call)."""
    original = getattr(module, name)
    served: list[bool] = []

    def counting(*args: Any) -> Any:
        found = original(*args)
        served.append(found is not None)
        return found

    monkeypatch.setattr(module, name, counting)
    return served


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
