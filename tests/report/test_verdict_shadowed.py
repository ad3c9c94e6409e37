"""A SHOULD/MAY check failing inside a test that also records MUST rules (the MUST checks after
it did not run) refuses the certificate, however the run was split or loaded.

Shards are built as `conformance run` leaves them (roll-up, exit status, `agree`)."""

from __future__ import annotations

import copy
from typing import Any

from report_helpers import as_run, load

from conformance import results
from conformance.report.merge import merge_run

SHARED = "conformance/suite/storage/test_shared.py::test_should_then_must"


def _with_shadowing_test(doc: dict[str, Any]) -> dict[str, Any]:
    """The SHOULD rule fails in a test that also records a MUST rule (reads PASS)."""
    doc = copy.deepcopy(doc)
    should = next(r["id"] for r in doc["rules"] if r["level"] == "SHOULD")
    must = next(r["id"] for r in doc["rules"] if r["level"] == "MUST" and r["status"] == "PASS")
    doc["cases"] = [c for c in doc["cases"] if c["rule_id"] not in {should, must}]
    for rule_id, status in ((must, "PASS"), (should, "FAIL")):
        doc["cases"].append(
            {"rule_id": rule_id, "nodeid": SHARED, "case": "default", "status": status,
             "duration": 0.0, "evidence": [], "message": None}
        )  # fmt: skip
    return doc


def _split_by_test(doc: dict[str, Any]) -> list[dict[str, Any]]:
    """Two `-k` shards: the shared test alone, and every other test (all rules in each)."""
    one, other = copy.deepcopy(doc), copy.deepcopy(doc)
    one["cases"] = [c for c in doc["cases"] if c["nodeid"] == SHARED]
    other["cases"] = [c for c in doc["cases"] if c["nodeid"] != SHARED]
    return [one, other]


def test_merging_k_shards_keeps_the_shadowed_must_problem() -> None:
    """HIGH1: the shard running the shared test was NOT CERTIFIED already (its other MUST rules
    UNTESTED), so `agree` did not record the shadowed MUST rule; the merge read CERTIFIED."""
    whole = _with_shadowing_test(load("all-pass"))
    unsharded = as_run(whole)
    assert results.verdict(unsharded) == results.NOT_CERTIFIED_VERDICT
    shards = [as_run(part) for part in _split_by_test(whole)]
    merged = merge_run(shards, ["a", "b"])
    results.validate(merged)
    assert results.verdict(merged) == results.verdict(unsharded)
