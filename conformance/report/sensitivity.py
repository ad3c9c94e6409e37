"""The suite's own sensitivity, published beside its verdict: how many code-level mutants of
the reference the suite kills, per area of the reference, from the latest recorded run.

A certificate says the target passed the suite; this says how much a pass of the suite is
worth. The figure is data (`sensitivity.json`, written by `python -m bench.mutation.publish`),
dated and tied to a commit, and says whether it covers every mutant or a sample. An area
measured by a full run (every mutant of its modules) carries that run's date, commit and scope;
the other areas show the file's figure (a sample), labelled as such.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from importlib import resources
from typing import Any


@dataclass(frozen=True)
class Measured:
    """What a figure was measured by: a full run or a sample, when, at which commit."""

    measured: str
    commit: str
    scope: str
    full_run: bool

    def phrase(self, mutants: int) -> str:
        what = self.scope if self.full_run else f"{self.scope}, not a full run"
        return f"{what} ({mutants} mutants), measured {self.measured} at {self.commit}"

    def short(self) -> str:
        """`full run, 2026-11-27 at abc1234`: the terminal's form; the report keeps the scope."""
        if self.full_run:
            kind = "full run"
        elif self.scope.startswith("partial"):  # whole modules, not yet the whole area
            kind = "partial run, not a full run"
        else:
            kind = "sample, not a full run"
        return f"{kind}, {self.measured} at {self.commit}"


@dataclass(frozen=True)
class AreaScore:
    area: str
    mutants: int
    killed: int
    equivalent: int
    out_of_spec: int
    not_judged: int  # timeouts, start failures, collection errors, other exits
    score: float  # killed / (mutants - equivalent - out-of-spec - harness - stillborn), in %
    not_executed: int = 0  # survivors not run: no suite test executes their lines
    source: Measured | None = None  # its own run (a full one), else the file's figure
    harness: int = 0  # no mutant to judge: cosmic-ray could not make it, or it does not compile
    stillborn: int = 0  # no implementation to judge: the reference exits before it is ready

    @property
    def judged(self) -> int:
        """Mutants the suite either killed or let survive (not excused, not unjudged)."""
        unjudged = self.not_judged + self.harness + self.stillborn
        return max(self.mutants - self.equivalent - self.out_of_spec - unjudged, 0)

    @property
    def scored(self) -> int:
        """The %'s denominator: every mutant the ledger does not excuse, not-judged included
        (harness and stillborn ones are no mutants a suite could judge: named, never scored)."""
        excluded = self.harness + self.stillborn
        return max(self.mutants - self.equivalent - self.out_of_spec - excluded, 0)

    def phrase(self) -> str:
        """`s3 20 of 31 killed, 2 not judged (64%)`: the fraction is the %'s, so a not-judged
        mutant counts in both as a survivor; no % for an area none of whose mutants was judged
        (no evidence either way). Mutants the ledger excuses are counted out loud (`61 listed
        (18 equivalent, 43 out-of-spec)`), so a 100% never hides how many the suite was not
        asked to kill."""
        counts = f"{self.area} {self.killed} of {self.scored} killed"
        if self.not_executed:  # judged survivors: beside the kills, not the listed
            plural = "s" if self.not_executed != 1 else ""
            counts += f" ({self.not_executed} survivor{plural} on lines no test executes)"
        listed = self.equivalent + self.out_of_spec
        if listed:
            kinds = ((self.equivalent, "equivalent"), (self.out_of_spec, "out-of-spec"))
            named = ", ".join(f"{count} {kind}" for count, kind in kinds if count)
            counts += f", {listed} listed ({named})"
        if self.not_judged:
            counts += f", {self.not_judged} not judged"
        if self.harness:
            counts += f", {self.harness} no valid mutant (harness)"
        if self.stillborn:
            counts += f", {self.stillborn} stillborn (the reference does not start)"
        # from the counts, rounded down: 99.6% (or the file's 99.95 -> 100.0) is not "100%",
        # which would read as every mutant killed
        percent = self.killed * 100 // self.scored if self.scored else 0
        return f"{counts} ({percent}%)" if self.judged else f"{counts} (no %)"


@dataclass(frozen=True)
class Sensitivity:
    measured: str
    commit: str
    scope: str
    full_run: bool
    mutants: int
    areas: tuple[AreaScore, ...]

    def groups(self) -> list[tuple[Measured, list[AreaScore]]]:
        """The areas by what measured them: full runs first, then the file's figure."""
        default = Measured(self.measured, self.commit, self.scope, self.full_run)
        found: dict[Measured, list[AreaScore]] = {}
        for area in self.areas:
            found.setdefault(area.source or default, []).append(area)
        return sorted(found.items(), key=lambda kv: (not kv[0].full_run, kv[0].measured))

    def phrase(self) -> str:
        """`sample: ... (97 mutants), measured 2026-11-26 at abc1234: bindings 4 of 10 killed
        (40%), ...`: per area its counts, so 2 of 3 does not read like 20 of 31; an area a full
        run measured is named under that run, the others under the sample."""
        parts = []
        for source, areas in self.groups():
            scores = "; ".join(area.phrase() for area in areas)
            parts.append(f"{source.phrase(sum(a.mutants for a in areas))}: {scores}")
        text = " | ".join(parts)
        if any(area.not_judged for area in self.areas):
            text += " (a not-judged mutant counts as a survivor in the %)"
        return text


def _source(row: dict[str, Any]) -> Measured | None:
    if "measured" not in row:
        return None
    return Measured(
        str(row["measured"]), str(row["commit"]), str(row["scope"]), bool(row.get("full_run"))
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
            not_executed=int(row.get("not_executed") or 0),
            source=_source(row),
            harness=int(row.get("harness") or 0),
            stillborn=int(row.get("stillborn") or 0),
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


def terminal_lines() -> list[str]:
    """One line per area, each with what measured it: an implementer reading a run's summary
    sees how far a pass goes without a paragraph of scopes (the HTML report keeps them)."""
    found = published()
    if found is None:
        return ["suite sensitivity: no mutation run published (bench/mutation/README.md)"]
    lines = ["suite sensitivity (mutants of the reference the suite kills, per area):"]
    for source, areas in found.groups():
        lines += [f"  {area.phrase()}; {source.short()}" for area in areas]
    if any(area.not_judged for area in found.areas):
        lines.append("  (a not-judged mutant counts as a survivor in the %)")
    return lines
