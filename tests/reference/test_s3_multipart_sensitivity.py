"""Break-checks for the multipart, copy and conditional-request rules.

For each case the reference is made to break the rules (one profile override; a dated field
flipped, or a `deviate_*` field) and the suite must report every listed rule FAIL. The baseline
case runs the same rules against the unmodified reference and wants PASS (or N/A by date).
"""

from __future__ import annotations

from pathlib import Path

import pytest
from helpers.suite_runner import assert_rules_fail, assert_rules_hold, deviation_label

pytestmark = pytest.mark.slow

CMU = "storage.complete-multipart-upload."
CASES: list[tuple[list[str], dict[str, str], str | None]] = [
    (["storage.upload-part.zero-length"], {"deviate_zero_length_part_refused": "true"}, None),
    (
        ["storage.upload-part.no-such-upload", "storage.upload-part.not-no-such-bucket",
         "storage.upload-part-copy.no-such-upload"],
        {"deviate_upload_part_no_such_bucket": "true"},
        None,
    ),
    (["storage.upload-part.max-part-number"], {"multipart_max_parts": "9999"}, None),
    (
        ["storage.upload-part.unequal-sizes-refused"],
        {"multipart_sizes_checked_at_completion": "true"},
        "2022-10-01",
    ),
    (
        [CMU + "sizes-checked-at-completion"],
        {"multipart_sizes_checked_at_completion": "false"},
        None,
    ),
    ([CMU + "entity-too-small"], {"multipart_min_part_bytes": "0"}, None),
    (
        [CMU + "publishes", CMU + "last-part-smaller"],
        {"multipart_min_part_bytes": "6291456"},
        None,
    ),
    (
        [CMU + "etag-suffix", CMU + "etag-suffix-dated"],
        {"deviate_multipart_etag_plain": "true"},
        None,
    ),
    ([CMU + "sorts-parts"], {"multipart_sort_parts": "false"}, None),
    ([CMU + "invalid-part-order"], {"multipart_sort_parts": "true"}, "2023-12-01"),
    ([CMU + "quotes-optional"], {"deviate_multipart_quotes_required": "true"}, None),
    ([CMU + "xml-declaration"], {"deviate_refuse_xml_declaration": "true"}, None),
    ([CMU + "condition-fails-412"], {"multipart_conditional_complete": "false"}, None),
    (
        [CMU + "condition-fails-aborts", CMU + "aborted-upload-gone"],
        {"deviate_failed_completion_keeps_upload": "true"},
        None,
    ),
    (
        ["storage.abort-multipart-upload.repeat-no-error",
         "storage.abort-multipart-upload.repeat-2xx"],
        {"deviate_abort_repeat_error": "true"},
        None,
    ),
    (["storage.list-parts.supported"], {"list_parts": "false"}, None),
    (["storage.list-multipart-uploads.supported"], {"list_multipart_uploads": "false"}, None),
    (
        ["storage.list-multipart-uploads.key-encoded"],
        {"list_multipart_uploads_encoding": "false"},
        None,
    ),
    (["storage.upload-part-copy.supported"], {"upload_part_copy": "false"}, None),
    (
        ["storage.copy-object.leading-slash", "storage.copy-object.round-trip"],
        {"deviate_copy_source_slash_refused": "true"},
        None,
    ),
    (["storage.copy-object.version-id-headers"], {"copy_version_id_headers": "false"}, None),
    (["storage.copy-object.multipart-source"], {"copy_multipart_sources": "false"}, None),
    (
        ["storage.copy-object.destination-if-match",
         "storage.copy-object.destination-if-none-match",
         "storage.copy-object.destination-if-modified-since",
         "storage.copy-object.destination-if-unmodified-since"],
        {"copy_destination_conditions": "false"},
        None,
    ),
    (
        ["storage.put-object.conditional-412", "storage.create-multipart-upload.conditional-412"],
        {"conditional_writes": "false"},
        None,
    ),
    (
        ["storage.put-object.create-bucket-if-missing",
         "storage.create-multipart-upload.create-bucket-if-missing"],
        {"create_bucket_if_missing": "false"},
        None,
    ),
    (
        ["storage.get-object.if-match-list", "storage.get-object.if-none-match-list",
         "storage.get-object.weak-etag", "storage.get-object.weak-etag-if-match",
         "storage.get-object.wildcard"],
        {"conditional_etag_lists": "false"},
        None,
    ),
]  # fmt: skip


@pytest.mark.parametrize("case", CASES, ids=[deviation_label(*c) for c in CASES])
def test_suite_fails_rules_the_reference_breaks(
    tmp_path: Path, case: tuple[list[str], dict[str, str], str | None]
) -> None:
    """Every listed rule comes out FAIL against a reference that breaks it."""
    rules, profile, as_of = case
    assert_rules_fail(tmp_path, rules, profile, as_of)


def test_rules_pass_against_the_reference(tmp_path: Path) -> None:
    """Baseline: the same rules PASS against the unmodified reference today."""
    rules = sorted({rule for case in CASES for rule in case[0]})
    assert_rules_hold(tmp_path, rules)
