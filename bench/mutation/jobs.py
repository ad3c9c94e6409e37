"""`bench.mutation.run --jobs N`: the mutants split over N runs side by side, then merged.

A run mutates the tree it lives in, so each worker runs in its own clone of HEAD (`git clone
--shared`, under a temporary directory removed afterwards) with its own --out
(`OUT/jobs/worker-I`), on one contiguous share of the mutants (`--shard I/N`, in the plan's
order, so the mutants of one function, which share rule sets, mostly stay together). The
baselines are made once, first, in this tree; each worker reuses them (their file names hold
the commit, the same in a clone). Then `bench.mutation.merge` writes the one table to OUT.
A share is the same on a second call with the same N, so each worker resumes its own session.
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from bench.mutation import merge
from bench.mutation.plan import ROOT
from bench.mutation.verdict import SURVIVORS, UNJUDGED


def shard(count: int, spec: str) -> range:
    """The indices of share `I/N` (1-based I) of `count` items, contiguous, sizes within one."""
    index, total = (int(x) for x in spec.split("/"))
    if not 1 <= index <= total:
        raise ValueError(f"--shard {spec}: want I/N with 1 <= I <= N")
    size, extra = divmod(count, total)
    start = (index - 1) * size + min(index - 1, extra)
    return range(start, start + size + (1 if index <= extra else 0))


def worker_argv(args: argparse.Namespace, index: int, total: int, out: Path) -> list[str]:
    """The worker's `bench.mutation.run` command line: this run's options, its share, its out."""
    argv = [sys.executable, "-m", "bench.mutation.run", *args.modules]
    if args.sample is not None:
        argv += ["--sample", str(args.sample)]
    argv += ["--seed", str(args.seed), "--timeout", str(args.timeout)]
    argv += ["--selection", str(args.selection.resolve())]
    for line in args.line:
        argv += ["--line", str(line)]
    for operator in args.operator:
        argv += ["--operator", operator]
    if args.carry_killed:
        argv += ["--carry-killed", str(args.carry_killed.resolve())]
    for flag in ("retry_unjudged", "run_unexecuted", "whole_selection"):
        if getattr(args, flag):
            argv.append("--" + flag.replace("_", "-"))
    return [*argv, "--shard", f"{index}/{total}", "--out", str(out)]


def committed() -> str:
    """HEAD's commit; refuses a tree with uncommitted changes to tracked files (the workers
    run HEAD: a change not committed would be judged by one tree and mutated in another)."""
    dirty = subprocess.run(
        ["git", "status", "--porcelain", "--untracked-files=no"],
        cwd=ROOT, capture_output=True, text=True, check=True,
    ).stdout.strip()  # fmt: skip
    if dirty:
        raise RuntimeError(f"--jobs runs HEAD in clones: commit these changes first:\n{dirty}")
    return subprocess.run(
        ["git", "rev-parse", "HEAD"], cwd=ROOT, capture_output=True, text=True, check=True
    ).stdout.strip()


def run(args: argparse.Namespace, total: int) -> int:
    """Run the workers (baselines already in args.out), merge them; the run's exit status."""
    head = committed()
    outs = [args.out / "jobs" / f"worker-{i}" for i in range(1, total + 1)]
    with tempfile.TemporaryDirectory(prefix="ec-mutjobs-") as tmp:
        procs = []
        for index, out in enumerate(outs, start=1):
            tree = Path(tmp) / f"tree-{index}"
            clone = ["git", "clone", "-q", "--shared", "--no-checkout", str(ROOT), str(tree)]
            subprocess.run(clone, check=True)
            subprocess.run(["git", "-C", str(tree), "checkout", "-q", "--detach", head], check=True)
            out.mkdir(parents=True, exist_ok=True)
            for base in args.out.glob("baseline-*.json"):
                shutil.copy2(base, out / base.name)
            log = (out / "run.log").open("w", encoding="utf-8")
            procs.append(subprocess.Popen(
                worker_argv(args, index, total, out.resolve()), cwd=tree, stdout=log,
                stderr=subprocess.STDOUT,
            ))  # fmt: skip
            print(f"worker {index}/{total}: {tree}, log {out / 'run.log'}", flush=True)
        codes = [proc.wait() for proc in procs]
    if 2 in codes:
        print("error: a worker's baseline did not run (see its run.log)", file=sys.stderr)
        return 2
    merge.main([str(args.out), *map(str, outs)])
    doc = json.loads((args.out / "results.json").read_text("utf-8"))
    # as run.py: a survivor not in the ledger, a mutant not judged, a stale ledger entry
    unlisted = any(m["cls"] in SURVIVORS and m["ledger"] is None for m in doc["mutants"])
    unjudged = any(m["cls"] in UNJUDGED for m in doc["mutants"])
    return 1 if unlisted or unjudged or doc["stale_ledger_entries"] or any(codes) else 0
