"""Terminal summary of a run: one line per area and the verdict, as `conformance run` prints."""

from __future__ import annotations

from typing import Any

from conformance.report.load import Results, failing_cases
from conformance.report.scope import run_scope
from conformance.report.view import area_sort_key, pct
from conformance.results import (
    COUNT_ORDER,
    LEVELS,
    NO_VERDICT_VERDICT,
    PASS,
    SCORED,
    Status,
    verdict,
)

COUNT_KEYS = tuple(status.key for status in COUNT_ORDER)
# the totals shown after the MUST level, in this order
TROUBLE = (Status.FAIL, Status.ERROR, Status.FLAKY, Status.XPASS, Status.XFAIL,
           Status.NOT_CHECKED, Status.NA, Status.UNTESTED)  # fmt: skip


def _counts(level: dict[str, Any]) -> dict[str, int]:
    return {k: int(level.get(k) or 0) for k in COUNT_KEYS}


def area_line(name: str, levels: dict[str, Any], width: int = 9) -> str:
    """`storage   MUST 9/9 PASS  score 100%  coverage 82%  (N/A 12, UNTESTED 180)  SHOULD 1/1`.

    The MUST level leads (it decides certification); N/A and UNTESTED are totals over levels.
    """
    parts = [name.ljust(width)]
    first = True
    totals = dict.fromkeys(COUNT_KEYS, 0)
    for level_name in [lv for lv in LEVELS if lv in levels] + sorted(set(levels) - set(LEVELS)):
        level = levels[level_name] or {}
        c = _counts(level)
        for k in COUNT_KEYS:
            totals[k] += c[k]
        judged = sum(c[status.key] for status in SCORED)
        if first:
            parts.append(f"{level_name} {c[PASS.key]}/{judged} PASS")
            parts.append(f"score {pct(level.get('score'))}")
            parts.append(f"coverage {pct(level.get('coverage'))}")
            first = False
        else:
            parts.append(f"{level_name} {c[PASS.key]}/{judged}")
    trouble = [f"{status} {totals[status.key]}" for status in TROUBLE if totals[status.key]]
    if trouble:
        parts.insert(4 if len(parts) >= 4 else len(parts), f"({', '.join(trouble)})")
    return "  ".join(parts)


def summary_lines(doc: Results) -> list[str]:
    """The area lines and the verdict line, straight from results.json's summary."""
    summary = doc.get("summary") or {}
    areas = summary.get("areas") or {}
    width = max([len(a) for a in areas] + [7]) + 2
    lines = [area_line(a, areas[a] or {}, width) for a in sorted(areas, key=area_sort_key)]
    for problem in (doc.get("run") or {}).get("problems") or []:
        lines.append(problem_line(problem))
    said = verdict(doc)
    why = (
        " (no MUST rule in force was judged: nothing to certify)"
        if said == NO_VERDICT_VERDICT
        else ""
    )
    beside = failing_beside_the_verdict(doc)
    if beside:  # also beside NOT CERTIFIED: a known MUST failure (XFAIL) alone exits 0
        lines.append(f"failing, not part of the MUST-level verdict (exit status 1): {beside}")
    lines.append(f"verdict: {said} at MUST level{why}, for {run_scope(doc).phrase()}")
    return lines


def failing_beside_the_verdict(doc: Results) -> str:
    """The SHOULD and MAY rules with a FAIL, ERROR or XPASS case, by level and id ('' for
    none): they fail the run's exit status without deciding its MUST-level verdict. Read
    from the cases, as the exit status is: a rule with an ERROR case and a FLAKY one is FLAKY
    (FLAKY is the worse), yet its ERROR case fails the exit status."""
    levels = {str(rule.get("id")): str(rule.get("level")) for rule in doc.get("rules") or []}
    named: dict[str, list[str]] = {}
    for case in failing_cases(doc):
        rule_id = str(case.get("rule_id"))
        level = levels.get(rule_id)
        if level is not None and level != "MUST" and rule_id not in named.get(level, []):
            named.setdefault(level, []).append(rule_id)
    parts = []
    for level, ids in named.items():
        shown = ", ".join(ids[:6]) + (", ..." if len(ids) > 6 else "")
        parts.append(f"{len(ids)} {level} rule{'s' if len(ids) > 1 else ''} ({shown})")
    return "; ".join(parts)


def problem_line(problem: dict[str, Any]) -> str:
    """`problem (collection) in MODULE: first line of the error; N rules ERROR: a, b, ...`."""
    message = str(problem.get("message") or "").strip()
    first = message.splitlines()[0] if message else ""
    rules = list(problem.get("rules") or [])
    shown = ", ".join(rules[:6]) + (f", ... ({len(rules)} in all)" if len(rules) > 6 else "")
    tail = f"; rules ERROR: {shown}" if rules else ""
    return f"problem ({problem.get('kind')}) in {problem.get('where')}: {first}{tail}"
