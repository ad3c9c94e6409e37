"""A defect found by a review of 9788910 (fixed): sharding by pytest's own selection (`-k`,
docs/nightly.md "Scaling out") and merging never certified, where the unsharded run does.

Each `-k` shard records the other shard's tests as NOT-CHECKED cases with case "deselected"
(deselected.py); merge keys cases by (rule, node id, case), so the deselected record of a test
and the record of the same test run in the other shard were two cases, and the rule rolled up
NOT-CHECKED: a MUST rule whose every test passed blocks the merged certificate.
"""

from __future__ import annotations

from typing import Any

import pytest
from fake_catalog import conftest_source
from helpers.results_run import run_with_results

from conformance import results
from conformance.report.merge import merge_run

RULES = [{"id": "storage.must.kept"}]
TESTS = """
import pytest

@pytest.mark.rule("storage.must.kept")
def test_one():
    pass

@pytest.mark.rule("storage.must.kept")
def test_two():
    pass
"""


def _run(pytester: pytest.Pytester, name: str, *args: str) -> dict[str, Any]:
    _, doc = run_with_results(
        pytester, *args, conftest=conftest_source(RULES), modules={"test_shards": TESTS}, name=name
    )
    results.validate(doc)
    return doc


def test_unsharded_run_certifies(pytester: pytest.Pytester) -> None:
    assert results.verdict(_run(pytester, "all")) == results.CERTIFIED_VERDICT


def test_k_shards_merge_to_the_unsharded_verdict(pytester: pytest.Pytester) -> None:
    one = _run(pytester, "one", "-k", "test_one")
    two = _run(pytester, "two", "-k", "test_two")
    merged = merge_run([one, two], ["one", "two"])
    assert results.verdict(merged) == results.CERTIFIED_VERDICT, merged["rules"][0]["status"]
