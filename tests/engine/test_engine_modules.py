"""The engine's modules: each MQ concept on its own, no module importing another in a circle.

Read from the source (the imports anywhere in a module, those inside functions and under
TYPE_CHECKING included), so nothing is imported to check it.
"""

from __future__ import annotations

import ast
import pathlib

import mqpy.engine
from mqpy.engine.connection import Connection

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


def _runtime_imports(module: str) -> set[str]:
    """The engine modules ``module`` imports when it runs (not those under TYPE_CHECKING)."""
    tree = _tree(module)
    typing_only = {id(n) for node in ast.walk(tree) if isinstance(node, ast.If)
                   and isinstance(node.test, ast.Name) and node.test.id == "TYPE_CHECKING"
                   for n in ast.walk(node)}
    out = set()
    for node in ast.walk(tree):
        if id(node) in typing_only or not isinstance(node, ast.ImportFrom) or not node.module:
            continue
        if node.module == "mqpy.engine":
            out.update(alias.name for alias in node.names)
        elif node.module.startswith("mqpy.engine."):
            out.add(node.module.split(".")[2])
    return {m for m in out if (ENGINE / f"{m}.py").exists()}


def test_given_the_engine_modules_when_their_imports_are_followed_then_none_comes_back():
    graph = {p.stem: _runtime_imports(p.stem) for p in ENGINE.glob("*.py")}
    cycles = []

    def walk(module: str, path: list[str]) -> None:
        for nxt in sorted(graph[module]):
            if nxt in path:
                cycles.append(path[path.index(nxt):] + [nxt])
            elif nxt not in done:
                walk(nxt, path + [nxt])
        done.add(module)

    done: set[str] = set()
    for module in sorted(graph):
        walk(module, [module])
    assert cycles == []


MQ_CONCEPTS = {  # the module an MQ expert looks in, for each call of a connection
    "open": "mqopen", "close": "mqopen", "put": "mqput", "put1": "mqput",
    "put_on_handle": "mqput", "get": "mqget", "commit": "uow", "backout": "uow",
    "prepare": "uow", "resolve": "uow", "indoubt": "uow", "inquire": "mqinq",
    "inquire_qmgr": "mqinq", "set": "mqinq", "disconnect": "connection",
}


def test_given_a_connection_when_its_calls_are_looked_up_then_each_is_in_its_mq_module():
    assert {name: getattr(Connection, name).__module__.rsplit(".", 1)[1]
            for name in MQ_CONCEPTS} == MQ_CONCEPTS


def test_given_the_engine_when_read_then_no_module_is_long_nor_imports_in_a_function():
    """Under about 800 lines each; no import inside a function to hide a cycle."""
    for module in sorted(p.stem for p in ENGINE.glob("*.py")):
        tree = _tree(module)
        assert len((ENGINE / f"{module}.py").read_text().splitlines()) <= 800, module
        hidden = [node.lineno for func in ast.walk(tree)
                  if isinstance(func, (ast.FunctionDef, ast.AsyncFunctionDef))
                  for node in ast.walk(func) if isinstance(node, (ast.Import, ast.ImportFrom))]
        assert hidden == [], module
