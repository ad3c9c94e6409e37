"""The layers: `conformance.plugin` is pytest wiring only, and nothing imports in a circle.

The CLI, the report, the safety layer and history build on the domain model
(`conformance.model`); an import of the plugin from any of them runs an arrow back up into pytest
(issue 24 item 2). The suite (`conformance/suite`) is what the plugin runs, so it may use the
plugin's test-facing API (RuleFailure, the run state). Every import counts, also one inside a
function: a lazy import only hides a cycle until the day the order of first use changes.
"""

from __future__ import annotations

import ast
from pathlib import Path

import conformance

PACKAGE = Path(conformance.__file__).parent
PLUGIN = "conformance.plugin"
MAY_IMPORT_PLUGIN = ("conformance.plugin", "conformance.suite")


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _imports(path: Path) -> set[str]:
    """The absolute names of the conformance modules a file imports, anywhere in it."""
    module = _module_name(path)
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*anchor, base] if base else anchor)
            names.add(base)
            names.update(f"{base}.{alias.name}" for alias in node.names)
    return {n for n in names if n == "conformance" or n.startswith("conformance.")}


def _imports_anywhere(path: Path) -> set[str]:
    """The absolute conformance names a file outside the package imports."""
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            names.add(node.module)
            names.update(f"{node.module}.{alias.name}" for alias in node.names)
    return names


def _graph() -> dict[str, set[str]]:
    files = {_module_name(p): p for p in PACKAGE.rglob("*.py")}
    graph: dict[str, set[str]] = {}
    for name, path in files.items():
        # `from conformance.x import y` names the module x.y only when it exists
        graph[name] = {n for n in _imports(path) if n in files and n != name}
    return graph


def test_only_the_plugin_and_the_suite_import_the_plugin() -> None:
    offenders = sorted(
        f"{name} imports {target}"
        for name, targets in _graph().items()
        if not name.startswith(MAY_IMPORT_PLUGIN)
        for target in targets
        if target == PLUGIN or target.startswith(PLUGIN + ".")
    )
    assert offenders == [], "outside the pytest wiring:\n" + "\n".join(offenders)


def test_bench_does_not_import_the_plugin() -> None:
    bench = PACKAGE.parent / "bench"
    offenders = sorted(
        str(path.relative_to(bench.parent))
        for path in bench.rglob("*.py")
        if any(n == PLUGIN or n.startswith(PLUGIN + ".") for n in _imports_anywhere(path))
    )
    assert offenders == []


def test_the_entry_point_is_the_plugin_module() -> None:
    """The one outside name of the plugin: pyproject's pytest11 registration."""
    pyproject = (PACKAGE.parent / "pyproject.toml").read_text(encoding="utf-8")
    assert 'edge_conformance = "conformance.plugin.plugin"' in pyproject


def _cycle(graph: dict[str, set[str]]) -> list[str] | None:
    """One import cycle of the graph (as a path back to its start), or None."""
    done: set[str] = set()
    for start in sorted(graph):
        if start in done:
            continue
        path: list[str] = []
        on_path: set[str] = set()
        stack: list[tuple[str, list[str]]] = [(start, sorted(graph[start]))]
        path.append(start)
        on_path.add(start)
        while stack:
            node, todo = stack[-1]
            if not todo:
                stack.pop()
                path.pop()
                on_path.discard(node)
                done.add(node)
                continue
            nxt = todo.pop()
            if nxt in on_path:
                return [*path[path.index(nxt) :], nxt]
            if nxt not in done:
                stack.append((nxt, sorted(graph.get(nxt, ()))))
                path.append(nxt)
                on_path.add(nxt)
    return None


def test_conformance_has_no_import_cycle() -> None:
    cycle = _cycle(_graph())
    assert cycle is None, "import cycle: " + " -> ".join(cycle or [])


def test_the_cycle_finder_finds_one() -> None:
    assert _cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
    assert _cycle({"a": {"b", "c"}, "b": {"c"}, "c": set()}) is None
