"""The edge's record building (reference_impl/edge/records.py) without a running server.

The suite shows the limits end to end; these pin the reference's own choices at the edges the
suite does not reach: multi-byte cuts, absent fields, repeated cookies, job formatting.
"""

from __future__ import annotations

import json

from reference_impl.edge.records import (
    CUSTOM_DATA_LIMIT,
    Exchange,
    LogOptions,
    custom_field_objects,
    job_line,
    request_cookies,
)

CONFIG = {"request_fields": ["a", "b"], "response_fields": ["set-cookie"], "cookie_fields": []}
Pairs = list[tuple[str, str]]


def plain(request: Pairs, response: Pairs) -> Exchange:
    """An exchange no transform rule touched."""
    return Exchange(request, request, response, response)


def test_cookies_keep_case_and_the_first_of_a_name() -> None:
    headers = [("cookie", "A=1; a=2; A=3"), ("cookie", 'B="quoted"')]
    assert request_cookies(headers) == {"A": "1", "a": "2", "B": "quoted"}


def test_absent_fields_are_left_out() -> None:
    out = custom_field_objects(
        CONFIG, plain([("a", "1")], [("set-cookie", "s=1"), ("set-cookie", "t")])
    )
    assert out == {"RequestHeaders": {"a": "1"}, "ResponseHeaders": {"set-cookie": "s=1"},
                   "Cookies": {}}  # fmt: skip


def test_cut_never_splits_a_multibyte_character() -> None:
    value = "é" * CUSTOM_DATA_LIMIT  # 2 bytes each
    out = custom_field_objects(CONFIG, plain([("a", value), ("b", "later")], []))
    logged = out["RequestHeaders"]
    assert "b" not in logged and out["ResponseHeaders"] == {}
    assert len(("a" + logged["a"]).encode()) in (CUSTOM_DATA_LIMIT, CUSTOM_DATA_LIMIT - 1)


def test_raw_and_transformed_arrays_pick_their_side() -> None:
    """The 2025-04-18 arrays: raw request / transformed response by default, twins the other."""
    config = {
        "request_fields": ["q"],
        "transformed_request_fields": ["t"],
        "response_fields": ["r"],
        "raw_response_fields": ["o"],
    }
    exchange = Exchange(
        [("q", "sent"), ("t", "sent")],
        [("q", "changed"), ("t", "changed")],
        [("r", "origin"), ("o", "origin")],
        [("r", "changed"), ("o", "changed")],
    )
    out = custom_field_objects(config, exchange, LogOptions(limit=None, response_transformed=True))
    assert out["RequestHeaders"] == {"q": "sent", "t": "changed"}
    assert out["ResponseHeaders"] == {"r": "changed", "o": "origin"}
    before = custom_field_objects(config, exchange, LogOptions())  # the spec's world: originals
    assert before["ResponseHeaders"]["r"] == "origin"


def test_preserve_duplicates_logs_every_instance_in_order() -> None:
    response = [("set-cookie", "s=1"), ("x", "y"), ("set-cookie", "t=2")]
    config = {**CONFIG, "preserve_duplicates": ["true"]}
    out = custom_field_objects(config, plain([("a", "once")], response), LogOptions(limit=None))
    assert out["ResponseHeaders"] == {"set-cookie": ["s=1", "t=2"]}
    assert out["RequestHeaders"] == {"a": "once"}  # a header sent once stays a string


def test_no_cut_without_a_limit() -> None:
    value = "v" * (3 * CUSTOM_DATA_LIMIT)
    out = custom_field_objects(
        CONFIG, plain([("a", value), ("b", "later")], []), LogOptions(limit=None)
    )
    assert out["RequestHeaders"] == {"a": value, "b": "later"}


def test_job_line_selects_fields_and_formats_timestamps() -> None:
    record = {"RayID": "r", "EdgeStartTimestamp": 1_700_000_000_123_456_789, "Other": 1}
    assert json.loads(job_line(record, "fields=RayID,EdgeStartTimestamp&timestamps=unix")) == {
        "RayID": "r",
        "EdgeStartTimestamp": 1_700_000_000,
    }
    rfc = json.loads(job_line(record, "fields=EdgeStartTimestamp&timestamps=rfc3339"))
    assert rfc == {"EdgeStartTimestamp": "2023-11-14T22:13:20Z"}
    assert json.loads(job_line(record, "fields=Other"))["Other"] == 1
    assert json.loads(job_line(record, None))["EdgeStartTimestamp"] == 1_700_000_000_123_456_789
