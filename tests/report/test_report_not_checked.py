"""NOT-CHECKED (issue 23 item 5) through merge, roll-up, the HTML report, the terminal summary,
diff and `conformance run`'s exit: never a pass, never a regression, not N/A."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest
from report_helpers import well_formed_problems, with_status

from conformance import results
from conformance.cli import main
from conformance.cli_run import uncertified_must
from conformance.report.diff import diff_results, format_markdown, format_text
from conformance.report.merge import merge_run
from conformance.report.render import render_report
from conformance.report.scope import run_scope
from conformance.report.summary import summary_lines
from conformance.report.view import build_view

RULE = "storage.put-object.round-trip"  # MUST, one case, PASS in all-pass.json


def not_checked(doc: dict[str, Any], rule_id: str = RULE) -> dict[str, Any]:
    """`doc` with one rule's cases NOT-CHECKED, rolled up again as a merge does."""
    changed = with_status(doc, rule_id, "NOT-CHECKED")
    for case in changed["cases"]:
        if case["rule_id"] == rule_id:
            case["message"] = "the object was written minutes before midnight UTC"
    return merge_run([changed], ["one"])


def test_merge_rolls_a_not_checked_rule_up_and_it_does_not_certify(
    all_pass: dict[str, Any],
) -> None:
    doc = not_checked(all_pass)
    results.validate(doc)
    rule = next(r for r in doc["rules"] if r["id"] == RULE)
    assert rule["status"] == "NOT-CHECKED"
    assert rule["reason"] == "the object was written minutes before midnight UTC"
    must = doc["summary"]["areas"]["storage"]["MUST"]
    before = all_pass["summary"]["areas"]["storage"]["MUST"]
    assert must["not-checked"] == 1 and must["pass"] == before["pass"] - 1
    assert must["score"] == 1.0  # not in the score's denominator, as UNTESTED
    assert must["coverage"] < before["coverage"]  # but not "tested" either
    assert doc["summary"]["certified"] is False  # a MUST rule nobody checked blocks


def test_a_not_checked_case_keeps_its_rule_from_pass(all_pass: dict[str, Any]) -> None:
    """Two shards: one case PASS, its twin NOT-CHECKED: the rule is NOT-CHECKED; with a FAIL
    twin it is FAIL (worst first: FAIL > ... > XFAIL > NOT-CHECKED > PASS)."""
    case = next(c for c in all_pass["cases"] if c["rule_id"] == RULE)
    for twin_status, rolled in (("NOT-CHECKED", "NOT-CHECKED"), ("FAIL", "FAIL")):
        twin = copy.deepcopy(all_pass)
        twin["cases"] = [dict(case, nodeid=case["nodeid"] + "2", status=twin_status, message="x")]
        merged = merge_run([all_pass, twin], ["a", "b"])
        assert {r["id"]: r["status"] for r in merged["rules"]}[RULE] == rolled
    assert results.worst(["PASS", "NOT-CHECKED", "N/A"]) == "NOT-CHECKED"


def test_report_shows_it_with_its_own_label_colour_and_count(all_pass: dict[str, Any]) -> None:
    doc = not_checked(all_pass)
    view = build_view(doc)
    assert view.status_counts["NOT-CHECKED"] == 1
    assert [rv.rule["id"] for rv in view.blocking] == [RULE]
    assert view.untested_must == 0
    html = render_report(doc)
    assert well_formed_problems(html) == []
    assert 'data-status="not-checked"' in html
    assert 'class="badge s-not-checked"' in html
    assert ".s-not-checked {" in html  # its own colour in the inlined CSS
    assert 'value="not-checked" checked> NOT-CHECKED (1)' in html
    assert "NOT-CHECKED 1" in html  # the level row's count
    assert "✘ Not certified at MUST level" in html


def test_terminal_summary_scope_and_exit(all_pass: dict[str, Any]) -> None:
    doc = not_checked(all_pass)
    lines = summary_lines(doc)
    storage = next(line for line in lines if line.startswith("storage"))
    assert "NOT-CHECKED 1" in storage
    assert lines[-1].startswith("verdict: NOT CERTIFIED at MUST level")
    assert uncertified_must(doc) == "1 NOT-CHECKED"  # `conformance run` exits 1, says why
    assert not results.EXIT_FAILING & {c["status"] for c in doc["cases"]}


def test_scope_counts_a_surface_only_not_checked_as_not_checked(
    all_pass: dict[str, Any],
) -> None:
    doc = all_pass
    for rule in [r for r in all_pass["rules"] if r["area"] == "gateway"]:
        doc = with_status(doc, rule["id"], "NOT-CHECKED")
    assert any(s.startswith("gateway/") for s in run_scope(doc, ["gateway/jsonrpc"]).not_checked)


def test_diff_lists_pass_to_not_checked_apart_never_as_a_regression(
    all_pass: dict[str, Any], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    new = not_checked(all_pass)
    d = diff_results(all_pass, new)
    assert d.regressions == [] and d.fixes == [] and d.other == []
    (change,) = d.not_checked
    assert (change.rule_id, change.old, change.new) == (RULE, "PASS", "NOT-CHECKED")
    assert change.message == "the object was written minutes before midnight UTC"
    assert "Not checked in the new run" in format_text(d)
    assert "no regressions: 0 regressions, 0 fixes, 0 flaky, 1 not-checked" in format_text(d)
    assert f"| `{RULE}` | MUST | PASS | NOT-CHECKED |" in format_markdown(d)
    old_path, new_path = tmp_path / "old.json", tmp_path / "new.json"
    old_path.write_text(json.dumps(all_pass))
    new_path.write_text(json.dumps(new))
    # no rule regressed, but the MUST rule NOT-CHECKED lost the certificate: exit 1
    assert main(["diff", str(old_path), str(new_path)]) == 1
    # and back: NOT-CHECKED -> PASS is no fix (nothing was broken), an "other" change
    back = diff_results(new, all_pass)
    assert back.fixes == [] and [c.rule_id for c in back.other] == [RULE]
    capsys.readouterr()
