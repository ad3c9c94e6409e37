"""The one registry of deliberate deviations: every way the reference can be made to break a rule.

A deviation exists only so that a project test can break one rule on purpose and watch the suite
catch it; all are off by default. They are typed fields of `Deviations`, which handlers read as
`profile.deviations.<name>`: a misspelt or undeclared deviation is then a mypy error, not a silent
`None` from the untyped profile bag. Each field's doc is in `deviations.yaml` (a data file), kept
equal to the fields by tests/reference/test_deviations.py, which also checks every field is read.

Tests switch a deviation on with the spellings that predate this registry, mapped onto it here:
`--profile deviate_<field>=value`, or `--profile 'deviate_breaks=["name"]'` for a field whose data
entry has `break: name` (the S3 rule breaks). An unknown name is refused, listing the known ones.
"""

from __future__ import annotations

import json
import types
from dataclasses import dataclass, fields, replace
from functools import cache
from importlib import resources
from typing import Any, Union, get_args, get_origin, get_type_hints

from reference_impl import yaml_data

PREFIX = "deviate_"  # `deviate_<field>=value` turns one field on
BREAKS_KEY = "deviate_breaks"  # `deviate_breaks=[names]` turns on the fields with those `break`s


class DeviationError(ValueError):
    """An unknown deviation or a value of the wrong type."""


