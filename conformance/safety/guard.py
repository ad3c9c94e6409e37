"""A run's steps around the zone's shared state: engage before the first change, release
after the last (docs/safety.md).

engage: registry entry -> zone lock on this machine -> no pending journal -> shared-zone
pre-flight -> lease on the target -> snapshot written to the journal. Each refusal names
the other run or the command that clears the way, and changes nothing on the target.
release: restore from the journal and check it -> delete the run's jobs and lease -> drop
the lock. A failed restore keeps the journal for `conformance recover`.
"""

from __future__ import annotations

import contextlib
import time
from dataclasses import dataclass, field
from pathlib import Path

from conformance import settings
from conformance.clients.rules_api import RulesApiClient
from conformance.safety import journal, lease, registry, signals, statedir, zone_run_lock

WAIT_ENV = settings.ZONE_WAIT.name  # seconds a run waits for another run's zone (default 0)
DEFAULT_LEASE_TTL = 4 * 3600.0
SUITE_PREFIX = "ec-"


class Refused(Exception):
    """The run may not touch the zone; the message says why and what to do."""


@dataclass
class Context:
    target: str
    targets_file: str | None
    run_prefix: str
    owner_pid: int
    allow_shared_zone: bool = False
    wait: float = field(default_factory=lambda: settings.seconds(settings.ZONE_WAIT, 0.0))
    lease_ttl: float = field(
        default_factory=lambda: settings.seconds(settings.LEASE_TTL, DEFAULT_LEASE_TTL)
    )

    def key(self, client: RulesApiClient) -> str:
        return statedir.zone_key(self.target, client.base_url, client.zone_id)

    def recover_command(self) -> str:
        extra = f" --targets-file {self.targets_file}" if self.targets_file else ""
        return f"conformance recover --target {self.target}{extra}"

    def record(self) -> registry.RunRecord:
        found = registry.lookup(self.run_prefix)
        if found is not None:
            return found
        record = registry.new_record(
            self.run_prefix, self.owner_pid, self.target, self.targets_file
        )
        if registry.register(record):
            return record
        return registry.lookup(self.run_prefix) or record


def leftovers_lines(ctx: Context) -> list[str]:
    """One line per dead run of this target whose resources are still registered."""
    return [
        f"leftovers of a dead {run.describe()} may remain on target {ctx.target!r}; "
        f"`{ctx.recover_command()}` removes them"
        for run in registry.dead_runs(ctx.target, exclude=ctx.run_prefix)
    ]


def engage(client: RulesApiClient, ctx: Context) -> list[str]:
    """Take the zone and journal its entry point; returns warning lines, raises Refused."""
    key, me = ctx.key(client), ctx.record()
    notes: list[str] = []
    other = zone_run_lock.acquire(key, me, ctx.wait)
    if other is not None:
        if other.alive:
            raise Refused(
                f"zone {client.zone_id} of target {ctx.target!r} is in use by {other.describe()}; "
                f"this run waited {ctx.wait:.0f}s ({WAIT_ENV}) and stops without touching it"
            )
        pending = journal.read(key)
        if pending is not None:
            raise Refused(_pending_message(ctx, key, pending))
        if not zone_run_lock.take_over(key, other, me):
            raise Refused(
                f"zone {client.zone_id}: could not take over the lock of {other.describe()}"
            )
        notes.append(f"took over the zone lock of a dead {other.describe()}")
    try:
        notes += _engage_locked(client, ctx, key)
    except BaseException:
        mine = journal.read(key)
        if mine is not None and mine.get("run_prefix") == ctx.run_prefix:
            # journaled (an interrupt while the journal's folder was synced): keep lock and
            # lease, so the end of the run finds the zone as its own and restores and releases
            raise
        # a target that misbehaves may keep it; recover removes a dead run's lease
        with contextlib.suppress(Exception):
            lease.remove_own(client, ctx.run_prefix)
        zone_run_lock.release(key, ctx.run_prefix)
        raise
    return notes


def _engage_locked(client: RulesApiClient, ctx: Context, key: str) -> list[str]:
    pending = journal.read(key)
    if pending is not None and pending.get("run_prefix") != ctx.run_prefix:
        raise Refused(_pending_message(ctx, key, pending))
    if pending is not None:
        return []  # this run engaged already
    notes = drop_dead_local_leases(client, ctx.run_prefix)
    expired = [x for x in lease.leases(client) if x.expired and x.run_prefix != ctx.run_prefix]
    if expired:
        raise Refused(
            f"zone {client.zone_id} has the expired lease of {expired[0].describe()}: that run "
            "stopped without releasing the zone and may have left its entry point changed; "
            f"restore it with `{ctx.recover_command()}` on host {expired[0].host} "
            f"(or, there being no such journal, the same command here drops the lease)"
        )
    shared = shared_zone_lines(client)
    if shared and not ctx.allow_shared_zone:
        raise Refused(
            "the zone is shared; this run would affect:\n"
            + "".join(f"  - {line}\n" for line in shared)
            + "use a dedicated zone, or pass --allow-shared-zone"
        )
    _take_lease(client, ctx)
    snap = journal.snapshot(client)
    path = journal.write(key, client, snap, ctx.run_prefix, ctx.target, ctx.targets_file)
    if snap["existed"]:
        notes.append(f"the zone's entry point as found is journaled in {path}")
    return [*notes, *shared]


