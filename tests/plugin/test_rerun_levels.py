"""--rerun: a SHOULD check that flakes inside a test that also checks a MUST rule makes the
SHOULD rule FLAKY, not the MUST rule (HIGH4: the test's FLAKY leaked to every rule it records,
and a FLAKY MUST rule refused the certificate)."""

from __future__ import annotations

import pytest
from fake_catalog import conftest_source
from helpers.results_run import run_with_results

from conformance import results

RULES = [
    {"id": "storage.must.kept"},
    {"id": "storage.should.flaky", "level": "SHOULD"},
]

FLAKES = """
import pathlib
import pytest
from conformance.plugin.attribution import RuleFailure

def _attempt():
    path = pathlib.Path(__file__).with_name("count")
    n = int(path.read_text()) + 1 if path.exists() else 1
    path.write_text(str(n))
    return n

@pytest.mark.rule("storage.must.kept", "storage.should.flaky")
def test_shared():
    if _attempt() == 1:
        raise RuleFailure("storage.should.flaky", "the SHOULD check flaked")
"""

UNNAMED = FLAKES.replace('raise RuleFailure("storage.should.flaky", ', "assert False, (")


def _run(pytester: pytest.Pytester, source: str) -> dict[str, str]:
    _, doc = run_with_results(
        pytester, "--rerun", "1", source=source, conftest=conftest_source(RULES)
    )
    results.validate(doc)
    return {str(c["rule_id"]): str(c["status"]) for c in doc["cases"]}


def test_a_should_check_that_flaked_leaves_the_must_rule_pass(pytester: pytest.Pytester) -> None:
    statuses = _run(pytester, FLAKES)
    assert statuses == {"storage.should.flaky": "FLAKY", "storage.must.kept": "PASS"}


def test_an_unattributed_flake_is_every_rules_flake(pytester: pytest.Pytester) -> None:
    """A failed attempt that names no rule may be the MUST rule's: both are FLAKY."""
    statuses = _run(pytester, UNNAMED)
    assert statuses == {"storage.should.flaky": "FLAKY", "storage.must.kept": "FLAKY"}
