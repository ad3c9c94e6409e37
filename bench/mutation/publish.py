"""Publish a mutation run's per-area scores as the suite-sensitivity figure of the report.

`python -m bench.mutation.publish OUT --scope "..."` reads OUT/results.json (bench.mutation.run)
and writes conformance/report/sensitivity.json, which `conformance run` prints beside its
verdict and the HTML report shows. The file says what was measured (a full run or a sample,
how many mutants), when and at which commit, so a reader never takes a sample for the whole.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

from bench.mutation.plan import ROOT
from bench.mutation.report import COLUMNS, Row, area_of

TARGET = ROOT / "conformance" / "report" / "sensitivity.json"


def areas_from(doc: dict[str, Any]) -> list[dict[str, Any]]:
    """Per-area rows of a run's results.json (summed from its module rows)."""
    areas: dict[str, Row] = {}
    for row in doc.get("rows") or []:
        name = area_of(str(row["module"]))
        area = areas.setdefault(name, Row(name))
        for column in COLUMNS:
            setattr(area, column, getattr(area, column) + int(row.get(column) or 0))
    out = []
    for name, area in sorted(areas.items()):
        cells = {column: getattr(area, column) for column in COLUMNS}
        out.append({"area": name, **cells, "score": round(area.score, 1)})
    return out


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
    args.to.write_text(json.dumps(published, indent=1) + "\n", "utf-8")
    print(f"wrote {args.to}: {published['mutants']} mutants in {len(published['areas'])} areas")
    return 0


if __name__ == "__main__":
    sys.exit(main())
