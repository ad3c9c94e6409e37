"""Merge the sessions of runs made side by side into one table: `python -m bench.mutation.merge
OUT RUN_OUT...` (each RUN_OUT the --out of a `bench.mutation.run`, made in its own copy of the
tree, since a run mutates the tree it lives in; the runs split the mutants, e.g. by `--line`).

The merged session.sqlite, table.md, survivors.md and results.json go to OUT, as one run over
the union would write them. A module counts as run whole (stale ledger entries of it are named)
only when the union holds every mutant the harness makes of it. Runs must be of the same
reference: they are checked to have stored each module's same sha256.
A result of a mutant the harness no longer makes (its def now skipped by selection.yaml) is
left out, so that a run made before a skip merges into the table the harness now gives.
"""

from __future__ import annotations

import argparse
import functools
import json
import sys
from pathlib import Path

from cosmic_ray.work_db import WorkDB, use_db

from bench.mutation import plan, report, verdict


def main(argv: list[str] | None = None, root: Path = plan.ROOT) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out", type=Path)
    parser.add_argument("runs", type=Path, nargs="+", help="the --out folders of the runs")
    args = parser.parse_args(argv)
    args.out.mkdir(parents=True, exist_ok=True)
    target = args.out / "session.sqlite"
    target.unlink(missing_ok=True)
    hashes: dict[str, set[str]] = {}
    baselines: list[dict[str, object]] = []
    cfg = plan.load_config()
    items_of = functools.cache(lambda module: plan.mutants(cfg, module, root=root))
    made = functools.cache(lambda module: {w.job_id for w in items_of(module)})
    dropped = 0
    with use_db(str(target), WorkDB.Mode.create) as merged:
        added: set[str] = set()
        for run in args.runs:
            with use_db(str(run / "session.sqlite"), WorkDB.Mode.open) as db:
                items = {w.job_id: w for w in db.work_items}
                for job_id, result in db.results:
                    item = items[job_id]
                    module = str(item.mutations[0].module_path)
                    if job_id not in made(module):  # no longer made (a def selection.yaml skips)
                        dropped += 1
                        continue
                    if sha := verdict.module_hash_of(result.output):
                        hashes.setdefault(module, set()).add(sha)
                    if job_id not in added:
                        merged.add_work_items([item])
                        added.add(job_id)
                    merged.set_result(job_id, result)
            for path in sorted(run.glob("baseline-*.json")):
                if not path.name.endswith((".unexecuted.json", ".contexts.json")):
                    doc = json.loads(path.read_text("utf-8"))
                    not_passing = verdict.Baseline.from_json(doc).not_passing()
                    baselines.append({"selection": [path.name], "not_passing": not_passing})
        if mixed := sorted(m for m, found in hashes.items() if len(found) > 1):
            print(f"error: runs of different module contents: {mixed}", file=sys.stderr)
            return 1
        done = {job_id for job_id, _ in merged.results}
        whole = [m for m in hashes if all(w.job_id in done for w in items_of(m))]
        summary = report.summarise(merged, items_of, full_modules=whole, root=root)
    summary.baselines = baselines
    report.write(summary, args.out)
    print(report.table(summary) + "\n" + report.area_table(summary) + report.baselines_md(summary))
    print(f"modules run whole: {', '.join(sorted(whole)) or 'none'}")
    if dropped:
        print(f"{dropped} results left out: mutants the harness no longer makes (skip)")
    for line in summary.stale:
        print(f"STALE LEDGER ENTRY: {line}")
    unjudged = len(summary.unjudged)
    print(f"{len(summary.unlisted)} survivors not in the ledger; {unjudged} not judged")
    return 0


if __name__ == "__main__":
    sys.exit(main())