def drop_dead_local_leases(client: RulesApiClient, run_prefix: str) -> list[str]:
    """Remove leases of dead runs of this state directory's registry (their journals, here,
    were checked before); a lease of a run registered elsewhere is left to its expiry."""
    notes = []
    for found in lease.leases(client):
        ours = registry.lookup(found.run_prefix)
        if found.run_prefix != run_prefix and ours is not None and not ours.alive:
            problem = lease.remove(client, found.ruleset_id)
            notes.append(problem or f"removed the lease of a dead {found.describe()}")
    return notes


def _take_lease(client: RulesApiClient, ctx: Context) -> None:
    deadline = time.monotonic() + ctx.wait
    while True:
        other = lease.holder(client, ctx.run_prefix)
        if other is None:
            lease.write(client, ctx.run_prefix, statedir.host_name(), ctx.owner_pid, ctx.lease_ttl)
            other = lease.holder(client, ctx.run_prefix)
            if other is None:
                return
            lease.remove_own(client, ctx.run_prefix)
        if time.monotonic() >= deadline:
            raise Refused(
                f"zone {client.zone_id} of target {ctx.target!r} is leased by {other.describe()} "
                f"(seen on the target); this run waited {ctx.wait:.0f}s ({WAIT_ENV}) and stops"
            )
        time.sleep(zone_run_lock.POLL)


def _pending_message(ctx: Context, key: str, pending: dict[str, object]) -> str:
    return (
        f"a pending restore of run {pending.get('run_prefix')} (stopped before it restored the "
        f"zone) is in {journal.journal_path(key)}; the zone may still hold that run's test rules, "
        f"so this run will not snapshot it: restore first with `{ctx.recover_command()}`"
    )


def shared_zone_lines(client: RulesApiClient) -> list[str]:
    """One line per thing on the zone that the run will affect and did not create."""
    lines = []
    entry = client.find_zone_ruleset()
    if entry is not None:
        full = client.get_ruleset(str(entry["id"])).assert_envelope_ok(200)
        rules = full.get("rules") or [] if isinstance(full, dict) else []
        if rules:
            lines.append(
                f"the zone's log custom fields entry point has {len(rules)} rule(s) of its own: "
                "the run replaces them with test rules (the zone's logs lose those custom fields "
                "meanwhile) and puts them back at the end"
            )
    listed = client.list_jobs().assert_envelope_ok(200)
    for job in listed if isinstance(listed, list) else []:
        name = str(job.get("name") or "") if isinstance(job, dict) else ""
        if isinstance(job, dict) and not name.startswith(SUITE_PREFIX):
            state = "enabled" if job.get("enabled") else "disabled"
            lines.append(
                f"log push job {job.get('id')} {name!r} ({state}) receives the run's test traffic "
                "and the test custom fields in its logs"
            )
    return lines


@dataclass
class Released:
    outcome: journal.Outcome
    journal_path: Path | None = None
    cleanup_problems: list[str] = field(default_factory=list)


def release(client: RulesApiClient, ctx: Context) -> Released:
    """Restore (checked), remove the run's jobs and lease, drop the lock; never raises."""
    key = ctx.key(client)
    result = Released(journal.Outcome())
    with signals.held():
        doc = journal.read(key)
        if doc is not None and doc.get("run_prefix") == ctx.run_prefix:
            result.outcome = journal.restore(client, doc)
            if result.outcome.ok:
                journal.discard(key, ctx.run_prefix)
            else:
                result.journal_path = journal.journal_path(key)
        result.cleanup_problems += delete_jobs(client, ctx.run_prefix)
        try:
            result.cleanup_problems += lease.remove_own(client, ctx.run_prefix)
        except Exception as exc:
            result.cleanup_problems.append(f"lease not removed: {exc!r}")
        zone_run_lock.release(key, ctx.run_prefix)
    return result


def delete_jobs(client: RulesApiClient, run_prefix: str) -> list[str]:
    """Delete the log push jobs named with `run_prefix`; returns the problems."""
    if not run_prefix.startswith(SUITE_PREFIX):
        raise ValueError(f"refusing to delete jobs with prefix {run_prefix!r}")
    problems = []
    try:
        listed = client.list_jobs().result
        for job in listed if isinstance(listed, list) else []:
            if isinstance(job, dict) and str(job.get("name") or "").startswith(run_prefix):
                reply = client.delete_job(job["id"])
                if reply.status not in (200, 204, 404):
                    problems.append(f"job {job['id']} not deleted: {reply.status}")
    except Exception as exc:
        problems.append(f"jobs not listed: {exc!r}")
    return problems
