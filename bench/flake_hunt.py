"""Flake hunt: run the whole suite against the reference many times and tally what went wrong.

    python -m bench.flake_hunt --runs 30 -n 2                  # 30 whole-suite runs at -n 2
    python -m bench.flake_hunt --runs 10 -n 4 --dates          # 10 at -n 4, then every change date
    python -m bench.flake_hunt --runs 0 --dates                # only the change dates
    python -m bench.flake_hunt --project-tests 3 --hog         # the project's tests, CPU hogged

A verdict the suite gives is only as good as the reference it is checked against: one FAIL or
ERROR that comes and goes teaches users to ignore ERRORs. Every FAIL, ERROR, XPASS and run
problem of every run is tallied by rule and by reason (its first line, with numbers and run
prefixes blanked so that the same cause counts once). `--hog` keeps one busy-looping process per
core for the whole hunt, as on a user's busy laptop. Writes `tally.json` and `tally.md` in the
output directory (default `reports/flake-hunt-<time>/`) and exits 1 when anything was found.
"""

from __future__ import annotations

import argparse
import contextlib
import datetime as dt
import json
import multiprocessing
import os
import re
import subprocess
import sys
import time
import xml.etree.ElementTree as ET
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from bench.sweep_dates import change_dates

BAD = ("FAIL", "ERROR", "XPASS", "FLAKY")
AREAS = ("logs", "gateway", "storage")


def reason_key(message: str | None) -> str:
    """The first line of a message with what differs between runs blanked out."""
    line = (message or "").strip().splitlines()[0] if (message or "").strip() else "(no message)"
    line = re.sub(r"ec-[0-9a-f]{8}[-\w]*", "ec-…", line)
    line = re.sub(r"\b[0-9a-f]{16,}\b", "…", line)
    line = re.sub(r"\d+(\.\d+)?", "N", line)
    return line[:200]


def all_change_dates() -> list[dt.date]:
    dates: set[dt.date] = set()
    for area in AREAS:
        dates.update(change_dates(area))
    return sorted(dates)


def suite_run(out: Path, run_id: str, workers: str, as_of: dt.date | None) -> dict[str, Any]:
    """One whole-suite `conformance run`; what failed in it."""
    command = [
        sys.executable, "-m", "conformance.cli", "run", "-n", workers,
        "--report-dir", str(out), "--run-id", run_id,
    ]  # fmt: skip
    if as_of is not None:
        command += ["--as-of", as_of.isoformat()]
    started = time.monotonic()
    proc = subprocess.run(command, capture_output=True, text=True, check=False)
    row: dict[str, Any] = {
        "run": run_id, "exit": proc.returncode, "seconds": round(time.monotonic() - started, 1),
        "as_of": as_of.isoformat() if as_of else "today", "workers": workers, "bad": [],
    }  # fmt: skip
    results = out / run_id / "results.json"
    if not results.exists():
        row["bad"].append(["(no results.json)", reason_key((proc.stderr or proc.stdout)[-300:])])
        return row
    doc = json.loads(results.read_text(encoding="utf-8"))
    for case in doc["cases"]:
        if case["status"] in BAD:
            row["bad"].append([case["rule_id"], f"{case['status']}: {reason_key(case['message'])}"])
    for problem in doc["run"].get("problems", []):
        row["bad"].append([f"(run problem: {problem['kind']})", reason_key(problem["message"])])
    row["certified"] = bool(doc["summary"]["certified"])
    return row


def project_tests_run(out: Path, index: int) -> dict[str, Any]:
    """The README's second command's pytest part, once; failing test ids from its JUnit XML."""
    junit = out / f"project-{index}.xml"
    started = time.monotonic()
    proc = subprocess.run(
        [sys.executable, "-m", "pytest", "-n", "2", "-q", "--junitxml", str(junit)],
        capture_output=True, text=True, check=False,
    )  # fmt: skip
    row: dict[str, Any] = {
        "run": f"project-{index}", "exit": proc.returncode,
        "seconds": round(time.monotonic() - started, 1), "bad": [],
    }  # fmt: skip
    tail = proc.stdout.strip().splitlines()[-1:] if proc.stdout.strip() else []
    row["summary"] = tail[0] if tail else ""
    if not junit.exists():
        row["bad"].append(["(no junit)", reason_key(proc.stderr[-300:])])
        return row
    for case in ET.parse(junit).getroot().iter("testcase"):
        for kind in ("failure", "error"):
            found = case.find(kind)
            if found is not None:
                test = f"{case.get('classname')}::{case.get('name')}"
                row["bad"].append([test, f"{kind}: {reason_key(found.get('message'))}"])
    return row


