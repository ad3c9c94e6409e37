"""Limits of the logged custom fields: 8 KB of combined data, and original headers only; and the
limits job's timestamps=unix stamps, read against a second job's unixnano ones.

Combined data counts names and values (decisions.md, "8 KB"): fields are kept in configuration
order, the value crossing the limit is cut, later ones are dropped; data within the safe size
(`expected.custom_field_data_whole_bytes`) must be whole. The transform rule is the edge's fixed
one (`x-ec-transform` rewritten before the origin), so those rules are reference-only.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any, cast

import pytest

from conformance.clients.rules_api import RulesApiClient
from conformance.suite.logs.helpers import log_rule
from conformance.suite.logs.log_delivery import (
    ALL_FIELDS,
    RESPOND_PREFIX,
    Delivered,
    Traffic,
    delivered_logs,
)
from conformance.suite.setup_check import require

JOB = "limits"
# a second job of the first round: the same requests' instants in nanoseconds, against which the
# limits job's timestamps=unix stamps are read (logs.records.timestamps-unix)
NANO = "nano"
NANO_OPTIONS = "fields=RayID,ClientRequestURI,EdgeStartTimestamp&timestamps=unixnano"
TRANSFORMED = "x-ec-transform"
ORIGINAL_VALUE = "original-value"
# the value the edge's fixed transform rule writes (rules are reference-only: the edge's own)
TRANSFORMED_VALUE = "rewritten-by-transform-rule"
# configuration order h1..h4; h1+h2 stay below 8000 bytes, h3 crosses 8192, h4 comes after
SIZES = {"x-ec-h1": 4000, "x-ec-h2": 3000, "x-ec-h3": 2000, "x-ec-h4": 10}
# the same names, h1+h2 leaving 3 bytes of the 8192: fewer than h3's name, so nothing of h3 fits
TIGHT = {"x-ec-h1": 4000, "x-ec-h2": 4175, "x-ec-h3": 50, "x-ec-h4": 10}
# the limit is on the record's combined data: a request header, a response header and a cookie,
# each below 8 KB, together above it (each name configured once, request header first)
ACROSS_REQUEST = "x-ec-h1"
ACROSS_RESPONSE = ("x-ec-big-resp", 3000)
ACROSS_COOKIE = ("ec_big", 3000)
# the edge's fixed response transform rule (rewrites this header from the origin)
RESPONSE_TRANSFORMED = "x-ec-response-transform"
RESPONSE_TRANSFORMED_VALUE = "rewritten-by-response-transform-rule"
ORIGIN_VALUE = "from-origin"


def _value(name: str, sizes: dict[str, int] = SIZES) -> str:
    return name[-1] * sizes[name]


def _data_bytes(fields: dict[str, str]) -> int:
    return sum(len(k.encode()) + len(v.encode()) for k, v in fields.items())


@pytest.fixture(scope="module")
def logs(
    rules_api: RulesApiClient, s3: Any, edge: dict[str, Any], run_prefix: str, zone_lock: Any
) -> Iterator[Delivered]:
    rules = [
        log_rule(request=tuple(SIZES), response=(ACROSS_RESPONSE[0],), cookies=(ACROSS_COOKIE[0],))
    ]
    transform_rules = [log_rule(request=(TRANSFORMED,), response=(RESPONSE_TRANSFORMED,))]
    jobs = {JOB: f"fields={ALL_FIELDS}&timestamps=unix"}
    first_jobs = {**jobs, NANO: NANO_OPTIONS}
    big = Traffic("big", {name: _value(name) for name in SIZES})
    tight = Traffic("tight", {name: _value(name, TIGHT) for name in TIGHT})
    across = Traffic(
        "across",
        {
            ACROSS_REQUEST: _value(ACROSS_REQUEST),
            RESPOND_PREFIX + ACROSS_RESPONSE[0]: "r" * ACROSS_RESPONSE[1],
            "cookie": f"{ACROSS_COOKIE[0]}={'c' * ACROSS_COOKIE[1]}",
        },
    )
    sent = {TRANSFORMED: ORIGINAL_VALUE, RESPOND_PREFIX + RESPONSE_TRANSFORMED: ORIGIN_VALUE}
    changed = [Traffic("transformed", sent)]
    url = edge["url"]
    with (
        zone_lock,
        delivered_logs(
            rules_api, s3, url, run_prefix, rules, first_jobs, [big, tight, across]
        ) as first,
        delivered_logs(rules_api, s3, url, run_prefix, transform_rules, jobs, changed) as second,
    ):
        yield Delivered(
            {
                "big": first.entries[JOB],
                "tight": first.entries[JOB],
                "across": first.entries[JOB],
                "transformed": second.entries[JOB],
                NANO: first.entries[NANO],
            },
            {**first.paths, **second.paths},
        )


@pytest.mark.rule("logs.records.data-within-limit-whole")
def test_data_within_the_safe_size_is_whole(logs: Delivered, expected: Any) -> None:
    logged = logs.entry("big", "big")["RequestHeaders"]
    whole = {k: _value(k) for k in ("x-ec-h1", "x-ec-h2")}
    assert _data_bytes(whole) <= expected.custom_field_data_whole_bytes
    for name, value in whole.items():
        assert logged.get(name) == value, f"{name}: {len(logged.get(name, ''))} of {len(value)}"


@pytest.mark.rule("logs.records.data-truncated")
def test_data_beyond_the_limit_is_truncated(logs: Delivered, expected: Any) -> None:
    logged = logs.entry("big", "big")["RequestHeaders"]
    sent = {name: _value(name) for name in SIZES}
    assert _data_bytes(sent) > expected.custom_field_data_bytes
    assert _data_bytes(logged) <= expected.custom_field_data_bytes
    assert logged != sent
    # the crossing value's name alone does not fit: nothing of it may be logged
    tight = logs.entry("tight", "tight")["RequestHeaders"]
    assert _data_bytes({k: _value(k, TIGHT) for k in TIGHT}) > expected.custom_field_data_bytes
    assert _data_bytes(tight) <= expected.custom_field_data_bytes, {
        k: len(v) for k, v in tight.items()
    }


@pytest.mark.rule("logs.records.data-truncated")
def test_limit_is_on_the_combined_data_of_every_object(logs: Delivered, expected: Any) -> None:
    """The limit covers the record's custom field data combined (the spec's Limits: "combined
    custom field data"), request headers, response headers and cookies together, not each
    object on its own nor the request headers alone: a request header, a response header and
    a cookie, each below the limit and together above it, are not all logged whole."""
    entry = logs.entry("across", "across")
    objects = ("RequestHeaders", "ResponseHeaders", "Cookies")
    logged = {name: entry.get(name) or {} for name in objects}
    require(
        all(isinstance(value, dict) for value in logged.values()),
        f"the custom fields are not objects (field-objects): {entry}",
    )
    sent = {ACROSS_REQUEST: _value(ACROSS_REQUEST)}
    sent[ACROSS_RESPONSE[0]] = "r" * ACROSS_RESPONSE[1]
    sent[ACROSS_COOKIE[0]] = "c" * ACROSS_COOKIE[1]
    assert _data_bytes(sent) > expected.custom_field_data_bytes
    combined = sum(_data_bytes(value) for value in logged.values())
    assert combined <= expected.custom_field_data_bytes, (
        f"{combined} bytes of custom field data logged in one record, over the"
        f" {expected.custom_field_data_bytes}: "
        + str({name: {k: len(v) for k, v in value.items()} for name, value in logged.items()})
    )


@pytest.mark.rule("logs.records.truncation-order")
def test_crossing_value_is_cut_and_later_ones_dropped(logs: Delivered, expected: Any) -> None:
    logged = logs.entry("big", "big")["RequestHeaders"]
    cut = logged.get("x-ec-h3", "")
    assert cut and _value("x-ec-h3").startswith(cut) and len(cut) < SIZES["x-ec-h3"]
    assert _data_bytes(logged) > expected.custom_field_data_whole_bytes
    assert "x-ec-h4" not in logged


@pytest.mark.rule("logs.records.original-headers")
def test_header_changed_by_a_transform_is_not_logged_changed(logs: Delivered) -> None:
    """The transform rule's value never reaches the log (whether the original does: below)."""
    logged = logs.entry("transformed", "transformed")["RequestHeaders"]
    require(TRANSFORMED in logged, f"{TRANSFORMED} not logged at all (transform-original-value)")
    assert logged[TRANSFORMED] != TRANSFORMED_VALUE, logged


