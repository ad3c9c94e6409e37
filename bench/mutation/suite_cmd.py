"""The test command cosmic-ray runs per mutant: `conformance run` once per as-of date.

Exits 0 only when every run passes (the mutant survived); stops at the first failing run and
at the first failing test (-x), so a killed mutant costs seconds. Report folders go to a
temporary directory that is removed afterwards.
"""

from __future__ import annotations

import argparse
import datetime as dt
import subprocess
import sys
import tempfile


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--area", action="append", default=[])
    parser.add_argument("--rule", action="append", default=[])
    parser.add_argument("--as-of", action="append", default=[])
    parser.add_argument("--case-timeout", default="60")
    args = parser.parse_args(argv)
    selection = [x for a in args.area for x in ("--area", a)]
    selection += [x for r in args.rule for x in ("--rule", r)]
    with tempfile.TemporaryDirectory(prefix="ec-mutant-") as reports:
        for day in args.as_of or ["today"]:
            date = dt.date.today().isoformat() if day == "today" else day
            command = [
                sys.executable, "-m", "conformance.cli", "run", "-n", "0",
                "--as-of", date, "--report-dir", reports, "--case-timeout", args.case_timeout,
                *selection, "--", "-x", "-q", "-p", "no:randomly",
            ]  # fmt: skip
            proc = subprocess.run(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
            if proc.returncode != 0:
                sys.stdout.write(proc.stdout.decode("utf-8", "replace")[-4000:])
                return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
