"""Roll-up and scores (conformance/results.py) and the results.json schema."""

from __future__ import annotations

import copy
import datetime as dt
from typing import Any

import jsonschema
import pytest
from fake_catalog import DEFAULT_LIMITS, DEFAULT_RULES, build

from conformance import results
from conformance.plugin.options import Options
from conformance.plugin.results_file import build_document

AS_OF = dt.date(2024, 1, 1)
CATALOG = build(DEFAULT_RULES, DEFAULT_LIMITS)


def case(rule_id: str, status: str, message: str | None = None) -> dict[str, Any]:
    return {"rule_id": rule_id, "nodeid": f"t.py::{rule_id}", "case": "", "status": status,
            "message": message, "duration": 0.1, "evidence": []}  # fmt: skip


@pytest.mark.parametrize(
    ("statuses", "rolled"),
    [
        (["PASS", "FAIL", "ERROR"], "FAIL"),
        (["PASS", "ERROR", "XPASS"], "ERROR"),
        (["XFAIL", "XPASS"], "XPASS"),
        (["PASS", "XFAIL"], "XFAIL"),
        (["PASS", "N/A"], "PASS"),
        (["N/A", "N/A"], "N/A"),
    ],
)
def test_rule_status_is_worst_of_cases(statuses: list[str], rolled: str) -> None:
    rule = CATALOG.get("storage.put.ok")
    cases = [case(rule.id, s, "why") for s in statuses]
    assert results.rule_status(rule, cases, AS_OF, "reference")[0] == rolled


def test_untested_only_for_black_box_rules_in_force() -> None:
    assert results.rule_status(CATALOG.get("logs.untested"), [], AS_OF, "reference") == (
        "UNTESTED", "no test names this rule"
    )  # fmt: skip
    old = CATALOG.get("storage.delete.limit-old")
    assert results.rule_status(old, [], AS_OF, "reference") == (
        "N/A", "not in force at 2024-01-01 (until 2022-07-01)"
    )  # fmt: skip
    ref_only = CATALOG.get("storage.ref.internal")
    assert results.rule_status(ref_only, [], AS_OF, "staging")[0] == "N/A"


def test_scores_coverage_and_certification() -> None:
    rules = [CATALOG.get(i) for i in ("storage.put.ok", "storage.delete.limit-new",
                                      "storage.never", "gateway.chain.id")]  # fmt: skip
    cases = [case("storage.put.ok", "PASS"), case("storage.delete.limit-new", "FAIL", "no"),
             case("gateway.chain.id", "PASS")]  # fmt: skip
    records, summary = results.roll_up(rules, cases, AS_OF, "reference")
    assert [r["status"] for r in records] == ["PASS", "FAIL", "N/A", "PASS"]
    storage = summary["areas"]["storage"]["MUST"]
    assert (storage["pass"], storage["fail"], storage["na"]) == (1, 1, 1)
    assert storage["score"] == 0.5
    assert storage["coverage"] == 1.0  # not-testable rules do not count
    assert summary["areas"]["gateway"]["SHOULD"]["score"] == 1.0
    assert summary["certified"] is False
    _, summary = results.roll_up(rules, cases[:1] + cases[2:], AS_OF, "reference")
    assert summary["certified"] is False  # limit-new is UNTESTED now
    assert summary["areas"]["storage"]["MUST"]["coverage"] == 0.5
    _, summary = results.roll_up(rules[:1], cases[:1], AS_OF, "reference")
    assert summary["certified"] is True


def test_xfail_does_not_certify() -> None:
    rule = CATALOG.get("storage.put.ok")
    _, summary = results.roll_up([rule], [case(rule.id, "XFAIL", "known")], AS_OF, "reference")
    assert summary["certified"] is False
    assert summary["areas"]["storage"]["MUST"]["score"] is None


def _document() -> dict[str, Any]:
    options = Options("reference", None, AS_OF, (), (), None, {}, None)
    cases = [case("storage.put.ok", "PASS"), case("logs.create.ok", "N/A", "surface x")]
    return build_document(options, CATALOG, cases, run_id="r", started="2024-01-01T00:00:00+00:00",
                          finished="2024-01-01T00:01:00+00:00")  # fmt: skip


def test_built_document_is_valid() -> None:
    results.validate(_document())


@pytest.mark.parametrize(
    "break_it",
    [
        lambda d: d["cases"][0].update(status="MAYBE"),
        lambda d: d["cases"][0].pop("nodeid"),
        lambda d: d["cases"][1].update(message=None),  # N/A without a reason
        lambda d: d["rules"][0].update(status="SKIPPED"),
        lambda d: d["run"].pop("catalog_hash"),
        lambda d: d["summary"]["areas"]["storage"]["MUST"].update(score=1.5),
        lambda d: d.update(schema_version=2),
    ],
    ids=["status", "nodeid", "na-reason", "rule-status", "catalog-hash", "score", "version"],
)
def test_malformed_record_fails_the_schema(break_it: Any) -> None:
    document = copy.deepcopy(_document())
    break_it(document)
    with pytest.raises(jsonschema.ValidationError):
        results.validate(document)
