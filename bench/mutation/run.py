"""Mutation run over the reference: `python -m bench.mutation.run [MODULE ...]` (outside CI).

Each mutant of a reference module (cosmic-ray, in place, one at a time) is judged by the part
of the suite selection.yaml names for that module; survivors not explained in survivors.yaml
are the suite's blind spots. Writes table.md, survivors.md, results.json and cosmic-ray's
session.sqlite (resumable: a second call with the same --out skips finished mutants) under
--out. Run it niced: `nice -n 10 .venv/bin/python -m bench.mutation.run s3/multipart`.
Exits 1 when a survivor is missing from the ledger.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

from cosmic_ray.work_db import WorkDB, use_db
from cosmic_ray.work_item import TestOutcome, WorkItem, WorkResult

from bench.mutation import execute, ledger, plan, report


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("modules", nargs="*", help="module globs or substrings (default: all)")
    parser.add_argument("--sample", type=int, help="at most this many mutants per module")
    parser.add_argument("--seed", type=int, default=17)
    parser.add_argument("--timeout", type=float, default=600.0, help="seconds per mutant")
    parser.add_argument("--out", type=Path, default=plan.ROOT / "reports" / "mutation")
    parser.add_argument(
        "--selection", type=Path, default=plan.HERE / "selection.yaml", help="module -> suite map"
    )
    parser.add_argument("--list", action="store_true", help="print the plan, run nothing")
    parser.add_argument(
        "--carry-killed",
        type=Path,
        metavar="SESSION",
        help="take the mutants an earlier session.sqlite killed as killed (tests only get "
        "stronger) and its survivors the ledger lists as listed, and run only the others",
    )
    args = parser.parse_args(argv)

    os.chdir(plan.ROOT)
    cfg = plan.load_config(args.selection)
    work: list[tuple[WorkItem, plan.Selection]] = []
    for module in plan.modules(cfg, args.modules):
        selection = cfg.selection(module)
        assert selection is not None
        for item in plan.sample(plan.mutants(cfg, module), args.sample, args.seed):
            work.append((item, selection))
    if args.list:
        for item, selection in work:
            m = item.mutations[0]
            where = f"{m.module_path}:{m.start_pos[0]}"
            print(f"{where} {m.operator_name} -> {' '.join(selection.args())}")
        print(f"{len(work)} mutants")
        return 0

    args.out.mkdir(parents=True, exist_ok=True)
    started = time.monotonic()
    with use_db(str(args.out / "session.sqlite"), WorkDB.Mode.create) as db:
        known = {w.job_id for w in db.work_items}
        db.add_work_items([w for w, _ in work if w.job_id not in known])
        if args.carry_killed:
            _carry_killed(db, args.carry_killed, {w.job_id for w, _ in work})
        with execute.guarded(execute.module_paths(work)):
            execute.run_items(db, work, args.timeout, _progress)
        summary = report.summarise(db)
    report.write(summary, args.out)
    print(report.table(summary))
    seconds = time.monotonic() - started
    print(f"{len(summary.unlisted)} survivors not in the ledger; {seconds:.0f} s")
    print(f"wrote {args.out}/table.md, survivors.md, results.json")
    return 1 if summary.unlisted else 0


def _carry_killed(db: WorkDB, earlier: Path, wanted: set[str]) -> None:
    """Copy an earlier session's killed mutants, and its survivors the ledger now lists (their
    code is unchanged, so rerunning them only costs a whole suite subset each)."""
    done = {job_id for job_id, _ in db.results}
    known = ledger.load()
    with use_db(str(earlier), WorkDB.Mode.open) as old:
        modules = {w.job_id: str(w.mutations[0].module_path) for w in old.work_items}
        for job_id, result in old.results:
            if job_id not in wanted or job_id in done:
                continue
            killed = result.test_outcome == TestOutcome.KILLED
            listed = result.test_outcome == TestOutcome.SURVIVED and (
                ledger.key_of(modules[job_id], result.diff or "") in known
            )
            if killed or listed:
                db.set_result(job_id, result)


def _progress(item: WorkItem, result: WorkResult, seconds: float) -> None:
    m = item.mutations[0]
    outcome = (result.test_outcome or result.worker_outcome).value
    where = f"{m.module_path}:{m.start_pos[0]}"
    print(f"{outcome:>9} {seconds:5.1f}s {where} {m.operator_name}", flush=True)


if __name__ == "__main__":
    sys.exit(main())
