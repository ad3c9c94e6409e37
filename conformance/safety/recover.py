"""`conformance recover --target NAME`: apply pending restores and remove dead runs' resources.

A run killed with SIGKILL (or whose machine was lost) leaves its journal, its registry entry,
its zone lock, its lease and its `ec-<run>-` resources. Recover touches only runs whose
process is gone (this machine's registry says which); a live run is named and left alone.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from conformance.model.targets import REFERENCE, Target, TargetError, load_target, targets_path
from conformance.safety import guard, journal, lease, registry, statedir, zone_run_lock


@dataclass
class Report:
    lines: list[str] = field(default_factory=list)
    failed: bool = False

    def say(self, line: str) -> None:
        self.lines.append(line)

    def fail(self, line: str) -> None:
        self.failed = True
        self.lines.append(f"FAILED: {line}")


def recover(target_name: str, targets_file: str | None, out: Callable[[str], None]) -> int:
    """Exit status 0 when nothing is left to do, 1 when something could not be recovered."""
    if target_name == REFERENCE:
        out("the built-in reference keeps no state between runs: nothing to recover "
            "(recover a reference you started yourself through a targets file entry)")  # fmt: skip
        return 0
    try:
        target = load_target(
            target_name, targets_path(Path(targets_file) if targets_file else None)
        )
    except TargetError as exc:
        out(f"error: {exc}")
        return 2
    report = Report()
    dead = registry.dead_runs(target_name)
    live = [run for run in registry.all_runs(target_name) if run.alive]
    for run in live:
        report.say(f"left alone: live {run.describe()}")
    if target.offers("rules_api"):
        _recover_zone(target, targets_file, dead, report)
    if target.offers("s3"):
        _delete_buckets(target, dead, report)
    if target.offers("migration_source"):
        _delete_source_buckets(target, dead, report)
    if target.offers("bindings"):
        _delete_binding_keys(target, dead, report)
    for run in dead:
        if not report.failed:
            registry.unregister(run.run_prefix)
    if not report.lines:
        report.say(f"nothing to recover for target {target_name!r}")
    for line in report.lines:
        out(line)
    return 1 if report.failed else 0


def _recover_zone(
    target: Target, targets_file: str | None, dead: list[registry.RunRecord], report: Report
) -> None:
    from conformance.clients.rules_api import RulesApiClient

    client = RulesApiClient.from_surface(target.surface("rules_api"))
    key = statedir.zone_key(target.name, client.base_url, client.zone_id)
    pending = journal.read(key)
    if pending is not None:
        owner = registry.lookup(str(pending.get("run_prefix")))
        if owner is not None and owner.alive:
            report.say(f"left alone: the journal of live {owner.describe()}")
        else:
            outcome = journal.restore(client, pending)
            for note in outcome.notes:
                report.say(note)
            if outcome.ok:
                journal.journal_path(key).unlink(missing_ok=True)
                existed = bool(pending["snapshot"].get("existed"))
                report.say(
                    f"restored the zone's entry point as run {pending.get('run_prefix')} found it"
                    + ("" if existed else " (it had none: the run's one was deleted)")
                )
            else:
                for problem in outcome.problems:
                    report.fail(problem)
                report.fail(f"the journal stays in {journal.journal_path(key)}")
    holder = zone_run_lock.holder(key)
    if holder is not None and not holder.alive and journal.read(key) is None:
        zone_run_lock.release(key, holder.run_prefix)
        report.say(f"released the zone lock of dead {holder.describe()}")
    dead_prefixes = {run.run_prefix for run in dead}
    for found in lease.leases(client):
        if found.run_prefix in dead_prefixes or found.expired:
            trouble = lease.remove(client, found.ruleset_id)
            if trouble:
                report.fail(trouble)
            else:
                report.say(f"removed the lease of {found.describe()}")
    for run in dead:
        problems = guard.delete_jobs(client, run.run_prefix)
        for problem in problems:
            report.fail(problem)


def _delete_buckets(target: Target, dead: list[registry.RunRecord], report: Report) -> None:
    if not dead:
        return
    from conformance.clients.s3 import S3Client

    shared = dead[0].run_prefix + "-" if len(dead) == 1 else ""  # the listing's prefix
    names = S3Client.from_surface(target.surface("s3"), "ec-recover").list_bucket_names(shared)
    domains = None
    if target.offers("public") and target.offers("mgmt"):  # as the `public` fixture links
        from conformance.clients.public import CustomDomains

        domains = CustomDomains(target.surface("mgmt"))
    for run in dead:
        client: Any = S3Client.from_surface(target.surface("s3"), run.run_prefix)
        for name in [n for n in names if n.startswith(run.run_prefix + "-")]:
            if domains is not None and not _unlink_domains(domains, name, run, report):
                continue  # deleted, the bucket would hide a domain the service may keep
            try:
                client.delete_bucket_recursive(name)
            except Exception as exc:
                report.fail(f"bucket {name} of dead run {run.run_prefix} not deleted: {exc!r}")
            else:
                report.say(f"deleted bucket {name} of dead {run.describe()}")


def _delete_source_buckets(target: Target, dead: list[registry.RunRecord], report: Report) -> None:
    """Buckets a dead run made on the migration source (`<run prefix>-…`, the migration tests'
    source buckets); any other bucket there is the user's and stays."""
    if not dead:
        return
    from conformance.clients.s3 import migration_source_client

    surface = target.surface("migration_source")
    try:
        names = migration_source_client(surface, "ec-recover").list_bucket_names("ec-")
    except Exception as exc:
        report.fail(f"the migration source did not list its buckets: {exc!r}")
        return
    for run in dead:
        client = migration_source_client(surface, run.run_prefix)
        for name in [n for n in names if n.startswith(run.run_prefix + "-")]:
            try:
                client.delete_bucket_recursive(name)
            except Exception as exc:
                report.fail(f"source bucket {name} of dead run {run.run_prefix} not deleted: "
                            f"{exc!r}")  # fmt: skip
            else:
                report.say(f"deleted migration source bucket {name} of dead {run.describe()}")


