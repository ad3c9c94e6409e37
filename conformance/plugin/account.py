"""The plugin's side of account safety (conformance/safety): when a run first needs the zone's
shared state it engages the guard once for all its workers; the controller releases it at the
end and fails the run loudly when the restore did not hold.
"""

from __future__ import annotations

import json
import sys
import warnings
from typing import TYPE_CHECKING

import pytest
from filelock import FileLock

from conformance.model.targets import REFERENCE, Target
from conformance.plugin import cleanup
from conformance.plugin.preflight import stop_session
from conformance.plugin.state import State
from conformance.safety import guard, journal, registry, zone_run_lock

if TYPE_CHECKING:
    from conformance.clients.rules_api import RulesApiClient

MARKER = "safety.json"


class SafetyWarning(pytest.PytestWarning):
    """What the run does to a shared zone, or what a dead run left behind."""


def context(state: State) -> guard.Context:
    options = state.options
    return guard.Context(
        target=options.target,
        targets_file=str(options.targets_file) if options.targets_file else None,
        run_prefix=state.run_prefix,
        owner_pid=state.owner_pid,
        allow_shared_zone=options.allow_shared_zone,
    )


def register_run(state: State) -> None:
    """Enter the run in the registry before it creates anything on the target."""
    if state.registered or state.options.target == REFERENCE:
        return  # the launched reference's data dies with the run: nothing to recover
    ctx = context(state)
    if registry.lookup(state.run_prefix) is None:  # the run's first process to get here
        for line in guard.leftovers_lines(ctx):
            warnings.warn(SafetyWarning(line), stacklevel=3)
    ctx.record()
    state.registered = True


def engage_zone(session: pytest.Session, state: State, client: RulesApiClient) -> None:
    """Engage the guard once per run (every worker waits for the first); stop when refused."""
    state.run_dir.mkdir(parents=True, exist_ok=True)
    marker = state.run_dir / MARKER
    with FileLock(str(state.run_dir / "safety.lock")):
        if not marker.exists():
            try:
                notes = guard.engage(client, context(state))
            except guard.Refused as exc:
                marker.write_text(json.dumps({"refused": str(exc)}), encoding="utf-8")
            except Exception as exc:  # the target's API misbehaves: no journal, no change
                reason = (
                    f"could not take and journal the zone before changing it ({exc}); "
                    "nothing was changed. The rules API tests need a zone the suite can save"
                )
                marker.write_text(json.dumps({"refused": reason}), encoding="utf-8")
            else:
                marker.write_text(json.dumps({"engaged": True}), encoding="utf-8")
                for note in notes:
                    warnings.warn(SafetyWarning(note), stacklevel=2)
        refused = json.loads(marker.read_text(encoding="utf-8")).get("refused")
    if refused:
        stop_session(session, f"target {state.options.target!r}: {refused}")


def entrypoint_at_start(state: State, client: RulesApiClient) -> str | None:
    """The id of the entry point the zone held when this run began, as the run's journal
    records it ("" when it held none); None when no journal of this run can be read."""
    pending = journal.read(context(state).key(client))
    if pending is None or pending.get("run_prefix") != state.run_prefix:
        return None
    snap = pending.get("snapshot")
    if not isinstance(snap, dict):
        return None
    if not snap.get("existed"):
        return ""
    ruleset = snap.get("ruleset")
    return str(ruleset["id"]) if isinstance(ruleset, dict) and ruleset.get("id") else None


def release_zone(state: State, target: Target | None) -> list[str]:
    """Controller, end of run: restore and check; returns the lines of a failed restore.

    Also without the engaged marker when the zone lock names this run: a worker stopped in
    the middle of engaging may have taken lock and lease without saying so."""
    if target is None or not target.offers("rules_api") or not is_registered(state):
        return []
    marker = state.run_dir / MARKER
    if marker.exists() and "refused" in json.loads(marker.read_text(encoding="utf-8")):
        return []
    from conformance.clients.rules_api import RulesApiClient

    ctx = context(state)
    client = RulesApiClient.from_surface(target.surface("rules_api"))
    holder = zone_run_lock.holder(ctx.key(client))
    if not marker.exists() and (holder is None or holder.run_prefix != state.run_prefix):
        return []
    released = guard.release(client, ctx)
    for note in released.outcome.notes + released.cleanup_problems:
        say(f"edge-conformance: {note}")
    if released.outcome.ok:
        return []
    lines = [
        "edge-conformance: RESTORE FAILED: the zone's log custom fields entry point was NOT put "
        "back as it was found:",
        *(f"  - {problem}" for problem in released.outcome.problems),
        f"  the saved state and its restoring request: {released.journal_path}",
        f"  restore it with: {ctx.recover_command()}",
    ]
    for line in lines:
        say(line)
    return lines


def is_registered(state: State) -> bool:
    return registry.lookup_existing(state.run_prefix) is not None


def unregister_run(state: State, target: Target | None) -> None:
    """Leave the registry once nothing of the run is left on the target; else stay in it,
    so that `conformance recover` knows whose `ec-` resources remain."""
    if not is_registered(state):
        return
    left: list[str] = []
    if target is not None and target.offers("s3"):
        from conformance.clients.s3 import S3Client

        client = S3Client.from_surface(target.surface("s3"), state.run_prefix)
        if cleanup.silent_reason(client):  # its buckets may remain: recover will look
            say("edge-conformance: the target stopped answering the cleanup; "
                f"`{context(state).recover_command()}` removes what this run left")  # fmt: skip
            return
        left = client.list_bucket_names(state.run_prefix + "-")
    if target is not None and target.offers("migration_source"):
        from conformance.clients.s3 import migration_source_client

        source = migration_source_client(target.surface("migration_source"), state.run_prefix)
        try:  # a source the sweep found hung is not waited for again (read timeout: 60 s)
            if reason := cleanup.silent_reason(source):
                raise TimeoutError(reason)
            left += source.list_bucket_names(state.run_prefix + "-")
        except Exception as exc:  # its buckets may remain: recover will look
            command = context(state).recover_command()
            say(f"edge-conformance: the migration source did not answer ({exc}); "
                f"`{command}` removes what this run left there")  # fmt: skip
            return
    if left:
        say(f"edge-conformance: buckets of this run remain ({', '.join(left)}); "
            f"`{context(state).recover_command()}` removes them")  # fmt: skip
        return
    registry.unregister(state.run_prefix)


def say(line: str) -> None:
    print(line, file=sys.__stderr__, flush=True)
