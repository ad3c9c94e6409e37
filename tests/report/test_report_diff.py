"""Run-to-run diff: regressions fail, everything else is information."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from report_helpers import RESULTS, with_status

from conformance.cli import main
from conformance.report.diff import diff_results, format_markdown, format_text


def test_diff_finds_regressions_fixes_and_catalog_changes(
    older: dict[str, Any], mixed: dict[str, Any]
) -> None:
    """PASS -> FAIL/ERROR is a regression; FAIL -> PASS a fix; ids come and go."""
    d = diff_results(older, mixed)
    assert {c.rule_id for c in d.regressions} == {
        "storage.head-bucket.region-header", "storage.delete-objects.key-limit",
        "gateway.jsonrpc.block-number",
    }  # fmt: skip
    assert [c.rule_id for c in d.fixes] == ["logs.rulesets.create"]
    assert [(c.rule_id, c.new) for c in d.other] == [("logs.rulesets.put-custom-fields", "XFAIL")]
    assert [c.rule_id for c in d.added] == ["gateway.jsonrpc.id-echo"]
    assert [c.rule_id for c in d.removed] == ["storage.delete-object.keys-not-trimmed"]
    assert d.has_regressions


def test_constructed_regression_exits_one(
    all_pass: dict[str, Any], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """One rule flipped from PASS to FAIL makes `conformance diff` exit 1 and name it."""
    new = tmp_path / "new.json"
    new.write_text(json.dumps(with_status(all_pass, "storage.auth.bad-signature", "FAIL")))
    assert main(["diff", str(RESULTS / "all-pass.json"), str(new)]) == 1
    out = capsys.readouterr().out
    assert "storage.auth.bad-signature" in out and "REGRESSED" in out


def test_no_regression_exits_zero(
    tmp_path: Path, all_pass: dict[str, Any], capsys: pytest.CaptureFixture[str]
) -> None:
    """Same statuses, or only fixes, exit 0."""
    same = str(RESULTS / "all-pass.json")
    assert main(["diff", same, same]) == 0
    old = tmp_path / "old.json"
    old.write_text(json.dumps(with_status(all_pass, "storage.auth.bad-signature", "ERROR")))
    assert main(["diff", str(old), same]) == 0
    assert "Fixes (FAIL/ERROR → PASS): 1" in capsys.readouterr().out


def test_markdown_format(
    older: dict[str, Any], mixed: dict[str, Any], capsys: pytest.CaptureFixture[str]
) -> None:
    """Markdown has a table per section, with cell text made safe."""
    md = format_markdown(diff_results(older, mixed))
    assert "### Regressions (PASS → FAIL/ERROR)" in md
    assert "| `storage.head-bucket.region-header` | MUST | PASS | FAIL |" in md
    assert "<script>" not in md and "&lt;script&gt;" in md
    code = main(
        ["diff", str(RESULTS / "older.json"), str(RESULTS / "mixed.json"), "--format", "markdown"]
    )
    assert code == 1 and capsys.readouterr().out.startswith("## Conformance diff: staging")
    assert "REGRESSED" in format_text(diff_results(older, mixed))


def test_unreadable_input_exits_two(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A missing or non-results file is a usage problem, not a regression."""
    bad = tmp_path / "bad.json"
    bad.write_text("[1, 2]")
    assert main(["diff", str(bad), str(RESULTS / "mixed.json")]) == 2
    assert main(["diff", str(tmp_path / "nope.json"), str(RESULTS / "mixed.json")]) == 2
    assert "no such results file" in capsys.readouterr().err
