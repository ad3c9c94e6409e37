"""Break-checks for the CORS, listing, bucket sub-resource, checksum and protocol rules.

For each case the reference is made to break the rules (one profile override: a dated field
flipped to its earlier value, or a `deviate_*` field) and the suite must report every listed
rule FAIL. The baseline runs the same rules against the unmodified reference and wants PASS.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from helpers.suite_runner import assert_rules_fail, assert_rules_hold, deviation_label

pytestmark = pytest.mark.slow

CORS = "storage.cors."
PBC = "storage.put-bucket-cors."
LO = "storage.list-objects."
LB = "storage.list-buckets."
PH = "storage.placeholder."
PO = "storage.put-object."
PROTO = "storage.protocol."
CASES: list[tuple[list[str], dict[str, str]]] = [
    ([PBC + "valid-origins"], {"cors_valid_origins_only": "false"}),
    ([PBC + "unknown-keys-rejected"], {"cors_reject_unknown_keys": "false"}),
    ([PBC + "empty-allowed-header-rejected", PBC + "empty-allowed-header-rejected-row"],
     {"cors_reject_empty_allowed_header": "false"}),
    (["storage.xml.declaration-accepted"], {"deviate_refuse_xml_declaration": "true"}),
    ([CORS + "s3-preflight", CORS + "s3-response-headers", CORS + "expose-headers"],
     {"s3_cors": "false"}),
    ([CORS + "head-object"], {"cors_head_object": "false"}),
    ([CORS + "no-expose-when-undefined"], {"deviate_cors_expose_when_undefined": "true"}),
    ([CORS + "no-403-without-match"], {"deviate_cors_403_without_match": "true"}),
    ([CORS + "preflight-max-age"], {"deviate_cors_no_max_age": "true"}),
    ([CORS + "allow-headers-on-preflight", CORS + "browser-sdk-preflight"],
     {"cors_allow_headers_on_preflight": "false"}),
    ([CORS + "allowed-headers-case-insensitive"],
     {"cors_allowed_headers_case_insensitive": "false"}),
    ([CORS + "preflight-signed-extra-headers"], {"deviate_cors_preflight_signed": "true"}),
    (["storage.bucket-encryption.aes256", "storage.bucket-encryption.other-refused",
      "storage.bucket-encryption.delete"], {"bucket_encryption": "false"}),
    # get-bucket-lifecycle ends on 2023-03-16: its break-check is dated (deviations.yaml)
    ([PH + "get-bucket-acl", PH + "get-bucket-versioning",
      PH + "get-bucket-replication", PH + "get-bucket-tagging",
      PH + "get-object-lock-configuration"], {"placeholder_operations": "[]"}),
    (["storage.unsupported-operation.not-implemented",
      "storage.unsupported-operation.status-501",
      "storage.unsupported-operation.no-side-effect"], {"deviate_unsupported_mapped": "true"}),
    ([LO + "unsupported-parameter", LO + "unsupported-parameter-501"],
     {"deviate_list_ignore_unsupported": "true"}),
    ([LO + "common-prefix-once"], {"deviate_list_repeat_common_prefix": "true"}),
    ([LO + "continuation-token-echoed"], {"deviate_list_no_token_echo": "true"}),
    ([LO + "v1-next-marker"], {"deviate_v1_next_marker_always": "true"}),
    ([LO + "invalid-cursor"], {"deviate_invalid_cursor_internal_error": "true"}),
    ([LO + "key-count"], {"deviate_key_count_keys_only": "true"}),
    ([LO + "no-cursor-at-max-keys"], {"deviate_cursor_when_full": "true"}),
    ([LB + "ext-max-keys", LB + "ext-start-after", LB + "ext-continuation-token",
      LB + "ext-prefix", LB + "per-page-zero-empty"],
     {"list_buckets_ext_params": "false"}),
    (["storage.auth.presigned-list-buckets", "storage.auth.presigned-list-objects"],
     {"s3_presigned_list": "false"}),
    ([PROTO + "x-id-mismatch-ignored"], {"deviate_x_id_honoured": "true"}),
    ([PROTO + "x-id-ignored", PROTO + "x-id-mismatch-ignored"], {"deviate_x_id_rejected": "true"}),
    ([PROTO + "x-purpose-ignored"], {"deviate_x_purpose_rejected": "true"}),
    ([PROTO + "xml-content-type", PROTO + "error-content-type"],
     {"deviate_xml_content_type": '"text/xml"'}),
    ([PROTO + "error-no-xmlns"], {"deviate_error_xmlns": "true"}),
    ([PO + "checksum-mismatch"], {"deviate_checksum_unverified": "true"}),
    ([PO + "checksum-sha256", PO + "checksum-sha1", PO + "checksum-crc32"],
     {"put_object_checksums": "[]"}),
    ([PO + "content-type-inferred"], {"put_object_infer_content_type": "false"}),
]  # fmt: skip


@pytest.mark.parametrize("case", CASES, ids=[deviation_label(*c) for c in CASES])
def test_suite_fails_rules_the_reference_breaks(
    tmp_path: Path, case: tuple[list[str], dict[str, str]]
) -> None:
    """Every listed rule comes out FAIL against a reference that breaks it."""
    rules, profile = case
    assert_rules_fail(tmp_path, rules, profile)


def test_rules_pass_against_the_reference(tmp_path: Path) -> None:
    """Baseline: the same rules PASS against the unmodified reference today."""
    rules = sorted({rule for case in CASES for rule in case[0]})
    assert_rules_hold(tmp_path, rules)
