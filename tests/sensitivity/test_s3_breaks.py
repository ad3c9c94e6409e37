"""Break-checks of the S3 listing, copy, conditional, error and bucket-management rules.

Each case runs the rules' tests against a reference broken on purpose (a `deviate_breaks` code
point, or a listing / management field of reference_impl/profiles/s3.yaml and mgmt_r2.yaml)
and wants every listed rule FAIL. Listing parameters are broken one at a time: the tests of
several of them share a fixture, and one ignored parameter must not hide behind another.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from helpers.suite_runner import assert_rules_fail, deviation_label, list_override

pytestmark = pytest.mark.slow
LO = "storage.list-objects."
breaks = list_override("deviate_breaks")
ignored = list_override("deviate_list_ignore_params")
unrendered = list_override("deviate_list_unrendered")


CASES: list[tuple[list[str], dict[str, str]]] = [
    # ListObjects parameters, honoured and rendered
    ([LO + "prefix"], ignored("prefix")),
    ([LO + "delimiter", LO + "empty-folders"], ignored("delimiter")),
    ([LO + "start-after"], ignored("start-after")),
    ([LO + "max-keys"], ignored("max-keys")),
    ([LO + "continuation-token"], ignored("continuation-token")),
    ([LO + "encoding-type"], ignored("encoding-type")),
    ([LO + "per-page"], ignored("per_page")),
    ([LO + "renders-prefix"], unrendered("Prefix")),
    ([LO + "renders-delimiter"], unrendered("Delimiter")),
    ([LO + "renders-max-keys"], unrendered("MaxKeys")),
    ([LO + "renders-start-after"], unrendered("StartAfter")),
    # errors of CopyObject and of a missing bucket
    (["storage.copy-object.missing-source-bucket"], breaks("copy-missing-source-bucket-403")),
    (["storage.copy-object.missing-source-key"], breaks("copy-missing-source-key-403")),
    (["storage.copy-object.missing-destination-bucket"], breaks("copy-missing-destination-403")),
    (["storage.errors.no-such-bucket"], breaks("missing-bucket-403")),
    # conditions that hold let the write proceed; an unmet If-Match on a read is 412
    (["storage.put-object.conditional-met"], breaks("put-met-conditions-412")),
    (["storage.complete-multipart-upload.condition-met"], breaks("complete-met-conditions-412")),
    (["storage.copy-object.destination-condition-met"], breaks("copy-met-conditions-412")),
    (["storage.get-object.if-match-unmet-412"], breaks("if-match-ignored")),
    # uploads, digests, bucket settings and listings
    (["storage.abort-multipart-upload.aborts"], breaks("abort-keeps")),
    (["storage.put-object.content-md5-mismatch"], breaks("content-md5-ignored")),
    (["storage.lifecycle.delete"], breaks("lifecycle-delete-keeps")),
    (["storage.list-buckets.lists-created"], breaks("list-buckets-hides-newest")),
    (["storage.put-object.content-type-inferred-dated"], breaks("content-type-always-inferred")),
    (["storage.put-object.metadata-too-large"], breaks("metadata-limit-doubled")),
    (["storage.put-object.key-too-long"], breaks("key-limit-ignored")),
    (["storage.put-bucket-cors.valid-origins-accepted"], breaks("cors-wildcard-origin-refused")),
    (["storage.xml.malformed-400"], breaks("malformed-xml-500")),
    # management API buckets
    (["storage.mgmt.bucket.jurisdiction-field"],
     list_override("deviate_drop_fields")("bucket.jurisdiction")),
    (["storage.mgmt.list-buckets.name-contains"], {"deviate_name_contains_ignored": "true"}),
    (["storage.mgmt.bucket.create-delete"], {"deviate_bucket_delete_keeps": "true"}),
]  # fmt: skip


@pytest.mark.parametrize("case", CASES, ids=[deviation_label(*c) for c in CASES])
def test_suite_fails_rules_the_reference_breaks(
    tmp_path: Path, case: tuple[list[str], dict[str, str]]
) -> None:
    rules, profile = case
    assert_rules_fail(tmp_path, rules, profile)
