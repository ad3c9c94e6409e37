"""The harness's table, survivors and stale ledger entries, from a session's verdicts.

Columns: killed (a rule that passed on the baseline fails under the mutant), survived (not in
the ledger), not executed (survivors not in the ledger that were not run: no suite test of the
selection executes their lines, bench/mutation/executed.py), equivalent and out-of-spec
(survivors the ledger lists), and the mutants the suite did not judge, each in its own column
and never a kill: timeouts, reference start failures, collection errors, other non-zero exits;
`harness` counts mutants cosmic-ray could not run and those that are not valid Python
(validity.py); `stillborn` those under which the reference exits before it is ready, in the
suite's run and again when started directly (stillborn.py): no implementation to judge.
score = killed / (mutants - equivalent - out-of-spec - harness - stillborn): an unjudged or
unexecuted mutant counts as not killed.
"""

from __future__ import annotations

import functools
import json
import math
from collections import defaultdict
from collections.abc import Callable, Iterable, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from cosmic_ray.work_db import WorkDB
from cosmic_ray.work_item import WorkerOutcome, WorkItem, WorkResult

from bench.mutation import ledger, plan, verdict
from bench.mutation.plan import ROOT

COLUMNS = (
    "mutants", "killed", "survived", "not_executed", "equivalent", "out_of_spec", "timeouts",
    "start_failures", "collection_errors", "other_exits", "harness", "stillborn",
)  # fmt: skip
CLASS_COLUMN = {
    verdict.KILLED: "killed", verdict.TIMEOUT: "timeouts", verdict.START: "start_failures",
    verdict.COLLECTION: "collection_errors", verdict.OTHER: "other_exits",
    verdict.STILLBORN: "stillborn",
}  # fmt: skip


@dataclass
class Row:
    module: str
    mutants: int = 0
    killed: int = 0
    survived: int = 0
    not_executed: int = 0
    equivalent: int = 0
    out_of_spec: int = 0
    timeouts: int = 0
    start_failures: int = 0
    collection_errors: int = 0
    other_exits: int = 0
    harness: int = 0
    stillborn: int = 0

    @property
    def judged(self) -> int:
        """The mutants the score is taken over: all but those excused, not valid, or under
        which the reference cannot start."""
        return self.mutants - self.equivalent - self.out_of_spec - self.harness - self.stillborn

    @property
    def score(self) -> float:
        return 100.0 * self.killed / self.judged if self.judged else 100.0


@dataclass
class Mutant:
    module: str
    operator: str
    line: int
    occurrence: int
    cls: str
    kills: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    diff: str = ""
    ledger: str | None = None  # a survivor's ledger kind and reason, None when unlisted
    stub: str = ""  # a survivor's entry to paste into survivors.yaml


@dataclass
class Summary:
    rows: dict[str, Row] = field(default_factory=dict)
    mutants: list[Mutant] = field(default_factory=list)
    stale: list[str] = field(default_factory=list)  # ledger entries a run found stale
    baselines: list[dict[str, Any]] = field(default_factory=list)
    # the unmutated module each row was made from (its results record it): what a published
    # figure is of, checked against today's reference by tests/report/test_sensitivity_bytes.py
    module_sha256: dict[str, str] = field(default_factory=dict)

    @property
    def survivors(self) -> list[Mutant]:
        return [m for m in self.mutants if m.cls in verdict.SURVIVORS]

    @property
    def unlisted(self) -> list[Mutant]:
        return [m for m in self.survivors if m.ledger is None]

    @property
    def unjudged(self) -> list[Mutant]:
        return [m for m in self.mutants if m.cls in verdict.UNJUDGED]

    @property
    def stillborn(self) -> list[Mutant]:
        return [m for m in self.mutants if m.cls == verdict.STILLBORN]


def verdict_of(result: WorkResult) -> verdict.Verdict:
    found = verdict.from_output(result.output)
    if found is None:  # a result of the harness before verdicts: judged again on resume
        return verdict.Verdict(verdict.OTHER, notes=["no verdict recorded (an older harness)"])
    return found


