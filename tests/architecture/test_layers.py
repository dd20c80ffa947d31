"""The layers contract: mqpy (engine, MQI, wire protocol, daemon) < mqpy_chinit < mqpy_cli.
A module imports only its own layer and those below it, and no modules import each other in
a circle, imports inside functions counted (those made only for the type checker are not).
A piece of a higher layer that runs in a lower layer's process is found through an
extension point (``mqpy.extensions``), never imported."""

from __future__ import annotations

import os

import pytest

from tests.architecture.imports import cycles, import_graph, upward_imports

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


@pytest.fixture(scope="module")
def graph() -> dict[str, set[str]]:
    return import_graph(ROOT)


def test_no_module_imports_a_layer_above_its_own(graph) -> None:
    """Given the source of the three packages, then no import goes up the layers."""
    assert sorted(upward_imports(graph)) == []


def test_no_modules_import_each_other_in_a_circle(graph) -> None:
    """Given the source, then no modules import each other in a circle."""
    assert [sorted(c) for c in cycles(graph)] == []


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
