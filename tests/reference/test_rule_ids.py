"""The reference keeps the rule id a client sends on PUT, also one the ruleset does not hold
now (docs/decisions.md "Rule ids sent on PUT"): what lets a restore give a user's rules back
their ids. A malformed id or one taken earlier in the same request gets a new id."""

from __future__ import annotations

from typing import Any

from conformance.clients.rules_api import RulesApiClient
from conformance.suite.logs.helpers import log_rule


def test_unknown_well_formed_ids_are_kept_and_others_replaced(reference: Any) -> None:
    api = RulesApiClient.from_surface(reference.ready["surfaces"]["rules_api"])
    first = api.put_entrypoint({"rules": [log_rule(request=("x-a",))]}).assert_envelope_ok()
    try:
        saved = "0123456789abcdef" * 2
        rules = [
            dict(log_rule(request=("x-b",)), id=saved),
            dict(log_rule(request=("x-c",)), id=saved),  # taken by the rule before
            dict(log_rule(request=("x-d",)), id="not-a-rule-id"),
        ]
        again = api.put_entrypoint({"rules": rules}).assert_envelope_ok()
        ids = [rule["id"] for rule in again["rules"]]
        assert ids[0] == saved and again["rules"][0]["version"] == "1", again["rules"][0]
        assert ids[1] != saved and ids[2] != "not-a-rule-id", ids
        assert len(set(ids)) == 3 and all(len(i) == 32 for i in ids), ids
    finally:
        assert api.delete_ruleset(first["id"]).status in (200, 204)
