"""Break-checks of the management API, migration, lifecycle and audit rules: each rule goes FAIL
when the reference is made to break it (pattern of test_rule_sensitivity.py).

To keep CI cheap, deviations that touch unrelated rules share one suite run; each listed rule's
test only depends on its own deviation (e.g. per_page ignored cannot make GetBucket fail).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from helpers.moto_source import moto_server
from helpers.suite_runner import rule_status, run_expecting_fail

RUNS: list[dict[str, Any]] = [
    {
        "id": "mgmt-buckets-migration",
        "profile": {
            "deviate_missing_bucket_status": "500",
            "deviate_mgmt_location": "wnam",
            "deviate_name_contains_jurisdiction": "true",
            "deviate_per_page_ignored": "true",
            "deviate_mgmt_cross_account": "true",
            "deviate_sippy_delete_keeps": "true",
            "deviate_migration_off": "true",
            "deviate_sippy_validate_accepts_all": "true",
        },
        "moto": True,
        "rules": [
            "storage.get-bucket.missing-404",
            "storage.get-bucket.missing-not-500",
            "storage.get-bucket.location-auto",
            "storage.mgmt.list-buckets.name-contains-not-jurisdiction",
            "storage.mgmt.list-buckets.per-page-cursor",
            "storage.mgmt.list-buckets.per-page-zero",
            "storage.mgmt.account-scoped",
            "storage.migration.put-delete",
            "storage.migration.copies-objects",
            "storage.migration.validate-refuses-bad-source",
        ],
    },
    {
        "id": "shape-lifecycle-audit",
        "profile": {
            "deviate_sippy_shape": "flat",
            "deviate_lifecycle_not_applied": "true",
            "deviate_audit_off": "true",
        },
        "rules": [
            "storage.migration.config-shape",
            "storage.migration.config-shape-changed",
            "storage.migration.earlier-shape-refused",
            "storage.lifecycle.expiration-applied-reference",
            "storage.lifecycle.abort-multipart-applied-reference",
            "storage.audit-logs.listed-reference",
        ],
    },
    {
        "id": "sippy-get-unset",
        "profile": {
            "deviate_sippy_get_unset": "true",
            "deviate_migration_not_kept": "true",
            "sippy_validate": "false",
        },
        "moto": True,
        "rules": [
            "storage.migration.get-config",
            "storage.migration.stored-after-fetch",
            "storage.migration.validate",
        ],
    },
    {
        "id": "migration-fetch-overwrites",
        "profile": {"deviate_breaks": '["migration-fetch-overwrites"]'},
        "moto": True,
        "rules": [
            "storage.migration.fetch-keeps-newer-put",
            "storage.migration.fetch-keeps-delete",
        ],
    },
    {
        "id": "earlier-shape-lifecycle-forgotten",
        "as_of": "2023-06-16",
        "profile": {"deviate_sippy_shape": "v2", "deviate_lifecycle_forgotten": "true"},
        "rules": ["storage.migration.config-earlier-shape", "storage.lifecycle.put-get"],
    },
]


@pytest.mark.slow
@pytest.mark.parametrize("run", RUNS, ids=[run["id"] for run in RUNS])
def test_suite_reports_fail_against_deviating_reference(
    tmp_path: Path, run: dict[str, Any]
) -> None:
    """The suite, run against a reference breaking these rules, reports each of them FAIL."""
    profile = dict(run["profile"])
    if run.get("moto"):
        pytest.importorskip("moto", reason="moto[server] is the migration source")
        with moto_server() as (endpoint, _):
            profile["migration_source_endpoint"] = endpoint
            document = run_expecting_fail(tmp_path, rules=run["rules"], as_of=run.get("as_of"),
                                 reference_profile=profile)  # fmt: skip
    else:
        document = run_expecting_fail(tmp_path, rules=run["rules"], as_of=run.get("as_of"),
                             reference_profile=profile)  # fmt: skip
    statuses = {rule: rule_status(document, rule) for rule in run["rules"]}
    not_failed = {rule: status for rule, status in statuses.items() if status != "FAIL"}
    assert not not_failed, f"not FAIL: {not_failed}\n{document['_output']}"
