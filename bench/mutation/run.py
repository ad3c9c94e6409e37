"""Mutation run over the reference: `python -m bench.mutation.run [MODULE ...]` (outside CI).

Each mutant of a reference module (cosmic-ray, in place, one at a time) is judged by the part
of the suite selection.yaml names for that module; survivors not explained in survivors.yaml
are the suite's blind spots. Writes table.md, survivors.md, results.json and cosmic-ray's
session.sqlite (resumable: a second call with the same --out skips judged mutants) under
--out. Each selection first runs on the unmutated tree (the baseline a kill is proven against).
Run it niced: `nice -n 10 .venv/bin/python -m bench.mutation.run s3/multipart`.
Mutants on lines the baseline never executed (its coverage, across the reference subprocess)
are judged `not executed` without a run. Exits 1 when a survivor is missing from the ledger, a
mutant was not judged (timeout, start failure, collection error, other exit), or a ledger entry
is stale (its mutant was killed, or a whole-module run no longer makes it); 2 when a baseline
did not run.
"""

from __future__ import annotations

import argparse
import functools
import hashlib
import os
import subprocess
import sys
import time
from pathlib import Path

from cosmic_ray.work_db import WorkDB, use_db
from cosmic_ray.work_item import WorkerOutcome, WorkItem, WorkResult

from bench.mutation import carry, execute, executed, forkrun, jobs, ledger, plan, report, verdict


def main(argv: list[str] | None = None) -> int:
    """The run; a SIGTERM or SIGINT at any point (baselines, mutants, --jobs workers) kills
    every process it started before it unwinds (execute.stopping_children)."""
    with execute.stopping_children():
        return _main(argv)


def _main(argv: list[str] | None) -> int:
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
        "--line",
        type=int,
        action="append",
        default=[],
        help="only the mutants that start on this line (repeatable), e.g. to check one entry",
    )
    parser.add_argument(
        "--operator",
        action="append",
        default=[],
        help="only the mutants of this operator (repeatable, e.g. ExceptionReplacer): to judge "
        "them again after a harness change that concerned them alone",
    )
    parser.add_argument(
        "--carry-killed",
        type=Path,
        metavar="SESSION",
        help="take the mutants an earlier session.sqlite proved killed as killed (tests only "
        "get stronger), when the module is unchanged (sha256) and the line, line text, operator "
        "and occurrence still match",
    )
    parser.add_argument(
        "--retry-unjudged",
        action="store_true",
        help="on resume, run again the mutants the suite did not judge (timeouts, start "
        "failures, collection errors, other exits)",
    )
    parser.add_argument(
        "--run-unexecuted",
        action="store_true",
        help="run every mutant, with no coverage baseline (by default a mutant on lines the "
        "selection's baseline never executed is recorded `not executed`, a survivor, unrun)",
    )
    parser.add_argument(
        "--whole-selection",
        action="store_true",
        help="run each mutant against its module's whole selection (by default it runs, per "
        "date, only the rules whose tests executed its lines in the baseline, bench/mutation/"
        "contexts.py)",
    )
    parser.add_argument(
        "--jobs",
        type=int,
        default=1,
        help="split the mutants over this many runs side by side, each in its own clone of "
        "HEAD, and merge them into --out (bench/mutation/jobs.py)",
    )
    parser.add_argument(
        "--no-fork",
        action="store_true",
        help="start every process of a mutant's test command as a fresh interpreter, not as a "
        "fork of the fork server (bench/mutation/forkrun.py); the same as EC_MUTATION_NO_FORK=1, "
        "which --jobs workers inherit",
    )
    parser.add_argument("--shard", help=argparse.SUPPRESS)  # I/N: a --jobs worker's share
    parser.add_argument(
        "--count-executed",
        action="store_true",
        help="run (or reuse) the baselines under coverage and print, per module and area, how "
        "many mutants sit on executed lines (would run) and on never-executed ones; run no mutant",
    )
    args = parser.parse_args(argv)

    os.chdir(plan.ROOT)
    if args.no_fork:
        os.environ[forkrun.NO_FORK_ENV] = "1"
    cfg = plan.load_config(args.selection)
    items_of = functools.cache(lambda module: plan.mutants(cfg, module))
    work: list[tuple[WorkItem, plan.Selection]] = []
    for module in plan.modules(cfg, args.modules):
        selection = cfg.selection(module)
        assert selection is not None
        for item in plan.sample(items_of(module), args.sample, args.seed):
            if _wanted(item, args.line, args.operator):
                work.append((item, selection))
    if args.shard:
        work = [work[i] for i in jobs.shard(len(work), args.shard)]
    if args.list:
        for item, selection in work:
            m = item.mutations[0]
            where = f"{m.module_path}:{m.start_pos[0]}"
            print(f"{where} {m.operator_name} -> {' '.join(selection.args())}")
        print(f"{len(work)} mutants")
        return 0

    args.out.mkdir(parents=True, exist_ok=True)
    started = time.monotonic()
    if args.count_executed:
        return _count_executed(work, args.out, args.timeout)
    select = not args.run_unexecuted and not args.whole_selection
    if args.jobs > 1:
        with execute.guarded(execute.module_paths(work)):  # a clean reference, then baselines
            try:
                _baselines(work, args.out, args.timeout, not args.run_unexecuted, select)
            except execute.BaselineFailed as exc:
                print(f"error: {exc}", file=sys.stderr)
                return 2
        code = jobs.run(args, args.jobs)
        print(f"{args.jobs} jobs: {time.monotonic() - started:.0f} s")
        return code
    with use_db(str(args.out / "session.sqlite"), WorkDB.Mode.create) as db:
        known = {w.job_id for w in db.work_items}
        db.add_work_items([w for w, _ in work if w.job_id not in known])
        if args.carry_killed:
            wanted = {w.job_id: w for w, _ in work}
            carried, dropped = carry.carry_killed(db, args.carry_killed, wanted, plan.ROOT)
            print(f"carried {carried} kills; dropped {dropped} whose mutant is not the same now")
        with execute.guarded(execute.module_paths(work)):
            try:
                baselines = _baselines(
                    work, args.out, args.timeout, not args.run_unexecuted, contexts=select
                )
            except execute.BaselineFailed as exc:
                print(f"error: {exc}", file=sys.stderr)
                return 2
            paths = {sel: path for sel, (path, _) in baselines.items()}
            execute.run_items(
                db, work, paths, args.timeout, _progress, args.retry_unjudged,
                args.run_unexecuted, select,
            )  # fmt: skip
        whole = args.sample is None and not args.line and not args.operator and not args.shard
        full = plan.modules(cfg, args.modules) if whole else []
        summary = report.summarise(db, items_of, full_modules=full)
    if whole and not args.modules:  # the whole reference: every entry was due
        summary.stale += [
            f"its module is not mutated any more: {key.describe()}"
            for key in ledger.load()
            if key.module not in full
        ]
    summary.baselines = [
        {"selection": sel.args(), "not_passing": base.not_passing()}
        for sel, (_, base) in baselines.items()
    ]
    report.write(summary, args.out)
    print(report.table(summary) + "\n" + report.area_table(summary) + report.baselines_md(summary))
    seconds = time.monotonic() - started
    for line in summary.stale:
        print(f"STALE LEDGER ENTRY: {line}")
    print(
        f"{len(summary.unlisted)} survivors not in the ledger; {len(summary.unjudged)} mutants "
        f"not judged; {len(summary.stale)} stale ledger entries; {seconds:.0f} s"
    )
    print(f"wrote {args.out}/table.md, survivors.md, results.json")
    return 1 if summary.unlisted or summary.unjudged or summary.stale else 0


