"""Log entries after the provider's change of 2025-04-18: raw or transformed, duplicates, no cut.

Request headers are logged raw by default and response headers transformed; the two added arrays
ask for the other form (its changelog). `preserve_duplicates` keeps every instance of a repeated
header; the page shows no logged form for several values, so the test accepts any form (a list,
or one string) that holds every value. The 8 KB statement is gone: data beyond the former 8192
bytes must be whole. The transform rules are the reference edge's fixed ones (`x-ec-transform`
on the request, `x-ec-response-transform` on the response), so those rules are reference-only.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from typing import Any

import pytest

from conformance.clients.rules_api import RulesApiClient
from conformance.plugin.applicability import NA_PREFIX
from conformance.suite.logs.log_delivery import (
    ALL_FIELDS,
    FIRST_ORIGIN_COOKIE,
    RESPOND_PREFIX,
    Delivered,
    Traffic,
    delivered_logs,
)

JOB = "arrays"
REQUEST_TRANSFORMED = "x-ec-transform"
REQUEST_TRANSFORMED_VALUE = "rewritten-by-transform-rule"
RESPONSE_TRANSFORMED = "x-ec-response-transform"
RESPONSE_TRANSFORMED_VALUE = "rewritten-by-response-transform-rule"
SENT_VALUE = "as-sent"
ABSENT = "x-ec-not-sent"
ORIGIN_VALUE = "from-origin"
SECOND_ORIGIN_COOKIE = "ec_second=2; Path=/"
FORMER_LIMIT = 8192  # the spec's combined custom field data per record, gone on 2025-04-18
# three values that together cross the former limit, then one small field after them
BIG = {"x-ec-big1": 3500, "x-ec-big2": 3500, "x-ec-big3": 3500}
AFTER = ("x-ec-after", "still-logged")


def _rule(**params: Any) -> dict[str, Any]:
    named = {k: [{"name": n} for n in v] if isinstance(v, tuple) else v for k, v in params.items()}
    return {"action": "log_custom_field", "expression": "true", "action_parameters": named}


def _big_value(name: str) -> str:
    return name[-1] * BIG[name]


@pytest.fixture(scope="module")
def logs(
    rules_api: RulesApiClient, s3: Any, edge: dict[str, Any], run_prefix: str, zone_lock: Any
) -> Iterator[Delivered]:
    first = [
        _rule(
            request_fields=(*BIG, AFTER[0]),
            transformed_request_fields=(REQUEST_TRANSFORMED,),
            response_fields=("set-cookie",),
            raw_response_fields=(RESPONSE_TRANSFORMED,),
            preserve_duplicates=True,
        )
    ]
    # a configured header the request does not carry comes first: the next one is still logged
    second = [
        _rule(request_fields=(ABSENT, REQUEST_TRANSFORMED), response_fields=(RESPONSE_TRANSFORMED,))
    ]
    headers = {name: _big_value(name) for name in BIG}
    headers.update({AFTER[0]: AFTER[1], REQUEST_TRANSFORMED: SENT_VALUE})
    headers[RESPOND_PREFIX + RESPONSE_TRANSFORMED] = ORIGIN_VALUE
    one = [Traffic("one", headers)]
    two = [
        Traffic(
            "two",
            {REQUEST_TRANSFORMED: SENT_VALUE, RESPOND_PREFIX + RESPONSE_TRANSFORMED: ORIGIN_VALUE},
        )
    ]
    jobs = {JOB: f"fields={ALL_FIELDS}&timestamps=unix"}
    url = edge["url"]
    # partial: a refused GET or a late line is kept, not raised, so that each rule below is
    # not checked (Delivered.entry requires the round whole) and the reference's own delivery
    # rule can FAIL on it (a line its edge could not build answered 500 before)
    with (
        zone_lock,
        delivered_logs(rules_api, s3, url, run_prefix, first, jobs, one, partial=True) as a,
        delivered_logs(rules_api, s3, url, run_prefix, second, jobs, two, partial=True) as b,
    ):
        yield Delivered(
            {"one": a.entries[JOB], "two": b.entries[JOB]},
            {**a.paths, **b.paths},
            missing={"one": a.missing.get(JOB, []), "two": b.missing.get(JOB, [])},
            waited=max(a.waited, b.waited),
            refused={**a.refused, **b.refused},
        )


def _object(logs: Delivered, round_name: str, field: str) -> dict[str, Any]:
    entry = logs.entry(round_name, round_name)
    value = entry.get(field)
    assert isinstance(value, dict), f"{field} is not an object: {entry}"
    return value


@pytest.mark.rule("logs.records.data-beyond-8kb-whole")
def test_data_beyond_the_former_limit_is_whole(logs: Delivered) -> None:
    logged = _object(logs, "one", "RequestHeaders")
    sent = {name: _big_value(name) for name in BIG}
    assert sum(len(k) + len(v) for k, v in sent.items()) > FORMER_LIMIT
    for name, value in sent.items():
        got = logged.get(name)
        assert got == value, f"{name}: {len(got or '')} of {len(value)} bytes logged"


@pytest.mark.rule("logs.records.fields-after-8kb-logged")
def test_fields_after_the_former_limit_are_logged(logs: Delivered) -> None:
    logged = _object(logs, "one", "RequestHeaders")
    assert logged.get(AFTER[0]) == AFTER[1], f"{AFTER[0]} after 10 KB of data: {logged.keys()}"


@pytest.mark.rule("logs.records.transformed-request-fields")
def test_transformed_request_field_logs_the_rewritten_value(logs: Delivered) -> None:
    logged = _object(logs, "one", "RequestHeaders")
    assert logged.get(REQUEST_TRANSFORMED) == REQUEST_TRANSFORMED_VALUE, logged.get(
        REQUEST_TRANSFORMED
    )


@pytest.mark.rule("logs.records.request-fields-raw")
def test_request_field_logs_the_value_as_sent(logs: Delivered) -> None:
    logged = _object(logs, "two", "RequestHeaders")
    assert logged.get(REQUEST_TRANSFORMED) == SENT_VALUE, logged


@pytest.mark.rule("logs.records.raw-response-fields")
def test_raw_response_field_logs_the_origin_value(logs: Delivered) -> None:
    logged = _object(logs, "one", "ResponseHeaders")
    assert logged.get(RESPONSE_TRANSFORMED) == ORIGIN_VALUE, logged


@pytest.mark.rule("logs.records.response-fields-transformed")
def test_response_field_logs_the_transformed_value(logs: Delivered) -> None:
    logged = _object(logs, "two", "ResponseHeaders")
    assert logged.get(RESPONSE_TRANSFORMED) == RESPONSE_TRANSFORMED_VALUE, logged


@pytest.mark.rule("logs.records.preserve-duplicates")
def test_preserved_duplicates_hold_every_value(logs: Delivered) -> None:
    logged = _object(logs, "one", "ResponseHeaders").get("set-cookie")
    assert logged is not None, "set-cookie not logged"
    text = logged if isinstance(logged, str) else json.dumps(logged)
    missing = [c for c in (FIRST_ORIGIN_COOKIE, SECOND_ORIGIN_COOKIE) if c not in text]
    assert not missing, f"set-cookie logged as {logged!r}; missing {missing}"


@pytest.mark.rule("logs.logpush.reference-delivers-round")
def test_reference_delivers_the_arrays_round(
    request: pytest.FixtureRequest, in_force: Callable[[str], bool]
) -> None:
    """Reference-only, as for the records round (test_log_records.py): its edge answers this
    round's GETs (10 KB of request headers, a repeated response header kept whole) with its
    origin's 200, and every line arrives within the log wait. A value its edge cannot build
    into a line (several set-cookie values as a list) answered 500 and left the six rules of
    this module not checked, unseen."""
    if not in_force("logs.records.preserve-duplicates"):
        pytest.skip(f"{NA_PREFIX}the round's arrays and duplicates took effect on 2025-04-18")
    logs: Delivered = request.getfixturevalue("logs")  # after the date check: none before
    assert not logs.refused, f"the edge refused some of the round's GETs: {logs.refused}"
    late = {name: names for name, names in logs.missing.items() if names}
    assert not late, f"lines not delivered within {logs.waited:.0f}s, per round: {late}"
