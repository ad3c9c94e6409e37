"""List and create answer in the envelope, with the ruleset fields the spec names."""

from __future__ import annotations

import re

import pytest

from conformance.clients.rules_api import LOG_PHASE, RulesApiClient
from conformance.suite.logs.helpers import assert_schema, ensure_entrypoint, entrypoint_guard

VERSION_SEGMENT = re.compile(r"/v[0-9]+$")


@pytest.mark.rule(
    "logs.rulesets.list-envelope",
    "logs.rulesets.list-kind-phase",
    "logs.envelope.success",
    "logs.envelope.errors-empty",
    "logs.envelope.messages-empty",
    "logs.auth.accepted",
)
def test_list_answers_in_the_envelope(rules_api: RulesApiClient) -> None:
    """GET rulesets returns the envelope whose result lists rulesets with kind and phase."""
    with entrypoint_guard(rules_api):
        ruleset_id = ensure_entrypoint(rules_api)  # so the list has at least one item
        reply = rules_api.list_rulesets()
        result = reply.assert_envelope_ok(200)
        assert_schema("envelope", reply.json)
        assert reply.json["messages"] == [], reply.json
        assert isinstance(result, list) and result, f"result is not a non-empty list: {result!r}"
        for item in result:
            assert "kind" in item and "phase" in item, f"list item without kind/phase: {item}"
        entry = [item for item in result if item.get("id") == ruleset_id]
        assert entry, f"the entry point {ruleset_id} is not listed: {result}"
        assert (entry[0]["kind"], entry[0]["phase"]) == ("zone", LOG_PHASE), entry


@pytest.mark.rule("logs.api.version-segment")
def test_base_url_carries_the_version_segment(rules_api: RulesApiClient) -> None:
    """The API answers under a base URL whose last path segment is the version."""
    assert VERSION_SEGMENT.search(rules_api.base_url), rules_api.base_url
    rules_api.list_rulesets().assert_envelope_ok(200)


@pytest.mark.rule(
    "logs.rulesets.create-envelope",
    "logs.rulesets.create-returns-id",
    "logs.envelope.result",
    "logs.ruleset.id",
    "logs.ruleset.name",
    "logs.ruleset.description",
    "logs.ruleset.kind",
    "logs.ruleset.phase",
)
def test_create_answers_in_the_envelope(rules_api: RulesApiClient, run_prefix: str) -> None:
    """POST rulesets returns the envelope with the created zone ruleset and its id."""
    if rules_api.find_zone_ruleset() is not None:
        pytest.skip("the zone already has its log custom fields ruleset; creating one is refused")
    body = {
        "name": f"{run_prefix}-entrypoint",
        "kind": "zone",
        "description": f"{run_prefix} custom fields",
        "phase": LOG_PHASE,
    }
    with entrypoint_guard(rules_api):
        reply = rules_api.create_ruleset(body)
        result = reply.assert_envelope_ok()
        assert_schema("envelope", reply.json)
        assert_schema("ruleset", result)
        assert isinstance(result["id"], str) and result["id"], result
        for key in ("name", "description", "kind", "phase"):
            assert result.get(key) == body[key], (key, result)
        fetched = rules_api.get_ruleset(result["id"]).assert_envelope_ok(200)
        assert fetched["id"] == result["id"]
        rules_api.update_ruleset(result["id"], {"rules": []}).assert_envelope_ok(200)
