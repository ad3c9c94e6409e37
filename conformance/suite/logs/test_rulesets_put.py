"""PUT on the ruleset replaces all rules and stamps rules and ruleset with server fields."""

from __future__ import annotations

import re

import pytest

from conformance.clients.rules_api import RulesApiClient
from conformance.suite.logs.helpers import (
    assert_schema,
    ensure_entrypoint,
    entrypoint_guard,
    log_rule,
)

HEX32 = re.compile(r"^[0-9a-f]{32}$")
FRACTIONAL_UTC = re.compile(r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d+(Z|\+00:00)$")
ISO_8601 = re.compile(r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$")


@pytest.mark.rule("logs.rulesets.put-replaces-rules", "logs.rulesets.put-envelope")
def test_put_replaces_all_rules(rules_api: RulesApiClient) -> None:
    """A second PUT leaves exactly the rules it sent, also on a later GET."""
    with entrypoint_guard(rules_api):
        ruleset_id = ensure_entrypoint(rules_api)
        first = [log_rule(request=("x-first",)), log_rule(cookies=("First",))]
        rules_api.update_ruleset(ruleset_id, {"rules": first}).assert_envelope_ok(200)
        second = [log_rule(response=("x-second",))]
        reply = rules_api.update_ruleset(ruleset_id, {"rules": second})
        result = reply.assert_envelope_ok(200)
        assert_schema("envelope", reply.json)
        assert result["id"] == ruleset_id, result
        for shown in (result, rules_api.get_ruleset(ruleset_id).assert_envelope_ok(200)):
            params = [rule.get("action_parameters") for rule in shown["rules"]]
            assert params == [{"response_fields": [{"name": "x-second"}]}], params


@pytest.mark.rule(
    "logs.rulesets.put-assigns-rule-fields",
    "logs.rulesets.put-bumps-version",
    "logs.rulesets.put-updates-last-updated",
    "logs.ruleset.version",
    "logs.ruleset.last-updated",
    "logs.ruleset.rules",
    "logs.rule.id",
    "logs.rule.version",
    "logs.rule.version-string",
    "logs.rule.last-updated",
    "logs.rule.ref",
    "logs.rule.enabled",
)
def test_put_stamps_rules_and_bumps_the_version(rules_api: RulesApiClient) -> None:
    """Rules get 32-hex id, version, ref, enabled and last_updated; the ruleset version grows."""
    with entrypoint_guard(rules_api):
        ruleset_id = ensure_entrypoint(rules_api)
        before = rules_api.get_ruleset(ruleset_id).assert_envelope_ok(200)
        body = {"rules": [log_rule(request=("x-stamp",))]}
        result = rules_api.update_ruleset(ruleset_id, body).assert_envelope_ok(200)
        assert_schema("ruleset", result)
        assert isinstance(result["version"], str), result
        assert result["version"] != before["version"], (before["version"], result["version"])
        assert result["last_updated"] != before["last_updated"]
        assert FRACTIONAL_UTC.match(result["last_updated"]), result["last_updated"]
        assert isinstance(result.get("rules"), list) and len(result["rules"]) == 1, result
        (rule,) = result["rules"]
        assert HEX32.match(rule.get("id", "")), rule
        assert rule.get("enabled") is True, f"enabled is not true by default: {rule}"
        for key in ("version", "ref", "last_updated"):
            assert isinstance(rule.get(key), str) and rule[key], f"rule without {key}: {rule}"
        assert ISO_8601.match(rule["last_updated"]), rule


@pytest.mark.rule(
    "logs.rule.action",
    "logs.rule.expression",
    "logs.rule.description",
    "logs.rule.action-parameters",
    "logs.fields.request-fields",
    "logs.fields.response-fields",
    "logs.fields.lower-case-accepted",
)
def test_rule_comes_back_as_sent(rules_api: RulesApiClient, run_prefix: str) -> None:
    """action, expression, description and lower-case field names come back unchanged."""
    params = {
        "request_fields": [{"name": "x-request-a"}, {"name": "user-agent"}],
        "response_fields": [{"name": "x-response-b"}],
        "cookie_fields": [{"name": "session"}],
    }
    sent = log_rule(description=f"{run_prefix} round trip", action_parameters=params)
    with entrypoint_guard(rules_api):
        ruleset_id = ensure_entrypoint(rules_api)
        rules_api.update_ruleset(ruleset_id, {"rules": [sent]}).assert_envelope_ok(200)
        (rule,) = rules_api.get_ruleset(ruleset_id).assert_envelope_ok(200)["rules"]
        assert_schema("rule", rule)
        for key in ("action", "expression", "description", "action_parameters"):
            assert rule.get(key) == sent[key], (key, rule)
