"""The mutant command leaves the storage model out of its first -x run, and only that.

`_run` is replaced by a stand-in, so these pin which runs a mutant costs and that a kill in the
model-less run is final while anything else falls back to the full selection.
"""

from __future__ import annotations

import argparse
from typing import Any

import pytest

from bench.mutation import suite_cmd, verdict

DAY = "2026-01-01"
RULE = "storage.put-object.etag-md5"  # a rule the model can fail


def _baseline() -> verdict.Baseline:
    run = verdict.Run(as_of=DAY, exit=0, has_results=True, statuses={RULE: "PASS"})
    return verdict.Baseline({DAY: run})


def _judge(monkeypatch: pytest.MonkeyPatch, args: argparse.Namespace, failing: list[bool]):
    """Judge with runs whose outcome is `failing[i]` (the i-th run FAILs RULE or passes)."""
    calls: list[bool] = []

    def fake(*_: Any, skip_model: bool = False) -> tuple[verdict.Run, str]:
        calls.append(skip_model)
        fails = failing[len(calls) - 1]
        run = verdict.Run(as_of=DAY, exit=1 if fails else 0, has_results=True, stop_first=True,
                          statuses={RULE: "FAIL" if fails else "PASS"},
                          failures={RULE: ["fail"]} if fails else {})  # fmt: skip
        return run, ""

    monkeypatch.setattr(suite_cmd, "_run", fake)
    return suite_cmd._judge(args, [], [DAY], _baseline()), calls


def _args(area: list[str], rule: list[str]) -> argparse.Namespace:
    return argparse.Namespace(area=area, rule=rule)


def test_a_kill_without_the_model_is_final(monkeypatch: pytest.MonkeyPatch) -> None:
    found, calls = _judge(monkeypatch, _args([], ["storage.put-object"]), [True])
    assert found.cls == verdict.KILLED and calls == [True]


def test_no_kill_without_the_model_runs_the_whole_selection(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    found, calls = _judge(monkeypatch, _args(["storage"], []), [False, True])
    assert found.cls == verdict.KILLED and calls == [True, False]
    found, calls = _judge(monkeypatch, _args(["storage"], []), [False, False])
    assert found.cls == verdict.SURVIVED and calls == [True, False]


def test_a_selection_without_model_rules_runs_once(monkeypatch: pytest.MonkeyPatch) -> None:
    found, calls = _judge(monkeypatch, _args([], ["storage.list-buckets"]), [False])
    assert found.cls == verdict.SURVIVED and calls == [False]
    found, calls = _judge(monkeypatch, _args(["gateway"], []), [True])
    assert found.cls == verdict.KILLED and calls == [False]
