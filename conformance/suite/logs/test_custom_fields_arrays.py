"""Custom fields after the provider's change of 2025-04-18: five arrays and a limit per type.

From that date (its changelog and custom-fields page) a rule may also hold
`transformed_request_fields`, `raw_response_fields` and `preserve_duplicates`; a header is logged
raw or transformed, not both; and the limit is 100 names per field type instead of 40 in total.
"""

from __future__ import annotations

from typing import Any

import pytest

from conformance.clients.rules_api import RulesApiClient
from conformance.suite.logs.helpers import ensure_entrypoint, entrypoint_guard

ARRAYS = {
    "request_fields": "x-ec-raw-req",
    "transformed_request_fields": "x-ec-new-req",
    "response_fields": "x-ec-new-resp",
    "raw_response_fields": "x-ec-raw-resp",
    "cookie_fields": "EcCookie",
}


def _rule(**params: Any) -> dict[str, Any]:
    return {
        "action": "log_custom_field",
        "expression": "true",
        "description": "edge-conformance",
        "action_parameters": params,
    }


def _names(*names: str) -> list[dict[str, str]]:
    return [{"name": name} for name in names]


def _put(rules_api: RulesApiClient, rules: list[dict[str, Any]]) -> Any:
    ruleset_id = ensure_entrypoint(rules_api)
    return rules_api.update_ruleset(ruleset_id, {"rules": rules})


@pytest.mark.rule("logs.fields.five-arrays")
def test_five_arrays_and_preserve_duplicates_round_trip(rules_api: RulesApiClient) -> None:
    """Every array comes back with its names, and preserve_duplicates with its value."""
    params: dict[str, Any] = {key: _names(name) for key, name in ARRAYS.items()}
    params["preserve_duplicates"] = True
    with entrypoint_guard(rules_api):
        result = _put(rules_api, [_rule(**params)]).assert_envelope_ok(200)
        (rule,) = result["rules"]
        back = rule.get("action_parameters") or {}
        for key, name in ARRAYS.items():
            assert back.get(key) == _names(name), f"{key}: sent [{name}], got {back.get(key)}"
        assert back.get("preserve_duplicates") is True, f"preserve_duplicates: {back}"


@pytest.mark.rule("logs.fields.five-arrays")
@pytest.mark.parametrize("sent", ["true", 1], ids=["string", "number"])
def test_preserve_duplicates_that_is_not_a_boolean_is_never_shown(
    rules_api: RulesApiClient, sent: Any
) -> None:
    """preserve_duplicates is a boolean (the changelog's and the custom-fields page's `true`):
    a rule sent with "true" or 1 is refused with a 4xx, or comes back with a boolean (or
    without it); never with the value as sent, which a client reads as another type."""
    params: dict[str, Any] = {"request_fields": _names("x-ec-odd"), "preserve_duplicates": sent}
    with entrypoint_guard(rules_api):
        reply = _put(rules_api, [_rule(**params)])
        assert reply.status < 500, f"preserve_duplicates {sent!r}: {reply.describe()}"
        if reply.status >= 400:
            return
        rules = rules_api.get_ruleset(ensure_entrypoint(rules_api)).assert_envelope_ok(200)
    shown = [(r.get("action_parameters") or {}).get("preserve_duplicates") for r in rules["rules"]]
    assert all(v is None or isinstance(v, bool) for v in shown), (
        f"preserve_duplicates sent {sent!r}, shown {shown}"
    )


@pytest.mark.rule("logs.fields.raw-or-transformed")
@pytest.mark.parametrize(
    ("raw", "transformed"),
    [("request_fields", "transformed_request_fields"), ("response_fields", "raw_response_fields")],
    ids=["request", "response"],
)
@pytest.mark.parametrize("shape", ["one-rule", "raw-rule-first", "transformed-rule-first"])
def test_header_both_raw_and_transformed_is_refused(
    rules_api: RulesApiClient, raw: str, transformed: str, shape: str
) -> None:
    """The same header in an array and its twin is a 400, and the configuration is kept:
    within one rule, or across two rules of the ruleset in either order (docs/decisions.md,
    "Custom fields from 2025-04-18": the ruleset is one configuration)."""
    raw_rule = _rule(**{raw: _names("x-ec-both")})
    transformed_rule = _rule(**{transformed: _names("x-ec-both")})
    both = {
        "one-rule": [_rule(**{raw: _names("x-ec-both"), transformed: _names("x-ec-both")})],
        "raw-rule-first": [raw_rule, transformed_rule],
        "transformed-rule-first": [transformed_rule, raw_rule],
    }[shape]
    with entrypoint_guard(rules_api):
        before = _put(rules_api, [_rule(**{raw: _names("x-ec-kept")})]).assert_envelope_ok(200)
        _put(rules_api, both).assert_envelope_error(400)
        after = rules_api.get_entrypoint().assert_envelope_ok(200)
        kept = [r.get("action_parameters") for r in after.get("rules", [])]
        assert kept == [r.get("action_parameters") for r in before["rules"]], after


