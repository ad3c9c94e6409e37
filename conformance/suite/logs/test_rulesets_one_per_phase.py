"""Only one zone-level ruleset may exist per phase and zone."""

from __future__ import annotations

import pytest

from conformance.clients.rules_api import LOG_PHASE, RulesApiClient
from conformance.suite.logs.helpers import ensure_entrypoint, entrypoint_guard

SECOND_ZONE_RULESET = 20217


@pytest.mark.rule("logs.rulesets.one-per-phase", "logs.rulesets.second-ruleset-20217")
def test_second_zone_ruleset_is_refused(rules_api: RulesApiClient, run_prefix: str) -> None:
    """Creating a second kind: zone ruleset in the phase is 400, code 20217, pointer /kind."""
    body = {"name": f"{run_prefix}-second", "kind": "zone", "description": "", "phase": LOG_PHASE}
    with entrypoint_guard(rules_api):
        ensure_entrypoint(rules_api)
        reply = rules_api.create_ruleset(body)
        try:
            listed = rules_api.list_rulesets().assert_envelope_ok(200)
            zone_rulesets = [
                r for r in listed if r.get("kind") == "zone" and r.get("phase") == LOG_PHASE
            ]
            assert len(zone_rulesets) == 1, zone_rulesets
            reply.assert_envelope_error(400, code=SECOND_ZONE_RULESET, pointer="/kind")
        finally:
            created = reply.result if reply.status < 300 else None
            if isinstance(created, dict) and "id" in created:
                rules_api.delete_ruleset(str(created["id"]))  # leave the zone as found
