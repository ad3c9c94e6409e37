"""Two runs on one zone: the second one waits or refuses, naming the first; the user's rules
survive. On one machine the zone lock decides; across machines (separate state directories)
the lease on the target does."""

from __future__ import annotations

import pytest
from safety.zone import LiveZone, finish, journal_files, read_json, wait_until

pytestmark = pytest.mark.slow

SELECTION = ("--allow-shared-zone", "--rule", "logs")


@pytest.mark.parametrize("machine", ["same", "other"])
def test_second_run_refuses_and_names_the_first(zone: LiveZone, machine: str) -> None:
    """While run A holds the zone, run B stops without touching it and names run A."""
    before = zone.user_state()
    first = zone.start(zone.suite_argv(*SELECTION))
    wait_until(lambda: bool(journal_files(zone)), first, timeout=60)
    owner = read_json(journal_files(zone)[0])["run_prefix"]
    other_dir = zone.home / "other-machine-state" if machine == "other" else None
    second = zone.start(zone.suite_argv(*SELECTION), state_dir=other_dir)
    code, out = finish(second)
    assert code != 0, out[-3000:]
    # same machine: the zone lock in the state directory; other machine: the target's lease
    said = "is in use by run" if machine == "same" else "is leased by run"
    assert f"{said} {owner}" in out, out[-3000:]
    code, out = finish(first)
    assert code == 0, out[-3000:]
    assert zone.user_state() == before, out[-3000:]
    assert zone.suite_leftovers() == [], out[-3000:]


def test_second_run_waits_when_asked(zone: LiveZone) -> None:
    """With CONFORMANCE_ZONE_WAIT the second run waits for the first and then runs (without
    it, it would refuse: the test above)."""
    before = zone.user_state()
    first = zone.start(zone.suite_argv(*SELECTION))
    wait_until(lambda: bool(journal_files(zone)), first, timeout=60)
    zone.env["CONFORMANCE_ZONE_WAIT"] = "60"
    second = zone.start(zone.suite_argv("--allow-shared-zone", "--rule", "logs.rulesets.put"))
    code_first, out_first = finish(first)
    code_second, out_second = finish(second)
    assert (code_first, code_second) == (0, 0), out_first[-2000:] + out_second[-2000:]
    assert zone.user_state() == before
    assert zone.suite_leftovers() == []
