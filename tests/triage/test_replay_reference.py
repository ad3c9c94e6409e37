"""`conformance replay` against the reference: a rule broken on purpose (--profile), replayed
(same answer as recorded), then fixed (the reference relaunched without the deviation) and
replayed again (the answer differs): replay shows whether a fix took."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import boto3
import pytest
from botocore.config import Config
from helpers.reference_process import launch_reference, stop_process

from conformance.replay import replay

RULE = "storage.get-bucket-location.auto"
BROKEN = "deviate_bucket_location=wnam"


def _run_broken(tmp_path: Path) -> Path:
    """A real run of the rule against the reference with the deviation: its results file."""
    cmd = [sys.executable, "-m", "conformance.cli", "run", "--rule", f"{RULE}$",
           "--reference-profile", BROKEN, "-n", "0", "--report-dir", str(tmp_path / "reports"),
           "--run-id", "broken"]  # fmt: skip
    subprocess.run(cmd, capture_output=True, text=True, timeout=240, check=False)
    results = tmp_path / "reports" / "broken" / "results.json"
    doc = json.loads(results.read_text("utf-8"))
    assert [r["status"] for r in doc["rules"] if r["id"] == RULE] == ["FAIL"]
    return results


def _surfaces(ready: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {"s3": ready["surfaces"]["s3"]}


def _bucket_of(results: Path) -> str:
    doc = json.loads(results.read_text("utf-8"))
    case = next(c for c in doc["cases"] if c["rule_id"] == RULE)
    url = case["evidence"][-1]["url"]
    return str(url.split("/")[3].split("?")[0])


def _make_bucket(ready: dict[str, Any], name: str) -> None:
    s3 = ready["surfaces"]["s3"]
    client = boto3.client(
        "s3", endpoint_url=s3["endpoint"], region_name="auto",
        aws_access_key_id=s3["access_key_id"], aws_secret_access_key=s3["secret_access_key"],
        config=Config(s3={"addressing_style": "path"}),
    )  # fmt: skip
    client.create_bucket(Bucket=name)


@pytest.mark.timeout(600)
def test_replay_reproduces_the_broken_answer_then_sees_the_fix(tmp_path: Path) -> None:
    results = _run_broken(tmp_path)
    data = tmp_path / "data"
    process, ready = launch_reference(data, "--profile", BROKEN)
    try:
        _make_bucket(ready, _bucket_of(results))  # the recorded case's bucket, on this server
        lines: list[str] = []
        broken = replay(results, RULE, _surfaces(ready), lines.append)
    finally:
        stop_process(process)
    assert broken.reproduced, "\n".join(lines)
    assert broken.failing.answer.status == 200 and "wnam" in broken.failing.answer.body
    assert "failing request [1]: reproduced" in "\n".join(lines)
    assert "| today" in "\n".join(lines)  # side by side

    process, ready = launch_reference(data)  # fixed: the deviation is gone, data kept
    try:
        lines = []
        fixed = replay(results, RULE, _surfaces(ready), lines.append)
    finally:
        stop_process(process)
    assert not fixed.reproduced, "\n".join(lines)
    assert "auto" in fixed.failing.answer.body and "wnam" in fixed.failing.recorded.response_body
    assert "NOT reproduced" in "\n".join(lines) and "answer differs" in "\n".join(lines)
