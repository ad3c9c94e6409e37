"""The suite run ON a change date, where an off-by-one date comparison in a target shows.

A default run sits on today, far from every change, so a target that switches a dated
behaviour one day late (`since < day` for `since <= day`) or one day early passes it. These
runs sit on the first day of a change (the new behaviour must hold) and on its eve (the old
one must), each on the rules that change that day; bench/mutation runs the same dates.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

# (as-of date, selection, rules that must PASS on that date)
RUNS = [
    ("2022-07-01", ["--rule", "storage.delete-objects", "--rule", "storage.create-bucket.object"],
     ["storage.delete-objects.limit-1000", "storage.create-bucket.object-lock-true-refused"]),
    ("2022-06-30", ["--rule", "storage.delete-objects"], ["storage.delete-objects.key-limit"]),
    ("2023-01-30", ["--area", "gateway"],
     ["gateway.network.rinkeby-retired", "gateway.network.sepolia-replaces-rinkeby"]),
    # the spec's compat date 2022-07-14 opens a window the runtime docs contest (SHOULD);
    # the MUST rule holds from 2022-08-04, where both sources agree
    ("2022-07-14", ["--rule", "storage.bindings.list-include", "--compat-date", "2022-07-14"],
     ["storage.bindings.list-include-contested-window"]),
    ("2022-08-04", ["--rule", "storage.bindings.list-include", "--compat-date", "2022-08-04"],
     ["storage.bindings.list-include-default-date"]),
]  # fmt: skip


@pytest.mark.slow
@pytest.mark.parametrize(("as_of", "selection", "must_pass"), RUNS, ids=[r[0] for r in RUNS])
def test_suite_passes_on_a_change_date(
    tmp_path: Path, as_of: str, selection: list[str], must_pass: list[str]
) -> None:
    """The reference passes on the change date, and the rules that change that day PASS."""
    cmd = [sys.executable, "-m", "conformance.cli", "run", "--report-dir", str(tmp_path),
           "--run-id", "run", "-n", "0", "--as-of", as_of, *selection]  # fmt: skip
    proc = subprocess.run(cmd, cwd=tmp_path, capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    document = json.loads((tmp_path / "run" / "results.json").read_text("utf-8"))
    statuses = {rule["id"]: rule["status"] for rule in document["rules"]}
    assert {r: statuses.get(r) for r in must_pass} == dict.fromkeys(must_pass, "PASS")
