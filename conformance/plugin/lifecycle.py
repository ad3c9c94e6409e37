"""End of run, where the run is owned (xdist controller, or the only process).

Order matters: remove the run's buckets while the target still answers, then stop the
reference, then drop the run directory.
"""

from __future__ import annotations

import json
import shutil
import warnings

from conformance import launcher
from conformance.model.targets import REFERENCE, Target
from conformance.plugin import account, cleanup, target_version
from conformance.plugin.state import State


def _target_for_cleanup(state: State) -> Target | None:
    if state.target_cache is not None:
        return state.target_cache
    if state.options.target == REFERENCE and launcher.ready_path(state.run_dir).is_file():
        ready = json.loads(launcher.ready_path(state.run_dir).read_text(encoding="utf-8"))
        return Target(REFERENCE, ready["surfaces"])
    return None


def clean_run_buckets(state: State, target: Target | None) -> None:
    if "s3" not in state.surfaces_used or target is None or not target.offers("s3"):
        return
    try:
        from conformance.clients.s3 import S3Client

        client = S3Client.from_surface(target.surface("s3"), state.run_prefix)
    except Exception as exc:
        warnings.warn(cleanup.CleanupWarning(f"cleanup: no S3 client: {exc}"), stacklevel=1)
        return
    if account.is_registered(state):
        # the sweep of a run on a named target tries once more: a timeout mid-run (in a serial
        # run, in this very process) must not leave every later bucket to `recover`; a target
        # still hung costs one more timeout, latches again and the run stays registered. A
        # launched reference keeps the latch: its data is thrown away with the run.
        cleanup.forget_silent(client)
    cleanup.delete_prefixed(client, state.run_prefix + "-")


def clean_source_buckets(state: State, target: Target | None) -> None:
    """The run's buckets on the migration source (`<run prefix>-…`): a migration test removes
    its source bucket itself, but one interrupted mid-way leaves it, and the source is not the
    target's S3. Swept when the run used the source or is registered (a worker's news may be
    lost to an interrupt); a launched reference's source outlives the run, so it is swept too."""
    if target is None or not target.offers("migration_source"):
        return
    if "migration_source" not in state.surfaces_used and not account.is_registered(state):
        return
    from conformance.clients.s3 import migration_source_client

    client = migration_source_client(target.surface("migration_source"), state.run_prefix)
    if account.is_registered(state):
        cleanup.forget_silent(client)
    cleanup.delete_prefixed(client, state.run_prefix + "-")


def finish_run(state: State) -> list[str]:
    """Restore the zone, cleanup, then stop the reference if this run launched one; never
    raises. Returns the lines of a failed restore (the run must then fail)."""
    failed: list[str] = []
    target = None
    try:
        target = _target_for_cleanup(state)
        failed = account.release_zone(state, target)
    except Exception as exc:
        failed = [f"edge-conformance: RESTORE FAILED: {exc!r}"]
        account.say(failed[0])
    try:
        if account.is_registered(state):  # the workers' news may be lost to an interrupt
            state.surfaces_used.add("s3")
        clean_run_buckets(state, target)
        clean_source_buckets(state, target)
        account.unregister_run(state, target)
    except Exception as exc:
        warnings.warn(cleanup.CleanupWarning(f"cleanup failed: {exc}"), stacklevel=1)
    state.target_version = target_version.probe(target, state.surfaces_used)
    if not state.run_dir.exists():
        return failed
    dead = launcher.died(state.run_dir, state.reference)
    if dead:
        state.problems.append(
            {"kind": "reference", "where": "reference implementation", "message": dead,
             "rules": []}
        )  # fmt: skip
    message = launcher.stop(state.run_dir, state.reference)
    if message:
        warnings.warn(cleanup.CleanupWarning(message), stacklevel=1)
    keep_reference_log(state)
    shutil.rmtree(state.run_dir, ignore_errors=True)
    return failed


def keep_reference_log(state: State) -> None:
    """A launched reference's non-empty stderr goes beside results.json (reference.stderr):
    a traceback there is a defect of the reference, and the run dir is about to be removed."""
    log = launcher.stderr_path(state.run_dir)
    if state.options.results is None or not log.is_file() or log.stat().st_size == 0:
        return
    try:
        state.options.results.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(log, state.options.results.parent / log.name)
    except OSError as exc:
        warnings.warn(cleanup.CleanupWarning(f"reference log not kept: {exc}"), stacklevel=1)
