"""The reference's one-zone-ruleset-per-phase rule holds under concurrent creates (issue 22).

A flake in the logs area looked like two creates of the entry point both succeeding or the
second seeing a 404. The cause was in the suite (tests/plugin/test_zone_serialised.py); this
pins that the reference itself has no check-then-insert window: of creates sent at once,
exactly one wins and every other gets 20217, and the zone keeps one ruleset.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

import pytest

from conformance.clients.rules_api import LOG_PHASE, Reply, RulesApiClient

pytestmark = pytest.mark.slow
CONCURRENT = 8
ROUNDS = 3


def _create_at_once(surface: dict[str, Any], name: str) -> list[Reply]:
    """CONCURRENT creates released together by a barrier, one client (session) each."""
    clients = [RulesApiClient.from_surface(surface) for _ in range(CONCURRENT)]
    barrier = threading.Barrier(CONCURRENT)
    replies: list[Reply | None] = [None] * CONCURRENT

    def send(i: int) -> None:
        body = {"name": f"{name}-{i}", "kind": "zone", "description": "", "phase": LOG_PHASE}
        barrier.wait(timeout=60)
        replies[i] = clients[i].create_ruleset(body)

    threads = [threading.Thread(target=send, args=(i,)) for i in range(CONCURRENT)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=120)
    assert all(r is not None for r in replies), "a create did not answer"
    return [r for r in replies if r is not None]


def test_concurrent_entrypoint_creates_leave_one(launch: Callable[..., Any]) -> None:
    surface = launch().ready["surfaces"]["rules_api"]
    api = RulesApiClient.from_surface(surface)
    for round_no in range(ROUNDS):
        replies = _create_at_once(surface, f"ec-race{round_no}")
        won = [r for r in replies if 200 <= r.status < 300]
        assert len(won) == 1, [r.describe() for r in replies]
        for lost in (r for r in replies if r not in won):
            lost.assert_envelope_error(400, code=20217, pointer="/kind")
        listed = api.list_rulesets().assert_envelope_ok(200)
        zone = [r for r in listed if r.get("kind") == "zone" and r.get("phase") == LOG_PHASE]
        assert [r["id"] for r in zone] == [won[0].result["id"]], zone
        assert 200 <= api.delete_ruleset(won[0].result["id"]).status < 300
