"""`--rule`/`--area` runs import only the suite modules that can hold a selected test.

Collection imports every test module (~3 s of CPU for the whole suite), then collection.py
drops the tests of other rules. A module whose source names only unselected rules cannot hold
a test the run keeps, so it is not imported at all. The source is read as coverage.py reads it
(no import); a module is skipped only when every rule mark in it has literal ids, so a mark
built at run time, a module that does not parse, or one with no literal mark is always
collected (and an unknown id still fails that module's collection, as before).
tests/plugin/test_selection_prefilter.py checks that the scan finds every collected rule of the
shipped suite.
"""

from __future__ import annotations

import fnmatch
from pathlib import Path

import pytest

from conformance.coverage import literal_rule_ids
from conformance.plugin.collection import SUITE_DIR, selected
from conformance.plugin.state import get_state


def _is_test_module(path: Path, config: pytest.Config) -> bool:
    patterns = [str(p) for p in config.getini("python_files")]
    return path.suffix == ".py" and any(fnmatch.fnmatch(path.name, p) for p in patterns)


def pytest_ignore_collect(collection_path: Path, config: pytest.Config) -> bool | None:
    """True for a suite module that names no selected rule; None (no opinion) otherwise."""
    state = get_state(config)
    if not state.options.selective or not _is_test_module(collection_path, config):
        return None
    if not collection_path.resolve().is_relative_to(SUITE_DIR):
        return None
    ids = literal_rule_ids(collection_path)
    if not ids:
        return None  # unreadable, a run-time mark, or no mark: collection decides
    catalog = state.catalog(config)
    rules = []
    for rule_id in ids:
        if rule_id not in catalog.rules:
            return None  # its collection reports the unknown id
        rules.append(catalog.rules[rule_id])
    if selected(rules, state.options.rules, state.options.areas):
        return None
    return True