@pytest.mark.rule("logs.records.transform-original-value")
def test_transformed_header_is_logged_with_its_original_value(logs: Delivered) -> None:
    logged = logs.entry("transformed", "transformed")["RequestHeaders"]
    assert logged.get(TRANSFORMED) == ORIGINAL_VALUE, logged


@pytest.mark.rule("logs.records.original-headers")
def test_response_header_changed_by_a_transform_is_not_logged_changed(logs: Delivered) -> None:
    """Before 2025-04-18 response headers too are logged as the origin sent them: the
    provider's change of that date made response_fields log the transformed value."""
    logged = logs.entry("transformed", "transformed")["ResponseHeaders"]
    require(RESPONSE_TRANSFORMED in logged, f"{RESPONSE_TRANSFORMED} not logged at all: {logged}")
    assert logged[RESPONSE_TRANSFORMED] != RESPONSE_TRANSFORMED_VALUE, logged


@pytest.mark.rule("logs.records.timestamps-unix")
def test_unix_timestamp_is_the_request_instant_in_seconds(logs: Delivered) -> None:
    """With timestamps=unix the stamp is an integer count of seconds: the instant the unixnano
    job logs for the same request (within a second, whichever way the target rounds)."""
    nanos = logs.entry(NANO, "big").get("EdgeStartTimestamp")
    require(isinstance(nanos, int), f"no unixnano stamp to compare with: {nanos!r}")
    entry = logs.entry("big", "big")
    stamp = entry.get("EdgeStartTimestamp")
    assert isinstance(stamp, int) and not isinstance(stamp, bool), f"unix stamp {stamp!r}"
    seconds = cast(int, nanos) / 1e9  # an int: require() above
    assert abs(stamp - seconds) <= 1.0, f"unix {stamp} is not unixnano {nanos} in seconds"
    # the option covers every timestamp field: the request's end, a moment after its start
    end = entry.get("EdgeEndTimestamp")
    assert isinstance(end, int) and not isinstance(end, bool), f"unix EdgeEndTimestamp {end!r}"
    assert 0 <= end - stamp <= 60, f"EdgeEndTimestamp {end} is not seconds after {stamp}"
