"""The architecture rules of issue 17 that a test can hold (``docs/architecture.md``).

* **No import cycles** among ``mrsim.*`` modules. The graph has an edge A -> B when module A imports B at its top
  level (module body, including ``try``/``if`` blocks but not ``if TYPE_CHECKING:`` and not inside functions):
  those are the imports that run when A is imported, so a cycle among them makes import order matter and ties
  layers together. ``from pkg import name`` counts as an import of ``pkg.name`` when that is a module, else of
  ``pkg``; importing a package also runs its ``__init__``, so ``a.b.c`` depends on ``a.b`` and ``a``.
* **One event loop**: only the kernel (``mrsim/tracker/kernel.py``) pops events in a loop; the fluid model and the
  two standalone study simulators are the documented exceptions for now.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
PACKAGE = REPO / "mrsim"


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(REPO).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _modules() -> dict[str, Path]:
    return {_module_name(p): p for p in sorted(PACKAGE.rglob("*.py"))}


def _is_type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING")


def _top_level_imports(tree: ast.Module) -> list[ast.Import | ast.ImportFrom]:
    """Import statements that run when the module is imported (not in functions, classes or TYPE_CHECKING)."""
    found: list[ast.Import | ast.ImportFrom] = []

    def walk(body: list[ast.stmt]) -> None:
        for node in body:
            if isinstance(node, (ast.Import, ast.ImportFrom)):
                found.append(node)
            elif isinstance(node, ast.If):
                if not _is_type_checking(node.test):
                    walk(node.body)
                walk(node.orelse)
            elif isinstance(node, ast.Try):
                walk(node.body)
                for handler in node.handlers:
                    walk(handler.body)
                walk(node.orelse)
                walk(node.finalbody)
            elif isinstance(node, ast.With):
                walk(node.body)

    walk(tree.body)
    return found


def _resolve(module: str, is_package: bool, node: ast.ImportFrom) -> str:
    if node.level == 0:
        return node.module or ""
    base = module.split(".")
    if not is_package:
        base = base[:-1]
    base = base[: len(base) - (node.level - 1)]
    return ".".join(base + ([node.module] if node.module else []))


def import_graph() -> dict[str, set[str]]:
    """``module -> modules it imports at top level``, restricted to ``mrsim.*`` (cost: one parse per module)."""
    modules = _modules()
    graph: dict[str, set[str]] = {}
    for name, path in modules.items():
        targets: set[str] = set()
        tree = ast.parse(path.read_text(), str(path))
        for node in _top_level_imports(tree):
            if isinstance(node, ast.Import):
                targets.update(alias.name for alias in node.names)
            else:
                base = _resolve(name, path.name == "__init__.py", node)
                for alias in node.names:
                    sub = f"{base}.{alias.name}"
                    targets.add(sub if sub in modules else base)
        edges: set[str] = set()
        for target in targets:
            # Importing a.b.c runs a/__init__ and a/b/__init__ too.
            parts = target.split(".")
            for i in range(1, len(parts) + 1):
                prefix = ".".join(parts[:i])
                if prefix in modules and prefix != name and prefix.startswith("mrsim"):
                    edges.add(prefix)
        # A package's __init__ running is implied by importing any of its modules; not a cycle in itself.
        graph[name] = {t for t in edges if not name.startswith(t + ".")}
    return graph


def find_cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """One shortest cycle through each strongly connected component that has one (Tarjan, then BFS)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    components: list[list[str]] = []

    def strongconnect(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(graph.get(v, ())):
            if w not in index:
                strongconnect(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                components.append(sorted(component))

    for v in sorted(graph):
        if v not in index:
            strongconnect(v)

    cycles = []
    for component in components:
        members = set(component)
        start = component[0]
        parents: dict[str, str] = {}
        frontier = [start]
        while frontier and start not in parents:
            nxt = []
            for v in frontier:
                for w in sorted(graph[v] & members):
                    if w not in parents:
                        parents[w] = v
                        nxt.append(w)
            frontier = nxt
        path = [start]
        v = parents[start]
        while v != start:
            path.append(v)
            v = parents[v]
        path.append(start)
        cycles.append(path[::-1])
    return cycles


def test_no_import_cycles() -> None:
    cycles = find_cycles(import_graph())
    assert not cycles, "import cycles among mrsim modules:\n" + "\n".join(" -> ".join(c) for c in cycles)


def test_cycle_finder_reports_a_cycle() -> None:
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}
    assert find_cycles(graph) == [["a", "b", "c", "a"]]
    assert find_cycles({"a": {"b"}, "b": set()}) == []


#: Modules allowed to run their own event loop, and why.
EVENT_LOOP_OWNERS = {
    "mrsim/tracker/kernel.py": "the event kernel",
    "mrsim/fluid": "the fluid model: a different model by design (no tasks or heartbeats)",
    "mrsim/geo/simulator.py": "standalone federation simulator, kept until geo runs on the engine (issue 17)",
    "mrsim/lotes/engine.py": "standalone LoTES simulator, kept until LoTES runs on the engine (issue 17)",
}


def _pops_in_a_loop(tree: ast.Module) -> list[int]:
    """Lines of ``heappop`` calls inside a ``while`` loop (an event loop)."""
    lines = []
    for loop in ast.walk(tree):
        if isinstance(loop, ast.While):
            for node in ast.walk(loop):
                if isinstance(node, ast.Call):
                    f = node.func
                    name = f.attr if isinstance(f, ast.Attribute) else getattr(f, "id", "")
                    if name == "heappop":
                        lines.append(node.lineno)
    return sorted(set(lines))


def event_loop_owners() -> dict[str, list[int]]:
    owners = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        rel = path.relative_to(REPO).as_posix()
        if any(rel == allowed or rel.startswith(allowed + "/") for allowed in EVENT_LOOP_OWNERS):
            continue
        lines = _pops_in_a_loop(ast.parse(path.read_text(), rel))
        if lines:
            owners[rel] = lines
    return owners
