"""Each public-bucket rule goes FAIL when the reference is made to break it.

Deviations that cannot mask one another share one run (one reference launch), which keeps the
cost to three suite runs; every rule is asserted FAIL in the run that breaks it.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from helpers.suite_runner import rule_status, run_expecting_fail

GROUPS: dict[str, tuple[str | None, dict[str, str], list[str]]] = {
    # name: (as_of, profile overrides, rules that must come out FAIL)
    "headers-and-protocol": (
        None,
        {
            "deviate_public_no_allow_headers": "true",
            "deviate_public_expose_when_undefined": "true",
            "deviate_public_cors_403_without_match": "true",
            "deviate_public_drop_content_encoding": "true",
            "deviate_public_content_range_always": "true",
            "deviate_public_range_status_200": "true",
            "deviate_cors_no_max_age": "true",
            "public_http2": "false",
            "public_options_without_origin_status": "401",
            "deviate_public_malformed_host_500": "true",
            "deviate_public_disabled_domain_served": "true",
        },
        [
            "storage.public.cors-allow-headers-on-preflight",
            "storage.public.cors-no-expose-when-undefined",
            "storage.public.cors-no-403-without-match",
            "storage.public.gzip-content-encoding",
            "storage.public.content-range-only-partial",
            "storage.public.range-206",
            "storage.public.cors-preflight-max-age",
            "storage.public.http2-default",
            "storage.public.options-without-origin-400",
            "storage.public.malformed-host-400",
            "storage.public.disabled-domain-not-served",
        ],
    ),
    # the S3 API's read deviations: the public entrypoint reads through the same get_object
    "origin-headers": (
        None,
        {
            "deviate_breaks": json.dumps(
                [
                    "etag-unquoted",
                    "not-modified-without-etag",
                    "416-without-content-range",
                    "http-metadata-dropped",
                ]
            )
        },
        [
            "storage.public.validators",
            "storage.public.conditional-get",
            "storage.public.range-unsatisfiable",
            "storage.public.http-metadata",
        ],
    ),
    # apart from the group above: its dropped Content-Encoding would fail this rule too
    "gzip-refusal-ignored": (
        None,
        {"deviate_public_gzip_refusal_ignored": "true"},
        ["storage.public.gzip-refused-not-encoded"],
    ),
    "unsigned-reads-refused": (
        None,
        {"deviate_public_require_auth": "true"},
        ["storage.public.get-object", "storage.public.head-object"],
    ),
    "cors-off-before-400": (
        "2023-06-01",
        {"public_cors": "false", "public_options_without_origin_status": "400"},
        [
            "storage.cors.public-preflight",
            "storage.public.cors-response-headers",
            "storage.public.options-without-origin-401",
        ],
    ),
}


@pytest.mark.slow
@pytest.mark.parametrize("group", sorted(GROUPS))
def test_public_rules_fail_against_deviating_reference(tmp_path: Path, group: str) -> None:
    """The suite, run against a reference breaking these public rules, reports each FAIL."""
    as_of, profile, broken = GROUPS[group]
    document = run_expecting_fail(tmp_path, rules=broken, as_of=as_of, reference_profile=profile)
    statuses = {rule: rule_status(document, rule) for rule in broken}
    not_failed = {rule: status for rule, status in statuses.items() if status != "FAIL"}
    assert not not_failed, f"not FAIL: {not_failed}\n{document['_output']}"


def test_every_public_rule_has_a_break_check() -> None:
    """No public rule of the catalog escapes the groups above, unless not_break_checked.yaml lists
    it with its reason (tests/sensitivity/test_break_check_ledger.py keeps that list exact)."""
    import yaml

    from conformance.model.catalog import load_catalog

    public = {r.id for r in load_catalog().rules.values() if r.surface == "public"}
    covered = {rule for _, _, rules in GROUPS.values() for rule in rules}
    # a rule no profile switch can break is listed, with the hand mutant that breaks it
    listed = set(yaml.safe_load(Path(__file__).with_name("not_break_checked.yaml").read_text()))
    missing = sorted(public - covered - listed)
    assert not missing, f"public rules without a break-check or a listed reason: {missing}"
