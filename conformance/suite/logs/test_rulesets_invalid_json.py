"""A body that is not JSON is refused in the envelope, never with a 500 or plain text."""

from __future__ import annotations

import pytest

from conformance.clients.rules_api import RulesApiClient
from conformance.suite.logs.helpers import assert_schema, ensure_entrypoint, entrypoint_guard


@pytest.mark.rule("logs.envelope.failure-shape")
def test_malformed_json_is_refused_in_the_envelope(rules_api: RulesApiClient) -> None:
    """PUT with a truncated JSON body is 400 in the failure envelope, whole: its error names no
    field, so it carries no `source`, or one whose pointer is a non-empty string (the envelope
    schema, after the provider's; `{"pointer": null}` is neither)."""
    with entrypoint_guard(rules_api):
        ruleset_id = ensure_entrypoint(rules_api)
        path = rules_api.zone(f"/rulesets/{ruleset_id}")
        reply = rules_api.request("PUT", path, raw=b'{"rules": [')
        reply.assert_envelope_error(400)
        assert_schema("envelope", reply.json)
