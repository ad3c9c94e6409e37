"""A mutant that does not compile is counted under `harness` and never run (validity.py).

Before, `def f(a, *, b)` with `*` made `+` ran like any mutant: the reference could not import
the module, the run ended in an `other exit`, and the area's score counted it as a defect the
suite had missed."""

from __future__ import annotations

from pathlib import Path

from cosmic_ray.work_db import WorkDB, use_db
from cosmic_ray.work_item import WorkerOutcome, WorkItem

from bench.mutation import execute, plan, report, validity, verdict

MODULE = "k.py"
SOURCE = """\
def f(a, *, b):
    return a * b
"""


def _mutants(root: Path) -> list[WorkItem]:
    (root / MODULE).write_text(SOURCE, "utf-8")
    return [
        w
        for w in plan.mutants(plan.load_config(), MODULE, root=root)
        if w.mutations[0].operator_name == "core/ReplaceBinaryOperator_Mul_Add"
    ]


def test_only_the_keyword_marker_mutant_is_not_python(tmp_path: Path) -> None:
    mutants = _mutants(tmp_path)
    found = {w.mutations[0].start_pos: validity.syntax_error(w, tmp_path) for w in mutants}
    assert found[(1, 9)] is not None, found  # `def f(a, +, b)`
    assert found[(2, 13)] is None, found  # `a + b` is a mutant like any other


def test_it_counts_as_harness_and_stands_on_resume(tmp_path: Path) -> None:
    item = next(w for w in _mutants(tmp_path) if w.mutations[0].start_pos == (1, 9))
    reason = validity.syntax_error(item, tmp_path)
    assert reason is not None
    stored = validity.not_python_result(reason, "ab" * 32)
    assert stored.worker_outcome == WorkerOutcome.SKIPPED
    assert verdict.module_hash_of(stored.output) == "ab" * 32  # a merge checks module bytes
    assert execute.finished(stored, retry_unjudged=True)
    with use_db(str(tmp_path / "s.sqlite"), WorkDB.Mode.create) as db:
        db.add_work_items([item])
        db.set_result(item.job_id, stored)
        summary = report.summarise(db, lambda m: [item], {}, full_modules=[MODULE], root=tmp_path)
    row = summary.rows[MODULE]
    assert (row.mutants, row.harness, row.other_exits, row.killed) == (1, 1, 0, 0)
