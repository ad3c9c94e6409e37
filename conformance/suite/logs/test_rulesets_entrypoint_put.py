"""PUT on the phase's entry point route replaces its rules, as PUT by ruleset id does.

The spec's setup order writes the rule by ruleset id; the provider's Rulesets API also updates a
phase's entry point through `PUT /zones/<zone_id>/rulesets/phases/http_log_custom_fields/entrypoint`
(http_log_custom_fields is one of its phases), creating it when the zone has none, the request
holding every rule to keep. Two PUTs there:
the second's rules are all the entry point holds, in the answer and on a later GET, and the
second PUT created a new version (the API reference: "Updates a zone entry point ruleset,
creating a new version"), so its version is not the first's, and the GET shows it.
"""

from __future__ import annotations

from typing import Any

import pytest

from conformance.clients.rules_api import LOG_PHASE, RulesApiClient
from conformance.suite.logs.helpers import entrypoint_guard, log_rule
from conformance.suite.setup_check import require_ok

SECOND = {"response_fields": [{"name": "x-ep-second"}]}


def _params(ruleset: Any) -> list[Any]:
    rules = ruleset.get("rules") if isinstance(ruleset, dict) else None
    assert isinstance(rules, list), f"no rules array: {ruleset}"
    return [rule.get("action_parameters") for rule in rules]


@pytest.mark.rule("logs.rulesets.entrypoint-put")
def test_put_on_the_phase_entrypoint_replaces_its_rules(rules_api: RulesApiClient) -> None:
    with entrypoint_guard(rules_api):
        first = rules_api.put_entrypoint({"rules": [log_rule(request=("x-ep-first",))]})
        earlier = first.assert_envelope_ok(200)
        assert _params(earlier) == [{"request_fields": [{"name": "x-ep-first"}]}], earlier
        second = rules_api.put_entrypoint({"rules": [log_rule(response=("x-ep-second",))]})
        result = second.assert_envelope_ok(200)
        later = require_ok(rules_api.get_entrypoint(), "GET of the entry point").result
        for shown in (result, later):
            assert isinstance(shown, dict) and shown.get("phase") == LOG_PHASE, shown
            assert _params(shown) == [SECOND], f"rules after the second PUT: {shown}"
        _assert_new_version(earlier, result, later)


def _assert_new_version(first: Any, second: Any, later: Any) -> None:
    """The second PUT's answer carries a version other than the first's; the GET shows it."""
    versions = [r.get("version") if isinstance(r, dict) else None for r in (first, second, later)]
    assert isinstance(versions[0], str) and isinstance(versions[1], str), versions
    assert versions[1] != versions[0], f"version after the first PUT and the second: {versions}"
    assert versions[2] == versions[1], f"the GET's version is not the second PUT's: {versions}"


OTHER_PHASE = "http_request_transform"  # a phase of the provider's Rulesets API; never written


@pytest.mark.rule("logs.rulesets.entrypoint-own-phase")
def test_get_of_another_phase_entrypoint_is_not_the_log_fields_one(
    rules_api: RulesApiClient,
) -> None:
    """With the log custom fields entry point in place, GET of another phase's entry point
    answers that phase's ruleset or a 4xx (the zone may have none): never the custom fields
    ruleset. Read only: the other phase is never written."""
    with entrypoint_guard(rules_api):
        put = rules_api.put_entrypoint({"rules": [log_rule(request=("x-ep-own",))]})
        require_ok(put, "PUT of the log custom fields entry point")
        reply = rules_api.get_entrypoint(OTHER_PHASE)
        if 400 <= reply.status < 500:
            return
        result = reply.assert_envelope_ok(200)
        assert isinstance(result, dict) and result.get("phase") == OTHER_PHASE, (
            f"GET of the {OTHER_PHASE} entry point: {reply.describe()}"
        )
