"""The import graph of mqpy's three packages, read from the source (imports inside
functions included, those under ``if TYPE_CHECKING:`` left out: they name types for the
reader and the type checker and are never run): who imports whom, which imports go up the
layers, and which modules import each other in a circle. Pure: files in, sets out; nothing
is imported or run."""

from __future__ import annotations

import ast
import os
from collections.abc import Iterator

#: the layers, bottom first: a module may import its own layer and those below it
LAYERS = ("mqpy", "mqpy_chinit", "mqpy_cli")

Edge = tuple[str, str]


def modules(root: str) -> dict[str, str]:
    """Dotted module name -> file path, for every module of the layers under ``root``."""
    found = {}
    for package in LAYERS:
        for directory, _dirs, files in os.walk(os.path.join(root, package)):
            for name in files:
                if name.endswith(".py"):
                    path = os.path.join(directory, name)
                    dotted = os.path.relpath(path, root)[:-3].replace(os.sep, ".")
                    found[dotted.removesuffix(".__init__")] = path
    return found


def _targets(node: ast.AST, module: str, is_package: bool, known: dict[str, str]
             ) -> Iterator[str]:
    """The dotted names an import statement reaches (a submodule where it names one)."""
    if isinstance(node, ast.Import):
        yield from (alias.name for alias in node.names)
    elif isinstance(node, ast.ImportFrom):
        base = node.module or ""
        if node.level:  # relative: from the module's package, up level - 1
            parts = module.split(".")[:None if is_package else -1]
            parts = parts[:len(parts) - node.level + 1]
            base = ".".join([*parts, base] if base else parts)
        for alias in node.names:
            full = f"{base}.{alias.name}"
            yield full if full in known else base


def _owner(name: str, known: dict[str, str]) -> str | None:
    """The module of ours that importing ``name`` loads (its longest known prefix)."""
    while name and name not in known:
        name = name.rpartition(".")[0]
    return name or None


def import_graph(root: str) -> dict[str, set[str]]:
    """Module -> the modules of ours it imports, anywhere in its code."""
    known = modules(root)
    graph: dict[str, set[str]] = {name: set() for name in known}
    for module, path in known.items():
        with open(path, encoding="utf-8") as f:
            tree = ast.parse(f.read(), path)
        is_package = path.endswith("__init__.py")
        for node in _run_time_nodes(tree):
            for target in _targets(node, module, is_package, known):
                owner = _owner(target, known)
                if owner is not None and owner != module:
                    graph[module].add(owner)
    return graph


def _run_time_nodes(tree: ast.AST) -> Iterator[ast.AST]:
    """Every node of ``tree`` but those inside an ``if TYPE_CHECKING:`` block."""
    todo = [tree]
    while todo:
        node = todo.pop()
        yield node
        if isinstance(node, ast.If) and _is_type_checking(node.test):
            todo.extend(node.orelse)
            continue
        todo.extend(ast.iter_child_nodes(node))


def _is_type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING")


def _layer(module: str) -> int:
    return LAYERS.index(module.split(".")[0])


def upward_imports(graph: dict[str, set[str]]) -> set[Edge]:
    """(importer, imported) pairs where the imported module is in a higher layer."""
    return {(a, b) for a, targets in graph.items() for b in targets if _layer(b) > _layer(a)}


def cycles(graph: dict[str, set[str]]) -> set[frozenset[str]]:
    """The sets of modules that import each other in a circle (strongly connected
    components of more than one module), by Tarjan's algorithm without recursion."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: set[frozenset[str]] = set()
    for start in graph:
        if start in index:
            continue
        work = [(start, iter(sorted(graph[start])))]
        index[start] = low[start] = len(index)
        stack.append(start)
        on_stack.add(start)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph[child]))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                parent = work[-1][0]
                low[parent] = min(low[parent], low[node])
            if low[node] == index[node]:
                component = set()
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.add(member)
                    if member == node:
                        break
                if len(component) > 1:
                    found.add(frozenset(component))
    return found
