"""The one status vocabulary (conformance.results.Status) agrees with the results schema, and
the report and history read their sets from it instead of spelling statuses again."""

from __future__ import annotations

import re
from pathlib import Path

import jsonschema
import pytest

from conformance import results
from conformance.report import load

PACKAGE = Path(results.__file__).parent
VOCABULARY = PACKAGE / "results.py"
# Code and templates of the package; the schemas are data the enum is pinned to below.
SOURCES = ("*.py", "*.j2", "*.js")
STATUS_NAMES = "|".join(re.escape(status.value) for status in results.Status)
# a status as a whole string literal; "N/A: reason" and prose in templates are not one
SPELLED = re.compile(rf"""["']({STATUS_NAMES})["']""")


def test_schema_enums_are_the_vocabulary() -> None:
    defs = results.load_schema()["$defs"]
    assert defs["case_status"]["enum"] == [s.value for s in results.CASE_STATUSES]
    assert defs["rule_status"]["enum"] == [s.value for s in results.RULE_STATUSES]
    assert {s.value for s in results.RULE_STATUSES} == {s.value for s in results.Status}


def test_every_status_has_a_summary_count() -> None:
    counted = results.load_schema()["$defs"]["counts"]["properties"]
    assert {s.key for s in results.Status} <= set(counted)
    order = [s.key for s in results.SUMMARY_ORDER]
    assert order == list(results._empty_counts())[: len(order)]


def test_no_module_spells_a_status_string() -> None:
    """Only results.py spells a status: everything else in conformance/ (suite, plugin, report,
    history, templates) names Status members or the named sets, so copies cannot drift apart."""
    sources = {path for pattern in SOURCES for path in PACKAGE.rglob(pattern)} - {VOCABULARY}
    assert len(sources) > 50  # the scan sees the package, not an empty glob
    found = {
        str(path.relative_to(PACKAGE)): SPELLED.findall(path.read_text(encoding="utf-8"))
        for path in sorted(sources)
    }
    assert {name: hits for name, hits in found.items() if hits} == {}


def test_the_scan_sees_a_spelled_status() -> None:
    assert SPELLED.findall("""x in ('N/A', "UNTESTED") or s == "NOT-CHECKED" """) == [
        "N/A", "UNTESTED", "NOT-CHECKED",
    ]  # fmt: skip
    assert not SPELLED.findall("""pytest.skip("N/A: not offered") or "PASSED" """)


def test_the_named_sets_mean_what_their_users_need() -> None:
    """The sets the old copies disagreed on (issue 24): FLAKY needs action and is scored, but
    does not fail the run's exit code (it passed on a rerun); the verdict's scope (RAN) is a
    test having run to a verdict, and what certifies a MUST rule is PASS or N/A only."""
    s = results.Status
    assert {s.FAIL, s.ERROR, s.XPASS} == results.EXIT_FAILING
    assert results.EXIT_FAILING | {s.FLAKY} == results.NEEDS_ACTION
    assert {s.PASS, s.FAIL, s.ERROR, s.FLAKY} == results.SCORED
    assert results.SCORED | {s.XFAIL, s.XPASS} == results.RAN
    assert {s.NA, s.UNTESTED, s.NOT_CHECKED} == results.NO_VERDICT
    assert {s.PASS, s.NA} == results.CERTIFIES
    assert not results.CERTIFIES & (results.NEEDS_ACTION | {s.UNTESTED, s.NOT_CHECKED})


def test_one_schema_check_for_writer_and_report() -> None:
    """The report's warnings and the writer's validation come from the same validator."""
    bad = {"schema_version": 1, "run": {}, "cases": [{"status": "MAYBE"}], "rules": []}
    problems = load.schema_problems(bad)
    assert problems and problems == results.schema_problems(bad)
    with pytest.raises(jsonschema.ValidationError):
        results.validate(bad)
