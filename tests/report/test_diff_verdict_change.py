"""`conformance diff` names a change of the overall verdict first, and losing the certificate
is a regression (exit 1) even when no rule went PASS -> FAIL: a run problem (a zone left
unrestored, pytest's own error) refuses the certificate without changing a rule status."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest
from report_helpers import RESULTS

from conformance.cli import main
from conformance.report.diff import diff_results, format_markdown

PROBLEM = {"kind": "pytest", "where": "session", "message": "interrupted", "rules": []}


def _with_problem(doc: dict[str, Any]) -> dict[str, Any]:
    doc = copy.deepcopy(doc)
    doc["run"]["problems"] = [PROBLEM]
    return doc


def test_losing_the_certificate_is_shown_first_and_exits_one(
    all_pass: dict[str, Any], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    new = tmp_path / "new.json"
    new.write_text(json.dumps(_with_problem(all_pass)))
    assert main(["diff", str(RESULTS / "all-pass.json"), str(new)]) == 1
    out = capsys.readouterr().out
    assert out.splitlines()[0] == "verdict: CERTIFIED → NOT CERTIFIED", out
    assert "CERTIFICATE LOST; no regressions" in out
    markdown = format_markdown(diff_results(all_pass, _with_problem(all_pass)))
    assert "verdict: CERTIFIED → NOT CERTIFIED" in markdown.split("- old:")[0], markdown


def test_gaining_the_certificate_is_shown_and_exits_zero(
    all_pass: dict[str, Any], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    old = tmp_path / "old.json"
    old.write_text(json.dumps(_with_problem(all_pass)))
    assert main(["diff", str(old), str(RESULTS / "all-pass.json")]) == 0
    assert capsys.readouterr().out.splitlines()[0] == "verdict: NOT CERTIFIED → CERTIFIED"


def test_an_unchanged_verdict_adds_no_line(capsys: pytest.CaptureFixture[str]) -> None:
    same = str(RESULTS / "all-pass.json")
    assert main(["diff", same, same]) == 0
    assert "verdict:" not in capsys.readouterr().out
