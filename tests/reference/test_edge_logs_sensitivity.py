"""Break-checks for the log record rules (area A, issue 5 item 3).

For each case the reference's edge is made to break the rules (one `deviate_*` field of
`reference_impl/profiles/edge.yaml`) and the suite must report every listed rule FAIL; the
baseline wants them all PASS against the unmodified reference.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from helpers.suite_runner import assert_rules_fail, assert_rules_hold, deviation_label

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


@pytest.mark.parametrize("case", CASES, ids=[deviation_label(*c) for c in CASES])
def test_suite_fails_rules_the_edge_breaks(
    tmp_path: Path, case: tuple[list[str], dict[str, str]]
) -> None:
    rules, profile = case
    assert_rules_fail(tmp_path, rules, profile)


def test_record_rules_pass_against_the_reference(tmp_path: Path) -> None:
    rules = sorted({rule for case in CASES for rule in case[0]})
    assert_rules_hold(tmp_path, rules)
