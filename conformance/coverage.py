"""Which rules the installed suite tests, found by reading its source (no pytest collection).

Collection imports every test module and its fixtures; for `conformance rules --uncovered` and the
catalog lint a syntax-level scan of `pytest.mark.rule("...")` is enough and takes milliseconds.
"""

from __future__ import annotations

import ast
import functools
from collections.abc import Iterator
from importlib import resources
from importlib.resources.abc import Traversable
from pathlib import Path

SUITE_PACKAGE = "conformance.suite"


def _is_rule_mark(node: ast.AST) -> bool:
    """`pytest.mark.rule(...)`, `mark.rule(...)` or any `<x>.mark.rule(...)` call."""
    if not isinstance(node, ast.Call) or not isinstance(node.func, ast.Attribute):
        return False
    owner = node.func.value
    if node.func.attr != "rule":
        return False
    return (isinstance(owner, ast.Name) and owner.id == "mark") or (
        isinstance(owner, ast.Attribute) and owner.attr == "mark"
    )


def _rule_ids(tree: ast.AST) -> Iterator[str]:
    """String arguments of every rule mark anywhere under `tree` (lists and params included)."""
    for node in ast.walk(tree):
        if _is_rule_mark(node):
            assert isinstance(node, ast.Call)
            for arg in node.args:
                if isinstance(arg, ast.Constant) and isinstance(arg.value, str):
                    yield arg.value


def _scan_module(source: str, location: str) -> Iterator[tuple[str, str]]:
    """(rule id, test location) pairs of one module."""
    tree = ast.parse(source, filename=location)
    for node in tree.body:
        if isinstance(node, ast.Assign | ast.AnnAssign):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            if any(isinstance(t, ast.Name) and t.id == "pytestmark" for t in targets):
                for rule_id in _rule_ids(node):
                    yield rule_id, location
        elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            yield from _decorated(node, f"{location}::{node.name}")
        elif isinstance(node, ast.ClassDef):
            yield from _scan_class(node, f"{location}::{node.name}")


def _scan_class(node: ast.ClassDef, location: str) -> Iterator[tuple[str, str]]:
    yield from _decorated(node, location)
    for child in node.body:
        if isinstance(child, ast.Assign) and any(
            isinstance(t, ast.Name) and t.id == "pytestmark" for t in child.targets
        ):
            for rule_id in _rule_ids(child):
                yield rule_id, location
        elif isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef):
            yield from _decorated(child, f"{location}::{child.name}")


def _decorated(
    node: ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef, location: str
) -> Iterator[tuple[str, str]]:
    """(rule id, `location`) pairs of the rule marks among the decorators of a test or class."""
    for decorator in node.decorator_list:
        for rule_id in _rule_ids(decorator):
            yield rule_id, location


def _modules(root: Traversable, prefix: str) -> Iterator[tuple[Traversable, str]]:
    for entry in sorted(root.iterdir(), key=lambda e: e.name):
        if entry.is_dir() and entry.name != "__pycache__":
            yield from _modules(entry, f"{prefix}/{entry.name}")
        elif entry.name.endswith(".py"):
            yield entry, f"{prefix}/{entry.name}"


def covered_rule_ids(package: str = SUITE_PACKAGE) -> dict[str, list[str]]:
    """Rule id -> locations of the tests that name it (`path::function`), sorted."""
    covered: dict[str, list[str]] = {}
    root = resources.files(package)
    for entry, location in _modules(root, package.replace(".", "/")):
        try:
            pairs = list(_scan_module(entry.read_text(encoding="utf-8"), location))
        except SyntaxError:
            continue  # the suite's own collection reports it with a proper message
        for rule_id, where in pairs:
            places = covered.setdefault(rule_id, [])
            if where not in places:
                places.append(where)
    return {rule_id: sorted(places) for rule_id, places in sorted(covered.items())}


def rule_locations(path: Path) -> list[tuple[str, str]]:
    """(rule id, "Class::function", "function", "Class" or "" for a module mark) of one test
    module, read from its source; nothing when it does not parse (collection says why)."""
    try:
        return list(_locations(path.read_text(encoding="utf-8")))
    except (OSError, SyntaxError, UnicodeDecodeError):
        return []


# The two scans below are cached by the source text itself (never by path or mtime, so an
# edited file is scanned again): every run's collection makes both over the suite, and the
# break-checks' fork server (tests/helpers/suite_zygote.py) makes them once for all its runs.
@functools.lru_cache(maxsize=1024)
def _locations(source: str) -> tuple[tuple[str, str], ...]:
    return tuple((rule_id, where.removeprefix("::")) for rule_id, where in _scan_module(source, ""))


def literal_rule_ids(path: Path) -> set[str] | None:
    """Every id any rule mark of one module names, wherever the mark sits; None when a mark
    has an argument that is not a string literal or the module does not parse (only an import
    would tell its rules)."""
    try:
        ids = _literal_ids(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError):
        return None
    return None if ids is None else set(ids)


@functools.lru_cache(maxsize=1024)
def _literal_ids(source: str) -> frozenset[str] | None:
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return None
    ids: set[str] = set()
    for node in ast.walk(tree):
        if not _is_rule_mark(node):
            continue
        assert isinstance(node, ast.Call)
        if node.keywords:
            return None
        for arg in node.args:
            if not (isinstance(arg, ast.Constant) and isinstance(arg.value, str)):
                return None
            ids.add(arg.value)
    return frozenset(ids)


def rule_ids_in_file(path: str) -> list[str]:
    """Rule ids named by one test module (or every module under a package directory), read
    from its source: what a module that failed to import would have checked."""
    import os

    files = [path] if os.path.isfile(path) else []
    if os.path.isdir(path):
        for folder, _dirs, names in os.walk(path):
            files += [os.path.join(folder, n) for n in sorted(names) if n.endswith(".py")]
    found: list[str] = []
    for name in files:
        try:
            with open(name, encoding="utf-8") as handle:
                pairs = list(_scan_module(handle.read(), name))
        except (OSError, SyntaxError, UnicodeDecodeError):
            continue
        found += [rule_id for rule_id, _where in pairs if rule_id not in found]
    return found
