"""The requester a command runs for is passed with the command: one processor serves several
requesters at once, each with its own guard and display filter, and keeps none of them."""

from __future__ import annotations

from mqpy import CMQC
from mqpy.mqsc.results import EVERYONE, CommandFailed, Requester

from .conftest import run


def _hiding(name: str) -> Requester:
    return Requester(visible=lambda objtype, obj, attributes: obj != name)


def test_a_display_for_one_requester_inside_another_sees_with_its_own_filter(proc):
    """Given Q.OPEN and Q.SECRET, when a requester who may not see Q.SECRET displays Q.*
    and, while its command runs, another requester's DISPLAY runs on the same processor,
    then the first sees only Q.OPEN and the second both."""
    run(proc, "DEFINE QLOCAL(Q.OPEN)\nDEFINE QLOCAL(Q.SECRET)")
    inner: list[str] = []

    def guard(cmd):
        inner.extend(proc.execute_text("DISPLAY QLOCAL(Q.*)", EVERYONE).lines)

    outer = proc.execute_text("DISPLAY QLOCAL(Q.*)", Requester(
        guard=guard, visible=_hiding("Q.SECRET").visible))
    assert "Q.SECRET" not in "\n".join(outer.lines) and "Q.OPEN" in "\n".join(outer.lines)
    assert "Q.SECRET" in "\n".join(inner) and "Q.OPEN" in "\n".join(inner)


def test_a_refusing_guard_stops_only_its_own_command(proc):
    """Given a requester whose guard refuses, when it runs DEFINE, then the command fails with
    the guard's lines and reason and defines nothing, and the next command, for another
    requester, runs."""
    def refuse(cmd):
        raise CommandFailed(["AMQ8135E: Not authorized."], CMQC.MQRC_NOT_AUTHORIZED)

    refused = proc.execute_text("DEFINE QLOCAL(Q.REFUSED)", Requester(guard=refuse))
    assert not refused.ok and refused.reason == CMQC.MQRC_NOT_AUTHORIZED
    assert refused.lines == ["AMQ8135E: Not authorized."]
    assert proc.engine.lookup("QLOCAL", "Q.REFUSED") is None
    assert proc.execute_text("DEFINE QLOCAL(Q.REFUSED)").ok
    assert not hasattr(proc, "guard") and not hasattr(proc, "visible")