def summarise(
    db: WorkDB,
    items_of: Callable[[str], Sequence[WorkItem]],
    known: dict[ledger.MutantId, dict[str, Any]] | None = None,
    full_modules: Iterable[str] = (),
    root: Path = ROOT,
) -> Summary:
    """Rows, mutants and stale ledger entries of a session; `items_of(module)` is every mutant
    the harness makes of a module (plan.mutants), `full_modules` the modules run unsampled."""
    known = ledger.load() if known is None else known
    items = {w.job_id: w for w in db.work_items}
    results = dict(db.results)
    verdicts = {job: verdict_of(r) for job, r in results.items()}
    full = set(full_modules)
    ids, entry_jobs = _identities(results, verdicts, items, items_of, known, full, root)
    summary = Summary()
    rows: dict[str, Row] = defaultdict(lambda: Row(""))
    hashes: dict[str, set[str]] = {}
    for job_id, result in results.items():
        spec = items[job_id].mutations[0]
        module = str(spec.module_path)
        row = rows[module]
        row.module = module
        if result.worker_outcome == WorkerOutcome.NORMAL:  # a result with a verdict
            # an older harness's result names no bytes: "" counts as a set of its own (one the
            # harness could not make judges no bytes, and an older harness named none for it)
            hashes.setdefault(module, set()).add(verdict.module_hash_of(result.output) or "")
        if result.worker_outcome == WorkerOutcome.NO_TEST:
            continue
        row.mutants += 1
        if result.worker_outcome != WorkerOutcome.NORMAL:
            row.harness += 1
            continue
        found = verdicts[job_id]
        mutant = Mutant(
            module, ledger.short(spec.operator_name), spec.start_pos[0], spec.occurrence,
            found.cls, found.kills, found.notes, result.diff or "",
        )  # fmt: skip
        if found.cls in verdict.SURVIVORS:
            mid = ids.get(job_id)
            entry = known.get(mid) if mid else None
            if entry:
                row.equivalent += entry["kind"] == "equivalent"
                row.out_of_spec += entry["kind"] == "out-of-spec"
                mutant.ledger = f"{entry['kind']}: {str(entry['reason']).strip()}"
            else:
                if found.cls == verdict.NOT_EXECUTED:
                    row.not_executed += 1
                else:
                    row.survived += 1
                mutant.stub = ledger.stub(mid) if mid else "(could not name the mutant)"
        else:
            column = CLASS_COLUMN[found.cls]
            setattr(row, column, getattr(row, column) + 1)
        summary.mutants.append(mutant)
    summary.rows = dict(sorted(rows.items()))
    # one set of bytes per module, or none: a session resumed over changed bytes mixes them
    # (also with an older harness's unhashed results), and publish refuses a full run whose
    # module has no single recorded sha256
    summary.module_sha256 = {m: s.pop() for m, s in hashes.items() if len(s) == 1 and "" not in s}
    summary.stale = _stale(known, entry_jobs, verdicts, full)
    return summary


def _identities(
    results: dict[str, WorkResult],
    verdicts: dict[str, verdict.Verdict],
    items: dict[str, WorkItem],
    items_of: Callable[[str], Sequence[WorkItem]],
    known: dict[ledger.MutantId, dict[str, Any]],
    full: set[str],
    root: Path,
) -> tuple[dict[str, ledger.MutantId], dict[ledger.MutantId, str]]:
    """MutantIds of the session's survivors, and the job id of each ledger entry of the
    session's modules (and of the modules run whole) that the harness still makes."""
    befores: dict[str, set[str]] = {module: set() for module in full}
    for job_id in results:
        texts = befores.setdefault(str(items[job_id].mutations[0].module_path), set())
        if verdicts[job_id].cls in verdict.SURVIVORS:
            texts.add(ledger.changed_lines(results[job_id].diff or "")[0])
    for key in known:
        if key.module in befores:
            befores[key.module].add(key.before)
    ids: dict[str, ledger.MutantId] = {}
    for module, texts in befores.items():
        ids.update(ledger.identify(module, items_of(module), root, ledger.wanted_by(texts)))
    by_id = {mid: job for job, mid in ids.items()}
    return ids, {key: by_id[key] for key in known if key in by_id}


def _stale(
    known: dict[ledger.MutantId, dict[str, Any]],
    entry_jobs: dict[ledger.MutantId, str],
    verdicts: dict[str, verdict.Verdict],
    full_modules: set[str],
) -> list[str]:
    stale = []
    for key in sorted(known):
        job = entry_jobs.get(key)
        if job is None and key.module in full_modules:
            stale.append(f"no longer made by the harness: {key.describe()}")
        elif job is not None and job in verdicts and verdicts[job].cls == verdict.KILLED:
            kills = ", ".join(verdicts[job].kills)
            stale.append(f"now killed ({kills}): {key.describe()}")
    return stale


