"""Publish a mutation run's per-area scores as the suite-sensitivity figure of the report.

`python -m bench.mutation.publish OUT --scope "..."` reads OUT/results.json (bench.mutation.run)
and writes conformance/report/sensitivity.json, which `conformance run` prints beside its
verdict and the HTML report shows. The file says what was measured (a full run or a sample,
how many mutants), when and at which commit, so a reader never takes a sample for the whole.
With `--merge` only the run's areas are replaced, each with the run's date, commit and scope,
and the other areas keep the figure they had: a full run of one area (`--scope "full ..."`,
refused unless the run holds every mutant the harness makes of each module of its areas) is
published beside the sample figure of the rest.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import math
import subprocess
import sys
from pathlib import Path
from typing import Any

from bench.mutation import plan
from bench.mutation.plan import ROOT
from bench.mutation.report import COLUMNS, Row, area_of

TARGET = ROOT / "conformance" / "report" / "sensitivity.json"


def areas_from(doc: dict[str, Any]) -> list[dict[str, Any]]:
    """Per-area rows of a run's results.json (summed from its module rows), each with the
    sha256 of every module it was measured on (`modules`: what the figure is of)."""
    areas: dict[str, Row] = {}
    hashes: dict[str, dict[str, str]] = {}
    recorded = doc.get("module_sha256") or {}
    for row in doc.get("rows") or []:
        module = str(row["module"])
        name = area_of(module)
        area = areas.setdefault(name, Row(name))
        for column in COLUMNS:
            setattr(area, column, getattr(area, column) + int(row.get(column) or 0))
        hashes.setdefault(name, {})[module] = str(recorded.get(module) or "")
    out = []
    for name, area in sorted(areas.items()):
        cells = {column: getattr(area, column) for column in COLUMNS}
        modules = dict(sorted(hashes[name].items()))
        out.append({"area": name, **cells, "score": score_down(area), "modules": modules})
    return out


def unhashed(areas: list[dict[str, Any]]) -> list[str]:
    """Modules whose measured bytes the run did not record (an older harness's results): a
    figure of them could never be checked against today's reference."""
    return [m for a in areas for m, sha in a.get("modules", {}).items() if not sha]


def score_down(area: Row) -> float:
    """The score to one decimal, rounded down as the report prints it (82.99 is 82.9, never
    83.0: a figure rounded up would claim kills the run did not make)."""
    return math.floor(1000 * area.killed / area.judged) / 10 if area.judged else 100.0


def figure(doc: dict[str, Any], scope: str, commit: str, measured: str) -> dict[str, Any]:
    areas = areas_from(doc)
    return {
        "measured": measured,
        "commit": commit,
        "scope": scope,
        "full_run": scope.startswith("full"),
        "mutants": sum(a["mutants"] for a in areas),
        "areas": areas,
    }


def impossible(areas: list[dict[str, Any]]) -> list[str]:
    """Areas whose counts no run can give: more kills than mutants scored, or columns that add
    up to more mutants than the area has (a hand-edited or half-merged results.json)."""
    bad = []
    for area in areas:
        row = Row(str(area["area"]), **{column: int(area[column]) for column in COLUMNS})
        parts = sum(getattr(row, column) for column in COLUMNS if column != "mutants")
        if row.killed > row.judged or parts > row.mutants or min(area[c] for c in COLUMNS) < 0:
            bad.append(f"{row.module}: {row.killed} killed of {row.judged} scored, "
                       f"{parts} counted of {row.mutants} mutants")  # fmt: skip
    return bad


def incomplete(doc: dict[str, Any], cfg: plan.Config | None = None) -> list[str]:
    """What keeps the run from being a full run of its areas: a module of an area it has no
    row for, or a row with fewer mutants than the harness makes of its module now."""
    cfg = cfg or plan.load_config()
    rows = {str(row["module"]): int(row.get("mutants") or 0) for row in doc.get("rows") or []}
    areas = {area_of(module) for module in rows}
    missing = []
    for module in plan.modules(cfg, []):
        if area_of(module) not in areas:
            continue
        made = len(plan.mutants(cfg, module))
        if rows.get(module, 0) < made:
            missing.append(f"{module}: {rows.get(module, 0)} of {made} mutants")
    return missing


def merged(previous: dict[str, Any], new: dict[str, Any]) -> dict[str, Any]:
    """`previous` with `new`'s areas replaced, each naming its own date, commit and scope."""
    provenance = {key: new[key] for key in ("measured", "commit", "scope", "full_run")}
    ours = {area["area"]: area | provenance for area in new["areas"]}
    kept = [area for area in previous.get("areas") or [] if area["area"] not in ours]
    return previous | {"areas": sorted([*kept, *ours.values()], key=lambda a: str(a["area"]))}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out", type=Path, help="the --out folder of a bench.mutation.run")
    parser.add_argument(
        "--scope",
        required=True,
        help='what the run covered, starting "full" for every mutant, e.g. "sample: 1 mutant '
        'per module, seed 17"',
    )
    parser.add_argument("--commit", help="commit the run mutated (default: HEAD here)")
    parser.add_argument("--measured", help="date of the run (default: today, UTC)")
    parser.add_argument("--to", type=Path, default=TARGET)
    parser.add_argument(
        "--merge",
        action="store_true",
        help="replace only this run's areas in --to, the others keep their figure",
    )
    args = parser.parse_args(argv)
    doc = json.loads((args.out / "results.json").read_text("utf-8"))
    commit = (
        args.commit
        or subprocess.run(
            ["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True, check=True
        ).stdout.strip()
    )
    measured = args.measured or dt.datetime.now(dt.UTC).date().isoformat()
    published = figure(doc, args.scope, commit, measured)
    if not published["areas"]:
        print(f"error: {args.out}/results.json holds no mutant", file=sys.stderr)
        return 1
    if bad := impossible(published["areas"]):
        print("error: counts that cannot be: " + "; ".join(bad), file=sys.stderr)
        return 1
    if published["full_run"] and (gaps := incomplete(doc)):
        print("error: not a full run of its areas: " + "; ".join(gaps), file=sys.stderr)
        return 1
    if published["full_run"] and (blind := unhashed(published["areas"])):
        print("error: no recorded module bytes for: " + ", ".join(blind), file=sys.stderr)
        return 1
    if args.merge and args.to.is_file():
        published = merged(json.loads(args.to.read_text("utf-8")), published)
    args.to.write_text(json.dumps(published, indent=1) + "\n", "utf-8")
    print(f"wrote {args.to}: {len(published['areas'])} areas")
    return 0


if __name__ == "__main__":
    sys.exit(main())
