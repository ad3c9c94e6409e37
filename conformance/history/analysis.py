"""What the history page shows, computed from stored runs: pure functions, no database.

A *flip* is a change of a rule's judged status between two consecutive runs of a target. Flips
while suite version, catalog hash and target version all stay the same are the target's (or the
suite's) nondeterminism, not a change: a rule with two or more of them, or with a FLAKY verdict,
is marked flaky. A rule failing in the latest run gets the run its failure started in and the
versions on each side of that edge, which is what a nightly user needs to find the change.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from conformance.results import FLAKY, NEEDS_ACTION, NO_VERDICT, PASS, SCORED, SUMMARY_ORDER

# Statuses a nightly user has to act on (FLAKY is never a pass: DESIGN.md "Statuses and scores").
FAILING = NEEDS_ACTION
STATUS_ORDER = tuple(status.value for status in SUMMARY_ORDER)


@dataclass(frozen=True)
class Night:
    """One recorded run as a column of the page."""

    pk: int
    night: str
    run_id: str
    suite: str  # suite version + short catalog hash
    target_version: str
    started: str
    finished: str

    @property
    def identity(self) -> tuple[str, str]:
        return (self.suite, self.target_version)


@dataclass
class RuleHistory:
    rule_id: str
    area: str
    title: str
    statuses: list[str | None]  # one per night; None: not in that run
    flips_unexplained: int = 0
    flaky: bool = False
    failing_since: int | None = None  # index into nights
    message: str | None = None

    @property
    def latest(self) -> str | None:
        return self.statuses[-1] if self.statuses else None

    @property
    def changed(self) -> bool:
        return len({s for s in self.statuses if s is not None}) > 1


@dataclass
class History:
    target: str
    nights: list[Night]
    areas: dict[str, list[float | None]]  # area -> score per night
    rules: list[RuleHistory]
    interop_targets: list[str] = field(default_factory=list)
    interop: list[tuple[str, list[str | None]]] = field(default_factory=list)

    @property
    def failing(self) -> list[RuleHistory]:
        return [r for r in self.rules if r.latest in FAILING]

    @property
    def flaky(self) -> list[RuleHistory]:
        return [r for r in self.rules if r.flaky]

    @property
    def changes(self) -> list[int]:
        """Indexes of nights whose suite or target differ from the night before."""
        n = self.nights
        return [i for i in range(1, len(n)) if n[i].identity != n[i - 1].identity]


def make_night(run: dict[str, Any]) -> Night:
    catalog = str(run.get("catalog_hash") or "").removeprefix("sha256:")[:8]
    return Night(
        pk=run["id"], night=run["night"], run_id=run["run_id"],
        suite=f"{run.get('suite_version') or '?'} ({catalog or 'no catalog hash'})",
        target_version=run.get("target_version") or "not reported",
        started=run["started"], finished=run["finished"],
    )  # fmt: skip


Verdicts = dict[int, dict[str, dict[str, Any]]]  # run pk -> rule id -> stored verdict


def area_scores(nights: list[Night], verdicts: Verdicts) -> dict[str, list[float | None]]:
    """Score per area per night: PASS / (PASS + FAIL + ERROR + FLAKY) over the area's rules."""
    areas = sorted({row["area"] for n in nights for row in verdicts.get(n.pk, {}).values()})
    out: dict[str, list[float | None]] = {}
    for area in areas:
        series: list[float | None] = []
        for n in nights:
            rows = [r for r in verdicts.get(n.pk, {}).values() if r["area"] == area]
            judged = [r for r in rows if r["status"] in SCORED]
            passed = sum(1 for r in judged if r["status"] == PASS)
            series.append(round(passed / len(judged), 4) if judged else None)
        out[area] = series
    return out


def rule_history(rule_id: str, nights: list[Night], verdicts: Verdicts) -> RuleHistory:
    rows = [verdicts.get(n.pk, {}).get(rule_id) for n in nights]
    known = next(r for r in reversed(rows) if r is not None)
    hist = RuleHistory(
        rule_id=rule_id, area=known["area"], title=known["title"],
        statuses=[r["status"] if r else None for r in rows],
        message=rows[-1]["message"] if rows[-1] else None,
    )  # fmt: skip
    last: tuple[int, str] | None = None  # (night index, status) of the previous judged run
    for i, status in enumerate(hist.statuses):
        if status is None or status in NO_VERDICT:
            continue
        if status == FLAKY:
            hist.flaky = True
        same_versions = last is not None and nights[last[0]].identity == nights[i].identity
        if last is not None and last[1] != status and same_versions:
            hist.flips_unexplained += 1
        last = (i, status)
    hist.flaky = hist.flaky or hist.flips_unexplained >= 2
    if hist.latest in FAILING:
        start = len(hist.statuses) - 1
        while start > 0 and hist.statuses[start - 1] in FAILING:
            start -= 1
        hist.failing_since = start
    return hist


def _rank(rule: RuleHistory) -> tuple[int, str]:
    if rule.latest in FAILING:
        return (0, rule.rule_id)
    if rule.flaky:
        return (1, rule.rule_id)
    return (2 if rule.changed else 3, rule.rule_id)


def _interop_rank(item: tuple[str, list[str | None]]) -> tuple[int, str]:
    """Rules some target fails first, then the others not passing everywhere, then the rest."""
    rule_id, row = item
    if any(s in FAILING for s in row):
        return (0, rule_id)
    return (2 if all(s == PASS for s in row) else 1, rule_id)


def build_history(
    target: str,
    runs: list[dict[str, Any]],
    verdicts: dict[int, dict[str, dict[str, Any]]],
    latest_of_targets: dict[str, dict[str, dict[str, Any]]] | None = None,
) -> History:
    """The page's model: runs of `target` oldest first, their rule verdicts, and the latest
    verdicts of every target (for the interop view)."""
    nights = [make_night(r) for r in runs]
    ids = sorted({rid for n in nights for rid in verdicts.get(n.pk, {})})
    rules = sorted((rule_history(rid, nights, verdicts) for rid in ids), key=_rank)
    hist = History(target, nights, area_scores(nights, verdicts), rules)
    if latest_of_targets:
        hist.interop_targets = sorted(latest_of_targets)
        all_ids = sorted({rid for v in latest_of_targets.values() for rid in v})
        for rid in all_ids:
            row = [
                (latest_of_targets[t].get(rid) or {}).get("status") for t in hist.interop_targets
            ]
            hist.interop.append((rid, row))
        hist.interop.sort(key=_interop_rank)
    return hist
