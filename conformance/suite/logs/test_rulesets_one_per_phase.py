"""Only one zone-level ruleset may exist per phase and zone."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from conformance.clients.rules_api import LOG_PHASE, RulesApiClient
from conformance.suite.logs.helpers import ensure_entrypoint, entrypoint_guard

SECOND_ZONE_RULESET = 20217


def _second_ruleset(
    rules_api: RulesApiClient, run_prefix: str, check: Callable[[Any, list[Any]], None]
) -> None:
    """Create a second kind: zone ruleset in the log phase, hand the reply and the zone's
    rulesets of that phase to `check`, and leave the zone as found."""
    body = {"name": f"{run_prefix}-second", "kind": "zone", "description": "", "phase": LOG_PHASE}
    with entrypoint_guard(rules_api):
        ensure_entrypoint(rules_api)
        reply = rules_api.create_ruleset(body)
        try:
            listed = rules_api.list_rulesets().assert_envelope_ok(200)
            zone_rulesets = [
                r for r in listed if r.get("kind") == "zone" and r.get("phase") == LOG_PHASE
            ]
            check(reply, zone_rulesets)
        finally:
            created = reply.result if reply.status < 300 else None
            if isinstance(created, dict) and "id" in created:
                rules_api.delete_ruleset(str(created["id"]))  # leave the zone as found


@pytest.mark.rule("logs.rulesets.one-per-phase")
def test_second_zone_ruleset_is_refused(rules_api: RulesApiClient, run_prefix: str) -> None:
    """A second kind: zone ruleset in the phase is refused: one stays (the code and pointer of
    the refusal are logs.rulesets.second-ruleset-20217's rule)."""

    def check(reply: Any, zone_rulesets: list[Any]) -> None:
        assert reply.status >= 400, f"second zone ruleset created: HTTP {reply.status}"
        assert len(zone_rulesets) == 1, f"{len(zone_rulesets)} zone rulesets: {zone_rulesets}"

    _second_ruleset(rules_api, run_prefix, check)


@pytest.mark.rule("logs.rulesets.second-ruleset-20217")
def test_second_zone_ruleset_error(rules_api: RulesApiClient, run_prefix: str) -> None:
    """The refusal of a second kind: zone ruleset is 400, code 20217, pointer /kind."""

    def check(reply: Any, zone_rulesets: list[Any]) -> None:
        reply.assert_envelope_error(400, code=SECOND_ZONE_RULESET, pointer="/kind")

    _second_ruleset(rules_api, run_prefix, check)
