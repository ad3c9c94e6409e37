"""`conformance recover` unlinks the custom domains a killed run linked to its buckets, and
only those (conformance/safety/recover.py, docs/safety.md).

The public-bucket tests link `<bucket>.public.example` to an `ec-<run>-` bucket and unlink it
when the test ends; a run killed in between leaves the link. Recover deleted the bucket
without unlinking it: the reference drops a deleted bucket's domains, but a service that keeps
them keeps the run's domain (and then lists it under no bucket). The reference cannot show
that difference, so the test watches the management calls recover makes.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from helpers.reference_process import launch_reference, stop_process

from conformance.clients import public
from conformance.clients.public import CustomDomains, domain_for
from conformance.clients.rules_api import Reply
from conformance.clients.s3 import S3Client
from conformance.safety import recover, registry, statedir

TARGET = "user"
DEAD = "ec-dead0000"
LIVE = "ec-live0000"


@pytest.fixture
def reference(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[dict[str, Any]]:
    """A reference named `user` in a targets file (s3, mgmt, public), with its own state folder."""
    process, ready = launch_reference(tmp_path / "data")
    s3, mgmt = ready["surfaces"]["s3"], ready["surfaces"]["mgmt"]
    (tmp_path / "targets.toml").write_text(
        f"""[targets.{TARGET}.s3]
endpoint = "{s3["endpoint"]}"
access_key_id = "{s3["access_key_id"]}"
secret_access_key_env = "USER_S3_SECRET"
account_id = "{s3["account_id"]}"
[targets.{TARGET}.mgmt]
base_url = "{mgmt["base_url"]}"
email = "{mgmt["email"]}"
api_key_env = "USER_API_KEY"
account_id = "{mgmt["account_id"]}"
[targets.{TARGET}.public]
url = "{ready["surfaces"]["public"]["url"]}"
""",
        encoding="utf-8",
    )
    monkeypatch.setenv("USER_S3_SECRET", s3["secret_access_key"])
    monkeypatch.setenv("USER_API_KEY", mgmt["api_key"])
    monkeypatch.setenv("CONFORMANCE_STATE_DIR", str(tmp_path / "state"))
    try:
        yield ready["surfaces"]
    finally:
        stop_process(process)


def _register(run_prefix: str, pid: int) -> None:
    record = registry.new_record(run_prefix, pid, TARGET, None)
    if pid == 0:  # pid 0 never runs a process here: a dead run
        record = registry.RunRecord(run_prefix, 0, statedir.host_name(), record.started, TARGET)
    assert registry.register(record)


def _linked(boto: Any, domains: CustomDomains, bucket: str, domain: str) -> None:
    boto.create_bucket(Bucket=bucket)
    domains.create(bucket, domain).assert_envelope_ok()


def test_recover_unlinks_only_the_dead_runs_domains(
    reference: dict[str, Any], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    boto = S3Client.from_surface(reference["s3"], "ec-").boto
    domains = CustomDomains(reference["mgmt"])
    dead_bucket, live_bucket = f"{DEAD}-main-1abc", f"{LIVE}-main-1abc"
    _linked(boto, domains, dead_bucket, domain_for(dead_bucket))
    _linked(boto, domains, live_bucket, domain_for(live_bucket))  # a live run's: left alone
    _linked(boto, domains, "user-site", "www.user.example")  # the user's own: never touched
    _register(DEAD, 0)
    _register(LIVE, os.getpid())
    unlinked: list[tuple[str, str, int]] = []
    delete = public.CustomDomains.delete

    def spy(self: CustomDomains, bucket: str, domain: str) -> Reply:
        reply = delete(self, bucket, domain)
        unlinked.append((bucket, domain, reply.status))
        return reply

    monkeypatch.setattr(public.CustomDomains, "delete", spy)
    lines: list[str] = []
    code = recover.recover(TARGET, str(tmp_path / "targets.toml"), lines.append)
    assert code == 0, lines
    assert unlinked == [(dead_bucket, domain_for(dead_bucket), 200)], lines
    assert any(domain_for(dead_bucket) in line and "unlinked" in line for line in lines), lines
    names = {b["Name"] for b in boto.list_buckets()["Buckets"]}
    assert dead_bucket not in names and {live_bucket, "user-site"} <= names
    kept = ((live_bucket, domain_for(live_bucket)), ("user-site", "www.user.example"))
    for bucket, domain in kept:
        listed = domains.list(bucket).assert_envelope_ok()
        assert [d["domain"] for d in listed["domains"]] == [domain]
