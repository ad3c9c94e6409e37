"""A log custom fields rule that breaks a constraint of the spec is refused, pointing at it."""

from __future__ import annotations

from typing import Any

import pytest

from conformance.clients.rules_api import Reply, RulesApiClient, error_pointer
from conformance.suite.logs.helpers import ensure_entrypoint, entrypoint_guard, log_rule
from conformance.suite.setup_check import require_ok, require_refused


def _put(rules_api: RulesApiClient, rules: list[dict[str, Any]]) -> Reply:
    """PUT these rules on the entry point (restored afterwards) and return the answer."""
    with entrypoint_guard(rules_api):
        ruleset_id = ensure_entrypoint(rules_api)
        return rules_api.update_ruleset(ruleset_id, {"rules": rules})


def _put_refused(rules_api: RulesApiClient, rules: list[dict[str, Any]], pointer: str) -> None:
    """400 pointing at `pointer`: for rules whose own text names the pointer."""
    reply = _put(rules_api, rules)
    error = reply.assert_envelope_error(400)
    found = error_pointer(error) or ""
    assert found.startswith(pointer), f"pointer {found!r}, expected {pointer!r}: {reply.json}"


# Refusals whose rule states only the 400: each decides its rule on the status alone; the
# envelope and the pointer of the same refusals are the SHOULD rules' tests below.
REFUSALS: dict[str, tuple[list[dict[str, Any]], str]] = {
    "action": (
        [log_rule(request=("x-ok",)), log_rule(request=("x-a",), action="log")],
        "/rules/1/action",
    ),
    "expression": (
        [log_rule(request=("x-a",), expression='http.host eq "example.com"')],
        "/rules/0/expression",
    ),
    "no-array": ([log_rule()], "/rules/0/action_parameters"),
    "empty-request-name": (
        [log_rule(action_parameters={"request_fields": [{"name": ""}]})],
        "/rules/0/action_parameters/request_fields/0",
    ),
    "empty-response-name": (
        [log_rule(action_parameters={"response_fields": [{"name": ""}]})],
        "/rules/0/action_parameters/response_fields/0",
    ),
    "empty-cookie-name": (
        [log_rule(action_parameters={"cookie_fields": [{"name": ""}]})],
        "/rules/0/action_parameters/cookie_fields/0",
    ),
}


@pytest.mark.rule("logs.rule.action-other-refused")
def test_action_other_than_log_custom_field_is_refused(rules_api: RulesApiClient) -> None:
    """A rule whose action is not log_custom_field is refused with a 400."""
    _put(rules_api, REFUSALS["action"][0]).assert_status(400)


@pytest.mark.rule("logs.rule.action-other-refused")
@pytest.mark.parametrize("action", ["LOG_CUSTOM_FIELD", "Log_Custom_Field", "log_custom_fields"])
def test_action_spelled_otherwise_is_refused(rules_api: RulesApiClient, action: str) -> None:
    """The action is `log_custom_field` exactly: another case or a near spelling is another
    action, refused with a 400 (the provider's rule schema admits lower-case actions only)."""
    rules = [log_rule(request=("x-ok",)), log_rule(request=("x-a",), action=action)]
    _put(rules_api, rules).assert_status(400)


@pytest.mark.rule("logs.rule.expression-other-refused")
def test_expression_other_than_true_is_refused(rules_api: RulesApiClient) -> None:
    """A rule whose expression is not `true` is refused with a 400."""
    _put(rules_api, REFUSALS["expression"][0]).assert_status(400)


@pytest.mark.rule("logs.rule.expression-other-refused")
@pytest.mark.parametrize("expression", ["TRUE", "True"])
def test_expression_spelled_otherwise_is_refused(
    rules_api: RulesApiClient, expression: str
) -> None:
    """The expression is `true` exactly (the spec: "must be `true`"; decisions.md reads "must
    be" as anything else refused with a 400): another case is another expression text."""
    _put(rules_api, [log_rule(request=("x-a",), expression=expression)]).assert_status(400)


