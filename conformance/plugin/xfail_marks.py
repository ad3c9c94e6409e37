"""Expectations at run time: a target's known failures become strict xfails.

The file (`--expectations PATH`, else `expectations/<target>.yaml` under the invocation
directory when present) is data about a target, never test code. A test is marked only for the
rules of it that apply to this run, and strictly: once the target is fixed the test passes, the
case is XPASS, and the run fails until the expectation is removed.
"""

from __future__ import annotations

import difflib
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest

from conformance.model import expectations as core
from conformance.plugin.collection import RULES_KEY
from conformance.plugin.state import get_state
from conformance.results import static_na_reason

EXPECTATIONS_KEY = pytest.StashKey[dict[str, core.Expectation]]()


def resolve_path(config: pytest.Config, explicit: Path | None, target: str) -> Path | None:
    """The file to read: the explicit one (which must exist), else the default when present."""
    if explicit is not None:
        if not explicit.is_file():
            raise pytest.UsageError(f"--expectations: {explicit} is not a file")
        return explicit
    default = core.default_path(target, config.invocation_params.dir)
    return default if default.is_file() else None


def configure(config: pytest.Config, explicit: Path | None, target: str) -> None:
    """Load the expectations once per process; a malformed file is a usage error."""
    path = resolve_path(config, explicit, target)
    try:
        config.stash[EXPECTATIONS_KEY] = core.load(path) if path is not None else {}
    except core.ExpectationsError as exc:
        raise pytest.UsageError(str(exc)) from None


def loaded(config: pytest.Config) -> Mapping[str, core.Expectation]:
    return config.stash.get(EXPECTATIONS_KEY, {})


def check_known(config: pytest.Config, catalog: Any) -> None:
    """Usage error for an entry naming no rule: a typo would otherwise hide a real failure."""
    for rule_id in loaded(config):
        if rule_id not in catalog.rules:
            close = difflib.get_close_matches(rule_id, list(catalog.rules), n=3, cutoff=0.6)
            hint = f"; did you mean {', '.join(repr(c) for c in close)}?" if close else ""
            raise pytest.UsageError(f"expectations: unknown rule id {rule_id!r}{hint}")


def expected_for(item: pytest.Item) -> list[core.Expectation]:
    """Expectations of the item's rules that apply to this run (N/A ones are not expected)."""
    known = loaded(item.config)
    if not known:
        return []
    options = get_state(item.config).options
    return [
        known[rule.id]
        for rule in item.stash.get(RULES_KEY, ())
        if rule.id in known and static_na_reason(rule, options.as_of, options.target) is None
    ]


@pytest.hookimpl(trylast=True)
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    if not loaded(config):
        return
    for item in items:
        expected = expected_for(item)
        if expected:
            reason = "; ".join(f"{e.rule_id}: {e.describe()}" for e in expected)
            item.add_marker(pytest.mark.xfail(reason=reason, strict=True))
