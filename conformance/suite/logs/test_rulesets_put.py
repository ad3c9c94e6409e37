"""PUT on the ruleset replaces all rules and stamps rules and ruleset with server fields."""

from __future__ import annotations

import re
from typing import Any

import pytest

from conformance.clients.rules_api import LOG_PHASE, RulesApiClient
from conformance.suite.logs.helpers import (
    assert_schema,
    ensure_entrypoint,
    entrypoint_guard,
    log_rule,
)
from conformance.suite.setup_check import SetupFailed, not_checked, require, require_ok

HEX32 = re.compile(r"^[0-9a-f]{32}$")
FRACTIONAL_UTC = re.compile(r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d+(Z|\+00:00)$")
ISO_8601 = re.compile(r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$")


@pytest.mark.rule("logs.rulesets.put-envelope")
def test_put_answers_the_envelope(rules_api: RulesApiClient) -> None:
    """PUT answers the envelope with the updated ruleset (its id) in result."""
    with entrypoint_guard(rules_api):
        ruleset_id = ensure_entrypoint(rules_api)
        reply = rules_api.update_ruleset(ruleset_id, {"rules": [log_rule(request=("x-env",))]})
        result = reply.assert_envelope_ok(200)
        assert_schema("envelope", reply.json)
        assert isinstance(result, dict) and result.get("id") == ruleset_id, reply.describe()
        # a PUT that names no name keeps the ruleset a ruleset (name a string, not lost)
        assert_schema("ruleset", result)


@pytest.mark.rule("logs.rulesets.put-replaces-rules")
def test_put_replaces_all_rules(rules_api: RulesApiClient) -> None:
    """A second PUT leaves exactly the rules it sent, in its answer and on a later GET."""
    with entrypoint_guard(rules_api):
        ruleset_id = ensure_entrypoint(rules_api)
        first = [log_rule(request=("x-first",)), log_rule(cookies=("First",))]
        require_ok(rules_api.update_ruleset(ruleset_id, {"rules": first}), "first PUT")
        second = [log_rule(response=("x-second",))]
        reply = require_ok(rules_api.update_ruleset(ruleset_id, {"rules": second}), "second PUT")
        later = rules_api.get_ruleset(ruleset_id)
        for shown in (reply, later):
            rules = shown.result.get("rules") if isinstance(shown.result, dict) else None
            if not isinstance(rules, list):
                raise SetupFailed(
                    "setup did not hold, the rule was not checked: no rules array: "
                    + shown.describe()
                )
            params = [rule.get("action_parameters") for rule in rules]
            assert params == [{"response_fields": [{"name": "x-second"}]}], (
                f"rules after the second PUT: {params}: {shown.describe()}"
            )


@pytest.mark.rule("logs.rulesets.put-replaces-rules")
def test_put_of_an_empty_rules_list_leaves_no_rule(rules_api: RulesApiClient) -> None:
    """A PUT whose rules is an empty array replaces the rules with none (the spec: "The PUT
    replaces all rules of the ruleset with the rules sent"): its answer and a later GET show
    no rule; the earlier rules are not kept (hand mutant hm7b HM478)."""
    with entrypoint_guard(rules_api):
        ruleset_id = ensure_entrypoint(rules_api)
        first = [log_rule(request=("x-ec-before-empty",))]
        require_ok(rules_api.update_ruleset(ruleset_id, {"rules": first}), "PUT of one rule")
        reply = require_ok(rules_api.update_ruleset(ruleset_id, {"rules": []}), "PUT of none")
        later = rules_api.get_ruleset(ruleset_id)
        for shown in (reply, later):
            rules = shown.result.get("rules", []) if isinstance(shown.result, dict) else None
            require(isinstance(rules, list), f"no ruleset with rules: {shown.describe()}")
            assert rules == [], f"rules after a PUT of an empty list: {rules}: {shown.describe()}"


@pytest.mark.rule("logs.rulesets.put-replaces-rules")
def test_put_repeating_kind_and_phase_replaces_the_rules(rules_api: RulesApiClient) -> None:
    """A PUT that also carries the ruleset's own kind and phase (members of the provider's
    Update a ruleset request) replaces the rules like one that sends rules alone. A 4xx is
    NOT-CHECKED, not a FAIL: the spec's PUT body lists only `rules`, so refusing the other
    members is a reading of the spec this MUST about replacing rules does not judge."""
    with entrypoint_guard(rules_api):
        ruleset_id = ensure_entrypoint(rules_api)
        body = {"kind": "zone", "phase": LOG_PHASE, "rules": [log_rule(request=("x-kind",))]}
        reply = rules_api.update_ruleset(ruleset_id, body)
        if 400 <= reply.status < 500:
            not_checked(f"the target refused kind/phase in a PUT body: {reply.describe()}")
        result = reply.assert_envelope_ok(200)
        params = [rule.get("action_parameters") for rule in result.get("rules") or []]
        assert params == [{"request_fields": [{"name": "x-kind"}]}], reply.describe()


@pytest.mark.rule("logs.rulesets.put-accepts-own-kind-phase")
def test_put_with_its_own_kind_and_phase_is_accepted(rules_api: RulesApiClient) -> None:
    """The provider's update operation takes kind and phase as body members: a PUT repeating
    the entry point's own values is accepted and replaces the rules (a check that compares
    them the wrong way round refuses exactly the unchanged values)."""
    with entrypoint_guard(rules_api):
        ruleset_id = ensure_entrypoint(rules_api)
        body = {"kind": "zone", "phase": LOG_PHASE, "rules": [log_rule(request=("x-same",))]}
        result = rules_api.update_ruleset(ruleset_id, body).assert_envelope_ok(200)
        params = [rule.get("action_parameters") for rule in result.get("rules") or []]
        assert params == [{"request_fields": [{"name": "x-same"}]}], f"rules after PUT: {params}"


@pytest.mark.rule("logs.rule.ref-kept")
def test_rule_keeps_the_ref_it_was_sent_with(rules_api: RulesApiClient) -> None:
    """A rule's ref defaults to its id (the provider's rule schema): one sent with a ref keeps
    it in the answer. Changing the ref of an existing rule id is not asserted: the provider
    documents setting a ref, not modifying one (ref is its key for matching rules across
    updates), so such a PUT may be refused or make a new rule."""
    with entrypoint_guard(rules_api):
        ruleset_id = ensure_entrypoint(rules_api)
        first = log_rule(request=("x-ref",), ref="edge_conformance_ref_one")
        result = rules_api.update_ruleset(ruleset_id, {"rules": [first]}).assert_envelope_ok()
        rule = (result.get("rules") or [{}])[0]
        assert rule.get("ref") == "edge_conformance_ref_one", f"sent a ref, answered {rule}"


@pytest.mark.rule("logs.rulesets.put-without-rules")
def test_put_without_rules_loses_no_rule(rules_api: RulesApiClient) -> None:
    """A PUT that names no rules (only a description) is refused with a 4xx, or leaves the rules
    as they were: it is never taken as an empty list that deletes them, nor a 5xx."""
    with entrypoint_guard(rules_api):
        ruleset_id = ensure_entrypoint(rules_api)
        kept = [log_rule(request=("x-kept",))]
        require_ok(rules_api.update_ruleset(ruleset_id, {"rules": kept}), "PUT of one rule")
        reply = rules_api.update_ruleset(ruleset_id, {"description": "edge-conformance"})
        assert reply.status < 500, f"a PUT without rules: {reply.describe()}"
        later = rules_api.get_ruleset(ruleset_id)
        rules = later.result.get("rules") if isinstance(later.result, dict) else None
        require(isinstance(rules, list), f"no rules array on GET: {later.describe()}")
        params = [rule.get("action_parameters") for rule in rules or []]
        assert params == [{"request_fields": [{"name": "x-kept"}]}], (
            f"after a PUT without rules (answered {reply.status}) the rules are {params}"
        )


Stamped = tuple[dict[str, Any], dict[str, Any]]


def _put_one_rule(rules_api: RulesApiClient) -> Stamped:
    """The ruleset before and as answered by a PUT of one rule (each a dict, else ERROR)."""
    with entrypoint_guard(rules_api):
        ruleset_id = ensure_entrypoint(rules_api)
        before = rules_api.get_ruleset(ruleset_id).result
        reply = rules_api.update_ruleset(ruleset_id, {"rules": [log_rule(request=("x-stamp",))]})
        require_ok(reply, "PUT of one rule")
        require(isinstance(before, dict), "GET of the ruleset before the PUT gave no result")
        require(isinstance(reply.result, dict), f"no ruleset in result: {reply.describe()}")
    return before, reply.result


def _the_rule(result: dict[str, Any]) -> dict[str, Any]:
    """The one rule sent, as answered (its absence is ruleset.rules' rule, an ERROR here)."""
    rules = result.get("rules")
    if not (isinstance(rules, list) and len(rules) == 1):
        raise SetupFailed(f"setup did not hold, the rule was not checked: not one rule: {result}")
    rule: dict[str, Any] = rules[0]
    return rule


def _ruleset_version(before: dict[str, Any], after: dict[str, Any]) -> None:
    assert isinstance(after.get("version"), str), f"ruleset version: {after}"


def _bumps_version(before: dict[str, Any], after: dict[str, Any]) -> None:
    assert after.get("version") not in (None, before.get("version")), (
        f"version before {before.get('version')!r}, after the PUT {after.get('version')!r}"
    )


def _updates_last_updated(before: dict[str, Any], after: dict[str, Any]) -> None:
    assert after.get("last_updated") not in (None, before.get("last_updated")), (
        f"last_updated before {before.get('last_updated')!r}, after {after.get('last_updated')!r}"
    )


def _ruleset_last_updated(before: dict[str, Any], after: dict[str, Any]) -> None:
    stamp = after.get("last_updated")
    assert isinstance(stamp, str) and FRACTIONAL_UTC.match(stamp), f"last_updated {stamp!r}"


def _ruleset_rules(before: dict[str, Any], after: dict[str, Any]) -> None:
    rules = after.get("rules")
    assert isinstance(rules, list) and len(rules) == 1, f"rules is not the one rule sent: {after}"
    assert isinstance(rules[0], dict), f"rules holds no rule object: {rules}"


def _assigns_rule_fields(before: dict[str, Any], after: dict[str, Any]) -> None:
    rule = _the_rule(after)
    missing = [k for k in ("id", "version", "ref", "enabled", "last_updated") if k not in rule]
    assert not missing, f"rule without {missing}: {rule}"


def _rule_id(before: dict[str, Any], after: dict[str, Any]) -> None:
    rule = _the_rule(after)
    assert HEX32.match(str(rule.get("id", ""))), f"rule id {rule.get('id')!r}"


def _string(key: str) -> Any:
    def check(before: dict[str, Any], after: dict[str, Any]) -> None:
        rule = _the_rule(after)
        assert isinstance(rule.get(key), str) and rule[key], f"rule {key} {rule.get(key)!r}"

    return check


def _version_strings(before: dict[str, Any], after: dict[str, Any]) -> None:
    rule = _the_rule(after)
    versions = (after.get("version"), rule.get("version"))
    assert all(isinstance(v, str) and v for v in versions), f"(ruleset, rule) versions {versions}"


def _rule_last_updated(before: dict[str, Any], after: dict[str, Any]) -> None:
    rule = _the_rule(after)
    assert ISO_8601.match(str(rule.get("last_updated", ""))), f"rule {rule}"


def _rule_enabled(before: dict[str, Any], after: dict[str, Any]) -> None:
    rule = _the_rule(after)
    assert isinstance(rule.get("enabled"), bool), f"enabled {rule.get('enabled')!r}: {rule}"


STAMPS = {
    "ruleset-version": _ruleset_version,
    "bumps-version": _bumps_version,
    "updates-last-updated": _updates_last_updated,
    "ruleset-last-updated": _ruleset_last_updated,
    "ruleset-rules": _ruleset_rules,
    "assigns-rule-fields": _assigns_rule_fields,
    "rule-id": _rule_id,
    "rule-version": _string("version"),
    "version-string": _version_strings,
    "rule-last-updated": _rule_last_updated,
    "rule-ref": _string("ref"),
    "rule-enabled": _rule_enabled,
}


@pytest.mark.parametrize(
    "stamp",
    [
        # one rule per case, written inline (the coverage scan reads literal marks)
        pytest.param("ruleset-version", marks=pytest.mark.rule("logs.ruleset.version")),
        pytest.param("bumps-version", marks=pytest.mark.rule("logs.rulesets.put-bumps-version")),
        pytest.param(
            "updates-last-updated",
            marks=pytest.mark.rule("logs.rulesets.put-updates-last-updated"),
        ),
        pytest.param("ruleset-last-updated", marks=pytest.mark.rule("logs.ruleset.last-updated")),
        pytest.param("ruleset-rules", marks=pytest.mark.rule("logs.ruleset.rules")),
        pytest.param(
            "assigns-rule-fields", marks=pytest.mark.rule("logs.rulesets.put-assigns-rule-fields")
        ),
        pytest.param("rule-id", marks=pytest.mark.rule("logs.rule.id")),
        pytest.param("rule-version", marks=pytest.mark.rule("logs.rule.version")),
        pytest.param("version-string", marks=pytest.mark.rule("logs.rule.version-string")),
        pytest.param("rule-last-updated", marks=pytest.mark.rule("logs.rule.last-updated")),
        pytest.param("rule-ref", marks=pytest.mark.rule("logs.rule.ref")),
        pytest.param("rule-enabled", marks=pytest.mark.rule("logs.rule.enabled")),
    ],
)
def test_put_stamps_the_ruleset_and_its_rules(rules_api: RulesApiClient, stamp: str) -> None:
    """Each server field a PUT stamps on the ruleset or its rules, one rule per case."""
    before, after = _put_one_rule(rules_api)
    STAMPS[stamp](before, after)


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


@pytest.mark.rule("logs.rule.enabled")
def test_enabled_comes_back_as_sent_and_defaults_to_true(rules_api: RulesApiClient) -> None:
    """A rule sent with enabled false or true keeps it; one sent without it is enabled (the
    provider's Rulesets API: `enabled` defaults to true)."""
    sent = [
        log_rule(request=("x-ec-off",), enabled=False),
        log_rule(request=("x-ec-default",)),
        log_rule(request=("x-ec-on",), enabled=True),
    ]
    with entrypoint_guard(rules_api):
        ruleset_id = ensure_entrypoint(rules_api)
        rules_api.update_ruleset(ruleset_id, {"rules": sent}).assert_envelope_ok(200)
        rules = rules_api.get_ruleset(ruleset_id).assert_envelope_ok(200)["rules"]
    shown = [rule.get("enabled") for rule in rules]
    assert shown == [False, True, True], f"enabled sent [False, (none), True], shown {shown}"


@pytest.mark.rule("logs.rule.enabled")
@pytest.mark.parametrize("sent", ["false", 0], ids=["string", "number"])
def test_enabled_that_is_not_a_boolean_is_never_shown(rules_api: RulesApiClient, sent: Any) -> None:
    """enabled is a boolean: a rule sent with "false" or 0 is refused with a 4xx, or comes back
    with a boolean; never with the value as sent (a string "false" that reads as true)."""
    with entrypoint_guard(rules_api):
        ruleset_id = ensure_entrypoint(rules_api)
        rule = log_rule(request=("x-ec-odd",), enabled=sent)
        reply = rules_api.update_ruleset(ruleset_id, {"rules": [rule]})
        assert reply.status < 500, f"enabled {sent!r}: {reply.describe()}"
        if reply.status >= 400:
            return
        rules = rules_api.get_ruleset(ruleset_id).assert_envelope_ok(200)["rules"]
    shown = [r.get("enabled") for r in rules]
    assert all(isinstance(value, bool) for value in shown), f"enabled sent {sent!r}, shown {shown}"


VERSION = re.compile(r"[0-9]+")  # the provider's RulesetVersion / RuleVersion pattern


@pytest.mark.rule("logs.rule.version-string")
def test_versions_stay_version_strings_over_repeated_puts(rules_api: RulesApiClient) -> None:
    """Every PUT creates a new ruleset version (the provider's Update a zone ruleset), and the
    provider's schemas write a ruleset's and a rule's version as digits (pattern ^[0-9]+$, as
    ruleset.schema.json and rule.schema.json here): after each of three PUTs, the last two
    sending the rule back with the id it was given, both versions are still such strings (a
    count that went down past zero would not be)."""
    with entrypoint_guard(rules_api):
        ruleset_id = ensure_entrypoint(rules_api)
        rule = log_rule(request=("x-ec-versions",))
        seen: list[tuple[Any, Any]] = []
        for _ in range(3):
            reply = require_ok(rules_api.update_ruleset(ruleset_id, {"rules": [rule]}), "PUT")
            require(isinstance(reply.result, dict), f"no ruleset in result: {reply.describe()}")
            answered = _the_rule(reply.result)
            seen.append((reply.result.get("version"), answered.get("version")))
            rule = log_rule(request=("x-ec-versions",), id=answered.get("id"))
    bad = [pair for pair in seen if not all(VERSION.fullmatch(str(v)) for v in pair)]
    assert not bad, f"(ruleset, rule) versions after each PUT: {seen}"
