"""Run the storage area against the reference at every change date of the catalog (outside CI).

    python bench/sweep_dates.py [--area storage] [-n 2] [--with-eve] [--out DIR] [DATE ...]

CI runs a handful of as-of dates; this is the full sweep issue 3 asks for: one
`conformance run --as-of D` per date on which a rule of the area starts or stops (each
rule's `since` and `until`, each dated step of a limit) and today; `--with-eve` adds the day
before each (the old side of the change, twice the time). The reference is launched by each
run at that date, so a failure is a suite or a reference bug at that date. Prints one line per
date and writes
`summary.md` and `summary.json` in the output directory. Exits non-zero when any date failed.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from conformance.model.catalog import load_catalog

BAD = ("FAIL", "ERROR", "XPASS")


def change_dates(area: str, with_eve: bool = False) -> list[dt.date]:
    """Every since/until of the area's rules and limit steps (and the day before), plus today."""
    catalog = load_catalog()
    dates: set[dt.date] = {dt.date.today()}
    limits_used: set[str] = set()
    for rule in catalog.select(area=area):
        dates.update(d for d in (rule.since, rule.until) if d is not None)
        if rule.limit:
            limits_used.add(rule.limit)
    for name in limits_used:
        dates.update(step.since for step in catalog.limits[name] if step.since is not None)
    if with_eve:
        dates.update([d - dt.timedelta(days=1) for d in list(dates)])
    return sorted(dates)


def run_one(date: dt.date, area: str, workers: str, out: Path) -> dict[str, Any]:
    """One `conformance run` at `date`; the case and rule counts of its results.json."""
    run_id = f"asof-{date.isoformat()}"
    started = time.monotonic()
    command = [
        sys.executable, "-m", "conformance.cli", "run", "--area", area, "--as-of",
        date.isoformat(), "-n", workers, "--report-dir", str(out), "--run-id", run_id,
    ]  # fmt: skip
    proc = subprocess.run(command, capture_output=True, text=True, check=False)
    row: dict[str, Any] = {
        "date": date.isoformat(),
        "exit": proc.returncode,
        "seconds": round(time.monotonic() - started, 1),
    }
    results = out / run_id / "results.json"
    if not results.exists():
        row["error"] = (proc.stderr or proc.stdout)[-400:]
        return row
    doc = json.loads(results.read_text())
    cases: dict[str, int] = {}
    for case in doc["cases"]:
        cases[case["status"]] = cases.get(case["status"], 0) + 1
    row["cases"] = cases
    row["bad_rules"] = sorted({c["rule_id"] for c in doc["cases"] if c["status"] in BAD})
    return row


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--area", default="storage")
    parser.add_argument("-n", dest="workers", default="2")
    parser.add_argument("--out", type=Path, default=None)
    parser.add_argument("--with-eve", action="store_true", help="also the day before each date")
    parser.add_argument("dates", nargs="*", type=dt.date.fromisoformat)
    args = parser.parse_args(argv)
    stamp = dt.datetime.now(dt.UTC).strftime("%Y%m%dT%H%M%S")
    out: Path = (args.out or Path("reports") / f"sweep-{stamp}").resolve()
    out.mkdir(parents=True, exist_ok=True)
    dates = args.dates or change_dates(args.area, with_eve=args.with_eve)
    rows = []
    for date in dates:
        row = run_one(date, args.area, args.workers, out)
        rows.append(row)
        bad = ", ".join(row.get("bad_rules", [])) or row.get("error", "")
        print(f"{row['date']}  exit={row['exit']}  {row['seconds']:>6}s  "
              f"{row.get('cases', {})}  {bad}", flush=True)  # fmt: skip
    (out / "summary.json").write_text(json.dumps(rows, indent=2) + "\n")
    lines = ["| as-of | exit | s | cases | failing rules |", "|---|---|---|---|---|"]
    for row in rows:
        counts = " ".join(f"{k}={v}" for k, v in sorted(row.get("cases", {}).items()))
        bad = ", ".join(row.get("bad_rules", [])) or row.get("error", "").replace("\n", " ")
        lines.append(f"| {row['date']} | {row['exit']} | {row['seconds']} | {counts} | {bad} |")
    failed = [r["date"] for r in rows if r["exit"] != 0]
    lines.append(f"\n{len(rows)} dates, {len(failed)} failed: {', '.join(failed) or 'none'}")
    (out / "summary.md").write_text("\n".join(lines) + "\n")
    print(lines[-1].strip(), f"-> {out}/summary.md")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