@pytest.mark.rule("logs.fields.raw-or-transformed")
def test_different_headers_raw_and_transformed_in_two_rules_are_accepted(
    rules_api: RulesApiClient,
) -> None:
    """The other side: one rule naming a header raw and another naming a different header
    transformed is a valid ruleset (200), each array kept as sent."""
    rules = [
        _rule(request_fields=_names("x-ec-raw-only")),
        _rule(transformed_request_fields=_names("x-ec-transformed-only")),
    ]
    with entrypoint_guard(rules_api):
        result = _put(rules_api, rules).assert_envelope_ok(200)
        sent = [r["action_parameters"] for r in rules]
        assert [r.get("action_parameters") for r in result["rules"]] == sent, result


# the three arrays of the spec, one field type each (request headers, response headers, cookies)
TYPED = {"request_fields": "x-req-", "response_fields": "x-resp-", "cookie_fields": "Cookie"}


@pytest.mark.parametrize(
    "extra",
    [
        pytest.param(
            0, id="at-limit", marks=pytest.mark.rule("logs.limits.custom-fields-per-type-max")
        ),
        pytest.param(
            1, id="over-by-one", marks=pytest.mark.rule("logs.limits.custom-fields-per-type-over")
        ),
    ],
)
def test_custom_field_limit_per_type(rules_api: RulesApiClient, expected: Any, extra: int) -> None:
    """The per-type limit in one array (split over two rules) is accepted; one more is a 400."""
    count = int(expected.custom_fields_per_type_max) + extra
    names = [f"x-req-{i}" for i in range(count)]
    half = count // 2
    rules = [
        _rule(request_fields=_names(*names[:half])),
        _rule(request_fields=_names(*names[half:])),
    ]
    with entrypoint_guard(rules_api):
        reply = _put(rules_api, rules)
        if extra:
            reply.assert_envelope_error(400)
        else:
            reply.assert_envelope_ok(200)


@pytest.mark.rule("logs.limits.custom-fields-per-type-max")
def test_every_field_type_holds_the_limit_at_once(rules_api: RulesApiClient, expected: Any) -> None:
    """The limit is per field type, not a total: the limit in each of the three arrays at once
    (split over two rules) is accepted."""
    count = int(expected.custom_fields_per_type_max)
    half = count // 2
    params = {key: _names(*(f"{stem}{i}" for i in range(count))) for key, stem in TYPED.items()}
    rules = [
        _rule(**{key: names[:half] for key, names in params.items()}),
        _rule(**{key: names[half:] for key, names in params.items()}),
    ]
    with entrypoint_guard(rules_api):
        _put(rules_api, rules).assert_envelope_ok(200)


@pytest.mark.rule("logs.limits.custom-fields-per-type-over")
@pytest.mark.parametrize("array", ["response_fields", "cookie_fields"])
def test_one_over_the_limit_is_refused_in_every_field_type(
    rules_api: RulesApiClient, expected: Any, array: str
) -> None:
    """One name over the limit in the response-header or cookie array is a 400 too (not only
    in request_fields), while the other arrays stay within theirs."""
    count = int(expected.custom_fields_per_type_max)
    stem = TYPED[array]
    over = _names(*(f"{stem}{i}" for i in range(count + 1)))
    rules = [
        _rule(request_fields=_names("x-req-0"), **{array: over[: count // 2]}),
        _rule(**{array: over[count // 2 :]}),
    ]
    with entrypoint_guard(rules_api):
        _put(rules_api, rules).assert_envelope_error(400)
