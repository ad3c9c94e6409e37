"""Break-checks, one suite run per case: the rules API, log push, log records, the gateway,
and S3 listing, copy, conditional, error and bucket-management rules.

Each case runs the listed rules' tests against a reference made to break them (a deviation of
reference_impl/deviations.py: `deviate_<name>=value`, or a `deviate_breaks` rule break) and wants
every listed rule FAIL. A rule whose test checks several fields gets a case per field
(`deviate_drop_fields` leaves one out), and listing parameters are broken one at a time, so
that each rule is shown to fail for its own reason; a run of one area's tests for one rule
costs ~2 s.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from helpers.suite_runner import assert_rules_fail, deviation_label, list_override

pytestmark = pytest.mark.slow
TRUE = "true"
LO = "storage.list-objects."
drop = list_override("deviate_drop_fields")
drop_record = list_override("deviate_drop_record_fields")
breaks = list_override("deviate_breaks")
ignored = list_override("deviate_list_ignore_params")
unrendered = list_override("deviate_list_unrendered")


def envelope(**members: object) -> dict[str, str]:
    return {"deviate_success_envelope": json.dumps(members)}


LOGS_GATEWAY: list[tuple[list[str], dict[str, str]]] = [
    # rules API: authentication and the envelope
    (["logs.auth.unknown-pair-refused"], {"deviate_accept_unknown_credentials": TRUE}),
    (["logs.auth.error-chain-email", "logs.auth.error-chain-key"], drop("error.error_chain")),
    (["logs.envelope.success"], envelope(success="yes")),
    (["logs.envelope.errors-empty"], envelope(errors=[{"code": 1, "message": "x"}])),
    (["logs.envelope.messages-empty"], envelope(messages=["note"])),
    (["logs.envelope.result"], envelope(result=None)),
    (["logs.envelope.failure-shape"], {"deviate_invalid_json_plain": TRUE}),
    (["logs.envelope.failure-pointer"], {"deviate_error_without_pointer": TRUE}),
    (["logs.rulesets.put-envelope"], {"deviate_bare_result": TRUE}),
    # rulesets and rules: each field the spec names
    (["logs.ruleset.id", "logs.rulesets.create-returns-id"], drop("ruleset.id")),
    (["logs.ruleset.name"], drop("ruleset.name")),
    (["logs.ruleset.description"], drop("ruleset.description")),
    (["logs.ruleset.kind", "logs.rulesets.list-kind-phase"], drop("ruleset.kind")),
    (["logs.ruleset.phase"], drop("ruleset.phase")),
    (["logs.ruleset.version"], drop("ruleset.version")),
    (["logs.ruleset.rules"], drop("ruleset.rules")),
    (["logs.ruleset.last-updated"], {"deviate_timestamp_without_fraction": TRUE}),
    (["logs.rulesets.put-updates-last-updated"], drop("ruleset.last_updated")),
    (["logs.rulesets.put-bumps-version"], {"deviate_static_version": TRUE}),
    (["logs.rulesets.delete"], {"deviate_ruleset_delete_keeps": TRUE}),
    (["logs.rulesets.one-per-phase"], {"deviate_allow_second_zone_ruleset": TRUE}),
    (["logs.rule.id"], {"deviate_short_ids": TRUE}),
    (["logs.rulesets.put-assigns-rule-fields"], drop("rule.id")),
    (["logs.rule.version", "logs.rule.version-string"], drop("rule.version")),
    (["logs.rule.last-updated"], drop("rule.last_updated")),
    (["logs.rule.ref", "logs.rule.ref-kept"], drop("rule.ref")),
    (["logs.rule.enabled"], drop("rule.enabled")),
    (["logs.rule.action"], drop("rule.action")),
    (["logs.rule.expression"], drop("rule.expression")),
    (["logs.rule.description"], drop("rule.description")),
    (["logs.rule.action-parameters", "logs.fields.request-fields",
      "logs.fields.response-fields", "logs.fields.lower-case-accepted"],
     drop("rule.action_parameters")),
    (["logs.fields.at-least-one-array"], {"deviate_accept_empty_action_parameters": TRUE}),
    (["logs.fields.empty-name-refused"], {"deviate_accept_empty_field_name": TRUE}),
    (["logs.fields.cookie-fields", "logs.fields.cookie-case-kept"],
     {"deviate_lowercase_cookie_names": TRUE}),
    (["logs.fields.five-arrays"],
     {"custom_field_arrays": '["request_fields", "response_fields", "cookie_fields"]'}),
    (["logs.fields.raw-or-transformed"], {"deviate_raw_and_transformed_both": TRUE}),
    (["logs.limits.custom-fields-per-type-max"], {"deviate_custom_fields_max": "99"}),
    (["logs.limits.custom-fields-per-type-over"], {"deviate_ignore_field_limit": TRUE}),
    # log push jobs
    (["logs.logpush.create-job"], {"deviate_job_string_ids": TRUE}),
    (["logs.logpush.create-envelope"], {"deviate_bare_result": TRUE}),
    (["logs.logpush.job-update"], {"deviate_job_update_ignored": TRUE}),
    (["logs.logpush.job-name"], drop("job.name")),
    (["logs.logpush.destination-conf"], drop("job.destination_conf")),
    (["logs.logpush.dataset"], drop("job.dataset")),
    (["logs.logpush.logpull-options-fields", "logs.logpush.logpull-options-timestamps"],
     drop("job.logpull_options")),
    (["logs.logpush.ownership-challenge-required"], {"deviate_skip_ownership_check": TRUE}),
    (["logs.logpush.ownership-challenge", "logs.logpush.ownership-challenge-file"],
     {"deviate_empty_ownership_challenge": TRUE}),
    (["logs.logpush.job-members"], {"deviate_accept_any_destination": TRUE}),
    (["logs.logpush.job-status-after-delivery"], drop("job.last_complete")),
    # log records
    (["logs.records.request-header"], drop_record("RequestHeaders")),
    (["logs.records.response-header"], drop_record("ResponseHeaders")),
    (["logs.records.cookie"], drop_record("Cookies")),
    (["logs.records.cookie-case"], {"deviate_lowercase_logged_cookies": TRUE}),
    (["logs.records.field-objects"], drop_record("ResponseHeaders")),
    (["logs.records.data-within-limit-whole"], {"deviate_custom_data_limit": "4000"}),
    (["logs.records.client-request-uri-query"], {"deviate_log_path_as_uri": TRUE}),
    (["logs.records.client-ip"], {"deviate_log_client_address_with_port": TRUE}),
    (["logs.records.client-request-path", "logs.records.selected-fields"],
     drop_record("ClientRequestPath")),
    # gateway
    (["gateway.jsonrpc.parse-error", "gateway.jsonrpc.invalid-request",
      "gateway.jsonrpc.method-not-found", "gateway.jsonrpc.invalid-params"],
     {"deviate_error_code": "-32000"}),
    (["gateway.jsonrpc.invalid-params"], {"deviate_internal_errors": TRUE}),
    (["gateway.jsonrpc.unsupported-method-403"], {"deviate_unsupported_method_status": "200"}),
    (["gateway.jsonrpc.supported-methods-served"],
     {"deviate_refused_methods": '["eth_feeHistory"]'}),
    (["gateway.http.content-type"], {"deviate_require_no_content_type": TRUE}),
    (["gateway.jsonrpc.get-block-by-number"], {"deviate_padded_quantities": TRUE}),
    (["gateway.jsonrpc.batch"], {"deviate_batch_first_only": TRUE}),
    (["gateway.jsonrpc.params-array"], {"deviate_transaction_hashes_only": TRUE}),
    (["gateway.network.migration-last-segment", "gateway.network.sepolia-replaces-rinkeby"],
     {"sepolia_served": "false"}),
]  # fmt: skip

STORAGE: list[tuple[list[str], dict[str, str]]] = [
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
    (["storage.copy-object.destination-if-match-missing"], breaks("copy-if-match-missing-404")),
    (["storage.put-object.if-modified-since-missing",
      "storage.copy-object.destination-if-modified-since-missing"],
     breaks("modified-since-missing-writes")),
    (["storage.put-object.if-unmodified-since-missing",
      "storage.copy-object.destination-if-unmodified-since-missing"],
     breaks("unmodified-since-missing-412")),
    (["storage.get-object.if-match-unmet-412"], breaks("if-match-ignored")),
    # races (issue 26): conditions decided at publish time; a deleted bucket stays deleted
    (["storage.put-object.create-if-absent-race",
      "storage.complete-multipart-upload.create-if-absent-race"],
     breaks("write-conditions-at-start")),
    (["storage.delete-bucket.stays-deleted", "storage.bindings.missing-bucket-refused"],
     breaks("bindings-create-bucket")),
    (["storage.delete-bucket.no-resurrection"], breaks("put-publish-unchecked")),
    (["storage.delete-bucket.uploads-in-progress"], breaks("delete-bucket-keeps-uploads")),
    (["storage.delete-bucket.deletes-empty"], breaks("delete-bucket-deferred")),
    # uploads, digests, bucket settings and listings
    (["storage.abort-multipart-upload.aborts"], breaks("abort-keeps")),
    (["storage.complete-multipart-upload.unequal-parts-invalid-part"],
     breaks("unequal-parts-accepted")),
    (["storage.complete-multipart-upload.sorted-order"], breaks("parts-joined-as-listed")),
    (["storage.put-object.content-md5-mismatch"], breaks("content-md5-ignored")),
    (["storage.lifecycle.delete"], breaks("lifecycle-delete-keeps")),
    (["storage.lifecycle.invalid-refused", "storage.lifecycle.empty-or-zero-refused"],
     breaks("lifecycle-invalid-500")),
    (["storage.auth.unsigned-refused"], breaks("unsigned-access-denied")),
    (["storage.create-bucket.location-hint-accepted"],
     {"location_constraints": '["auto", "", "us-east-1"]'}),
    (["storage.lifecycle.default-abort-multipart"], {"lifecycle_default_rules": "null"}),
    (["storage.list-buckets.lists-created"], breaks("list-buckets-hides-newest")),
    (["storage.list-buckets.ext-truncation-headers",
      "storage.list-buckets.ext-continuation-token"], breaks("list-buckets-token-names-next")),
    (["storage.list-buckets.per-page-zero", "storage.list-buckets.per-page-zero-empty"],
     breaks("page-size-zero-refused")),
    (["storage.put-object.content-type-inferred-dated"], breaks("content-type-always-inferred")),
    (["storage.put-object.metadata-too-large"], breaks("metadata-limit-doubled")),
    (["storage.put-object.key-too-long"], breaks("key-limit-ignored")),
    (["storage.put-bucket-cors.valid-origins-accepted"], breaks("cors-wildcard-origin-refused")),
    (["storage.xml.malformed-400"], breaks("malformed-xml-500")),
    (["storage.get-object.range-unsatisfiable-content-range"], breaks("416-without-content-range")),
    # the part limit raised: Expect: 100-continue of a 5 GiB + 1 part is answered 100 Continue
    (["storage.upload-part.max-part-size"], {"put_object_max_bytes": "6000000000"}),
    # S3 semantics the stateful model checks (run without shrinking: ~10 s a case)
    (["storage.delete-object.missing-key-204"], breaks("delete-missing-key-404")),
    (["storage.delete-objects.quiet"], breaks("quiet-lists-deleted")),
    (["storage.copy-object.keeps-metadata"], breaks("copy-drops-metadata")),
    (["storage.get-object.not-modified-headers"], breaks("not-modified-without-etag")),
    (["storage.get-object.if-modified-since", "storage.get-object.date-conditions"],
     breaks("if-modified-since-inverted")),
    (["storage.get-object.date-conditions-http-date-formats"], breaks("http-date-imf-only")),
    (["storage.complete-multipart-upload.etag-md5-of-parts"], breaks("multipart-etag-of-hex")),
    (["storage.list-objects.utf8-order"], breaks("list-collated-order")),
    # management API buckets
    (["storage.mgmt.bucket.jurisdiction-field"],
     drop("bucket.jurisdiction")),
    (["storage.mgmt.list-buckets.name-contains"], {"deviate_name_contains_ignored": "true"}),
    (["storage.mgmt.bucket.create-delete"], {"deviate_bucket_delete_keeps": "true"}),
]  # fmt: skip
CASES = LOGS_GATEWAY + STORAGE


@pytest.mark.parametrize("case", CASES, ids=[deviation_label(*c) for c in CASES])
def test_suite_fails_rules_the_reference_breaks(
    tmp_path: Path, case: tuple[list[str], dict[str, str]]
) -> None:
    rules, profile = case
    assert_rules_fail(tmp_path, rules, profile)
