"""An interrupt inside `guard.engage` after the journal is on disk (while its folder is synced)
must leave the zone to the run's own release: lock and lease kept, then restored and removed.
The timed signal tests hit this window only by chance; this one hits it every time."""

from __future__ import annotations

import os
from typing import NoReturn

import pytest
from safety.zone import LiveZone

from conformance.safety import guard, journal, lease, statedir, zone_run_lock


def test_interrupt_after_the_journal_is_written_is_released_by_the_run(
    zone: LiveZone, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(statedir.STATE_DIR_ENV, str(zone.state_dir))
    client = zone.rules()
    before = zone.user_state()
    ctx = guard.Context("user", str(zone.targets_file), "ec-0badc0de", os.getpid(),
                        allow_shared_zone=True)  # fmt: skip
    key = ctx.key(client)
    real_write = journal.write

    def write_then_interrupt(*args: object, **kwargs: object) -> NoReturn:
        real_write(*args, **kwargs)  # type: ignore[arg-type]
        raise KeyboardInterrupt  # as SIGINT would, while the journal's folder is synced

    monkeypatch.setattr(journal, "write", write_then_interrupt)
    with pytest.raises(KeyboardInterrupt):
        guard.engage(client, ctx)
    holder = zone_run_lock.holder(key)
    assert holder is not None and holder.run_prefix == ctx.run_prefix, "the lock was dropped"
    assert lease.holder(client, ctx.run_prefix) is None, "another lease appeared"
    assert any(x.run_prefix == ctx.run_prefix for x in lease.leases(client)), "lease dropped"
    released = guard.release(client, ctx)
    assert released.outcome.ok, released.outcome.problems
    assert zone.user_state() == before
    assert zone.suite_leftovers() == []
    assert journal.read(key) is None and zone_run_lock.holder(key) is None
