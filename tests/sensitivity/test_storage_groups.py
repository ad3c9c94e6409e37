"""Storage rules go FAIL against a reference broken on purpose, several rules per suite run.

The one-rule-per-run cases of deviations.yaml cost a reference launch and a suite collection
each; the storage area has ~45 more rules to check, so they run in groups
(storage_groups.yaml) whose breaks touch disjoint operations.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml
from helpers.suite_runner import rule_status, run_expecting_fail

GROUPS: list[dict[str, Any]] = yaml.safe_load(
    (Path(__file__).parent / "storage_groups.yaml").read_text("utf-8")
)


@pytest.mark.slow
@pytest.mark.parametrize("group", GROUPS, ids=[g["name"] for g in GROUPS])
def test_each_rule_of_the_group_fails(tmp_path: Path, group: dict[str, Any]) -> None:
    """One run against the group's broken reference: every listed rule is FAIL."""
    document = run_expecting_fail(
        tmp_path,
        rules=group["rules"],
        as_of=group.get("as_of"),
        reference_profile={k: str(v) for k, v in group["profile"].items()},
    )
    statuses = {rule: rule_status(document, rule) for rule in group["rules"]}
    wrong = {rule: status for rule, status in statuses.items() if status != "FAIL"}
    assert not wrong, f"not FAIL: {wrong}\n{document['_output']}"
