"""Applicability at the as-of date and on the target: N/A with a reason, or the test runs."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

DATED = """
import pytest

@pytest.mark.rule("storage.delete.limit-old")
def test_old(expected):
    assert expected.delete_objects_max_keys == 128

@pytest.mark.rule("storage.delete.limit-new")
def test_new(expected):
    assert expected.delete_objects_max_keys == 1000

@pytest.mark.rule("storage.delete.limit-old", "storage.delete.limit-new")
def test_either(as_of):
    pass
"""


def _results(path: Path) -> dict[str, Any]:
    doc: dict[str, Any] = json.loads(path.read_text())
    return doc


def test_rule_not_yet_in_force_is_na(suite: pytest.Pytester) -> None:
    suite.makepyfile(DATED)
    out = suite.path / "r.json"
    result = suite.runpytest("--as-of", "2022-05-01", "--results", str(out), "-rs")
    result.assert_outcomes(passed=2, skipped=1)
    result.stdout.fnmatch_lines(["*N/A: not in force at 2022-05-01 (since 2022-07-01)*"])
    cases = {(c["rule_id"], c["nodeid"].rpartition("::")[2]): c for c in _results(out)["cases"]}
    assert cases[("storage.delete.limit-new", "test_new")]["status"] == "N/A"
    assert cases[("storage.delete.limit-old", "test_old")]["status"] == "PASS"
    # a test of two rules records a case only for the one in force
    assert ("storage.delete.limit-old", "test_either") in cases
    assert ("storage.delete.limit-new", "test_either") not in cases


def test_rule_in_force_today_runs_and_old_one_is_na(suite: pytest.Pytester) -> None:
    suite.makepyfile(DATED)
    result = suite.runpytest("--as-of", "2024-01-01", "-rs")
    result.assert_outcomes(passed=2, skipped=1)
    result.stdout.fnmatch_lines(["*N/A: not in force at 2024-01-01 (until 2022-07-01)*"])


def test_reference_only_rule_is_na_on_another_target(suite: pytest.Pytester) -> None:
    suite.makefile(".toml", conformance='[targets.other.gateway]\nurl = "http://127.0.0.1:9"\n')
    suite.makepyfile(
        """
        import pytest

        @pytest.mark.rule("storage.ref.internal")
        def test_internal():
            pass
        """
    )
    result = suite.runpytest("--target", "other", "-rs")
    result.assert_outcomes(skipped=1)
    result.stdout.fnmatch_lines(["*N/A: reference-only rule on target 'other'*"])


def test_fixture_of_a_missing_surface_makes_the_test_na(suite: pytest.Pytester) -> None:
    suite.makefile(".toml", conformance='[targets.other.gateway]\nurl = "http://127.0.0.1:9"\n')
    suite.makepyfile(
        """
        import pytest

        @pytest.mark.rule("storage.put.ok")
        def test_put(s3):
            pass
        """
    )
    out = suite.path / "r.json"
    result = suite.runpytest("--target", "other", "--results", str(out), "-rs")
    result.assert_outcomes(skipped=1)
    result.stdout.fnmatch_lines(["*N/A: surface s3 not offered by target other*"])
    (case,) = _results(out)["cases"]
    assert case["status"] == "N/A"
    assert case["message"] == "surface s3 not offered by target other"
