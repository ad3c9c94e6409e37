"""Synthetic results documents for the history tests: nights of a target with chosen verdicts."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures" / "results"


def base() -> dict[str, Any]:
    return json.loads((FIXTURES / "all-pass.json").read_text())


def night_doc(
    target: str, night: str, statuses: dict[str, str] | None = None, suite: str = "0.1.0"
) -> dict[str, Any]:
    """The all-pass fixture as a run of `target` on `night`, with some rules' statuses set."""
    doc = copy.deepcopy(base())
    run = doc["run"]
    run.update(
        run_id=f"{night}-{target}", target=target, started=f"{night}T02:00:00Z",
        finished=f"{night}T02:01:00Z", suite_version=suite,
    )  # fmt: skip
    for rule in doc["rules"]:
        status = (statuses or {}).get(rule["id"])
        if status:
            rule["status"] = status
            rule["reason"] = f"{status.lower()} on {night}"
    for case in doc["cases"]:
        status = (statuses or {}).get(case["rule_id"])
        if status:
            case["status"] = status
            case["message"] = f"{status.lower()} on {night}"
    return doc


def rule_ids() -> list[str]:
    return [r["id"] for r in base()["rules"]]
