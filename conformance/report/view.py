"""The view model of one results file: what the single-run report template shows.

Statuses, counts, scores and the verdict are taken as written in results.json (computed once,
by `conformance/results.py`); this module only arranges them for display.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from conformance.recorded import curl_command
from conformance.report.explain import Explanation, explain, spec_dir
from conformance.report.load import Results, status_slug
from conformance.report.scope import Scope, run_scope
from conformance.report.spec_links import decision_href, spec_href, spec_text
from conformance.report.timeline import Timeline, build_timeline
from conformance.report.triage import Group, triage
from conformance.results import (
    CERTIFIED_VERDICT,
    CERTIFIES,
    COUNT_ORDER,
    DISPLAY_ORDER,
    LEVELS,
    SCORED,
    UNTESTED,
    verdict,
)

AREA_ORDER = ("logs", "gateway", "storage")
# Count keys of summary.areas.AREA.LEVEL in bar order, with the status each one stands for.
BAR_PARTS = tuple((status.key, status.value) for status in COUNT_ORDER)
STATUS_ORDER = tuple(status.value for status in DISPLAY_ORDER)
EVIDENCE_HEADERS = 6


def pct(value: Any) -> str:
    """A score or coverage fraction (0..1) as a whole percentage; '-' when undefined."""
    if value is None:
        return "-"
    return f"{float(value) * 100:.0f}%"


@dataclass
class Segment:
    status: str
    slug: str
    count: int
    width: float  # percent of the bar


@dataclass
class LevelRow:
    level: str
    counts: dict[str, int]
    score: float | None
    coverage: float | None
    segments: list[Segment]
    total: int

    @property
    def judged(self) -> int:
        """Rules the score is taken over: PASS + FAIL + ERROR + FLAKY."""
        return sum(self.counts[status.key] for status in SCORED)


@dataclass
class AreaView:
    name: str
    levels: list[LevelRow]


@dataclass
class RuleView:
    rule: dict[str, Any]
    status: str
    slug: str
    cases: list[dict[str, Any]]
    spec_text: str
    spec_href: str | None
    decision_href: str | None
    search: str  # lowercased text the free-text filter matches
    explanation: Explanation | None = None
    previous: str | None = None  # --failed-from: the status in the earlier run


@dataclass
class ReportView:
    run: dict[str, Any]
    certified: bool
    areas: list[AreaView]
    rules: list[RuleView]
    verdict: str  # CERTIFIED, NOT CERTIFIED or NO VERDICT (conformance.results.verdict)
    timeline: Timeline | None
    status_counts: dict[str, int]
    scope: Scope
    blocking: list[RuleView] = field(default_factory=list)  # MUST, in force, tested, not PASS
    untested_must: int = 0  # MUST rules in force that no test names: they block too
    warnings: list[str] = field(default_factory=list)
    groups: list[Group] = field(default_factory=list)  # triage: failing rules by cause
    ledgers: list[str] = field(default_factory=list)  # implementations whose ledgers were read
    rerun_of: dict[str, Any] | None = None

    @property
    def area_names(self) -> list[str]:
        return [a.name for a in self.areas]


def area_sort_key(name: str) -> tuple[int, str]:
    return (AREA_ORDER.index(name) if name in AREA_ORDER else len(AREA_ORDER), name)


def level_row(level: str, counts_in: dict[str, Any]) -> LevelRow:
    counts = {key: int(counts_in.get(key) or 0) for key, _ in BAR_PARTS}
    total = sum(counts.values())
    segments = [
        Segment(status, status_slug(status), counts[key], 100 * counts[key] / total)
        for key, status in BAR_PARTS
        if counts[key] and total
    ]
    return LevelRow(
        level, counts, counts_in.get("score"), counts_in.get("coverage"), segments, total
    )


def build_areas(summary: dict[str, Any]) -> list[AreaView]:
    areas = summary.get("areas") or {}
    views = []
    for name in sorted(areas, key=area_sort_key):
        levels = areas[name] or {}
        ordered = [lv for lv in LEVELS if lv in levels] + sorted(set(levels) - set(LEVELS))
        views.append(AreaView(name, [level_row(lv, levels[lv] or {}) for lv in ordered]))
    return views


def _evidence(exchange: dict[str, Any], surface: str | None = None) -> dict[str, Any]:
    """One exchange trimmed to what a reader needs: request line, status, a few headers."""
    headers = dict(list((exchange.get("response_headers") or {}).items())[:EVIDENCE_HEADERS])
    request_headers = dict(list((exchange.get("request_headers") or {}).items())[:EVIDENCE_HEADERS])
    return {
        "request_line": f"{exchange.get('method', '?')} {exchange.get('url', '')}",
        "status": exchange.get("status"),
        "request_headers": request_headers,
        "response_headers": headers,
        "body": exchange.get("body_excerpt") or "",
        "request_body": exchange.get("request_body_excerpt") or "",
        "curl": curl_command(exchange, surface) if exchange.get("url") else "",
        "setup": bool(exchange.get("setup")),
        "left_out": exchange.get("left_out") if isinstance(exchange.get("left_out"), int) else 0,
    }


def _attempt(attempt: dict[str, Any]) -> dict[str, Any]:
    """One attempt of a rerun case (--rerun), evidence shown like a case's."""
    status = attempt.get("status")
    exchanges = [_evidence(e) for e in attempt.get("evidence") or []]
    return {"status": status, "slug": status_slug(status), "message": attempt.get("message"),
            "exchanges": exchanges}  # fmt: skip


