"""`not_checked(reason)` (conformance.suite.setup_check) records NOT-CHECKED, not N/A: from the
test body and from a fixture, rolled up to the rule, and the run is not certified."""

from __future__ import annotations

import json

import pytest

from conformance import results

SUITE = """
import pytest
from conformance.suite.setup_check import not_checked

@pytest.fixture
def zone_without_ruleset():
    not_checked("the zone already has its ruleset; a second is refused")

@pytest.mark.rule("storage.put.ok")
def test_passes():
    pass

@pytest.mark.rule("storage.put.ok")
def test_midnight_window():
    not_checked("the object was written minutes before midnight UTC: no window to test")

@pytest.mark.rule("logs.create.ok")
def test_precondition(zone_without_ruleset):
    pass

@pytest.mark.rule("gateway.chain.id")
def test_plain_skip_is_still_na():
    pytest.skip("N/A: network not offered by the target")
"""


def test_not_checked_is_its_own_status_in_results(suite: pytest.Pytester) -> None:
    suite.makepyfile(SUITE)
    out = suite.path / "results.json"
    suite.runpytest("--results", str(out), "--as-of", "2024-01-01")
    doc = json.loads(out.read_text())
    results.validate(doc)
    cases = {c["nodeid"].rsplit("::", 1)[1]: c for c in doc["cases"]}
    assert cases["test_passes"]["status"] == "PASS"
    assert cases["test_midnight_window"]["status"] == "NOT-CHECKED"
    assert cases["test_midnight_window"]["message"] == (
        "the object was written minutes before midnight UTC: no window to test"
    )
    assert cases["test_precondition"]["status"] == "NOT-CHECKED"
    assert cases["test_precondition"]["message"].startswith("the zone already has its ruleset")
    assert cases["test_plain_skip_is_still_na"]["status"] == "N/A"
    rules = {r["id"]: r["status"] for r in doc["rules"]}
    assert rules["storage.put.ok"] == "NOT-CHECKED"  # one case passed, one was not checked
    assert rules["logs.create.ok"] == "NOT-CHECKED"
    assert rules["gateway.chain.id"] == "N/A"
    assert doc["summary"]["areas"]["storage"]["MUST"]["not-checked"] == 1
    assert doc["summary"]["certified"] is False
