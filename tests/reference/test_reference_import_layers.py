"""The reference's import graph keeps its layers: no cycle, and no surface leans on another.

Layers, lowest first; a module imports only from its own layer or lower ones:
  1. base: top-level helper modules (profile, identity, numbers, atomic_file, ...)
  2. wire: `reference_impl/wire/` (wire formats several surfaces speak: S3's errors and their
     XML answer, XML bodies, key decoding, bucket names, body reader and the part of a call a
     read uses; the management API's envelope)
  3. storage: `reference_impl/storage/` (the store, its clock, the audit table)
  4. context: `reference_impl/context.py` (what every surface is built from)
  5. services: `reference_impl/services/` (the audit log, the custom domain registry,
     object lifecycles, the migration fetch, a bucket's CORS rules, the object read)
  6. surfaces: one package each (SURFACES); a surface imports no other surface

  7. composition: `server.py`, `__main__.py` and the wrapper round every app they start
     (`durable_replies.py`, `host_guard.py`: it reads Host with the custom domains' parser)

Imports under `if TYPE_CHECKING:` are left out: they exist for the type checker only and never
run (the context names the types of what surfaces hand each other that way).

What two surfaces share sits below both, rather than one importing the other: the public
bucket entrypoint serves anonymous GET/HEAD with S3's range, conditional and header handling,
so that read (`services/object_reads.py`, with `conditions`, `ranges`, `object_parts`) is a
service both call; lifecycle and migration have no listener of their own, so they are services
whose HTTP routes live in the surface serving them (`mgmt/clock_admin.py`, `mgmt/sippy*.py`).
"""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2] / "reference_impl"
SURFACES = {"s3", "mgmt", "public", "edge", "bindings", "gateway"}
BELOW = {"wire", "storage", "services", "profiles"}  # packages of the lower layers (profiles: data)
# server.py starts the surfaces; durable_replies.py and host_guard.py wrap each surface's app
COMPOSITION = {
    "reference_impl.server",
    "reference_impl.__main__",
    "reference_impl.durable_replies",
    "reference_impl.host_guard",
}
LAYER = {
    "base": 1,
    "wire": 2,
    "storage": 3,
    "context": 4,
    "services": 5,
    "surface": 6,
    "composition": 7,
}


def _module(path: Path) -> str:
    parts = path.relative_to(ROOT.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _layer(module: str) -> tuple[str, str | None]:
    """(layer, surface package or None)."""
    parts = module.split(".")
    if module in COMPOSITION:
        return "composition", None
    if module == "reference_impl.context":
        return "context", None
    if len(parts) > 2 or (len(parts) == 2 and (ROOT / parts[1]).is_dir()):
        package = parts[1]
        if package in SURFACES:
            return "surface", package
        if package in ("wire", "storage", "services"):
            return package, None
    return "base", None


def _runtime_imports(tree: ast.Module) -> list[ast.Import | ast.ImportFrom]:
    skipped: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            skipped.update(id(inner) for stmt in node.body for inner in ast.walk(stmt))
    return [
        node
        for node in ast.walk(tree)
        if isinstance(node, ast.Import | ast.ImportFrom) and id(node) not in skipped
    ]


def import_graph() -> dict[str, set[str]]:
    """module -> the reference_impl modules it imports when it runs."""
    files = {_module(p): p for p in ROOT.rglob("*.py")}
    graph: dict[str, set[str]] = {}
    for module, path in files.items():
        targets: set[str] = set()
        for node in _runtime_imports(ast.parse(path.read_text("utf-8"))):
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif node.module and node.level == 0:
                names = [
                    f"{node.module}.{a.name}" if f"{node.module}.{a.name}" in files else node.module
                    for a in node.names
                ]
            else:
                names = []
            targets.update(n for n in names if n in files and n != "reference_impl")
        graph[module] = targets - {module}
    return graph


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    found: list[list[str]] = []
    state: dict[str, int] = {}  # 1: on the current path, 2: done
    path: list[str] = []

    def visit(node: str) -> None:
        state[node] = 1
        path.append(node)
        for nxt in sorted(graph.get(node, ())):
            if state.get(nxt) == 1:
                found.append([*path[path.index(nxt) :], nxt])
            elif nxt not in state:
                visit(nxt)
        path.pop()
        state[node] = 2

    for node in sorted(graph):
        if node not in state:
            visit(node)
    return found


def test_no_import_cycle() -> None:
    cycles = _cycles(import_graph())
    assert not cycles, "import cycles:\n" + "\n".join(" -> ".join(c) for c in cycles)


def test_layers_import_downward_and_surfaces_stay_apart() -> None:
    wrong: list[str] = []
    for module, targets in sorted(import_graph().items()):
        layer, surface = _layer(module)
        for target in sorted(targets):
            to_layer, to_surface = _layer(target)
            if LAYER[to_layer] > LAYER[layer]:
                wrong.append(f"{module} ({layer}) imports {target} ({to_layer}): upward")
            elif surface and to_surface and to_surface != surface:
                wrong.append(f"{module} imports {target}: surface {surface} -> {to_surface}")
    assert not wrong, "\n".join(wrong)


def test_the_graph_sees_the_imports() -> None:
    """The test reads real edges (a parser slip would pass everything)."""
    graph = import_graph()
    assert "reference_impl.storage.engine" in graph["reference_impl.context"]
    assert "reference_impl.services.object_reads" in graph["reference_impl.public.app"]
    assert "reference_impl.services.audit" in graph["reference_impl.s3.cors"]


def test_every_package_has_a_layer() -> None:
    """A new package is placed on purpose (else it would count as a base helper, unchecked)."""
    packages = {p.parent.name for p in ROOT.glob("*/__init__.py")}
    assert packages <= SURFACES | BELOW, f"packages of no layer: {packages - SURFACES - BELOW}"
