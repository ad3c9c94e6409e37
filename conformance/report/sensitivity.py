"""The suite's own sensitivity, published beside its verdict: how many code-level mutants of
the reference the suite kills, per area of the reference, from the latest recorded run.

A certificate says the target passed the suite; this says how much a pass of the suite is
worth. The figure is data (`sensitivity.json`, written by `python -m bench.mutation.publish`),
dated and tied to a commit, and says whether it covers every mutant or a sample.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from importlib import resources
from typing import Any


@dataclass(frozen=True)
class AreaScore:
    area: str
    mutants: int
    killed: int
    equivalent: int
    out_of_spec: int
    not_judged: int  # timeouts, start failures, collection errors, other exits
    score: float  # killed / (mutants - equivalent - out-of-spec - harness), in percent

    @property
    def judged(self) -> int:
        """Mutants the suite either killed or let survive (not excused, not unjudged)."""
        return max(self.mutants - self.equivalent - self.out_of_spec - self.not_judged, 0)

    def phrase(self) -> str:
        """`s3 20/29 killed, 2 not judged (64%)`: the % counts a not-judged mutant as a
        survivor; no % for an area none of whose mutants was judged (no evidence either way)."""
        counts = f"{self.area} {self.killed}/{self.judged} killed"
        if self.not_judged:
            counts += f", {self.not_judged} not judged"
        return f"{counts} ({self.score:.0f}%)" if self.judged else f"{counts} (no %)"


@dataclass(frozen=True)
class Sensitivity:
    measured: str
    commit: str
    scope: str
    full_run: bool
    mutants: int
    areas: tuple[AreaScore, ...]

    def phrase(self) -> str:
        """`sample: ... (97 mutants), measured 2026-11-26 at abc1234: bindings 4/10 killed
        (40%), ...`: per area its counts, so 2 of 3 does not read like 20 of 31."""
        scores = "; ".join(area.phrase() for area in self.areas)
        if any(area.not_judged for area in self.areas):
            scores += " (a not-judged mutant counts as a survivor in the %)"
        what = self.scope if self.full_run else f"{self.scope}, not a full run"
        return (
            f"{what} ({self.mutants} mutants), measured {self.measured} at {self.commit}: {scores}"
        )


def parse(doc: dict[str, Any]) -> Sensitivity:
    areas = tuple(
        AreaScore(
            area=str(row["area"]),
            mutants=int(row["mutants"]),
            killed=int(row["killed"]),
            equivalent=int(row.get("equivalent") or 0),
            out_of_spec=int(row.get("out_of_spec") or 0),
            not_judged=sum(
                int(row.get(column) or 0)
                for column in ("timeouts", "start_failures", "collection_errors", "other_exits")
            ),
            score=float(row["score"]),
        )
        for row in doc["areas"]
    )
    return Sensitivity(
        measured=str(doc["measured"]),
        commit=str(doc["commit"]),
        scope=str(doc["scope"]),
        full_run=bool(doc.get("full_run")),
        mutants=int(doc["mutants"]),
        areas=areas,
    )


def published() -> Sensitivity | None:
    """The packaged figure, or None when no run was published (or the file is unreadable:
    the figure informs, it never stops a report)."""
    try:
        text = (resources.files("conformance.report") / "sensitivity.json").read_text("utf-8")
        return parse(json.loads(text))
    except (OSError, ValueError, KeyError, TypeError):
        return None


def terminal_line() -> str:
    found = published()
    if found is None:
        return "suite sensitivity: no mutation run published (bench/mutation/README.md)"
    return f"suite sensitivity (mutants of the reference killed, per area): {found.phrase()}"
