"""Expectations per target: known failures become strict xfails; a fix shows up as XPASS."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from conformance.model import expectations as core

TESTS = """
import pytest

@pytest.mark.rule("storage.put.ok")
def test_put_breaks():
    assert False, "target says 500"

@pytest.mark.rule("logs.create.ok")
def test_create_fixed():
    pass

@pytest.mark.rule("storage.delete.limit-old")
def test_old_rule():
    assert False

@pytest.mark.rule("gateway.chain.id")
def test_chain_ok():
    pass
"""

EXPECTED = """
storage.put.ok: {status: FAIL, link: "https://tracker.example/1", reason: returns 500}
logs.create.ok: {link: "https://tracker.example/2"}
storage.delete.limit-old: {reason: only before 2022-07-01}
"""


def _run(suite: pytest.Pytester, *args: str) -> tuple[pytest.RunResult, dict[str, Any]]:
    suite.makepyfile(TESTS)
    out = suite.path / "results.json"
    result = suite.runpytest("--results", str(out), "--as-of", "2024-01-01", *args)
    return result, json.loads(out.read_text())


def _cases(doc: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {c["rule_id"]: c for c in doc["cases"]}


def test_default_file_for_the_target_is_used(suite: pytest.Pytester) -> None:
    (suite.path / "expectations").mkdir()
    (suite.path / "expectations" / "reference.yaml").write_text(EXPECTED)
    result, doc = _run(suite)
    cases = _cases(doc)
    assert cases["storage.put.ok"]["status"] == "XFAIL"
    assert "returns 500" in cases["storage.put.ok"]["message"]
    assert cases["storage.put.ok"]["link"] == "https://tracker.example/1"
    assert cases["logs.create.ok"]["status"] == "XPASS"  # fixed: the run must say so
    assert cases["logs.create.ok"]["link"] == "https://tracker.example/2"
    assert cases["storage.delete.limit-old"]["status"] == "N/A"  # not expected when N/A
    assert cases["gateway.chain.id"]["status"] == "PASS"
    rules = {r["id"]: r["status"] for r in doc["rules"]}
    assert rules["storage.put.ok"] == "XFAIL"
    assert result.ret == pytest.ExitCode.TESTS_FAILED  # strict: the XPASS fails the run
    result.assert_outcomes(xfailed=1, failed=1, passed=1, skipped=1)


def test_explicit_path_and_other_target_default_ignored(suite: pytest.Pytester) -> None:
    (suite.path / "expectations").mkdir()
    (suite.path / "expectations" / "other.yaml").write_text(EXPECTED)
    _, doc = _run(suite)
    assert _cases(doc)["storage.put.ok"]["status"] == "FAIL"  # reference.yaml absent
    known = suite.path / "known.yaml"
    known.write_text("storage.put.ok: {link: 'https://t/3'}\n")
    result, doc = _run(suite, "--expectations", str(known))
    assert _cases(doc)["storage.put.ok"]["status"] == "XFAIL"
    assert result.ret == pytest.ExitCode.OK


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ("storage.put.okk: {}\n", "did you mean 'storage.put.ok'"),
        ("storage.put.ok: {status: PASS}\n", "expected FAIL or ERROR"),
        ("storage.put.ok: {url: x}\n", "unknown keys"),
        ("- storage.put.ok\n", "expected a mapping"),
    ],
)
def test_bad_files_are_usage_errors(suite: pytest.Pytester, content: str, message: str) -> None:
    suite.makepyfile(TESTS)
    path = suite.path / "bad.yaml"
    path.write_text(content)
    result = suite.runpytest("--expectations", str(path))
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines([f"*{message}*"])


def test_missing_explicit_file_is_a_usage_error(suite: pytest.Pytester) -> None:
    suite.makepyfile(TESTS)
    result = suite.runpytest("--expectations", "nope.yaml")
    assert result.ret == pytest.ExitCode.USAGE_ERROR


def _doc(statuses: dict[str, str]) -> dict[str, Any]:
    return {"rules": [{"id": k, "status": v, "reason": f"why {k}"} for k, v in statuses.items()]}


def test_update_keeps_links_adds_failures_drops_fixes(tmp_path: Path) -> None:
    existing = {
        "a.kept": core.Expectation("a.kept", "FAIL", "https://t/1", "known"),
        "b.fixed": core.Expectation("b.fixed", "FAIL", "https://t/2", None),
        "c.not-run": core.Expectation("c.not-run", "ERROR", None, "elsewhere"),
    }
    doc = _doc({"a.kept": "XFAIL", "b.fixed": "XPASS", "d.new": "ERROR", "e.ok": "PASS"})
    change = core.update(existing, doc)
    assert change.added == ["d.new"] and change.removed == ["b.fixed"]
    assert change.kept == ["a.kept", "c.not-run"]
    assert change.expectations["a.kept"].link == "https://t/1"
    assert change.expectations["d.new"] == core.Expectation("d.new", "ERROR", None, "why d.new")
    path = tmp_path / "x.yaml"
    path.write_text(core.dump(change.expectations, "x"))
    assert core.load(path) == change.expectations


PARTLY_BROKEN = """
import pytest

@pytest.mark.rule("storage.put.ok")
def test_put_small_breaks():
    assert False, "target says 500"

@pytest.mark.rule("storage.put.ok")
def test_put_large_works():
    pass
"""


def test_a_rule_still_failing_in_one_test_stays_expected(suite: pytest.Pytester) -> None:
    """One test of an expected rule passes, another still fails: the rule is not fixed, and
    `expectations update` keeps it (it dropped the entry, so the next run FAILed; hostile
    review)."""
    suite.makepyfile(PARTLY_BROKEN)
    (suite.path / "expectations").mkdir()
    (suite.path / "expectations" / "reference.yaml").write_text(EXPECTED)
    out = suite.path / "results.json"
    suite.runpytest("--results", str(out), "--as-of", "2024-01-01")
    doc = json.loads(out.read_text())
    assert sorted(c["status"] for c in doc["cases"]) == ["XFAIL", "XPASS"]
    rule = next(r for r in doc["rules"] if r["id"] == "storage.put.ok")
    assert rule["status"] == "XPASS", rule  # the run says part of it passes now
    existing = core.load(suite.path / "expectations" / "reference.yaml")
    change = core.update(existing, doc)
    assert "storage.put.ok" in change.kept and "storage.put.ok" not in change.removed
