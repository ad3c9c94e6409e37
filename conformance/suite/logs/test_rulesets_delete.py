"""Deleting a zone ruleset: 204 No Content, and it is gone from the list.

The spec's endpoint table has no DELETE; the provider's Ruleset Engine page ("Delete rulesets")
gives the 204. Only a ruleset this test created is deleted: on a zone that already has its log
custom fields entry point the rule is not checked (the user's configuration is never removed).
"""

from __future__ import annotations

import pytest

from conformance.clients.rules_api import LOG_PHASE, RulesApiClient
from conformance.suite.setup_check import not_checked, require_ok


@pytest.mark.rule("logs.rulesets.delete")
def test_deleted_ruleset_answers_204_and_is_not_listed(
    rules_api: RulesApiClient, run_prefix: str
) -> None:
    """DELETE of the entry point this test created answers 204 with no body; then the zone's
    list no longer holds it."""
    if rules_api.find_zone_ruleset() is not None:
        not_checked("the zone has its own log custom fields entry point; only a ruleset the test "
                    "created may be deleted")  # fmt: skip
    body = {"name": f"{run_prefix}-deleted", "kind": "zone", "description": "", "phase": LOG_PHASE}
    created = require_ok(rules_api.create_ruleset(body), "creating the entry point").result
    ruleset_id = str((created or {}).get("id"))
    reply = rules_api.delete_ruleset(ruleset_id)
    try:
        assert reply.status == 204, f"DELETE answered {reply.status}: {reply.describe()}"
        assert not reply.text.strip(), f"a 204 with a body: {reply.text[:200]!r}"
        listed = rules_api.list_rulesets().assert_envelope_ok(200)
        ids = [r.get("id") for r in listed if isinstance(r, dict)]
        assert ruleset_id not in ids, f"ruleset {ruleset_id} still listed after DELETE: {ids}"
    finally:
        if rules_api.find_zone_ruleset() is not None:
            rules_api.delete_ruleset(ruleset_id)  # leave the zone as found
