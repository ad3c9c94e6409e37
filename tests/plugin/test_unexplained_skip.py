"""A defect found by a hostile review (fixed, plugin/case_records.py): any skip read N/A.

N/A is the suite's judgement that a rule does not apply (DESIGN.md: with a reason, not in
force, surface not configured, ...), and it never blocks the certificate. A skip the suite did
not mean as one, pytest's own for a parametrization that came out empty, an importorskip of a
client library the machine lacks, a bare pytest.skip, turned a MUST rule N/A and the run
CERTIFIED without checking it. A skip is N/A only when it says `N/A: `; any other is
NOT-CHECKED (the check did not run), which refuses the certificate for a MUST rule.
"""

from __future__ import annotations

import pytest
from fake_catalog import conftest_source
from helpers.results_run import run_with_results

from conformance import results

RULES = [{"id": "storage.must.kept"}, {"id": "storage.must.other"}]
SKIPS = {
    "empty-parameters": """
@pytest.mark.rule("storage.must.kept")
@pytest.mark.parametrize("value", [])
def test_must(value):
    assert False
""",
    "importorskip": """
@pytest.mark.rule("storage.must.kept")
def test_must():
    pytest.importorskip("a_client_library_this_machine_lacks")
    assert False
""",
    "bare-skip": """
@pytest.mark.rule("storage.must.kept")
def test_must():
    pytest.skip("later")
""",
}
OTHER = """
@pytest.mark.rule("storage.must.other")
def test_other():
    pass
"""


@pytest.mark.parametrize("how", list(SKIPS))
def test_a_skip_without_na_reason_is_not_checked(pytester: pytest.Pytester, how: str) -> None:
    source = "import pytest\n" + SKIPS[how] + OTHER
    _, doc = run_with_results(pytester, source=source, conftest=conftest_source(RULES))
    results.validate(doc)
    rules = {rule["id"]: rule["status"] for rule in doc["rules"]}
    assert rules["storage.must.kept"] == results.NOT_CHECKED, doc["cases"]
    assert results.verdict(doc) == results.NOT_CERTIFIED_VERDICT


def test_a_skip_saying_na_is_still_na(pytester: pytest.Pytester) -> None:
    source = 'import pytest\n\n@pytest.mark.rule("storage.must.kept")\ndef test_must():\n'
    source += '    pytest.skip("N/A: surface not offered")\n' + OTHER
    _, doc = run_with_results(pytester, source=source, conftest=conftest_source(RULES))
    rules = {rule["id"]: rule["status"] for rule in doc["rules"]}
    assert rules["storage.must.kept"] == results.NA
    assert results.verdict(doc) == results.CERTIFIED_VERDICT
