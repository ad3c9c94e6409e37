"""The main job end to end: `conformance run` against the bundled reference, today and dated.

This is what the README's first command does; it must exit 0 with every slice rule PASS (not
N/A), write a schema-valid results.json, junit.xml and index.html, and follow the dated limits.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from conformance.results import validate

SLICE_RULES = [
    "storage.create-bucket.location-auto",
    "storage.create-bucket.location-other-refused",
    "storage.head-bucket.region-header",
    "storage.get-bucket-location.auto",
    "storage.put-object.round-trip",
    "storage.get-object.range-inclusive",
    "storage.get-object.range-206",
    "storage.delete-objects.key-limit",
    "storage.auth.signature-mismatch",
    "logs.rulesets.list-envelope",
    "logs.rulesets.create-envelope",
    "logs.rulesets.put-replaces-rules",
    "logs.auth.missing-headers-refused",
    "gateway.network.sepolia-served",
    "gateway.network.sepolia-chain-id",
    "gateway.jsonrpc.id-echoed",
]


def conformance_run(tmp_path: Path, *args: str) -> tuple[subprocess.CompletedProcess[str], Path]:
    cmd = [sys.executable, "-m", "conformance.cli", "run", "--report-dir", str(tmp_path),
           "--run-id", "run", "-n", "2", *args]  # fmt: skip
    proc = subprocess.run(cmd, cwd=tmp_path, capture_output=True, text=True, timeout=900)
    return proc, tmp_path / "run"


def statuses(document: dict[str, Any]) -> dict[str, str]:
    return {rule["id"]: rule["status"] for rule in document["rules"]}


# Set by .ci/run, which has just run the README's first command (the same `conformance run`
# today, in a clean copy): its exit status, its output and its report folder. The checks below
# then read that run instead of starting the whole suite a second time (~50 s of a worker).
MAIN_JOB_EXIT, MAIN_JOB_LOG, MAIN_JOB_DIR = "EC_MAIN_JOB_EXIT", "EC_MAIN_JOB_LOG", "EC_MAIN_JOB_DIR"


def todays_run(tmp_path: Path) -> tuple[subprocess.CompletedProcess[str], Path]:
    """The main job's run of today: the one CI made, else a new one."""
    if all(os.environ.get(name) for name in (MAIN_JOB_EXIT, MAIN_JOB_LOG, MAIN_JOB_DIR)):
        log = Path(os.environ[MAIN_JOB_LOG]).read_text("utf-8", "replace")
        code = int(os.environ[MAIN_JOB_EXIT])
        return subprocess.CompletedProcess(["conformance", "run"], code, log, ""), Path(
            os.environ[MAIN_JOB_DIR]
        )
    return conformance_run(tmp_path)


@pytest.mark.slow
def test_run_today_passes_every_slice_rule(tmp_path: Path) -> None:
    """The whole suite against the reference today: exit 0, slice rules PASS, files written."""
    proc, run_dir = todays_run(tmp_path)
    output = proc.stdout[-3000:] + proc.stderr[-3000:]
    assert proc.returncode == 0, output
    document = json.loads((run_dir / "results.json").read_text("utf-8"))
    validate(document)
    rules = statuses(document)
    not_passing = {rid: rules.get(rid) for rid in SLICE_RULES if rules.get(rid) != "PASS"}
    assert not not_passing, not_passing
    assert not any(case["status"] in {"FAIL", "ERROR", "XPASS"} for case in document["cases"])
    assert (run_dir / "junit.xml").is_file() and (run_dir / "index.html").is_file()
    # the report's path as printed: absolute, or relative to where the run started (CI's)
    printed = [line.split("report: ", 1)[1].strip() for line in proc.stdout.splitlines()
               if line.startswith("report: ")]  # fmt: skip
    where = [Path(p) if Path(p).is_absolute() else run_dir.parent.parent / p for p in printed]
    assert run_dir / "index.html" in where, printed
    log = run_dir / "reference.stderr"  # kept only when the reference wrote anything
    assert not log.exists() or "Traceback" not in log.read_text("utf-8", "replace"), log.read_text(
        "utf-8", "replace"
    )[-3000:]
    for area in ("storage", "logs", "gateway"):
        assert any(line.lstrip().startswith(area) for line in proc.stdout.splitlines()), area


@pytest.mark.slow
def test_run_as_of_2022_05_01_refuses_129_keys(tmp_path: Path) -> None:
    """At 2022-05-01 the DeleteObjects limit is 128: the over-by-one case sends 129 and passes."""
    proc, run_dir = conformance_run(tmp_path, "--as-of", "2022-05-01")
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    document = json.loads((run_dir / "results.json").read_text("utf-8"))
    validate(document)
    assert document["run"]["as_of"] == "2022-05-01"
    cases = [c for c in document["cases"] if c["rule_id"] == "storage.delete-objects.key-limit"]
    assert {c["case"] for c in cases} >= {"at-limit", "over-by-one"}, cases
    assert all(c["status"] == "PASS" for c in cases), cases
    # 128 keys accepted and 129 refused with MalformedXML: the limit of 2022-05-01 is 128
    # (with today's 1000, 129 keys would be accepted and the over-by-one case would fail).
    by_case = {c["case"]: c["evidence"] for c in cases}
    assert any(e["status"] == 200 for e in by_case["at-limit"]), by_case["at-limit"]
    refused = [e for e in by_case["over-by-one"] if e["status"] == 400]
    assert refused and "MalformedXML" in refused[-1]["body_excerpt"], by_case["over-by-one"]


@pytest.mark.slow
def test_run_as_of_2023_01_29_serves_rinkeby(tmp_path: Path) -> None:
    """The eve of the retirement: rinkeby served (PASS), its retirement not yet in force (N/A).

    Both rules are the gateway's, so only that area runs (a third whole-suite run cost ~45 s
    of a worker); the whole suite is run dated by the test above and today by the first."""
    proc, run_dir = conformance_run(tmp_path, "--as-of", "2023-01-29", "--area", "gateway")
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    rules = statuses(json.loads((run_dir / "results.json").read_text("utf-8")))
    assert rules["gateway.network.rinkeby-served"] == "PASS", rules
    assert rules["gateway.network.rinkeby-retired"] == "N/A", rules


def test_today_retires_rinkeby_in_the_same_catalog() -> None:
    """The two rinkeby rules meet at 2023-01-30, so exactly one is in force on any date."""
    from conformance.model.catalog import load_catalog

    catalog = load_catalog()
    served = catalog.get("gateway.network.rinkeby-served")
    retired = catalog.get("gateway.network.rinkeby-retired")
    assert served.until == retired.since
    assert retired.replaces == served.id
