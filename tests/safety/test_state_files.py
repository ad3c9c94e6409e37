"""The state directory's pieces on their own: the zone lock, the registry's liveness, the
journal's comparison and the lease's winner (no target needed)."""

from __future__ import annotations

import datetime as dt
import subprocess
import sys
from pathlib import Path

import pytest

from conformance.safety import journal, lease, registry, statedir, zone_run_lock


@pytest.fixture(autouse=True)
def state_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv(statedir.STATE_DIR_ENV, str(tmp_path / "state"))
    return tmp_path / "state"


def _dead_pid() -> int:
    child = subprocess.Popen([sys.executable, "-c", "pass"])
    child.wait()
    return child.pid


def _run(prefix: str, pid: int) -> registry.RunRecord:
    return registry.new_record(prefix, pid, "t", None)


def test_zone_lock_excludes_a_live_run_and_yields_a_dead_one() -> None:
    import os

    live, other = _run("ec-aaaaaaaa", os.getpid()), _run("ec-bbbbbbbb", os.getpid())
    assert zone_run_lock.acquire("k", live, wait=0) is None
    held = zone_run_lock.acquire("k", other, wait=0)
    assert held is not None and held.run_prefix == live.run_prefix and held.alive
    zone_run_lock.release("k", other.run_prefix)  # not its lock: stays
    assert zone_run_lock.holder("k") == live
    zone_run_lock.release("k", live.run_prefix)
    dead = _run("ec-cccccccc", _dead_pid())
    assert zone_run_lock.acquire("k", dead, wait=0) is None
    found = zone_run_lock.acquire("k", other, wait=0)
    assert found is not None and not found.alive
    assert zone_run_lock.take_over("k", found, other)
    assert zone_run_lock.holder("k") == other


def test_registry_tells_dead_runs_from_live_ones() -> None:
    import os

    registry.register(_run("ec-11111111", os.getpid()))
    registry.register(_run("ec-22222222", _dead_pid()))
    assert [r.run_prefix for r in registry.dead_runs("t")] == ["ec-22222222"]
    reused = registry.RunRecord("ec-3", os.getpid(), statedir.host_name(), "x", "t", None, "1")
    assert not reused.alive, "a reused pid (another start time) is not the run's process"


def _rule(rule_id: str, description: str, enabled: bool = True) -> dict[str, object]:
    return {"id": rule_id, "action": "log_custom_field", "expression": "true",
            "description": description, "enabled": enabled, "ref": rule_id}  # fmt: skip


def test_journal_compare_finds_order_flags_and_descriptions() -> None:
    saved = {"description": "d", "rules": [_rule("a" * 32, "one"), _rule("b" * 32, "two")]}
    same = journal.Outcome()
    journal.compare(saved, dict(saved), same)
    assert same.ok and not same.notes
    swapped = journal.Outcome()
    journal.compare(saved, {"description": "d", "rules": saved["rules"][::-1]}, swapped)
    assert not swapped.ok
    flipped = journal.Outcome()
    rules = [_rule("a" * 32, "one", enabled=False), _rule("b" * 32, "two")]
    journal.compare(saved, {"description": "x", "rules": rules}, flipped)
    assert any("enabled" in p for p in flipped.problems)
    assert any("ruleset description" in p for p in flipped.problems)
    renamed = journal.Outcome()
    new_ids = [{**r, "id": "c" * 32} for r in saved["rules"]]  # type: ignore[dict-item]
    journal.compare(saved, {"description": "d", "rules": new_ids}, renamed)
    assert renamed.ok and "rule ids changed" in renamed.notes[0]


def test_oldest_unexpired_lease_wins() -> None:
    now = dt.datetime.now(dt.UTC)
    hour = dt.timedelta(hours=1)
    old = lease.Lease("1", "ec-old", "h", 1, now - 2 * hour, now - hour)  # expired
    first = lease.Lease("2", "ec-first", "h", 1, now - hour, now + hour)
    second = lease.Lease("3", "ec-second", "h", 1, now, now + hour)
    assert lease.winner([second, old, first]) == first
    assert lease.winner([old]) is None


def test_run_passes_allow_shared_zone_and_recover_knows_the_reference(
    capsys: pytest.CaptureFixture[str],
) -> None:
    from conformance.cli import build_parser, main, run_options

    ns = build_parser().parse_args(["run", "--allow-shared-zone"])
    from conformance.cli_run import build_pytest_argv

    assert "--allow-shared-zone" in build_pytest_argv(run_options(ns, []), Path("d"), "x")
    assert main(["recover", "--target", "reference"]) == 0
    assert "nothing to recover" in capsys.readouterr().out
