"""A log custom fields rule that breaks a constraint of the spec is refused, pointing at it."""

from __future__ import annotations

from typing import Any

import pytest

from conformance.clients.rules_api import RulesApiClient, error_pointer
from conformance.suite.logs.helpers import ensure_entrypoint, entrypoint_guard, log_rule


def _put_refused(rules_api: RulesApiClient, rules: list[dict[str, Any]], pointer: str) -> None:
    with entrypoint_guard(rules_api):
        ruleset_id = ensure_entrypoint(rules_api)
        reply = rules_api.update_ruleset(ruleset_id, {"rules": rules})
        error = reply.assert_envelope_error(400)
        found = error_pointer(error) or ""
        assert found.startswith(pointer), f"pointer {found!r}, expected {pointer!r}: {reply.json}"


@pytest.mark.rule(
    "logs.rule.action-other-refused",
    "logs.envelope.failure-shape",
    "logs.envelope.failure-pointer",
)
def test_action_other_than_log_custom_field_is_refused(rules_api: RulesApiClient) -> None:
    """A rule whose action is not log_custom_field is 400 pointing at its action."""
    rules = [log_rule(request=("x-ok",)), log_rule(request=("x-a",), action="log")]
    _put_refused(rules_api, rules, "/rules/1/action")


@pytest.mark.rule("logs.rule.expression-other-refused", "logs.envelope.failure-pointer")
def test_expression_other_than_true_is_refused(rules_api: RulesApiClient) -> None:
    """A rule whose expression is not `true` is 400 pointing at its expression."""
    rule = log_rule(request=("x-a",), expression='http.host eq "example.com"')
    _put_refused(rules_api, [rule], "/rules/0/expression")


@pytest.mark.rule("logs.fields.at-least-one-array")
def test_rule_without_field_arrays_is_refused(rules_api: RulesApiClient) -> None:
    """A rule naming none of the three arrays is 400 pointing at its action_parameters."""
    _put_refused(rules_api, [log_rule()], "/rules/0/action_parameters")


@pytest.mark.parametrize(
    "array",
    [
        # rule marks written inline on each param: the coverage scan (conformance/coverage.py)
        # reads `pytest.mark.rule("...")` calls where they appear, not names bound to them
        pytest.param(
            "request_fields", marks=pytest.mark.rule("logs.fields.upper-case-request-refused")
        ),
        pytest.param(
            "response_fields", marks=pytest.mark.rule("logs.fields.upper-case-response-refused")
        ),
    ],
)
def test_upper_case_header_name_is_refused(rules_api: RulesApiClient, array: str) -> None:
    """An upper-case header name is refused (400 pointing at the item), not lower-cased."""
    rule = log_rule(action_parameters={array: [{"name": "x-ok"}, {"name": "X-Upper"}]})
    _put_refused(rules_api, [rule], f"/rules/0/action_parameters/{array}/1")


@pytest.mark.rule("logs.envelope.failure-pointer")
@pytest.mark.parametrize("array", ["request_fields", "response_fields", "cookie_fields"])
def test_empty_field_name_is_refused(rules_api: RulesApiClient, array: str) -> None:
    """An empty field name is 400 pointing at that item."""
    rule = log_rule(action_parameters={array: [{"name": ""}]})
    _put_refused(rules_api, [rule], f"/rules/0/action_parameters/{array}/0")


@pytest.mark.rule("logs.fields.cookie-fields", "logs.fields.cookie-case-kept")
def test_cookie_names_keep_their_case(rules_api: RulesApiClient) -> None:
    """Cookie names are returned as sent, and names differing only in case stay distinct."""
    names = ["SessionID", "sessionid", "mixedCase"]
    rule = log_rule(request=("x-a",), cookies=tuple(names))
    with entrypoint_guard(rules_api):
        ruleset_id = ensure_entrypoint(rules_api)
        rules_api.update_ruleset(ruleset_id, {"rules": [rule]}).assert_envelope_ok(200)
        shown = rules_api.get_ruleset(ruleset_id).assert_envelope_ok(200)
        cookies = [f["name"] for f in shown["rules"][0]["action_parameters"]["cookie_fields"]]
        assert cookies == names, cookies


@pytest.mark.parametrize(
    "extra",
    [
        pytest.param(0, id="at-limit", marks=pytest.mark.rule("logs.limits.custom-fields-max")),
        pytest.param(1, id="over-by-one", marks=pytest.mark.rule("logs.limits.custom-fields-over")),
    ],
)
def test_custom_field_limit(rules_api: RulesApiClient, expected: Any, extra: int) -> None:
    """The limit of fields across the three arrays is accepted; one more is refused with 400."""
    count = int(expected.custom_fields_max) + extra
    third = count // 3
    request = tuple(f"x-req-{i}" for i in range(third))
    response = tuple(f"x-resp-{i}" for i in range(third))
    cookies = tuple(f"Cookie{i}" for i in range(count - 2 * third))
    rules = [log_rule(request=request, response=response), log_rule(cookies=cookies)]
    with entrypoint_guard(rules_api):
        ruleset_id = ensure_entrypoint(rules_api)
        reply = rules_api.update_ruleset(ruleset_id, {"rules": rules})
        if extra:
            reply.assert_envelope_error(400)
        else:
            reply.assert_envelope_ok(200)
