"""The break-check shortcut: the modules naming the rules run first, the whole selection only
when they do not already FAIL every rule.

No suite runs here: `run_suite` is replaced by a stand-in that reports fixed statuses, so these
pin which runs are made and which document is returned.
"""

from __future__ import annotations

import datetime as dt
import itertools
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest
from helpers import suite_runner
from helpers.suite_runner import direct_test_modules, rule_status

from conformance import results
from conformance.model.catalog import load_catalog

MODELLED = "storage.put-object.etag-md5"  # checked by its own tests and by the storage model


def _fake_runs(
    monkeypatch: pytest.MonkeyPatch, first: str, second: str, tmp_path: Path
) -> list[tuple[Sequence[str] | None, tuple[str, ...]]]:
    """Stand in for the suite: the first run reports `first` for every rule, later ones `second`;
    each call is recorded as (packages, extra_args)."""
    calls: list[tuple[Sequence[str] | None, tuple[str, ...]]] = []

    def fake(
        cwd: Path,
        *,
        rules: list[str],
        extra_args: Sequence[str] = (),
        packages: Sequence[str] | None = None,
        **_: Any,
    ) -> dict[str, Any]:
        assert cwd == tmp_path  # both runs see what the caller put there (expectations, plugins)
        calls.append((packages, tuple(extra_args)))
        status = first if len(calls) == 1 else second
        return {"rules": [{"id": rule, "status": status} for rule in rules], "_output": ""}

    monkeypatch.setattr(suite_runner, "run_suite", fake)
    return calls


def test_the_modules_are_those_that_name_the_rule_without_the_model() -> None:
    modules = direct_test_modules([MODELLED])
    assert modules == ["conformance.suite.storage.objects.test_put_object_basics"]
    assert suite_runner.MODEL_MODULE not in direct_test_modules(["storage."])
    # an id prefix selects every rule it starts; `$` only the exact id
    assert set(direct_test_modules(["storage.put-object."])) > set(modules)
    assert direct_test_modules([MODELLED + "$"]) == modules
    assert direct_test_modules(["storage.put-object.etag-md"]) == modules
    assert direct_test_modules(["storage.put-object.etag-md$"]) == []


def test_rules_failed_by_their_modules_need_no_second_run(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    calls = _fake_runs(monkeypatch, "FAIL", "PASS", tmp_path)
    document = suite_runner.run_expecting_fail(tmp_path, rules=[MODELLED], extra_args=["-n", "2"])
    assert rule_status(document, MODELLED) == "FAIL"
    assert calls == [(direct_test_modules([MODELLED]), ("-n", "2"))]


def test_rules_not_failed_by_their_modules_run_the_whole_selection(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    calls = _fake_runs(monkeypatch, "PASS", "FAIL", tmp_path)
    document = suite_runner.run_expecting_fail(tmp_path, rules=[MODELLED])
    assert rule_status(document, MODELLED) == "FAIL"
    assert calls == [(direct_test_modules([MODELLED]), ()), (None, ())]


def test_one_rule_left_unfailed_is_enough_for_the_second_run(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    calls: list[int] = []

    def fake(tmp_path: Path, *, rules: list[str], **_: Any) -> dict[str, Any]:
        calls.append(1)
        statuses = ["FAIL", "PASS"] if len(calls) == 1 else ["FAIL", "FAIL"]
        return {"rules": [{"id": r, "status": s} for r, s in zip(rules, statuses, strict=True)]}

    monkeypatch.setattr(suite_runner, "run_suite", fake)
    rules = [MODELLED, "storage.list-objects.max-keys"]
    document = suite_runner.run_expecting_fail(tmp_path, rules=rules)
    assert len(calls) == 2 and {rule_status(document, r) for r in rules} == {"FAIL"}


def test_a_rule_no_module_names_runs_the_whole_selection_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    rule = "storage.no-such-rule-prefix"
    assert direct_test_modules([rule]) == []
    calls = _fake_runs(monkeypatch, "PASS", "FAIL", tmp_path)
    suite_runner.run_expecting_fail(tmp_path, rules=[rule])
    assert calls == [(None, ())]


@pytest.mark.parametrize(
    "others", list(itertools.combinations_with_replacement(map(str, results.CASE_STATUSES), 2))
)
def test_a_fail_case_makes_the_rule_fail_whatever_else_ran(others: tuple[str, ...]) -> None:
    """The ground the shortcut stands on: more cases never take a rule out of FAIL."""
    rule = load_catalog().get(MODELLED)
    cases = [{"status": "FAIL", "message": "broken"}, *({"status": s} for s in others)]
    status, _ = results.rule_status(rule, cases, dt.date(2026, 1, 1), "reference")
    assert status == "FAIL", (others, status)
