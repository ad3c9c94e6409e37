"""A PUT that sends one known rule id twice must not give two rules the same id.

`_kept_id` kept a sent id whenever it named a rule of the ruleset before the PUT, without the
"not yet taken in this request" check it applies to unknown ids: a client that put a saved
rule back twice got two rules sharing one id, so a later PUT or lookup by id hit either.
decisions.md ("Rule ids sent on PUT"): the first keeps the id, a repeat gets a new one.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from conformance.clients.rules_api import LOG_PHASE, RulesApiClient
from conformance.suite.logs.helpers import log_rule


def test_a_known_id_sent_twice_is_kept_once(launch: Callable[..., Any]) -> None:
    api = RulesApiClient.from_surface(launch().ready["surfaces"]["rules_api"])
    body = {"name": "ids", "kind": "zone", "phase": LOG_PHASE, "rules": [log_rule(("a",))]}
    first = api.put_entrypoint(body).assert_envelope_ok(200)
    known = first["rules"][0]["id"]
    twice = [log_rule(("a",), id=known), log_rule(("b",), id=known)]
    second = api.put_entrypoint({**body, "rules": twice}).assert_envelope_ok(200)
    ids = [rule["id"] for rule in second["rules"]]
    assert ids[0] == known, ids
    assert len(set(ids)) == 2, f"two rules share one id: {ids}"
