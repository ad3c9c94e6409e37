"""Break-checks for the log record rules (area A, issue 5 item 3).

For each case the reference's edge is made to break the rules (one deviation of
`reference_impl/deviations.py`, or a dated field set to its other value) and the suite must
report every listed rule FAIL at the case's date (the spec's world, 2024-06-07, for the rules that
end on 2025-04-18; today otherwise); the baseline wants them all PASS against the unmodified
reference at those dates.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from helpers.suite_runner import assert_rules_fail, deviation_label, rule_status, run_suite

pytestmark = pytest.mark.slow

R = "logs.records."
SPEC_WORLD = "2024-06-07"
CASES: list[tuple[list[str], dict[str, str], str | None]] = [
    ([R + "repeated-header-first"], {"deviate_log_every_instance": "true"}, None),
    (
        [R + "data-truncated", R + "truncation-order"],
        {"deviate_no_custom_data_limit": "true"},
        SPEC_WORLD,
    ),
    (
        [R + "original-headers", R + "transform-original-value"],
        {"deviate_log_transformed_headers": "true"},
        SPEC_WORLD,
    ),
    (
        [R + "request-fields-raw", R + "transform-original-value"],
        {"deviate_log_transformed_headers": "true"},
        None,
    ),
    ([R + "requires-field-selection"], {"deviate_log_unselected_fields": "true"}, None),
    (
        [R + "timestamps-rfc3339", R + "timestamps-unix"],
        {"deviate_ignore_timestamp_format": "true"},
        None,
    ),
    (
        [R + "disabled-job-gets-nothing", R + "http-requests-dataset-only"],
        {"deviate_log_every_job": "true"},
        None,
    ),
    # the same, from an edge whose records lack ClientRequestPath (a field the spec never names):
    # the firewall_events job then gets the round's lines as RayID alone
    (
        [R + "http-requests-dataset-only"],
        {"deviate_log_every_job": "true", "deviate_drop_record_fields": '["ClientRequestPath"]'},
        None,
    ),
    # the provider's change of 2025-04-18
    (
        [R + "data-beyond-8kb-whole", R + "fields-after-8kb-logged"],
        {"custom_field_data_limit": "8192"},
        None,
    ),
    ([R + "preserve-duplicates"], {"deviate_first_instance_only": "true"}, None),
    (
        [R + "transformed-request-fields", R + "raw-response-fields"],
        {"deviate_arrays_as_defaults": "true"},
        None,
    ),
    ([R + "response-fields-transformed"], {"deviate_log_raw_response_fields": "true"}, None),
]


@pytest.mark.parametrize("case", CASES, ids=[deviation_label(*c) for c in CASES])
def test_suite_fails_rules_the_edge_breaks(
    tmp_path: Path, case: tuple[list[str], dict[str, str], str | None]
) -> None:
    rules, profile, as_of = case
    assert_rules_fail(tmp_path, rules, profile, as_of=as_of)


@pytest.mark.parametrize("as_of", [None, SPEC_WORLD])
def test_record_rules_pass_against_the_reference(tmp_path: Path, as_of: str | None) -> None:
    rules = sorted({rule for case in CASES for rule in case[0] if case[2] == as_of})
    document = run_suite(tmp_path, rules=rules, as_of=as_of)
    statuses = {rule: rule_status(document, rule) for rule in rules}
    wrong = {rule: s for rule, s in statuses.items() if s != "PASS"}
    assert not wrong, f"{wrong}\n{document['_output']}"