def table(summary: Summary) -> str:
    head = "| module | " + " | ".join(c.replace("_", " ") for c in COLUMNS) + " | score |"
    lines = [head, "|---|" + "---:|" * (len(COLUMNS) + 1)]
    total = Row("**total**")
    for row in summary.rows.values():
        lines.append(_line(row))
        for name in COLUMNS:
            setattr(total, name, getattr(total, name) + getattr(row, name))
    lines.append(_line(total))
    return "\n".join(lines) + "\n"


@functools.cache
def _config() -> plan.Config:
    return plan.load_config()


def area_of(module: str) -> str:
    """The area a module counts under (selection.yaml `areas`, a function's modules wherever
    they sit), else its package in the reference (`reference_impl/s3/x.py` -> `s3`, `core`)."""
    return _config().area_of(module)


def area_rows(summary: Summary) -> dict[str, Row]:
    """The module rows summed per area: the per-area table and the published figure."""
    areas: dict[str, Row] = {}
    for row in summary.rows.values():
        area = areas.setdefault(area_of(row.module), Row(area_of(row.module)))
        for name in COLUMNS:
            setattr(area, name, getattr(area, name) + getattr(row, name))
    return dict(sorted(areas.items()))


def area_table(summary: Summary) -> str:
    head = "| area | " + " | ".join(c.replace("_", " ") for c in COLUMNS) + " | score |"
    lines = [head, "|---|" + "---:|" * (len(COLUMNS) + 1)]
    lines += [_line(row) for row in area_rows(summary).values()]
    return "\n".join(lines) + "\n"


def _line(r: Row) -> str:
    cells = " | ".join(str(getattr(r, c)) for c in COLUMNS)
    return f"| {r.module} | {cells} | {math.floor(r.score)}% |"  # rounded down, as published


def baselines_md(summary: Summary) -> str:
    out = ["", "Baselines (the unmutated tree, per selection):", ""]
    for base in summary.baselines:
        bad = base["not_passing"]
        text = "every rule that ran passes" if not bad else (
            f"{len(bad)} rule(s) do not pass and cannot kill: " + "; ".join(bad)
        )  # fmt: skip
        out.append(f"- `{' '.join(base['selection']) or '(whole suite)'}`: {text}")
    return "\n".join(out) + "\n" if summary.baselines else ""


def survivors_md(summary: Summary) -> str:
    out = []
    for m in summary.survivors:
        paste = f"```yaml\n{m.stub}\n```"
        status = m.ledger or f"NOT IN LEDGER; to list it, add to survivors.yaml:\n\n{paste}"
        head = f"### {m.module}:{m.line} ({m.operator})"
        if m.cls == verdict.NOT_EXECUTED:
            head += ", not executed by the selection's baseline (not run)"
        out.append(f"{head}\n\n{status}\n\n```diff\n{m.diff}\n```\n")
    for m in summary.unjudged:
        notes = "; ".join(m.notes)
        out.append(
            f"### {m.module}:{m.line} ({m.operator}): NOT JUDGED, {m.cls}\n\n{notes}\n\n"
            f"```diff\n{m.diff}\n```\n"
        )
    for m in summary.stillborn:  # out of the score: each shown with the probe's evidence
        notes = "; ".join(m.notes)
        out.append(
            f"### {m.module}:{m.line} ({m.operator}): STILLBORN, out of the score\n\n{notes}"
            f"\n\n```diff\n{m.diff}\n```\n"
        )
    for line in summary.stale:
        out.append(f"### STALE LEDGER ENTRY\n\n{line}\n")
    return "\n".join(out) or "No survivors.\n"


def write(summary: Summary, out: Path) -> None:
    per_area = "\nPer area (selection.yaml `areas`, else the reference's packages):\n\n"
    per_area += area_table(summary)
    (out / "table.md").write_text(table(summary) + per_area + baselines_md(summary), "utf-8")
    (out / "survivors.md").write_text(survivors_md(summary), "utf-8")
    doc = {
        "rows": [asdict(r) | {"score": r.score} for r in summary.rows.values()],
        "areas": [asdict(r) | {"score": r.score} for r in area_rows(summary).values()],
        "mutants": [asdict(m) for m in summary.mutants],
        "stale_ledger_entries": summary.stale,
        "baselines": summary.baselines,
        "module_sha256": dict(sorted(summary.module_sha256.items())),
    }
    (out / "results.json").write_text(json.dumps(doc, indent=1), "utf-8")