@dataclass(frozen=True)
class Deviations:
    """Every deviation with its type and its default (off). Docs: deviations.yaml."""

    # bindings
    bindings_truncate_body: bool = False
    bindings_ignore_only_if: bool = False
    bindings_first_etag_only: bool = False
    bindings_weak_if_match: bool = False
    bindings_accept_wrong_checksum: bool = False
    bindings_drop_checksums: bool = False
    bindings_delete_first_only: bool = False
    bindings_ignore_range: bool = False
    bindings_malformed_range_internal: bool = False
    bindings_list_budget_error: bool = False
    bindings_ignore_include: bool = False
    bindings_repeat_delimited_prefixes: bool = False
    bindings_hide_s3_content_type: bool = False
    bindings_always_honor_include: bool = False
    bindings_multipart_drop_last_part: bool = False
    # edge
    log_every_instance: bool = False
    no_custom_data_limit: bool = False
    log_transformed_headers: bool = False
    log_unselected_fields: bool = False
    log_every_job: bool = False
    ignore_timestamp_format: bool = False
    drop_record_fields: list[str] | None = None
    lowercase_logged_cookies: bool = False
    custom_data_limit: int | None = None
    first_instance_only: bool = False
    log_raw_response_fields: bool = False
    arrays_as_defaults: bool = False
    log_path_as_uri: bool = False
    log_client_address_with_port: bool = False
    # gateway
    drop_id: bool = False
    chain_id_override: int | None = None
    chain_id_every_other: bool = False
    jsonrpc_version: str | None = None
    result_with_error: bool = False
    error_code: int | None = None
    answer_notifications: bool = False
    empty_batch_array: bool = False
    batch_first_only: bool = False
    transaction_hashes_only: bool = False
    padded_quantities: bool = False
    retired_status: int | None = None
    unknown_network_status: int | None = None
    internal_errors: bool = False
    require_no_content_type: bool = False
    unsupported_method_status: int | None = None
    refused_methods: list[str] | None = None
    # mgmt
    bare_result: bool = False
    error_without_pointer: bool = False
    skip_auth: bool = False
    accept_unknown_credentials: bool = False
    invalid_json_plain: bool = False
    accept_any_action: bool = False
    accept_any_expression: bool = False
    accept_empty_action_parameters: bool = False
    accept_empty_field_name: bool = False
    lowercase_header_names: bool = False
    lowercase_cookie_names: bool = False
    ignore_field_limit: bool = False
    custom_fields_max: int | None = None
    success_envelope: dict[str, Any] | None = None
    allow_second_zone_ruleset: bool = False
    put_appends_rules: bool = False
    static_version: bool = False
    ruleset_delete_keeps: bool = False
    timestamp_without_fraction: bool = False
    short_ids: bool = False
    drop_fields: list[str] | None = None
    empty_ownership_challenge: bool = False
    skip_ownership_check: bool = False
    accept_any_destination: bool = False
    accept_any_dataset: bool = False
    accept_any_logpull_options: bool = False
    job_string_ids: bool = False
    job_update_ignored: bool = False
    job_delete_keeps: bool = False
    raw_and_transformed_both: bool = False
    # mgmt_r2
    mgmt_location: str | None = None
    missing_bucket_status: int | None = None
    name_contains_jurisdiction: bool = False
    per_page_ignored: bool = False
    sippy_shape: str | None = None
    sippy_delete_keeps: bool = False
    sippy_validate_accepts_all: bool = False
    migration_off: bool = False
    lifecycle_forgotten: bool = False
    lifecycle_not_applied: bool = False
    audit_off: bool = False
    mgmt_cross_account: bool = False
    name_contains_ignored: bool = False
    bucket_delete_keeps: bool = False
    migration_not_kept: bool = False
    sippy_get_unset: bool = False
    # public
    public_require_auth: bool = False
    public_no_allow_headers: bool = False
    public_expose_when_undefined: bool = False
    public_cors_403_without_match: bool = False
    public_drop_content_encoding: bool = False
    public_gzip_refusal_ignored: bool = False
    public_content_range_always: bool = False
    public_range_status_200: bool = False
    public_malformed_host_500: bool = False
    public_disabled_domain_served: bool = False
    # s3
    bucket_location: str | None = None
    drop_user_metadata: bool = False
    range_exclusive_end: bool = False
    range_status_200: bool = False
    content_range_always: bool = False
    trim_delete_keys: bool = False
    refuse_xml_declaration: bool = False
    error_xmlns: bool = False
    key_count_keys_only: bool = False
    cursor_when_full: bool = False
    cors_expose_when_undefined: bool = False
    cors_403_without_match: bool = False
    cors_no_max_age: bool = False
    cors_preflight_signed: bool = False
    unsupported_mapped: bool = False
    checksum_unverified: bool = False
    list_ignore_unsupported: bool = False
    list_ignore_params: list[str] | None = None
    list_unrendered: list[str] | None = None
    list_repeat_common_prefix: bool = False
    list_no_token_echo: bool = False
    v1_next_marker_always: bool = False
    invalid_cursor_internal_error: bool = False
    x_id_honoured: bool = False
    x_purpose_rejected: bool = False
    xml_content_type: str | None = None
    zero_length_part_refused: bool = False
    upload_part_no_such_bucket: bool = False
    multipart_quotes_required: bool = False
    multipart_etag_plain: bool = False
    failed_completion_keeps_upload: bool = False
    abort_repeat_error: bool = False
    copy_source_slash_refused: bool = False
    refuse_signed_payload: bool = False
    x_id_rejected: bool = False
    host_ignored: bool = False
    one_account: bool = False
    presign_no_expiry: bool = False
    bucket_names: bool = False
    object_lock_ignored: bool = False
    object_lock_false_refused: bool = False
    delete_non_empty: bool = False
    head_missing_bucket_500: bool = False
    delete_object_trims: bool = False
    delete_keeps: bool = False
    missing_key_403: bool = False
    range_past_end_full: bool = False
    etag_unquoted: bool = False
    http_metadata_dropped: bool = False
    no_last_modified: bool = False
    missing_length_as_empty: bool = False
    acl_refused: bool = False
    copy_missing_source_bucket_403: bool = False
    copy_missing_source_key_403: bool = False
    copy_missing_destination_403: bool = False
    missing_bucket_403: bool = False
    copy_met_conditions_412: bool = False
    copy_if_match_missing_404: bool = False
    modified_since_missing_writes: bool = False
    unmodified_since_missing_412: bool = False
    put_met_conditions_412: bool = False
    complete_met_conditions_412: bool = False
    abort_keeps: bool = False
    if_match_ignored: bool = False
    content_md5_ignored: bool = False
    lifecycle_delete_keeps: bool = False
    cors_delete_keeps: bool = False
    encryption_delete_keeps: bool = False
    list_buckets_hides_newest: bool = False
    content_type_always_inferred: bool = False
    metadata_limit_doubled: bool = False
    cors_wildcard_origin_refused: bool = False
    malformed_xml_500: bool = False
    lifecycle_invalid_500: bool = False
    key_limit_ignored: bool = False
    early_answer_keeps_open: bool = False
    if_match_missing_412: bool = False
    if_match_missing_writes: bool = False
    delete_if_match_ignored: bool = False
    delete_objects_etag_ignored: bool = False
    response_overrides_ignored: bool = False
    part_number_whole: bool = False
    self_copy_allowed: bool = False
    self_copy_always_refused: bool = False
    complete_retry_forgotten: bool = False
    max_keys_zero_truncated: bool = False
    delete_missing_key_404: bool = False
    quiet_lists_deleted: bool = False
    copy_drops_metadata: bool = False
    not_modified_without_etag: bool = False
    status_416_without_content_range: bool = False
    unsigned_access_denied: bool = False
    write_conditions_at_start: bool = False
    migration_fetch_overwrites: bool = False
    bindings_create_bucket: bool = False
    list_buckets_token_names_next: bool = False
    page_size_zero_refused: bool = False
    if_modified_since_inverted: bool = False
    http_date_imf_only: bool = False
    multipart_etag_of_hex: bool = False
    list_collated_order: bool = False
    delete_bucket_keeps_uploads: bool = False
    put_publish_unchecked: bool = False
    unequal_parts_accepted: bool = False
    parts_joined_as_listed: bool = False
    delete_bucket_deferred: bool = False


