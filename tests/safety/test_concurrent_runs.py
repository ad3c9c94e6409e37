"""Two runs on one zone: the second one waits or refuses, naming the first; the user's rules
survive. On one machine the zone lock decides; across machines (separate state directories)
the lease on the target does. The first run is paused (SIGSTOP) while it holds the zone, so
the second one meets it there whatever the machine's load."""

from __future__ import annotations

import os
import signal
import subprocess
import time

import pytest
from safety.zone import LiveZone, finish, journal_files, read_json, wait_until

pytestmark = pytest.mark.slow

SELECTION = ("--allow-shared-zone", "--rule", "logs.rulesets.put")
# the first run holds the zone long enough to be caught holding it on an idle machine too (the
# put rules alone took 1.5 s: the run could end between two polls)
FIRST = ("--allow-shared-zone", "--rule", "logs.rulesets", "--rule", "logs.logpush")


def _first_run_holding_the_zone(zone: LiveZone) -> tuple[subprocess.Popen[str], str]:
    first = zone.start(zone.suite_argv(*FIRST))
    wait_until(lambda: bool(journal_files(zone)), first, timeout=60)
    os.kill(first.pid, signal.SIGSTOP)  # alive, holding lock and lease
    return first, read_json(journal_files(zone)[0])["run_prefix"]


def test_second_runs_refuse_and_name_the_first(zone: LiveZone) -> None:
    """While run A holds the zone, a run B on the same machine (the zone lock) and a run C
    of another machine (its own state directory: only the lease on the target tells it) stop
    without touching the zone, and name run A."""
    before = zone.user_state()
    first, owner = _first_run_holding_the_zone(zone)
    try:
        same = zone.start(zone.suite_argv(*SELECTION))
        other = zone.start(zone.suite_argv(*SELECTION), state_dir=zone.home / "other-machine")
        (code_same, out_same), (code_other, out_other) = finish(same), finish(other)
    finally:
        os.kill(first.pid, signal.SIGCONT)
    assert code_same != 0 and f"is in use by run {owner}" in out_same, out_same[-3000:]
    assert code_other != 0 and f"is leased by run {owner}" in out_other, out_other[-3000:]
    code, out = finish(first)
    assert code == 0, out[-3000:]
    assert zone.user_state() == before, out[-3000:]
    assert zone.suite_leftovers() == [], out[-3000:]


def test_second_run_waits_when_asked(zone: LiveZone) -> None:
    """With CONFORMANCE_ZONE_WAIT the second run waits for the first and then runs (without
    it, it would refuse: the test above)."""
    before = zone.user_state()
    first, _ = _first_run_holding_the_zone(zone)
    zone.env["CONFORMANCE_ZONE_WAIT"] = "90"
    second = zone.start(zone.suite_argv(*SELECTION))
    try:  # the second run registered, so it is at the zone's lock, which the first holds
        wait_until(lambda: len(list((zone.state_dir / "runs").glob("*.json"))) == 2, second, 60)
        time.sleep(1)
    finally:
        os.kill(first.pid, signal.SIGCONT)
    code_first, out_first = finish(first)
    code_second, out_second = finish(second)
    assert (code_first, code_second) == (0, 0), out_first[-2000:] + out_second[-2000:]
    assert zone.user_state() == before
    assert zone.suite_leftovers() == []