def build_rules(
    doc: Results, spec_base: str | None, ledgers: dict[str, dict[str, str]] | None = None
) -> list[RuleView]:
    surfaces = {str(r.get("id")): r.get("surface") for r in doc.get("rules", [])}
    previous = ((doc.get("run") or {}).get("rerun_of") or {}).get("statuses") or {}
    folder = spec_dir(spec_base)
    cases_by_rule: dict[str, list[dict[str, Any]]] = {}
    for case in doc.get("cases", []):
        shown = dict(case)
        shown["slug"] = status_slug(case.get("status"))
        surface = surfaces.get(str(case.get("rule_id")))
        shown["exchanges"] = [_evidence(e, surface) for e in case.get("evidence") or []]
        shown["attempts"] = [_attempt(a) for a in case.get("attempts") or []]
        cases_by_rule.setdefault(str(case.get("rule_id")), []).append(shown)
    views = []
    for rule in doc.get("rules", []):
        status = str(rule.get("status") or UNTESTED)
        cases = cases_by_rule.get(str(rule.get("id")), [])
        text = spec_text(rule.get("spec"))
        search = " ".join(
            str(x)
            for x in (
                rule.get("id"),
                rule.get("title"),
                rule.get("operation"),
                rule.get("surface"),
                rule.get("reason"),
                text,
                *(c.get("message") for c in cases),
            )
            if x
        ).lower()
        views.append(
            RuleView(
                rule,
                status,
                status_slug(status),
                cases,
                text,
                spec_href(spec_base, rule.get("spec")),
                decision_href(spec_base, rule.get("decision")),
                search,
                explain(rule, cases, ledgers or {}, folder),
                previous.get(str(rule.get("id"))),
            )
        )
    return views


def build_view(
    doc: Results,
    spec_base: str | None = None,
    warnings: list[str] | None = None,
    ledgers: dict[str, dict[str, str]] | None = None,
) -> ReportView:
    """Arrange a results document for the single-run report."""
    summary = doc.get("summary") or {}
    rules = build_rules(doc, spec_base, ledgers)
    counts = {s: 0 for s in STATUS_ORDER}
    for rv in rules:
        counts[rv.status] = counts.get(rv.status, 0) + 1
    must = [rv for rv in rules if rv.rule.get("level") == "MUST"]
    # UNTESTED blocks too, and is counted on its own (untested_must)
    blocking = [rv for rv in must if rv.status not in CERTIFIES and rv.status != UNTESTED]
    return ReportView(
        run=doc.get("run") or {},
        # the verdict's word, not summary.certified: a run problem refuses whatever it says
        certified=verdict(doc) == CERTIFIED_VERDICT,
        areas=build_areas(summary),
        rules=rules,
        verdict=verdict(doc),
        timeline=build_timeline(doc.get("rules", []), str((doc.get("run") or {}).get("as_of"))),
        status_counts={k: v for k, v in counts.items() if v},
        scope=run_scope(doc),
        blocking=blocking,
        untested_must=sum(1 for rv in must if rv.status == UNTESTED),
        warnings=list(warnings or []),
        groups=triage(doc),
        ledgers=sorted(ledgers or {}),
        rerun_of=(doc.get("run") or {}).get("rerun_of"),
    )