@cache
def entries() -> dict[str, dict[str, str]]:
    """The data entries of deviations.yaml: field name -> {doc, break?}."""
    text = (resources.files("reference_impl") / "deviations.yaml").read_text(encoding="utf-8")
    data: dict[str, dict[str, str]] = yaml_data.load(text) or {}
    return data


@cache
def _hints() -> dict[str, Any]:
    return get_type_hints(Deviations)


def break_fields() -> dict[str, str]:
    """Rule-break name (as listed in `deviate_breaks`) -> field."""
    return {body["break"]: name for name, body in entries().items() if "break" in body}


def override_fields() -> dict[str, str]:
    """Override key (`deviate_<field>`) -> field, for the fields not spelt as a rule break."""
    return {PREFIX + name: name for name, body in entries().items() if "break" not in body}


def is_deviation_key(key: str) -> bool:
    """True for an override key that names a deviation rather than a dated profile field."""
    return key.startswith(PREFIX)


def from_overrides(overrides: dict[str, str]) -> Deviations:
    """The deviations that `--profile` overrides ask for; other keys are ignored here."""
    chosen: dict[str, Any] = {}
    spellings = override_fields()
    for key, raw in overrides.items():
        if not is_deviation_key(key):
            continue
        value = _parse(raw)
        if key == BREAKS_KEY:
            chosen.update(dict.fromkeys(_break_names(value), True))
        elif key in spellings:
            name = spellings[key]
            if not _accepts(_hints()[name], value):
                raise DeviationError(f"deviation {key!r} takes {_hints()[name]}, got {raw!r}")
            chosen[name] = value
        else:
            known = ", ".join(sorted([*spellings, BREAKS_KEY]))
            raise DeviationError(f"unknown deviation {key!r}; known deviations: {known}")
    return replace(Deviations(), **chosen)


def _break_names(value: Any) -> list[str]:
    if value is None:
        return []
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise DeviationError(f"{BREAKS_KEY} takes a list of rule-break names, got {value!r}")
    by_name = break_fields()
    unknown = [v for v in value if v not in by_name]
    if unknown:
        known = ", ".join(sorted(by_name))
        raise DeviationError(f"unknown rule break(s) {unknown} in {BREAKS_KEY}; known: {known}")
    return [by_name[v] for v in value]


def _parse(raw: str) -> Any:
    """JSON when it parses (numbers, booleans, null, lists, objects), else the plain string."""
    try:
        return json.loads(raw)
    except json.JSONDecodeError:
        return raw


def _accepts(hint: Any, value: Any) -> bool:
    """Whether `value` fits the field type `hint` (the few shapes `Deviations` uses)."""
    origin = get_origin(hint)
    if origin in (Union, types.UnionType):
        return any(_accepts(arg, value) for arg in get_args(hint))
    if hint is type(None):
        return value is None
    if hint is bool:
        return isinstance(value, bool)
    if hint is int:
        return isinstance(value, int) and not isinstance(value, bool)
    if hint is str:
        return isinstance(value, str)
    if origin is list:
        (item,) = get_args(hint)
        return isinstance(value, list) and all(_accepts(item, v) for v in value)
    if origin is dict:
        return isinstance(value, dict)
    return False


def field_names() -> list[str]:
    """Every declared deviation, in declaration order."""
    return [f.name for f in fields(Deviations)]
