"""Break-checks for the log record rules (area A, issue 5 item 3).

For each case the reference's edge is made to break the rules (one `deviate_*` field of
`reference_impl/profiles/edge.yaml`) and the suite must report every listed rule FAIL; the
baseline wants them all PASS against the unmodified reference.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from helpers.suite_runner import rule_status, run_suite

pytestmark = pytest.mark.slow

R = "logs.records."
CASES: list[tuple[list[str], dict[str, str]]] = [
    ([R + "repeated-header-first"], {"deviate_log_every_instance": "true"}),
    ([R + "data-truncated", R + "truncation-order"], {"deviate_no_custom_data_limit": "true"}),
    (
        [R + "original-headers", R + "transform-original-value"],
        {"deviate_log_transformed_headers": "true"},
    ),
    ([R + "requires-field-selection"], {"deviate_log_unselected_fields": "true"}),
    ([R + "timestamps-rfc3339"], {"deviate_ignore_timestamp_format": "true"}),
]


def _label(case: tuple[list[str], dict[str, str]]) -> str:
    rules, profile = case
    return f"{rules[0]}[{','.join(f'{k}={v}' for k, v in profile.items())}]"


@pytest.mark.parametrize("case", CASES, ids=[_label(c) for c in CASES])
def test_suite_fails_rules_the_edge_breaks(
    tmp_path: Path, case: tuple[list[str], dict[str, str]]
) -> None:
    rules, profile = case
    document = run_suite(tmp_path, rules=rules, reference_profile=profile)
    statuses = {rule: rule_status(document, rule) for rule in rules}
    assert set(statuses.values()) == {"FAIL"}, f"{statuses}\n{document['_output']}"


def test_record_rules_pass_against_the_reference(tmp_path: Path) -> None:
    rules = sorted({rule for case in CASES for rule in case[0]})
    document: dict[str, Any] = run_suite(tmp_path, rules=rules)
    statuses = {rule: rule_status(document, rule) for rule in rules}
    wrong = {rule: s for rule, s in statuses.items() if s not in {"PASS", "N/A"}}
    assert not wrong, f"{wrong}\n{document['_output']}"
