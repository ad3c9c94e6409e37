"""Deleting a zone ruleset: 204 No Content, and it is gone from the list.

The spec's endpoint table has no DELETE; the provider's Ruleset Engine page ("Delete rulesets")
gives the 204. Only a ruleset of this run is deleted: on a zone that already had its log custom
fields entry point when the run began the rule is not checked (the user's configuration is never
removed). An entry point found now on a zone that had none then (the run's journal says so; the
launched reference's zone is the run's own) was created by this run and left by an earlier
DELETE: the test deletes that one first, and a DELETE that leaves it listed fails the rule.
"""

from __future__ import annotations

from typing import Any

import pytest

from conformance.clients.rules_api import LOG_PHASE, RulesApiClient
from conformance.suite.setup_check import not_checked, require_ok


def _run_owned(rules_api: RulesApiClient, found: dict[str, Any]) -> bool:
    """The zone had no entry point when the run began: the one found is the run's."""
    return rules_api.entrypoint_at_start == "" and bool(found.get("id"))


def _assert_deleted(rules_api: RulesApiClient, ruleset_id: str, whose: str) -> None:
    reply = rules_api.delete_ruleset(ruleset_id)
    assert reply.status == 204, f"DELETE of {whose} answered {reply.status}: {reply.describe()}"
    assert not reply.text.strip(), f"a 204 with a body: {reply.text[:200]!r}"
    listed = rules_api.list_rulesets().assert_envelope_ok(200)
    ids = [r.get("id") for r in listed if isinstance(r, dict)]
    assert ruleset_id not in ids, f"{whose} ({ruleset_id}) still listed after DELETE: {ids}"


@pytest.mark.rule("logs.rulesets.delete")
def test_deleted_ruleset_answers_204_and_is_not_listed(
    rules_api: RulesApiClient, run_prefix: str
) -> None:
    """DELETE of the entry point this test created answers 204 with no body; then the zone's
    list no longer holds it. An entry point an earlier test of this run left is deleted (and
    judged) the same way first."""
    found = rules_api.find_zone_ruleset()
    if found is not None:
        if not _run_owned(rules_api, found):
            not_checked("the zone had its own log custom fields entry point when the run began; "
                        "only a ruleset of the run may be deleted")  # fmt: skip
        _assert_deleted(rules_api, str(found["id"]), "the entry point an earlier test left")
    body = {"name": f"{run_prefix}-deleted", "kind": "zone", "description": "", "phase": LOG_PHASE}
    created = require_ok(rules_api.create_ruleset(body), "creating the entry point").result
    ruleset_id = str((created or {}).get("id"))
    try:
        _assert_deleted(rules_api, ruleset_id, "the entry point this test created")
    finally:
        if rules_api.find_zone_ruleset() is not None:
            rules_api.delete_ruleset(ruleset_id)  # leave the zone as found
