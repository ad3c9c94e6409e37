"""An expectation covers its own rule only: a test xfailed whole for a SHOULD rule's known
failure must not make a MUST rule it also records read XFAIL (a MUST failure hidden, exit 0)
or XPASS ("fixed"). Each rule without an entry takes its own outcome."""

from __future__ import annotations

import json
from typing import Any

import pytest
from fake_catalog import conftest_source

from conformance import results
from conformance.cli_run import agree, run_exit_code

RULES = [
    {"id": "storage.must.kept"},
    {"id": "storage.should.broken", "level": "SHOULD"},
]
EXPECT_SHOULD = "storage.should.broken: {link: 'https://tracker.example/9'}\n"

TESTS = """
import pytest
from conformance.plugin.attribution import RuleFailure

@pytest.mark.rule("storage.must.kept", "storage.should.broken")
def test_{name}():
    {body}
"""


def _run(pytester: pytest.Pytester, body: str) -> dict[str, Any]:
    pytester.makeconftest(conftest_source(RULES))
    pytester.makepyfile(TESTS.format(name="shared", body=body))
    (pytester.path / "known.yaml").write_text(EXPECT_SHOULD)
    out = pytester.path / "results.json"
    known = str(pytester.path / "known.yaml")
    args = ("--results", str(out), "--as-of", "2024-01-01", "--expectations", known)
    rc = int(pytester.runpytest(*args).ret)
    doc: dict[str, Any] = json.loads(out.read_text())
    code, reasons = run_exit_code(doc, rc)
    agree(doc, code, reasons, rc)
    doc["_exit"] = code
    return doc


def _statuses(doc: dict[str, Any]) -> dict[str, str]:
    return {str(c["rule_id"]): str(c["status"]) for c in doc["cases"]}


def test_a_new_must_failure_is_not_hidden_by_a_should_expectation(
    pytester: pytest.Pytester,
) -> None:
    """MEDIUM: the MUST rule fails (named by RuleFailure); the SHOULD entry made it XFAIL and
    the run exit 0."""
    doc = _run(pytester, 'raise RuleFailure("storage.must.kept", "MUST broken")')
    assert _statuses(doc)["storage.must.kept"] == "FAIL"
    assert results.verdict(doc) == results.NOT_CERTIFIED_VERDICT
    assert doc["_exit"] == 1


def test_an_unattributed_failure_does_not_become_the_must_rules_known_failure(
    pytester: pytest.Pytester,
) -> None:
    """A plain assert names no rule: it may be the MUST rule's, so that rule is undecided."""
    doc = _run(pytester, 'assert False, "which rule?"')
    assert _statuses(doc)["storage.should.broken"] == "XFAIL"
    assert _statuses(doc)["storage.must.kept"] == "ERROR"
    assert doc["_exit"] == 1


def test_the_should_rules_known_failure_leaves_the_must_rule_not_checked(
    pytester: pytest.Pytester,
) -> None:
    """HIGH3: the SHOULD rule fails as expected; the MUST rule's checks after it did not run,
    so it is NOT-CHECKED (not XFAIL, and not a PASS nobody checked)."""
    doc = _run(pytester, 'raise RuleFailure("storage.should.broken", "SHOULD broken")')
    statuses = _statuses(doc)
    assert statuses["storage.should.broken"] == "XFAIL"
    assert statuses["storage.must.kept"] == "NOT-CHECKED"
    assert results.verdict(doc) == results.NOT_CERTIFIED_VERDICT


def test_a_passing_test_is_the_must_rules_pass_not_its_xpass(pytester: pytest.Pytester) -> None:
    """HIGH3: the SHOULD rule is fixed (XPASS, the run fails as strict xfails do); the MUST
    rule, never expected, read XPASS ("fixed") too."""
    doc = _run(pytester, "pass")
    statuses = _statuses(doc)
    assert statuses["storage.should.broken"] == "XPASS"
    assert statuses["storage.must.kept"] == "PASS"
    assert results.verdict(doc) == results.CERTIFIED_VERDICT


def test_a_passing_test_under_an_expectation_keeps_its_unchecked_rules_not_checked(
    pytester: pytest.Pytester,
) -> None:
    """Hostile review of 7970dd6: a test that said it never checked a rule
    (attribution.unchecked_rule) and passed under another rule's expectation (XPASS) made that
    rule PASS, as if checked (the store model under a SHOULD rule's known failure)."""
    unreached = "storage.must.kept"
    pytester.makeconftest(conftest_source(RULES))
    pytester.makepyfile(
        "import pytest\n"
        "from conformance.plugin.attribution import unchecked_rule\n\n"
        '@pytest.mark.rule("storage.must.kept", "storage.should.broken")\n'
        "def test_shared(record_property):\n"
        f'    record_property(*unchecked_rule("{unreached}", "never walked"))\n'
    )
    (pytester.path / "known.yaml").write_text(EXPECT_SHOULD)
    out = pytester.path / "results.json"
    known = str(pytester.path / "known.yaml")
    pytester.runpytest("--results", str(out), "--as-of", "2024-01-01", "--expectations", known)
    statuses = _statuses(json.loads(out.read_text()))
    assert statuses[unreached] == "NOT-CHECKED", statuses


UNCHECKED_EXPECTED = (
    "import pytest\n"
    "from conformance.plugin.attribution import RuleFailure, unchecked_rule\n\n"
    '@pytest.mark.rule("storage.must.kept", "storage.should.broken")\n'
    "def test_shared(record_property):\n"
    '    record_property(*unchecked_rule("storage.should.broken", "never walked"))\n'
    "    {body}\n"
)


@pytest.mark.parametrize(
    ("body", "must"),
    [("pass", "PASS"), ('raise RuleFailure("storage.must.kept", "MUST broken")', "FAIL")],
    ids=["test-passes", "another-rule-fails"],
)
def test_an_unchecked_rule_with_its_own_expectation_is_not_checked(
    pytester: pytest.Pytester, body: str, must: str
) -> None:
    """A rule the test never reached (attribution.unchecked_rule) read XPASS ("fixed", as if
    checked) when the test passed, and XFAIL when the test stopped on another rule's failure,
    because the rule had an expectation of its own: it is NOT-CHECKED whatever its
    expectation says; the rule the test did check keeps its outcome."""
    pytester.makeconftest(conftest_source(RULES))
    pytester.makepyfile(UNCHECKED_EXPECTED.replace("{body}", body))
    (pytester.path / "known.yaml").write_text(EXPECT_SHOULD)
    out = pytester.path / "results.json"
    known = str(pytester.path / "known.yaml")
    pytester.runpytest("--results", str(out), "--as-of", "2024-01-01", "--expectations", known)
    doc = json.loads(out.read_text())
    statuses = _statuses(doc)
    assert statuses["storage.should.broken"] == "NOT-CHECKED", statuses
    assert statuses["storage.must.kept"] == must, statuses
    case = next(c for c in doc["cases"] if c["rule_id"] == "storage.should.broken")
    assert "never walked" in case["message"]
    rules = {r["id"]: r["status"] for r in doc["rules"]}
    assert rules["storage.should.broken"] == "NOT-CHECKED", rules
