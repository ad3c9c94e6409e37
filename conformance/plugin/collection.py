"""`@pytest.mark.rule`: checked at collection, used to select tests by rule id or area.

A test naming an unknown rule (or a suite test naming none) is a collection error of its
module, so a typo can never turn into a silently untested rule.
"""

from __future__ import annotations

import difflib
from collections.abc import Generator, Sequence
from pathlib import Path
from typing import Any

import pytest

from conformance.plugin.state import get_state

MARKER = "rule"
RULES_KEY = pytest.StashKey[tuple[Any, ...]]()
# tests under this directory must name their rules
SUITE_DIR = Path(__file__).resolve().parent.parent / "suite"
# modules run before every other test (a stable partition): the reference's pre-flight rules,
# which the first test using a surface would otherwise pre-empt by stopping the session
FIRST = ("conformance.suite.test_reference_preflight",)


def register_marker(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers", f"{MARKER}(id, ...): the catalog rule(s) this conformance test checks"
    )


def marked_ids(item: pytest.Item) -> list[Any]:
    return [arg for mark in item.iter_markers(MARKER) for arg in mark.args]


def in_suite(item: pytest.Item) -> bool:
    return Path(item.path).resolve().is_relative_to(SUITE_DIR)


def _lookup(catalog: Any, rule_id: Any) -> tuple[Any, str | None]:
    if not isinstance(rule_id, str):
        return None, f"rule ids are strings, got {rule_id!r}"
    try:
        return catalog.get(rule_id), None
    except KeyError:
        close = difflib.get_close_matches(rule_id, list(catalog.rules), n=3, cutoff=0.6)
        hint = f"; did you mean {', '.join(repr(c) for c in close)}?" if close else ""
        return None, f"unknown rule id {rule_id!r}{hint}"


def check_item(item: pytest.Item, catalog: Any) -> tuple[tuple[Any, ...], list[str]]:
    """The item's rules, or the problems that make it uncollectable."""
    ids = marked_ids(item)
    if not ids:
        return (), [f"{item.nodeid}: a conformance test must name its rule(s) with "
                    "@pytest.mark.rule('area.operation.claim')"]  # fmt: skip
    rules, problems = [], []
    for rule_id in ids:
        rule, problem = _lookup(catalog, rule_id)
        if problem:
            problems.append(f"{item.nodeid}: {problem}")
        elif rule not in rules:
            rules.append(rule)
    return tuple(rules), problems


@pytest.hookimpl(wrapper=True)
def pytest_make_collect_report(collector: pytest.Collector) -> Generator[None, Any, Any]:
    report = yield
    if not report.passed or not isinstance(report.result, list):
        return report
    items = [x for x in report.result if isinstance(x, pytest.Item)]
    relevant = [item for item in items if marked_ids(item) or in_suite(item)]
    if not relevant:
        return report
    catalog = get_state(collector.config).catalog(collector.config)
    problems: list[str] = []
    for item in relevant:
        rules, item_problems = check_item(item, catalog)
        problems.extend(item_problems)
        item.stash[RULES_KEY] = rules
    if problems:
        report.outcome = "failed"
        report.longrepr = "rule marker errors:\n  " + "\n  ".join(dict.fromkeys(problems))
        report.result = []
    return report


EXACT = "$"  # `--rule ID$`: exactly that id (`conformance run --failed-from` selects so)


def rule_matches(rule_id: str, pattern: str) -> bool:
    """A --rule value: an id prefix, or an exact id when it ends with `$`."""
    if pattern.endswith(EXACT):
        return rule_id == pattern[: -len(EXACT)]
    return rule_id.startswith(pattern)


def selected(rules: Sequence[Any], prefixes: Sequence[str], areas: Sequence[str]) -> list[Any]:
    """Rules kept by --rule prefixes (or exact `ID$`) and --area names (all when neither)."""
    return [
        rule for rule in rules
        if (not prefixes or any(rule_matches(rule.id, p) for p in prefixes))
        and (not areas or rule.area in areas)
    ]  # fmt: skip


def check_selection(catalog: Any, prefixes: Sequence[str], areas: Sequence[str]) -> None:
    """Usage error for a --rule or --area that selects nothing at all: surely a typo."""
    everything = list(catalog.rules.values())
    known_areas = sorted({rule.area for rule in everything})
    for area in areas:
        if area not in known_areas:
            raise pytest.UsageError(f"--area {area!r}: unknown; areas: {', '.join(known_areas)}")
    for prefix in prefixes:
        if not selected(everything, [prefix], []):
            what = "is" if prefix.endswith(EXACT) else "starts with"
            raise pytest.UsageError(f"--rule {prefix!r}: no rule id {what} it")


def _first(item: pytest.Item) -> bool:
    return getattr(getattr(item, "module", None), "__name__", "") in FIRST


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    items[:] = [i for i in items if _first(i)] + [i for i in items if not _first(i)]
    options = get_state(config).options
    if not options.selective:
        return
    keep, drop = [], []
    for item in items:
        mine: tuple[Any, ...] = item.stash.get(RULES_KEY, ())
        rules = selected(mine, options.rules, options.areas)
        if rules:
            item.stash[RULES_KEY] = tuple(rules)
            keep.append(item)
        else:
            drop.append(item)
    if drop:
        config.hook.pytest_deselected(items=drop)
        items[:] = keep
