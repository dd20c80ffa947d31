"""The engine's modules: each MQ concept on its own, no module importing another in a circle.

Read from the source (the imports anywhere in a module, those inside functions and under
TYPE_CHECKING included), so nothing is imported to check it.
"""

from __future__ import annotations

import ast
import pathlib

import mqpy.engine

ENGINE = pathlib.Path(mqpy.engine.__file__).parent


def _tree(module: str) -> ast.Module:
    return ast.parse((ENGINE / f"{module}.py").read_text(encoding="utf-8"))


def _engine_imports(module: str) -> set[str]:
    """The engine modules ``module`` imports, wherever the import statement stands."""
    out: set[str] = set()
    for node in ast.walk(_tree(module)):
        if isinstance(node, ast.ImportFrom) and node.module:
            if node.module == "mqpy.engine":
                out.update(alias.name for alias in node.names)
            elif node.module.startswith("mqpy.engine."):
                out.add(node.module.split(".")[2])
        elif isinstance(node, ast.Import):
            out.update(alias.name.split(".")[2] for alias in node.names
                       if alias.name.startswith("mqpy.engine."))
    return {m for m in out if (ENGINE / f"{m}.py").exists()}


def test_given_a_distribution_list_when_it_calls_its_connection_then_only_publicly():
    """distlist imports no connection module and calls none of the connection's private
    methods: it uses the ListConnection interface."""
    imports = _engine_imports("distlist")
    assert not imports & {"qmgr", "connection"}, imports
    private = sorted({node.attr for node in ast.walk(_tree("distlist"))
                      if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name)
                      and node.value.id == "conn" and node.attr.startswith("_")})
    assert private == []
