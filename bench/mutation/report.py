"""The harness's table (module, mutants, killed, survived, timeouts, equivalent) and survivors."""

from __future__ import annotations

import json
from collections import defaultdict
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from cosmic_ray.work_db import WorkDB
from cosmic_ray.work_item import TestOutcome, WorkerOutcome

from bench.mutation import ledger


@dataclass
class Row:
    module: str
    mutants: int = 0
    killed: int = 0
    survived: int = 0
    timeouts: int = 0
    equivalent: int = 0
    errors: int = 0

    @property
    def score(self) -> float:
        judged = self.mutants - self.equivalent - self.errors
        return 100.0 * self.killed / judged if judged else 100.0


@dataclass
class Survivor:
    module: str
    operator: str
    line: int
    diff: str
    ledger: str | None  # the ledger's kind and reason, None when unlisted


@dataclass
class Summary:
    rows: dict[str, Row] = field(default_factory=dict)
    survivors: list[Survivor] = field(default_factory=list)

    @property
    def unlisted(self) -> list[Survivor]:
        return [s for s in self.survivors if s.ledger is None]


def summarise(db: WorkDB, known: dict[ledger.Key, dict[str, Any]] | None = None) -> Summary:
    known = ledger.load() if known is None else known
    items = {w.job_id: w for w in db.work_items}
    summary = Summary()
    rows: dict[str, Row] = defaultdict(lambda: Row(""))
    for job_id, result in db.results:
        spec = items[job_id].mutations[0]
        module = str(spec.module_path)
        row = rows[module]
        row.module = module
        if result.worker_outcome != WorkerOutcome.NORMAL:
            row.mutants += result.worker_outcome != WorkerOutcome.NO_TEST
            row.errors += result.worker_outcome != WorkerOutcome.NO_TEST
            continue
        row.mutants += 1
        if result.test_outcome == TestOutcome.KILLED:
            row.killed += 1
            row.timeouts += result.output == "timeout"
        elif result.test_outcome == TestOutcome.SURVIVED:
            entry = known.get(ledger.key_of(module, result.diff or ""))
            if entry:
                row.equivalent += 1
            else:
                row.survived += 1
            summary.survivors.append(
                Survivor(
                    module=module,
                    operator=spec.operator_name,
                    line=spec.start_pos[0],
                    diff=result.diff or "",
                    ledger=f"{entry['kind']}: {entry['reason']}" if entry else None,
                )
            )
        else:
            row.errors += 1
    summary.rows = dict(sorted(rows.items()))
    return summary


def table(summary: Summary) -> str:
    head = "| module | mutants | killed | survived | timeouts | equivalent | errors | score |"
    lines = [head, "|---|---:|---:|---:|---:|---:|---:|---:|"]
    total = Row("**total**")
    for row in summary.rows.values():
        lines.append(_line(row))
        for name in ("mutants", "killed", "survived", "timeouts", "equivalent", "errors"):
            setattr(total, name, getattr(total, name) + getattr(row, name))
    lines.append(_line(total))
    return "\n".join(lines) + "\n"


def _line(r: Row) -> str:
    return (
        f"| {r.module} | {r.mutants} | {r.killed} | {r.survived} | {r.timeouts} | "
        f"{r.equivalent} | {r.errors} | {r.score:.0f}% |"
    )


def survivors_md(summary: Summary) -> str:
    out = []
    for s in summary.survivors:
        status = s.ledger or "NOT IN LEDGER; to list it, add to survivors.yaml:\n\n" + _stub(s)
        head = f"### {s.module}:{s.line} ({s.operator})"
        out.append(f"{head}\n\n{status}\n\n```diff\n{s.diff}\n```\n")
    return "\n".join(out) or "No survivors.\n"


def _stub(s: Survivor) -> str:
    key = ledger.key_of(s.module, s.diff)
    lines = [f"- module: {key.module}", f"  before: {json.dumps(key.before)}"]
    lines += [f"  after: {json.dumps(key.after)}", "  kind: equivalent | out-of-spec"]
    return "\n".join(["```yaml", *lines, "  reason: ...", "```"])


def write(summary: Summary, out: Path) -> None:
    (out / "table.md").write_text(table(summary), "utf-8")
    (out / "survivors.md").write_text(survivors_md(summary), "utf-8")
    doc = {
        "rows": [asdict(r) | {"score": r.score} for r in summary.rows.values()],
        "survivors": [asdict(s) for s in summary.survivors],
    }
    (out / "results.json").write_text(json.dumps(doc, indent=1), "utf-8")
