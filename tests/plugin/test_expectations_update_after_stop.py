"""A defect found by a review of 9788910 (fixed): `conformance expectations update` read a run
that `-x` stopped (results.json has the run problem "pytest -x/--maxfail ... the tests after it
did not run") as if it were whole: the known failure's test never ran, its rule read PASS on
its other test, and the update deleted the entry, link and reason included (lost data); the
next full run fails on it again as new."""

from __future__ import annotations

from pathlib import Path

import pytest
from fake_catalog import conftest_source
from helpers.results_run import run_with_results

from conformance.cli import main

RULES = [{"id": "storage.must.known"}, {"id": "storage.should.soft", "level": "SHOULD"}]
TESTS = """
import pytest

@pytest.mark.rule("storage.must.known")
def test_a_passes():
    pass

@pytest.mark.rule("storage.should.soft")
def test_b_should_fails():
    assert False, "SHOULD broken"

@pytest.mark.rule("storage.must.known")
def test_c_known_failure():
    assert False, "the known MUST failure"
"""
ENTRY = "storage.must.known: {status: FAIL, link: 'https://tracker.example/42'}\n"


def test_update_keeps_an_entry_whose_test_did_not_run(pytester: pytest.Pytester) -> None:
    known = pytester.path / "known.yaml"
    known.write_text(ENTRY)
    _, doc = run_with_results(
        pytester, "--expectations", str(known), "-x", source=TESTS, conftest=conftest_source(RULES)
    )
    assert doc["run"].get("problems")  # the run knows it was stopped
    main(["expectations", "update", str(pytester.path / "results.json"), "-o", str(known)])
    assert "storage.must.known" in Path(known).read_text()