def _unlink_domains(domains: Any, bucket: str, run: registry.RunRecord, report: Report) -> bool:
    """Unlink the custom domains the dead run linked to its bucket (the public-bucket tests
    name them `<bucket>.public.example`: they carry the run prefix; any other domain is left
    alone). Before the bucket goes: a service may keep a deleted bucket's domains, and then
    no bucket lists them. False when one may remain (the bucket is then kept too)."""
    try:
        listed = domains.list(bucket)
        if listed.status == 404:
            return True  # no such bucket (any more): nothing is linked to it
        found = listed.result.get("domains") if isinstance(listed.result, dict) else None
        if listed.status != 200 or not isinstance(found, list):
            raise ValueError(f"listing answered {listed.status}: {listed.text[:200]}")
        for domain in [str(d.get("domain", "")) for d in found if isinstance(d, dict)]:
            if not domain.startswith(run.run_prefix + "-"):
                continue
            reply = domains.delete(bucket, domain)
            if reply.status not in (200, 404):
                raise ValueError(f"unlinking {domain} answered {reply.status}")
            report.say(f"unlinked custom domain {domain} of dead {run.describe()}")
    except Exception as exc:
        report.fail(f"custom domains of bucket {bucket} of dead run {run.run_prefix}: {exc!r}")
        return False
    return True


def _delete_binding_keys(target: Target, dead: list[registry.RunRecord], report: Report) -> None:
    """Keys a dead run wrote into the bindings' bound bucket (`<run prefix>-…`)."""
    if not dead:
        return
    import datetime as dt

    from conformance.clients.bindings import BindingsClient

    client = BindingsClient.from_surface(target.surface("bindings"), dt.date.today())
    for run in dead:
        try:
            removed = client.delete_prefixed(run.run_prefix + "-")
        except Exception as exc:
            report.fail(f"binding keys of dead run {run.run_prefix} not deleted: {exc!r}")
        else:
            if removed:
                report.say(f"deleted {removed} binding key(s) of dead {run.describe()}")
