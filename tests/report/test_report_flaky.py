"""FLAKY (passed only on a rerun) in the report, the terminal summary, diff and merge."""

from __future__ import annotations

import copy
from typing import Any

from report_helpers import well_formed_problems, with_status

from conformance import results
from conformance.report.diff import diff_results
from conformance.report.merge import merge_run
from conformance.report.render import render_report
from conformance.report.summary import area_line

RULE = "storage.head-bucket.region-header"


def _flaky(doc: dict[str, Any]) -> dict[str, Any]:
    """`doc` with RULE's first case FLAKY (two attempts, each with its own evidence)."""
    doc = copy.deepcopy(doc)
    case = next(c for c in doc["cases"] if c["rule_id"] == RULE)
    exchange = {"method": "HEAD", "url": "http://t/ec-x", "status": 503, "request_headers": {},
                "response_headers": {}, "body_excerpt": ""}  # fmt: skip
    case.update(status="FLAKY", message="passed on attempt 2 of 2; attempt 1 was FAIL: boom")
    case["attempts"] = [
        {"status": "FAIL", "message": "boom", "evidence": [exchange]},
        {"status": "PASS", "message": None, "evidence": [dict(exchange, status=200)]},
    ]
    for rule in doc["rules"]:
        if rule["id"] == RULE:
            rule["status"] = "FLAKY"
    return doc


def test_report_shows_flaky_with_its_attempts(mixed: dict[str, Any]) -> None:
    html = render_report(_flaky(mixed))
    assert well_formed_problems(html) == []
    assert f'id="{RULE}" data-area="storage" data-status="flaky"' in html
    assert 'name="status" value="flaky"' in html  # a filter of its own
    assert '<span class="badge s-flaky">FLAKY</span>' in html  # legend and badges
    attempts = html[html.index('<details class="attempts">') :]
    assert "2 attempts" in attempts
    assert "HEAD http://t/ec-x → 503" in attempts and "HEAD http://t/ec-x → 200" in attempts


def test_summary_line_counts_flaky_as_judged_not_passed() -> None:
    level = {"pass": 3, "fail": 0, "error": 0, "flaky": 1, "score": 0.75, "coverage": 1.0}
    line = area_line("storage", {"MUST": level})
    assert "MUST 3/4 PASS" in line and "FLAKY 1" in line


def test_roll_up_flaky_is_not_a_pass(mixed: dict[str, Any]) -> None:
    merged = merge_run([_flaky(mixed)], ["a"])
    results.validate(merged)
    assert {r["id"]: r["status"] for r in merged["rules"]}[RULE] == "FLAKY"
    assert merged["summary"]["areas"]["storage"]["MUST"]["flaky"] == 1
    assert merged["summary"]["certified"] is False


def test_merge_keeps_flaky_over_pass_and_fail_over_flaky(mixed: dict[str, Any]) -> None:
    passing = with_status(mixed, RULE, "PASS")
    merged = merge_run([passing, _flaky(mixed)], ["a", "b"])
    assert {r["id"]: r["status"] for r in merged["rules"]}[RULE] == "FLAKY"
    kept = next(c for c in merged["cases"] if c["rule_id"] == RULE and c["status"] == "FLAKY")
    assert len(kept["attempts"]) == 2
    merged = merge_run([_flaky(mixed), with_status(mixed, RULE, "FAIL")], ["a", "b"])
    assert {r["id"]: r["status"] for r in merged["rules"]}[RULE] == "FAIL"


def test_diff_lists_flaky_apart_and_flaky_to_fail_is_a_regression(mixed: dict[str, Any]) -> None:
    passing, flaky = with_status(mixed, RULE, "PASS"), _flaky(mixed)
    d = diff_results(passing, flaky)
    assert [c.rule_id for c in d.flaky] == [RULE]
    assert RULE not in {c.rule_id for c in d.regressions}
    assert d.flaky[0].message and "attempt 1 was FAIL" in d.flaky[0].message
    d = diff_results(flaky, with_status(mixed, RULE, "FAIL"))
    assert RULE in {c.rule_id for c in d.regressions}
