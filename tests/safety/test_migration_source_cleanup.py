"""The run's buckets on the migration source are swept at the run's end and by `conformance
recover`, and only those (conformance/plugin/lifecycle.py, conformance/safety/recover.py).

The migration (sippy) tests make a `<run prefix>-…` bucket on the target's `migration_source`
(a moto server here) and remove it when the test ends; a run killed in between left it there
for good: the end sweep and recover looked at the target's S3 only.
"""

from __future__ import annotations

import contextlib
import os
import socket
import threading
from collections.abc import Iterator
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from helpers.moto_source import moto_server

from conformance.clients import s3 as s3_client
from conformance.clients.s3 import migration_source_client
from conformance.model.targets import Target
from conformance.plugin import account, cleanup, lifecycle
from conformance.safety import recover, registry, statedir

pytest.importorskip("moto", reason="moto[server] is the migration source of these tests")

TARGET = "user"
DEAD = "ec-dead0000"
LIVE = "ec-live0000"
KEYS = {"access_key_id": "testing", "secret_access_key": "testing", "region": "us-east-1"}


@pytest.fixture
def source(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[dict[str, Any]]:
    """A moto migration source, a targets file naming it, and a state folder of the test's."""
    monkeypatch.setenv("CONFORMANCE_STATE_DIR", str(tmp_path / "state"))
    monkeypatch.setenv("USER_SOURCE_SECRET", KEYS["secret_access_key"])
    with moto_server() as (endpoint, _):
        (tmp_path / "targets.toml").write_text(
            f"""[targets.{TARGET}.migration_source]
endpoint = "{endpoint}"
access_key_id = "{KEYS["access_key_id"]}"
secret_access_key_env = "USER_SOURCE_SECRET"
region = "{KEYS["region"]}"
""",
            encoding="utf-8",
        )
        yield {"endpoint": endpoint, **KEYS}


def _register(run_prefix: str, pid: int) -> None:
    record = registry.new_record(run_prefix, pid, TARGET, None)
    if pid == 0:  # pid 0 never runs a process here: a dead run
        record = registry.RunRecord(run_prefix, 0, statedir.host_name(), record.started, TARGET)
    assert registry.register(record)


def _buckets(surface: dict[str, Any], *names: str) -> Any:
    boto = migration_source_client(surface, "ec-").boto
    for name in names:
        boto.create_bucket(Bucket=name)
        boto.put_object(Bucket=name, Key="legacy/object.txt", Body=b"left by a killed test")
    return boto


def _names(boto: Any) -> set[str]:
    return {str(b["Name"]) for b in boto.list_buckets()["Buckets"]}


def test_recover_deletes_only_the_dead_runs_source_buckets(
    source: dict[str, Any], tmp_path: Path
) -> None:
    dead, live = f"{DEAD}-main-1abc", f"{LIVE}-main-1abc"
    boto = _buckets(source, dead, live, "user-legacy", "ec-dead00001-other")
    _register(DEAD, 0)
    _register(LIVE, os.getpid())
    lines: list[str] = []
    code = recover.recover(TARGET, str(tmp_path / "targets.toml"), lines.append)
    assert code == 0, lines
    assert _names(boto) == {live, "user-legacy", "ec-dead00001-other"}, lines
    assert any(dead in line and "migration source" in line for line in lines), lines
    assert registry.lookup(DEAD) is None and registry.lookup(LIVE) is not None


def _state(run_prefix: str, used: set[str]) -> Any:
    options = SimpleNamespace(target=TARGET, targets_file=None, allow_shared_zone=False)
    return SimpleNamespace(run_prefix=run_prefix, surfaces_used=used, owner_pid=os.getpid(),
                           options=options)  # fmt: skip


@pytest.mark.parametrize("used", [{"migration_source"}, set()], ids=["used", "news-lost"])
def test_end_sweep_deletes_the_runs_source_buckets(source: dict[str, Any], used: set[str]) -> None:
    """The end of a run removes its source buckets (also when the workers' news of using the
    source was lost, as the run is registered), then leaves the registry; others stay."""
    mine, other = f"{LIVE}-mig-1abc", f"{DEAD}-mig-1abc"
    boto = _buckets(source, mine, other, "user-legacy")
    _register(LIVE, os.getpid())
    state = _state(LIVE, set(used))
    target = Target(TARGET, {"migration_source": dict(source)})
    lifecycle.clean_source_buckets(state, target)
    assert _names(boto) == {other, "user-legacy"}
    account.unregister_run(state, target)
    assert registry.lookup(LIVE) is None


def test_a_source_bucket_left_keeps_the_run_registered(source: dict[str, Any]) -> None:
    """A source bucket the sweep could not remove keeps the run in the registry for recover."""
    boto = _buckets(source, f"{LIVE}-mig-1abc")
    _register(LIVE, os.getpid())
    account.unregister_run(_state(LIVE, set()), Target(TARGET, {"migration_source": source}))
    assert registry.lookup(LIVE) is not None
    assert _names(boto) == {f"{LIVE}-mig-1abc"}


@pytest.fixture
def hung_source(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[dict[str, Any]]:
    """A migration source that accepts connections and never answers (1 s read timeout);
    `accepted` counts the connections it took."""
    monkeypatch.setenv("CONFORMANCE_STATE_DIR", str(tmp_path / "state"))
    monkeypatch.setattr(s3_client, "READ_TIMEOUT", 1)
    cleanup.forget_silent_targets()
    listener = socket.create_server(("127.0.0.1", 0))
    held: list[socket.socket] = []

    def serve() -> None:
        with contextlib.suppress(OSError):
            while True:
                held.append(listener.accept()[0])

    threading.Thread(target=serve, daemon=True).start()
    port = listener.getsockname()[1]
    try:
        yield {"endpoint": f"http://127.0.0.1:{port}", "accepted": held, **KEYS}
    finally:
        listener.close()
        for conn in held:
            conn.close()
        cleanup.forget_silent_targets()


def test_a_hung_source_is_waited_for_once_at_the_end(hung_source: dict[str, Any]) -> None:
    """A source that timed out in the end sweep is not asked again by the registry check (it
    would wait the client's read timeout, 60 s, once more); the run stays registered."""
    accepted = hung_source.pop("accepted")
    _register(LIVE, os.getpid())
    state = _state(LIVE, {"migration_source"})
    target = Target(TARGET, {"migration_source": dict(hung_source)})
    with pytest.warns(cleanup.CleanupWarning, match="cannot list buckets"):
        lifecycle.clean_source_buckets(state, target)
    assert len(accepted) == 1
    account.unregister_run(state, target)
    assert len(accepted) == 1, "the hung source was asked again"
    assert registry.lookup(LIVE) is not None