@pytest.mark.rule("logs.rule.expression-other-refused")
def test_expression_of_a_later_rule_is_checked(rules_api: RulesApiClient) -> None:
    """Every rule's expression must be `true`, not only the first rule's: a valid rule followed
    by one whose expression is another is refused with a 400 (the spec's Rule rule 4)."""
    rules = [log_rule(request=("x-ok",)), log_rule(request=("x-a",), expression="false")]
    _put(rules_api, rules).assert_status(400)


@pytest.mark.rule("logs.fields.at-least-one-array")
def test_later_rule_without_field_arrays_is_refused(rules_api: RulesApiClient) -> None:
    """Every rule names at least one of the arrays, not only the first rule: a valid rule
    followed by one with an empty action_parameters is refused with a 400 (the spec's Rule
    rule 1)."""
    _put(rules_api, [log_rule(request=("x-ok",)), log_rule()]).assert_status(400)


@pytest.mark.rule("logs.fields.at-least-one-array")
def test_rule_without_field_arrays_is_refused(rules_api: RulesApiClient) -> None:
    """A rule naming none of the field arrays is refused: an empty action_parameters with a
    400, and a rule without action_parameters at all with a 4xx (another behaviour than the
    empty member, whose status is not published)."""
    _put(rules_api, REFUSALS["no-array"][0]).assert_status(400)
    bare = {k: v for k, v in log_rule().items() if k != "action_parameters"}
    reply = _put(rules_api, [bare])
    assert 400 <= reply.status < 500, reply.describe()


@pytest.mark.rule("logs.fields.empty-name-refused")
@pytest.mark.parametrize("array", ["request", "response", "cookie"])
def test_empty_field_name_is_refused(rules_api: RulesApiClient, array: str) -> None:
    """An empty string names no header and no cookie (RFC 9110 5.1, RFC 6265 4.1.1: a token
    of one character or more): a rule naming one is refused with a 400, decided on the status
    here (the pointer of the same refusal is failure-pointer's)."""
    _put(rules_api, REFUSALS[f"empty-{array}-name"][0]).assert_status(400)


@pytest.mark.rule("logs.fields.empty-name-refused")
@pytest.mark.parametrize("array", ["request_fields", "response_fields", "cookie_fields"])
@pytest.mark.parametrize("name", ["x-ec bad", "x-ec:bad"], ids=["space", "colon"])
def test_name_that_is_not_a_token_is_refused(
    rules_api: RulesApiClient, array: str, name: str
) -> None:
    """A name holding a space or a colon is no token either (RFC 9110 5.6.2 tchar, RFC 6265
    4.1.1 cookie-name): it names no header and no cookie a request can carry, and is refused
    with a 400 as the empty name is."""
    _put(rules_api, [log_rule(action_parameters={array: [{"name": name}]})]).assert_status(400)


@pytest.mark.rule("logs.envelope.failure-pointer")
@pytest.mark.parametrize("case", sorted(REFUSALS))
def test_refusal_points_at_the_field(rules_api: RulesApiClient, case: str) -> None:
    """A refusal about one field carries source.pointer to it (the refusal itself is setup)."""
    rules, pointer = REFUSALS[case]
    reply = require_refused(_put(rules_api, rules), f"PUT of a rule with a bad {case}")
    pointers = [error_pointer(e) or "" for e in reply.envelope_errors]
    assert any(p.startswith(pointer) for p in pointers), (
        f"no error pointing at {pointer!r} (pointers {pointers}): {reply.describe()}"
    )


@pytest.mark.rule("logs.envelope.failure-shape")
def test_refused_rule_answers_the_failure_envelope(rules_api: RulesApiClient) -> None:
    """A refused rule answers success false, result null and errors with code and message."""
    reply = require_refused(_put(rules_api, REFUSALS["action"][0]), "PUT of a log action")
    reply.assert_envelope_error(reply.status)


