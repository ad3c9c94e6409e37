"""Take an earlier session's kills (--carry-killed) only for the very same mutant.

A job id is (module, operator, occurrence): once the module changed, the same id can point at
another line. A kill is carried only when the unmutated module is byte for byte the one the
earlier session mutated (its sha256, recorded with each result: any change to the module
invalidates its carried kills, since another line can change what the mutant does), the line
number, the mutated line's text before and after, the operator and the occurrence all match,
and only when the earlier session recorded a verdict (a kill proven against its baseline, not
an exit status). A result without the module's hash (an older harness's) is not carried.
Survivors are never carried: a stronger suite may kill them now, and the ledger must hear of it.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from cosmic_ray.work_db import WorkDB, use_db
from cosmic_ray.work_item import WorkItem, WorkResult

from bench.mutation import ledger, verdict


@dataclass(frozen=True)
class Where:
    """What must be equal for two sessions' mutants to be one mutant."""

    module: str
    line: int
    before: str
    after: str
    operator: str
    occurrence: int


def where(item: WorkItem, diff: str) -> Where:
    spec = item.mutations[0]
    before, after = ledger.changed_lines(diff)
    return Where(
        str(spec.module_path), spec.start_pos[0], before, after, spec.operator_name,
        spec.occurrence,
    )  # fmt: skip


def carry_killed(
    db: WorkDB, earlier: Path, wanted: dict[str, WorkItem], root: Path
) -> tuple[int, int]:
    """Copy the earlier session's kills of mutants still made the same way; (carried, dropped)."""
    done = {job_id for job_id, _ in db.results}
    carried = dropped = 0
    sources: dict[str, bytes] = {}
    with use_db(str(earlier), WorkDB.Mode.open) as old:
        old_items = {w.job_id: w for w in old.work_items}
        for job_id, result in old.results:
            if job_id not in wanted or job_id in done or not _proven_kill(result):
                continue
            item = wanted[job_id]
            module = str(item.mutations[0].module_path)
            if module not in sources:
                sources[module] = (root / module).read_bytes()
            if verdict.module_hash_of(result.output) != verdict.module_sha256(sources[module]):
                dropped += 1
                continue
            spec = item.mutations[0]
            source = sources[module].decode("utf-8")
            now = ledger.mutant_diff(source, spec.operator_name, spec.occurrence)
            then = where(old_items[job_id], result.diff or "")
            if now is not None and where(item, now) == then:
                db.set_result(job_id, result)
                carried += 1
            else:
                dropped += 1
    return carried, dropped


def _proven_kill(result: WorkResult) -> bool:
    found = verdict.from_output(result.output)
    return found is not None and found.cls == verdict.KILLED
