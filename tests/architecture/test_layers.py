"""The layers contract: mqpy (engine, MQI, wire protocol, daemon) < mqpy_chinit < mqpy_cli.
A module imports only its own layer and those below it, and no modules import each other in
a circle, imports inside functions counted. The violations that exist are listed here, each
to be removed, never added to: a new one fails, and so does a listed one that is gone (strike
it from the list)."""

from __future__ import annotations

import os

import pytest

from tests.architecture.imports import cycles, import_graph, upward_imports

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

#: imports that go up the layers today, (importer, imported): none left
KNOWN_UPWARD: set[tuple[str, str]] = set()

#: modules that import each other in a circle today
KNOWN_CYCLES = {
    frozenset({"mqpy", "mqpy.bindings", "mqpy.client", "mqpy.fap.mqicalls", "mqpy.local",
               "mqpy.mqi", "mqpy.pcfexec", "mqpy.trace", "mqpy.tracedconn"}),
}


@pytest.fixture(scope="module")
def graph() -> dict[str, set[str]]:
    return import_graph(ROOT)


def test_no_module_imports_a_layer_above_its_own(graph) -> None:
    """Given the source of the three packages, then every import that goes up the layers is
    one of those listed (none new), and every listed one still exists (the list shrinks)."""
    found = upward_imports(graph)
    assert sorted(found - KNOWN_UPWARD) == [], "new imports up the layers"
    assert sorted(KNOWN_UPWARD - found) == [], "gone: strike them from KNOWN_UPWARD"


def test_no_modules_import_each_other_in_a_circle(graph) -> None:
    """Given the source, then the only import cycles are those listed, as they are listed."""
    found = cycles(graph)
    assert [sorted(c) for c in found - KNOWN_CYCLES] == [], "new or changed import cycles"
    assert [sorted(c) for c in KNOWN_CYCLES - found] == [], \
        "gone or changed: update KNOWN_CYCLES"


def test_the_graph_sees_imports_inside_functions(tmp_path) -> None:
    """Given a lower module that imports a higher one inside a function, and two modules
    importing each other (one of them lazily), then both are found; an import made only for
    the type checker (under ``if TYPE_CHECKING:``) is not an import."""
    for package in ("mqpy", "mqpy_chinit", "mqpy_cli"):
        (tmp_path / package).mkdir()
        (tmp_path / package / "__init__.py").write_text("")
    (tmp_path / "mqpy" / "low.py").write_text(
        "def f():\n    from mqpy_chinit import high\n    return high\n")
    (tmp_path / "mqpy_chinit" / "high.py").write_text("from . import other\n")
    (tmp_path / "mqpy_chinit" / "other.py").write_text(
        "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    import mqpy_cli\n"
        "def g():\n    import mqpy_chinit.high\n")
    g = import_graph(str(tmp_path))
    assert upward_imports(g) == {("mqpy.low", "mqpy_chinit.high")}
    assert cycles(g) == {frozenset({"mqpy_chinit.high", "mqpy_chinit.other"})}
