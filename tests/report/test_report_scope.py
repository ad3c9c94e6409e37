"""The verdict's scope: a partial target is certified only for the surfaces it was judged on."""

from __future__ import annotations

import copy
from typing import Any

from conformance.report.matrix import build_matrix
from conformance.report.render import render_matrix, render_report
from conformance.report.scope import run_scope
from conformance.report.summary import summary_lines


def only_surface(doc: dict[str, Any], keep: str) -> dict[str, Any]:
    """A copy of `doc` in which every rule outside `keep` (area/surface) is N/A."""
    doc = copy.deepcopy(doc)
    for rule in doc["rules"]:
        if f"{rule['area']}/{rule['surface']}" != keep:
            rule["status"] = "N/A"
    return doc


def test_scope_separates_judged_surfaces_from_all_na_ones(mixed: dict[str, Any]) -> None:
    """A surface with any PASS, FAIL, ERROR or XFAIL is checked; an all-N/A one is not."""
    scope = run_scope(mixed, universe=())
    assert scope.checked == ("gateway/jsonrpc", "logs/rules-api", "storage/s3")
    assert scope.not_checked == ("storage/public",)
    assert not scope.complete
    assert scope.phrase().startswith("3 of 4 surfaces (gateway/jsonrpc, ")
    assert scope.phrase().endswith("not checked: storage/public")


def test_full_scope_reads_as_all_surfaces(all_pass: dict[str, Any]) -> None:
    """A run that judged every surface says so, without a list."""
    scope = run_scope(all_pass, universe=())
    assert scope.complete
    assert scope.phrase() == "all 4 surfaces"


def test_surfaces_a_selection_left_out_count_as_not_checked(all_pass: dict[str, Any]) -> None:
    """An `--area` run records only its own rules; the catalog supplies the rest of the scope."""
    gateway_only = copy.deepcopy(all_pass)
    gateway_only["rules"] = [r for r in all_pass["rules"] if r["area"] == "gateway"]
    scope = run_scope(gateway_only)
    assert scope.checked == ("gateway/jsonrpc",)
    assert {"storage/s3", "storage/bindings", "logs/rules-api"} <= set(scope.not_checked)
    assert scope.phrase().startswith(f"1 of {1 + len(scope.not_checked)} surfaces")
    assert run_scope(gateway_only, universe=()).phrase() == "its only surface, gateway/jsonrpc"


def test_partial_target_verdict_names_its_scope(all_pass: dict[str, Any]) -> None:
    """A certified run of one surface says, in the page and the terminal, what it covers."""
    doc = only_surface(all_pass, "storage/s3")
    html = render_report(doc)
    head = html[: html.index('id="scores"')]
    assert 'id="scope" class="scope partial"' in head
    assert "1 of " in head and "storage/s3" in head and "says nothing about" in head
    verdict = summary_lines(doc)[-1]
    assert verdict.startswith("verdict: CERTIFIED at MUST level, for 1 of ")
    assert "not checked: " in verdict


def test_matrix_columns_carry_their_scope(all_pass: dict[str, Any]) -> None:
    """Each target card of the matrix states the surfaces its verdict is for."""
    partial = only_surface(all_pass, "storage/s3")
    partial["run"] = dict(partial["run"], target="s3-only")
    matrix = build_matrix([all_pass, partial])
    full, narrow = (column.scope for column in matrix.columns)
    assert len(full.checked) == 4 and narrow.checked == ("storage/s3",)
    html = render_matrix([all_pass, partial])
    assert html.count('class="scope muted"') == 2
    assert "not checked: " in html
