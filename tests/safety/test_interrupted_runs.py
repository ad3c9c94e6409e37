"""A run stopped by SIGTERM, SIGINT, SIGHUP or SIGKILL, before, during or after the zone-wide
tests, leaves the user's zone as it found it (at once, or after `conformance recover`), and no
`ec-` resource behind."""

from __future__ import annotations

import json
import os
import signal
import sys
from collections.abc import Callable
from pathlib import Path

import pytest
from safety.zone import USER_RULES, LiveZone, finish, journal_files, wait_until

pytestmark = pytest.mark.slow

USER = [rule["description"] for rule in USER_RULES]
# the zone-wide tests, then storage tests (collected after the logs folder)
SELECTION = ("--allow-shared-zone", "--rule", "logs.rulesets", "--rule", "storage.list-objects")


def _point(zone: LiveZone, name: str) -> Callable[[], bool]:
    """When the run has reached `name`: before, during or after the zone-wide tests."""
    if name == "before":  # journaled, nothing changed yet
        return lambda: bool(journal_files(zone))
    if name == "during":  # the suite's test rules are on the zone
        return lambda: zone.entry_rules() not in ([], USER)
    # a storage test's bucket: the logs tests are done, the zone not yet restored
    return lambda: any(
        b.startswith("ec-") and "-logs-" not in b for b in zone.user_state()["buckets"]
    )


def _stop_at(zone: LiveZone, point: str, signum: int, workers: str = "0") -> tuple[int, str]:
    run = zone.start(zone.suite_argv(*SELECTION, workers=workers))
    wait_until(_point(zone, point), run, timeout=60)
    if signum == signal.SIGKILL:
        os.killpg(run.pid, signal.SIGKILL)  # the controller and every worker, no handler runs
    else:
        run.send_signal(signum)
    return finish(run)


@pytest.mark.parametrize(
    ("signum", "point"),
    [(signal.SIGINT, "before"), (signal.SIGHUP, "after")],
    ids=["sigint-before", "sighup-after"],
)
def test_signalled_run_restores_the_zone(zone: LiveZone, signum: int, point: str) -> None:
    """The run restores the user's rules itself and removes its resources; recover finds
    nothing left to do."""
    before = zone.user_state()
    code, out = _stop_at(zone, point, signum)
    assert code != 0, out[-2000:]
    assert zone.user_state() == before, out[-3000:]
    assert zone.suite_leftovers() == [], out[-3000:]
    assert journal_files(zone) == []
    assert list((zone.state_dir / "runs").glob("*.json")) == [], "the run stayed registered"
    recovered = zone.recover()
    assert recovered.returncode == 0, recovered.stdout + recovered.stderr
    assert "nothing to recover" in recovered.stdout


def test_a_signal_during_the_restore_is_held_and_not_lost(zone: LiveZone) -> None:
    """A SIGHUP that comes while the run restores the zone waits for the restore and the
    cleanup, and the run then exits as interrupted (2), not 0 as if it had not been asked
    to stop (before: the restore ignored such a signal outright)."""
    before = zone.user_state()
    helpers = str(Path(__file__).parents[1] / "helpers")
    zone.env["PYTHONPATH"] = os.pathsep.join(p for p in (helpers, zone.env.get("PYTHONPATH")) if p)
    code, out = finish(zone.start(zone.suite_argv(*SELECTION, "-p", "signal_in_restore")))
    assert code == pytest.ExitCode.INTERRUPTED, out[-3000:]
    assert "SIGHUP came while the run was ending" in out, out[-3000:]
    assert zone.user_state() == before, out[-3000:]
    assert zone.suite_leftovers() == [], out[-3000:]
    assert journal_files(zone) == []
    assert list((zone.state_dir / "runs").glob("*.json")) == [], "the run stayed registered"


def test_sigterm_to_the_process_group_with_workers(zone: LiveZone) -> None:
    """SIGTERM to the controller and its xdist workers at once (a CI job cancelled)."""
    before = zone.user_state()
    run = zone.start(zone.suite_argv(*SELECTION, workers="2"))
    wait_until(_point(zone, "during"), run, timeout=60)
    os.killpg(run.pid, signal.SIGTERM)
    code, out = finish(run)
    assert code != 0
    assert zone.user_state() == before, out[-3000:]
    assert zone.suite_leftovers() == [], out[-3000:]


def test_sigterm_to_conformance_run_reaches_the_suite(zone: LiveZone) -> None:
    """`conformance run` passes SIGTERM on to its pytest child and waits for the restore."""
    before = zone.user_state()
    argv = [sys.executable, "-m", "conformance.cli", "run", "--target", "user",
            "--targets-file", str(zone.targets_file), "-n", "0", "--report-dir",
            str(zone.home / "reports"), *SELECTION]  # fmt: skip
    run = zone.start(argv)
    wait_until(_point(zone, "during"), run, timeout=60)
    run.send_signal(signal.SIGTERM)
    code, out = finish(run)
    # the CLI waited for its child, which got the signal (not an orphan left running)
    assert code in (1, 2) and "KeyboardInterrupt: signal SIGTERM" in out, (code, out[-3000:])
    assert zone.user_state() == before, out[-3000:]
    assert zone.suite_leftovers() == [], out[-3000:]


@pytest.mark.parametrize("point", ["before", "during", "after"])
def test_sigkill_then_recover(zone: LiveZone, point: str) -> None:
    """After SIGKILL the next run refuses the zone and names `recover`; recover puts the
    user's state back and removes the dead run's resources."""
    before = zone.user_state()
    _stop_at(zone, point, signal.SIGKILL)
    assert journal_files(zone), "the killed run left no journal"
    if point != "before":
        assert zone.suite_leftovers(), "the killed run left nothing: the test proves nothing"
    if point == "during":
        second = zone.start(zone.suite_argv(*SELECTION))
        code, out = finish(second)
        assert code != 0 and "conformance recover --target user" in out, out[-3000:]
        assert "leftovers of a dead run ec-" in out, out[-3000:]  # said in one line
        assert zone.entry_rules() not in ([], USER), "the refused run changed the zone"
    recovered = zone.recover()
    assert recovered.returncode == 0, recovered.stdout + recovered.stderr
    assert zone.user_state() == before, recovered.stdout
    assert zone.suite_leftovers() == [], recovered.stdout
    assert journal_files(zone) == []


def test_results_of_a_run_stopped_during_its_end_do_not_certify(
    zone: LiveZone, tmp_path: Path
) -> None:
    """A run pytest ends as interrupted (2) for a signal held back during its end writes no
    CERTIFIED verdict: results.json was written inside the held block, before the exit status
    changed, and kept saying certified with no problem while the run exited 2."""
    helpers = str(Path(__file__).parents[1] / "helpers")
    zone.env["PYTHONPATH"] = os.pathsep.join(p for p in (helpers, zone.env.get("PYTHONPATH")) if p)
    results = tmp_path / "results.json"
    passing = ("--allow-shared-zone", "--rule", "logs.rulesets.put-envelope")
    argv = zone.suite_argv(*passing, "-p", "signal_in_restore", "--results", str(results))
    code, out = finish(zone.start(argv))
    assert code == pytest.ExitCode.INTERRUPTED, out[-3000:]
    doc = json.loads(results.read_text(encoding="utf-8"))
    assert doc["summary"]["certified"] is False, doc["summary"]
    assert any("SIGHUP" in p["message"] for p in doc["run"]["problems"]), doc["run"]
