"""Each bindings rule goes FAIL when the reference is made to break it (one profile override).

The pattern of test_rule_sensitivity.py, with the compatibility date of the run as a further
knob: the include rules are about a compat date, so a break-check has to pick one.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from helpers.suite_runner import rule_status, run_expecting_fail

TRUE = "true"
# (rule, profile override, compat date or None)
BREAKS: list[tuple[str, dict[str, str], str | None]] = [
    ("storage.bindings.put-get", {"deviate_bindings_truncate_body": TRUE}, None),
    ("storage.bindings.put-only-if", {"deviate_bindings_ignore_only_if": TRUE}, None),
    ("storage.bindings.put-sha1", {"deviate_bindings_accept_wrong_checksum": TRUE}, None),
    ("storage.bindings.put-sha256", {"deviate_bindings_accept_wrong_checksum": TRUE}, None),
    ("storage.bindings.put-sha384", {"deviate_bindings_accept_wrong_checksum": TRUE}, None),
    ("storage.bindings.put-sha512", {"deviate_bindings_accept_wrong_checksum": TRUE}, None),
    ("storage.bindings.get-checksums", {"deviate_bindings_drop_checksums": TRUE}, None),
    ("storage.bindings.head-checksums", {"deviate_bindings_drop_checksums": TRUE}, None),
    ("storage.bindings.md5-default", {"deviate_bindings_drop_checksums": TRUE}, None),
    ("storage.bindings.delete-many", {"deviate_bindings_delete_first_only": TRUE}, None),
    ("storage.bindings.get-range", {"deviate_bindings_ignore_range": TRUE}, None),
    ("storage.bindings.malformed-range", {"deviate_bindings_malformed_range_internal": TRUE}, None),
    ("storage.bindings.list-limit-reduced", {"deviate_bindings_list_budget_error": TRUE}, None),
    ("storage.bindings.list-include-honored", {"deviate_bindings_ignore_include": TRUE}, None),
    ("storage.bindings.list-include-default-date", {"deviate_bindings_ignore_include": TRUE}, None),
    # the runtime's date (2022-08-04) instead of the spec's: caught between the two dates
    ("storage.bindings.list-include-contested-window",
     {"bindings_list_honor_include_date": '"2022-08-04"'}, "2022-07-20"),
    ("storage.bindings.list-without-flag",
     {"deviate_bindings_always_honor_include": TRUE}, "2022-07-01"),
    ("storage.bindings.multipart", {"deviate_bindings_multipart_drop_last_part": TRUE}, None),
    ("storage.bindings.conditional-strong-list", {"deviate_bindings_first_etag_only": TRUE}, None),
    ("storage.bindings.conditional-weak", {"deviate_bindings_first_etag_only": TRUE}, None),
    ("storage.bindings.conditional-wildcard", {"deviate_bindings_first_etag_only": TRUE}, None),
    ("storage.bindings.conditional-weak-if-match", {"deviate_bindings_weak_if_match": TRUE}, None),
    ("storage.bindings.list-delimited-prefixes-once",
     {"deviate_bindings_repeat_delimited_prefixes": TRUE}, None),
    ("storage.object.http-metadata-across-surfaces",
     {"deviate_bindings_hide_s3_content_type": TRUE}, None),
]  # fmt: skip


def _cases() -> list[Any]:
    """One suite run per distinct break (rules sharing an override share a run: CI cost)."""
    grouped: dict[tuple[tuple[tuple[str, str], ...], str | None], list[str]] = {}
    for rule, profile, compat in BREAKS:
        grouped.setdefault((tuple(sorted(profile.items())), compat), []).append(rule)
    cases = []
    for (items, compat), rules in grouped.items():
        label = f"{'+'.join(r.rsplit('.', 1)[1] for r in rules)}@{compat or 'as-of'}"
        cases.append(pytest.param(rules, dict(items), compat, id=label, marks=pytest.mark.slow))
    return cases


@pytest.mark.parametrize(("rules", "profile", "compat_date"), _cases())
def test_suite_reports_fail_against_deviating_reference(
    tmp_path: Path, rules: list[str], profile: dict[str, str], compat_date: str | None
) -> None:
    """The bindings suite, run against a reference that breaks the rules, reports each FAIL."""
    extra = ["--compat-date", compat_date] if compat_date else []
    document = run_expecting_fail(
        tmp_path, rules=rules, reference_profile=profile, extra_args=extra
    )
    statuses = {rule: rule_status(document, rule) for rule in rules}
    assert set(statuses.values()) == {"FAIL"}, f"{statuses}:\n{document['_output']}"
