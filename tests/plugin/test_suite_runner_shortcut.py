"""The break-check shortcut: a storage rule its direct tests already fail skips the model's run.

No suite runs here: `run_suite` is replaced by a stand-in that reports fixed statuses, so these
pin which runs are made and which document is returned.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from helpers import suite_runner
from helpers.suite_runner import rule_status

RULE = "gateway.jsonrpc.version"


def _fake_runs(monkeypatch: pytest.MonkeyPatch, first: str, second: str) -> list[tuple[str, ...]]:
    """Stand in for the suite: the first run reports `first` for every rule, later ones `second`."""
    calls: list[tuple[str, ...]] = []

    def fake(
        tmp_path: Path, *, rules: list[str], extra_args: tuple[str, ...] = (), **_: Any
    ) -> dict[str, Any]:
        calls.append(tuple(extra_args))
        status = first if len(calls) == 1 else second
        return {"rules": [{"id": rule, "status": status} for rule in rules], "_output": ""}

    monkeypatch.setattr(suite_runner, "run_suite", fake)
    return calls


MODELLED = "storage.put-object.etag-md5"


def test_model_rule_failed_by_direct_tests_spares_the_model(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert MODELLED in suite_runner.model_rules()
    calls = _fake_runs(monkeypatch, "FAIL", "PASS")
    document = suite_runner.run_expecting_fail(tmp_path, rules=[MODELLED])
    assert rule_status(document, MODELLED) == "FAIL"
    assert calls == [("-k", f"not {suite_runner.MODEL_TEST}")]


def test_model_rule_not_failed_by_direct_tests_runs_everything(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    calls = _fake_runs(monkeypatch, "PASS", "FAIL")
    document = suite_runner.run_expecting_fail(tmp_path, rules=[MODELLED], extra_args=["-n", "2"])
    assert rule_status(document, MODELLED) == "FAIL"
    assert calls == [("-n", "2", "-k", f"not {suite_runner.MODEL_TEST}"), ("-n", "2")]


def test_rule_outside_the_model_runs_once_with_everything(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert RULE not in suite_runner.model_rules()
    calls = _fake_runs(monkeypatch, "PASS", "FAIL")
    document = suite_runner.run_expecting_fail(tmp_path, rules=[RULE])
    assert rule_status(document, RULE) == "PASS" and calls == [()]
