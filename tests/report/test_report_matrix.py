"""The matrix of several runs: rules x targets with per-target verdicts."""

from __future__ import annotations

from typing import Any

from report_helpers import well_formed_problems

from conformance.report.matrix import build_matrix, column_labels
from conformance.report.render import render_matrix


def test_matrix_has_a_row_per_rule_and_a_column_per_run(
    all_pass: dict[str, Any], mixed: dict[str, Any], older: dict[str, Any]
) -> None:
    """Rules of every run appear once; a rule missing from a run shows as absent."""
    matrix = build_matrix([all_pass, mixed, older])
    ids = [row.rule["id"] for row in matrix.rows]
    assert len(ids) == len(set(ids))
    assert "storage.delete-object.keys-not-trimmed" in ids  # only in the older run
    row = next(r for r in matrix.rows if r.rule["id"] == "gateway.jsonrpc.id-echo")
    assert [c.status for c in row.cells] == ["PASS", "FAIL", None]
    assert row.differs


def test_column_labels_disambiguate_same_target(
    mixed: dict[str, Any], older: dict[str, Any]
) -> None:
    """Two runs of one target are told apart by their as-of date."""
    assert column_labels([mixed, older]) == ["staging @ 2024-11-21", "staging @ 2024-11-20"]


def test_matrix_renders(all_pass: dict[str, Any], mixed: dict[str, Any]) -> None:
    """The page is well formed, escaped, and carries both verdicts."""
    html = render_matrix([all_pass, mixed])
    assert well_formed_problems(html) == []
    assert "✔ Certified" in html and "✘ Not certified" in html
    assert "<th>reference</th><th>staging</th>" in html
    assert 'id="f-differs"' in html