def _spin() -> None:  # pragma: no cover - a busy loop in a child process
    while True:
        pass


@contextlib.contextmanager
def cpu_hog(enabled: bool) -> Iterator[None]:
    """One busy-looping process per core while the body runs (a busy laptop)."""
    if not enabled:
        yield
        return
    hogs = [multiprocessing.Process(target=_spin, daemon=True) for _ in range(os.cpu_count() or 2)]
    for hog in hogs:
        hog.start()
    try:
        yield
    finally:
        for hog in hogs:
            hog.terminate()
            hog.join()


def tally(rows: list[dict[str, Any]]) -> list[tuple[str, str, int, list[str]]]:
    counts: Counter[tuple[str, str]] = Counter()
    where: dict[tuple[str, str], list[str]] = {}
    for row in rows:
        for rule, reason in row["bad"]:
            counts[(rule, reason)] += 1
            where.setdefault((rule, reason), []).append(row["run"])
    return [(rule, reason, n, where[(rule, reason)]) for (rule, reason), n in counts.most_common()]


def write_tally(out: Path, rows: list[dict[str, Any]], header: str) -> int:
    found = tally(rows)
    (out / "tally.json").write_text(json.dumps({"runs": rows, "tally": found}, indent=2) + "\n")
    lines = [
        header,
        "",
        "| run | as-of | -n | exit | s | FAIL/ERROR found |",
        "|---|---|---|---|---|---|",
    ]
    for row in rows:
        bad = len(row["bad"])
        lines.append(
            f"| {row['run']} | {row.get('as_of', '')} | {row.get('workers', '2')} | {row['exit']} "
            f"| {row['seconds']} | {bad} |"
        )
    lines += ["", "| rule or test | status: reason | times | runs |", "|---|---|---|---|"]
    lines += [f"| {r} | {why} | {n} | {', '.join(runs[:5])} |" for r, why, n, runs in found]
    total = sum(n for *_, n, _ in found)
    lines.append(f"\n{len(rows)} runs, {total} FAIL/ERROR in all, {len(found)} distinct causes")
    (out / "tally.md").write_text("\n".join(lines) + "\n")
    print(lines[-1].strip(), f"-> {out}/tally.md")
    return 1 if found else 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=30, help="whole-suite runs at today's date")
    parser.add_argument("-n", dest="workers", default="2")
    parser.add_argument("--dates", action="store_true", help="also one run at every change date")
    parser.add_argument("--project-tests", type=int, default=0, metavar="K",
                        help="run the project's tests K times instead of the suite")  # fmt: skip
    parser.add_argument("--hog", action="store_true", help="keep every core busy meanwhile")
    parser.add_argument("--out", type=Path, default=None)
    args = parser.parse_args(argv)
    stamp = dt.datetime.now(dt.UTC).strftime("%Y%m%dT%H%M%S")
    out: Path = (args.out or Path("reports") / f"flake-hunt-{stamp}").resolve()
    out.mkdir(parents=True, exist_ok=True)
    rows: list[dict[str, Any]] = []
    with cpu_hog(args.hog):
        plan: list[tuple[str, Any]] = []
        if args.project_tests:
            plan = [("project", i) for i in range(1, args.project_tests + 1)]
        else:
            plan = [("suite", None) for _ in range(args.runs)]
            if args.dates:
                plan += [("suite", date) for date in all_change_dates()]
        for index, (kind, arg) in enumerate(plan, 1):
            if kind == "project":
                row = project_tests_run(out, arg)
            else:
                label = f"n{args.workers}-{index:03d}" + (f"-{arg.isoformat()}" if arg else "")
                row = suite_run(out, label, args.workers, arg)
            rows.append(row)
            print(
                f"{row['run']}  exit={row['exit']}  {row['seconds']:>6}s  "
                f"{len(row['bad'])} bad  {row.get('summary', '')}", flush=True,
            )  # fmt: skip
    header = (
        f"flake hunt {stamp}: {len(rows)} runs, -n {args.workers}, hog={args.hog}, "
        f"commit {_commit()}"
    )
    return write_tally(out, rows, header)


def _commit() -> str:
    try:
        return subprocess.run(
            ["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True, check=True
        ).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "unknown"


if __name__ == "__main__":
    sys.exit(main())
