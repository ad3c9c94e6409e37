"""One run per zone as seen on the target: a lease that runs on other machines can read.

The lease is a `kind: custom` ruleset of the zone named `ec-lease-<run prefix>`, listed with
the zone's rulesets, whose description says who holds it and until when. A custom ruleset
runs only where an `execute` rule points at it, so it never changes the zone's traffic or
logs, and its prefix makes it the suite's own resource (docs/decisions.md "Zone lease").

Acquire is create-then-check: every run creates its own lease, then lists; of the unexpired
leases the oldest (by the time written in it, then by name) wins, and every other run deletes
its own and waits or refuses. Two runs never both believe they hold the zone, provided the
listing shows both leases once both were created.
"""

from __future__ import annotations

import datetime as dt
import re
from dataclasses import dataclass
from typing import Any

from conformance.clients.rules_api import LOG_PHASE, RulesApiClient

NAME_PREFIX = "ec-lease-"
PATTERN = re.compile(
    r"edge-conformance lease: run=(\S+) host=(\S+) pid=(\d+) since=(\S+) until=(\S+)"
)


@dataclass(frozen=True)
class Lease:
    ruleset_id: str
    run_prefix: str
    host: str
    pid: int
    since: dt.datetime
    until: dt.datetime

    @property
    def expired(self) -> bool:
        return self.until <= dt.datetime.now(dt.UTC)

    def describe(self) -> str:
        return (
            f"run {self.run_prefix} (pid {self.pid} on {self.host}, since "
            f"{self.since.isoformat()}, lease until {self.until.isoformat()})"
        )


def _text(run_prefix: str, host: str, pid: int, since: dt.datetime, until: dt.datetime) -> str:
    return (
        f"edge-conformance lease: run={run_prefix} host={host} pid={pid} "
        f"since={since.isoformat()} until={until.isoformat()}"
    )


def parse(item: dict[str, Any]) -> Lease | None:
    name = str(item.get("name") or "")
    match = PATTERN.search(str(item.get("description") or ""))
    if not name.startswith(NAME_PREFIX) or match is None or not item.get("id"):
        return None
    try:
        since, until = dt.datetime.fromisoformat(match[4]), dt.datetime.fromisoformat(match[5])
    except ValueError:
        return None
    return Lease(str(item["id"]), match[1], match[2], int(match[3]), since, until)


def leases(client: RulesApiClient) -> list[Lease]:
    """Every lease listed in the zone (expired ones too)."""
    listed = client.list_rulesets().assert_envelope_ok(200)
    found = (
        [parse(item) for item in listed if isinstance(item, dict)]
        if isinstance(listed, list)
        else []
    )
    return [lease for lease in found if lease is not None]


def winner(found: list[Lease]) -> Lease | None:
    live = [lease for lease in found if not lease.expired]
    return min(live, key=lambda lease: (lease.since, lease.run_prefix)) if live else None


def holder(client: RulesApiClient, run_prefix: str) -> Lease | None:
    """The live lease of another run, or None."""
    best = winner(leases(client))
    return None if best is None or best.run_prefix == run_prefix else best


def write(client: RulesApiClient, run_prefix: str, host: str, pid: int, ttl: float) -> str:
    """Create this run's lease; returns its ruleset id."""
    since = dt.datetime.now(dt.UTC).replace(microsecond=0)
    until = since + dt.timedelta(seconds=ttl)
    body = {
        "name": f"{NAME_PREFIX}{run_prefix}",
        "kind": "custom",
        "phase": LOG_PHASE,
        "description": _text(run_prefix, host, pid, since, until),
        "rules": [],
    }
    created = client.create_ruleset(body).assert_envelope_ok()
    if not isinstance(created, dict) or not created.get("id"):
        raise RuntimeError(f"the lease was created without an id: {created!r}")
    return str(created["id"])


def remove(client: RulesApiClient, ruleset_id: str) -> str | None:
    """Delete one lease; None when gone, else the problem."""
    reply = client.delete_ruleset(ruleset_id)
    if reply.status in (200, 204, 404):
        return None
    return f"DELETE lease {ruleset_id} answered {reply.status}: {reply.text[:200]}"


def remove_own(client: RulesApiClient, run_prefix: str) -> list[str]:
    """Delete every lease of `run_prefix`; returns the problems."""
    problems = []
    for lease in leases(client):
        if lease.run_prefix == run_prefix:
            problem = remove(client, lease.ruleset_id)
            if problem:
                problems.append(problem)
    return problems