@pytest.mark.rule("logs.envelope.failure-shape")
@pytest.mark.parametrize("item", [{"name": 5}, {"name": None}, "x-ec-a"], ids=repr)
def test_field_item_of_the_wrong_type_is_refused(rules_api: RulesApiClient, item: Any) -> None:
    """A field is `{name: string}` (the spec's Rule fields): a number or null for the name, or a
    bare string for the item, is bad input, refused with a 400 in the failure envelope (an
    implementer who checks one of the two types only answers a 500)."""
    rule = log_rule(action_parameters={"request_fields": [{"name": "x-ok"}, item]})
    _put(rules_api, [rule]).assert_envelope_error(400)


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
@pytest.mark.parametrize("name", ["X-Upper", "x-ec-Upper", "x-ec-upperS"])
def test_upper_case_header_name_is_refused(
    rules_api: RulesApiClient, array: str, name: str
) -> None:
    """An upper-case header name is refused (400 pointing at the item), not lower-cased: one
    upper-case letter anywhere in the name, not only its first (the spec's "Header names are
    lower case"; hand mutant hm9 HM603: a check of the first character alone)."""
    rule = log_rule(action_parameters={array: [{"name": "x-ok"}, {"name": name}]})
    _put_refused(rules_api, [rule], f"/rules/0/action_parameters/{array}/1")


@pytest.mark.rule("logs.fields.lower-case-accepted")
def test_lower_case_names_with_underscores_and_digits_are_accepted(
    rules_api: RulesApiClient,
) -> None:
    """A lower-case header name may hold `_` and digits: both are token characters (RFC 9110
    5.6.2), and the provider's rule schema sets no pattern on a name (minLength 1). Such names
    are accepted and come back unchanged, request and response arrays alike (hand mutant hm7b
    HM464: a check taking only `[a-z0-9-]`)."""
    params = {
        "request_fields": [{"name": "x_ec_under"}, {"name": "x-ec-2"}],
        "response_fields": [{"name": "x_ec_resp_3"}],
    }
    with entrypoint_guard(rules_api):
        ruleset_id = ensure_entrypoint(rules_api)
        sent = log_rule(action_parameters=params)
        rules_api.update_ruleset(ruleset_id, {"rules": [sent]}).assert_envelope_ok(200)
        (rule,) = rules_api.get_ruleset(ruleset_id).assert_envelope_ok(200)["rules"]
    assert rule.get("action_parameters") == params, f"sent {params}, shown {rule}"


def _cookies_shown(rules_api: RulesApiClient, names: list[str]) -> list[str]:
    """PUT one rule with these cookie names and read them back with GET."""
    rule = log_rule(request=("x-a",), cookies=tuple(names))
    with entrypoint_guard(rules_api):
        ruleset_id = ensure_entrypoint(rules_api)
        reply = rules_api.update_ruleset(ruleset_id, {"rules": [rule]})
        require_ok(reply, "PUT of a rule with cookie_fields")
        shown = rules_api.get_ruleset(ruleset_id).assert_envelope_ok(200)
    params = shown["rules"][0].get("action_parameters", {})
    return [f.get("name") for f in params.get("cookie_fields", [])]


@pytest.mark.rule("logs.fields.cookie-fields")
def test_cookie_names_keep_their_case(rules_api: RulesApiClient) -> None:
    """Cookie names come back with the capitalization sent."""
    names = ["SessionID", "mixedCase"]
    shown = _cookies_shown(rules_api, names)
    assert shown == names, f"cookie_fields sent {names}, shown {shown}"


@pytest.mark.rule("logs.fields.cookie-case-kept")
def test_cookie_names_differing_in_case_stay_distinct(rules_api: RulesApiClient) -> None:
    """Two names differing only in case come back as two distinct names (not merged)."""
    shown = _cookies_shown(rules_api, ["SessionID", "sessionid"])
    assert len(shown) == 2 and shown[0] != shown[1], (
        f"cookie_fields sent ['SessionID', 'sessionid'], shown {shown}"
    )


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
