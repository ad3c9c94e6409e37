"""The matrix of several results files: rules x targets, like a browser compatibility table."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from conformance.report.load import Results, status_slug
from conformance.report.scope import Scope, run_scope
from conformance.report.spec_links import spec_href, spec_text
from conformance.report.view import AreaView, build_areas
from conformance.results import CERTIFIED_VERDICT, UNTESTED, verdict


@dataclass
class Column:
    label: str
    run: dict[str, Any]
    certified: bool
    areas: list[AreaView]
    scope: Scope
    verdict: str = ""  # CERTIFIED, NOT CERTIFIED or NO VERDICT


@dataclass
class Cell:
    status: str | None  # None: the rule is not in that run's catalog
    slug: str
    reason: str | None


@dataclass
class Row:
    rule: dict[str, Any]
    cells: list[Cell]
    differs: bool
    spec_text: str
    spec_href: str | None
    search: str


@dataclass
class Matrix:
    columns: list[Column]
    rows: list[Row]
    area_names: list[str]


def column_labels(docs: list[Results]) -> list[str]:
    """Target names, qualified by as-of date (then run id) where they would collide."""
    runs = [d.get("run") or {} for d in docs]
    labels = [str(r.get("target", "?")) for r in runs]
    for qualifier in ("as_of", "run_id"):
        if len(set(labels)) == len(labels):
            break
        labels = [
            f"{lab} @ {r.get(qualifier)}" if labels.count(lab) > 1 else lab
            for lab, r in zip(labels, runs, strict=True)
        ]
    return labels


def build_matrix(
    docs: list[Results], labels: list[str] | None = None, spec_base: str | None = None
) -> Matrix:
    labels = labels or column_labels(docs)
    columns = [
        Column(
            label,
            d.get("run") or {},
            verdict(d) == CERTIFIED_VERDICT,  # a run problem refuses what summary says
            build_areas(d.get("summary") or {}),
            run_scope(d),
            verdict(d),
        )
        for label, d in zip(labels, docs, strict=True)
    ]
    order: dict[str, dict[str, Any]] = {}
    per_doc: list[dict[str, dict[str, Any]]] = []
    for d in docs:
        rules = {str(r.get("id")): r for r in d.get("rules", [])}
        per_doc.append(rules)
        for rid, rule in rules.items():
            order.setdefault(rid, rule)
    rows = []
    for rid, rule in order.items():
        cells = []
        for rules in per_doc:
            found = rules.get(rid)
            status = str(found.get("status") or UNTESTED) if found else None
            cells.append(
                Cell(
                    status,
                    status_slug(status) if status else "absent",
                    found.get("reason") if found else None,
                )
            )
        text = spec_text(rule.get("spec"))
        rows.append(
            Row(
                rule,
                cells,
                len({c.status for c in cells}) > 1,
                text,
                spec_href(spec_base, rule.get("spec")),
                " ".join(
                    str(x) for x in (rid, rule.get("title"), rule.get("operation"), text) if x
                ).lower(),
            )
        )
    areas = sorted({str(r.rule.get("area")) for r in rows})
    return Matrix(columns, rows, areas)
