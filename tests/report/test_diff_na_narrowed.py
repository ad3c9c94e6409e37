"""A defect found by a hostile review (fixed, conformance/report/diff.py): a MUST rule PASS in a
certified run and N/A in the next (same target, as-of date, compat state and catalog) did not
fail `conformance diff`: a targets file that stopped declaring a surface (or a second account,
or a reference profile that hides an optional behaviour) turned the surface's MUST rules N/A,
both runs read CERTIFIED, and the diff said "no regressions" and exited 0, listing them among
"other status changes" (the mgmt surface of the reference's run: 16 changes, 9 of MUST rules).
It is the same narrowing as a rule left out of the run (tests/report/test_diff_left_out_rules.py).
A rule N/A because it left its date window, or the compat state, the target or the catalog
changed, is not; a rule still in force that turned N/A on another date is (a nightly run).
"""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest
from report_helpers import RESULTS

from conformance.cli import main
from conformance.report.diff import diff_results

RULE = "storage.put-object.round-trip"
REASON = "surface s3 not offered by target reference"


def _na(doc: dict[str, Any], **run: Any) -> dict[str, Any]:
    doc = copy.deepcopy(doc)
    for rule in doc["rules"]:
        if rule["id"] == RULE:
            rule["status"], rule["reason"] = "N/A", REASON
    for case in doc["cases"]:
        if case["rule_id"] == RULE:
            case["status"], case["message"] = "N/A", REASON
    flags = run.pop("flags", {})
    doc["run"].update(run)
    doc["run"]["flags"].update(flags)
    return doc


def test_a_must_rule_turned_na_narrows_the_certificate(
    all_pass: dict[str, Any], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    new = tmp_path / "new.json"
    new.write_text(json.dumps(_na(all_pass)))
    assert main(["diff", str(RESULTS / "all-pass.json"), str(new)]) == 1
    out = capsys.readouterr().out
    assert RULE in out and REASON in out and "CERTIFICATE NARROWED" in out, out


@pytest.mark.parametrize(
    "run",
    [{"target": "other"}, {"catalog_hash": "sha256:another"},
     {"flags": {"compat_date": "2024-12-01"}}, {"flags": {"compat_flag": ["some_flag"]}}],
    ids=["target", "catalog", "compat-date", "compat-flag"],
)  # fmt: skip
def test_na_from_another_target_catalog_or_compat_state_does_not(
    all_pass: dict[str, Any], run: dict[str, Any]
) -> None:
    change = diff_results(all_pass, _na(all_pass, **run))
    assert [c.rule_id for c in change.other] == [RULE]
    assert not change.left_out and not change.fails


def test_on_another_date_a_rule_still_in_force_narrows_one_out_of_its_window_does_not(
    all_pass: dict[str, Any],
) -> None:
    """A nightly `today` run moves the date every night: a surface dropped overnight still
    narrows the certificate; a rule whose window closed (a dated change) does not."""
    dropped = diff_results(all_pass, _na(all_pass, as_of="2024-11-21"))
    assert [c.rule_id for c in dropped.left_out] == [RULE] and dropped.fails
    closed = _na(all_pass, as_of="2024-11-21")
    for rule in closed["rules"]:
        if rule["id"] == RULE:
            rule["reason"] = "not in force at 2024-11-21 (until 2024-11-20)"
    change = diff_results(all_pass, closed)
    assert [c.rule_id for c in change.other] == [RULE]
    assert not change.left_out and not change.fails


@pytest.mark.parametrize(
    "reason",
    [
        "the model encodes the behaviour in force from 2024-11-21",
        "PutObject by POST is not in force before 2024-11-21",
        "compatibility flag r2_list_honor_include is on (compat date 2024-11-21, flags [])",
        "compat date 2024-11-21 is past the contested window",
    ],
    ids=["model-baseline", "test-date-skip", "compat-flag-from-date", "compat-window"],
)
def test_on_another_date_an_na_that_follows_the_date_does_not_narrow(
    all_pass: dict[str, Any], reason: str
) -> None:
    """Hostile review of 4f99bea: 'not in force at' is not the only N/A the date decides. A
    test's own dated skip (the store model's baseline, PutObject by POST) and, when neither
    run pinned --compat-date (the compat date is then the as-of date), a compatibility flag
    that the new date turned on, made a nightly diff fail on a certificate that did not
    narrow."""
    moved = _na(all_pass, as_of="2024-11-21")
    for rule in moved["rules"]:
        if rule["id"] == RULE:
            rule["reason"] = reason
    change = diff_results(all_pass, moved)
    assert [c.rule_id for c in change.other] == [RULE]
    assert not change.left_out and not change.fails


def test_a_compat_na_on_the_same_date_with_a_pinned_compat_date_still_narrows(
    all_pass: dict[str, Any],
) -> None:
    """A compat reason is the date's doing only when the compat date moved with it: with
    --compat-date pinned in both runs, the flag's state did not change."""
    pinned = copy.deepcopy(all_pass)
    pinned["run"]["flags"]["compat_date"] = "2024-01-01"
    moved = _na(pinned, as_of="2024-11-21")
    for rule in moved["rules"]:
        if rule["id"] == RULE:
            rule["reason"] = "compatibility flag f is on (compat date 2024-01-01, flags [])"
    change = diff_results(pinned, moved)
    assert [c.rule_id for c in change.left_out] == [RULE] and change.fails
