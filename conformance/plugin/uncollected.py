"""Tests of the suite that this run did not collect: a positional path, `--ignore`, `--lf`.

deselected.py sees only tests handed to `pytest_deselected`. Naming one test or file on the
command line, or `--ignore` of a file, never collects the others, so a rule whose failing test
was left out that way would read PASS on the test that ran and certify. The suite's rule marks
are read from source (conformance/coverage.py, no import); each marked test the collection did
not see becomes a NOT-CHECKED case of its rules, as a deselected one does. The suite is the
installed `conformance/suite` when a test of it was collected, else the rootdir's test files.

Naming one parametrization (`test_x.py::test_y[a]`) collects the whole module but keeps only
that item: the others of the function are made (pytest_make_collect_report) and never seen,
so each becomes a NOT-CHECKED case too (source marks cannot tell parametrizations apart).
"""

from __future__ import annotations

import fnmatch
import os
from collections.abc import Generator, Iterator
from pathlib import Path
from typing import Any

import pytest

from conformance.coverage import rule_locations
from conformance.plugin.case_records import PACKAGE_ROOT
from conformance.plugin.collection import RULES_KEY, SUITE_DIR

SEEN = pytest.StashKey[set[tuple[Path, str]]]()  # (resolved file, "Class::name" or "name")
SEEN_IDS = pytest.StashKey[set[str]]()  # node ids of the marked items collected
MADE = pytest.StashKey[dict[str, pytest.Item]]()  # every marked item a collector made


def _seen(config: pytest.Config) -> set[tuple[Path, str]]:
    if SEEN not in config.stash:
        config.stash[SEEN] = set()
    return config.stash[SEEN]


def _stash(config: pytest.Config, key: pytest.StashKey[Any], empty: Any) -> Any:
    if key not in config.stash:
        config.stash[key] = empty
    return config.stash[key]


def _qual(item: pytest.Item) -> tuple[Path, str]:
    name = getattr(item, "originalname", None) or item.name.split("[", 1)[0]
    parent = item.parent.name if isinstance(item.parent, pytest.Class) else None
    return Path(item.path).resolve(), f"{parent}::{name}" if parent else name


def _marked(report: pytest.CollectReport) -> list[pytest.Item]:
    return [
        item for item in (report.result if report.passed else [])
        if isinstance(item, pytest.Item) and item.stash.get(RULES_KEY, ())
    ]  # fmt: skip


@pytest.hookimpl(wrapper=True, tryfirst=True)  # outside collection.py's, which stashes rules
def pytest_make_collect_report(collector: pytest.Collector) -> Generator[None, Any, Any]:
    """Every marked item made, also those a node id's name or parametrization then drops."""
    report = yield
    made = _stash(collector.config, MADE, {})
    for item in _marked(report):
        made.setdefault(item.nodeid, item)
    return report


def pytest_collectreport(report: pytest.CollectReport) -> None:
    """Every marked test collected, deselected ones included (they are deselected.py's)."""
    for item in _marked(report):
        _seen(item.config).add(_qual(item))
        _stash(item.config, SEEN_IDS, set()).add(item.nodeid)


def dropped(config: pytest.Config) -> list[pytest.Item]:
    """Items of a collected test function that the collection dropped: the parametrizations
    a node id argument (`test_y[a]`) did not name."""
    seen, ids = _seen(config), _stash(config, SEEN_IDS, set())
    made: dict[str, pytest.Item] = _stash(config, MADE, {})
    return [item for nodeid, item in made.items() if nodeid not in ids and _qual(item) in seen]


def _test_files(root: Path, config: pytest.Config, skip: Path | None) -> Iterator[Path]:
    patterns = [str(p) for p in config.getini("python_files")]
    skip_dirs = [str(p) for p in config.getini("norecursedirs")]
    for folder, dirs, names in os.walk(root):
        here = Path(folder)
        dirs[:] = sorted(
            d for d in dirs
            if not any(fnmatch.fnmatch(d, p) for p in skip_dirs) and d != "__pycache__"
            and (skip is None or (here / d).resolve() != skip)
        )  # fmt: skip
        for name in sorted(names):
            if name.endswith(".py") and any(fnmatch.fnmatch(name, p) for p in patterns):
                yield here / name


def missing(config: pytest.Config) -> list[tuple[str, str]]:
    """(rule id, node id) of each marked test of the suite this process did not collect."""
    seen = _seen(config)
    if not seen:
        return []
    in_suite = any(path.is_relative_to(SUITE_DIR) for path, _ in seen)
    root, base = (SUITE_DIR, PACKAGE_ROOT) if in_suite else (config.rootpath, config.rootpath)
    files = {path for path, _ in seen}
    quals = {(path, qual.split("::", 1)[0]) for path, qual in seen} | seen
    found: list[tuple[str, str]] = []
    for file in _test_files(root, config, None if in_suite else SUITE_DIR):
        path = file.resolve()
        for rule_id, qual in rule_locations(file):
            # a module or class mark (no function name) is seen when a test under it is
            if (path, qual) in quals or (qual == "" and path in files):
                continue
            relative = path.relative_to(base).as_posix() if path.is_relative_to(base) else file
            found.append((rule_id, f"{relative}::{qual}" if qual else str(relative)))
    return list(dict.fromkeys(found))
