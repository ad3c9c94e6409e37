"""Twenty recorded nights of the reference with injected changes, and their history page.

    .venv/bin/python -m bench.history_demo --out reports/history-demo [--nights 20]

Each night is a small `conformance run` (two rule prefixes, no xdist: ~20 s here) recorded with
`conformance history add --night` into `OUT/history.sqlite`; then `conformance history show`
writes `OUT/history.html`. What is injected, through the launched reference's profile:

- from night 8 the target "ships release 1.1", which switches `deviate_range_status_200` on:
  storage.get-object.range-206 fails from then on (the regression, with the target version
  changing on that edge);
- from night 12 `deviate_drop_id` is switched on on a fixed, irregular set of nights while the
  target version stays 1.1: gateway.jsonrpc.id-echoed flips without any version change (flaky).

The nights are faked (2026-11-01 onwards) through `--night`; the runs themselves are real.
"""

from __future__ import annotations

import argparse
import datetime as dt
import subprocess
import sys
from pathlib import Path

RULES = ("gateway.jsonrpc", "storage.get-object.range")
REGRESSION_FROM = 8
INTERMITTENT_NIGHTS = frozenset({12, 13, 15, 18, 19})  # irregular on purpose
FIRST_NIGHT = dt.date(2026, 11, 1)


def night_plan(i: int) -> tuple[str, list[str]]:
    """Target version and reference profile overrides of night i (1-based)."""
    profile = []
    if i >= REGRESSION_FROM:
        profile.append("deviate_range_status_200=true")
    if i in INTERMITTENT_NIGHTS:
        profile.append("deviate_drop_id=true")
    return ("reference 1.1" if i >= REGRESSION_FROM else "reference 1.0"), profile


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", type=Path, default=Path("reports/history-demo"))
    ap.add_argument("--nights", type=int, default=20)
    args = ap.parse_args(argv)
    cli = [sys.executable, "-m", "conformance.cli"]
    store = args.out / "history.sqlite"
    for i in range(1, args.nights + 1):
        night = FIRST_NIGHT + dt.timedelta(days=i - 1)
        version, profile = night_plan(i)
        run_id = f"night{i:02d}"
        cmd = [*cli, "run", "-n", "0", "--report-dir", str(args.out / "runs"), "--run-id", run_id]
        for prefix in RULES:
            cmd += ["--rule", prefix]
        for pair in profile:
            cmd += ["--reference-profile", pair]
        print(f"night {i} ({night}): {version}, profile {profile or 'default'}", flush=True)
        subprocess.run(cmd, check=False, stdout=subprocess.DEVNULL, timeout=600)
        results = args.out / "runs" / run_id / "results.json"
        add = [*cli, "history", "add", str(results), "--store", str(store)]
        subprocess.run(
            [*add, "--night", night.isoformat(), "--target-version", version], check=True
        )
    show = [*cli, "history", "show", "--target", "reference", "--store", str(store)]
    subprocess.run([*show, "-o", str(args.out / "history.html")], check=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