def _baselines(
    work: list[tuple[WorkItem, plan.Selection]],
    out: Path,
    timeout: float,
    coverage: bool,
    contexts: bool = False,
) -> dict[plan.Selection, tuple[Path, verdict.Baseline]]:
    """Each selection's baseline run, before any of its mutants (kept in --out per commit)."""
    head = subprocess.run(
        ["git", "rev-parse", "HEAD"], cwd=plan.ROOT, capture_output=True, text=True, check=True
    ).stdout.strip()
    found: dict[plan.Selection, tuple[Path, verdict.Baseline]] = {}
    for _, selection in work:
        if selection in found:
            continue
        digest = hashlib.sha1(f"{head} {selection.args()}".encode()).hexdigest()[:12]
        path = out / f"baseline-{digest}.json"
        base = execute.run_baseline(selection, path, timeout, coverage, contexts)
        found[selection] = (path, base)
        bad = base.not_passing()
        print(f"baseline {' '.join(selection.args())}: " + (
            "every rule that ran passes" if not bad
            else f"{len(bad)} rule(s) do not pass, so cannot kill: {'; '.join(bad)}"
        ), flush=True)  # fmt: skip
    return found


def _count_executed(work: list[tuple[WorkItem, plan.Selection]], out: Path, timeout: float) -> int:
    """Per module and area: mutants, those on lines the baseline executes, the others."""
    execute.imported_from_root()
    try:
        paths = {sel: path for sel, (path, _) in _baselines(work, out, timeout, True).items()}
    except execute.BaselineFailed as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    lines = {sel: executed.load(execute.lines_path(path)) for sel, path in paths.items()}
    counts: dict[str, list[int]] = {}
    for item, selection in work:
        module = str(item.mutations[0].module_path)
        for key in (module, f"area {report.area_of(module)}", "total"):
            row = counts.setdefault(key, [0, 0])
            row[executed.never_executed(item, lines[selection])] += 1
    print("| module / area | mutants | on executed lines | on never-executed lines |")
    print("|---|---:|---:|---:|")
    for key, (ran, unexecuted) in sorted(counts.items(), key=lambda kv: (kv[0] == "total", kv[0])):
        print(f"| {key} | {ran + unexecuted} | {ran} | {unexecuted} |")
    return 0


def _wanted(item: WorkItem, lines: list[int], operators: list[str]) -> bool:
    spec = item.mutations[0]
    on_line = not lines or spec.start_pos[0] in lines
    return on_line and (not operators or ledger.short(spec.operator_name) in operators)


def _progress(item: WorkItem, result: WorkResult, seconds: float, cpu: float) -> None:
    m = item.mutations[0]
    normal = result.worker_outcome == WorkerOutcome.NORMAL
    found = report.verdict_of(result) if result.output and normal else None
    outcome = found.cls if found else result.worker_outcome.value
    why = ", ".join((found.kills or found.notes)[:2]) if found else (result.output or "")[:120]
    where = f"{m.module_path}:{m.start_pos[0]}"
    print(
        f"{outcome:>16} {seconds:5.1f}s {cpu:5.1f}s cpu {where} {m.operator_name} {why}", flush=True
    )


if __name__ == "__main__":
    sys.exit(main())
