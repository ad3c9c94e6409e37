"""One run per zone on this machine: `locks/<zone key>.json`, created atomically (O_EXCL).

The lock is a file naming its run, not a held descriptor, because the run's processes come and
go (xdist workers): it is taken by the first worker that needs the zone and released by the
controller after the restore. A lock whose run is dead is stale; whether it may be taken over
depends on the journal (see `guard`).
"""

from __future__ import annotations

import time
from dataclasses import asdict
from pathlib import Path

from conformance.safety import statedir
from conformance.safety.registry import RunRecord

POLL = 0.5


def lock_path(key: str) -> Path:
    return statedir.sub_dir("locks") / f"{key}.json"


def holder(key: str) -> RunRecord | None:
    doc = statedir.read_json(lock_path(key))
    return None if doc is None else RunRecord.from_doc(doc)


def acquire(key: str, run: RunRecord, wait: float) -> RunRecord | None:
    """Take the zone for `run`; waits up to `wait` seconds for a live holder. Returns None
    when taken, else the run that holds it (alive, or dead and left for the caller to judge)."""
    deadline = time.monotonic() + max(wait, 0.0)
    while True:
        if statedir.create_json(lock_path(key), asdict(run)):
            return None
        other = holder(key)
        if other is not None and other.run_prefix == run.run_prefix:
            return None
        if other is not None and not other.alive:
            return other
        if time.monotonic() >= deadline:
            if other is None:  # torn or vanished between the two calls: try once more
                if statedir.create_json(lock_path(key), asdict(run)):
                    return None
                return holder(key)
            return other
        time.sleep(POLL)


def take_over(key: str, dead: RunRecord, run: RunRecord) -> bool:
    """Replace a dead run's lock by ours (only if it still names that dead run)."""
    current = holder(key)
    if current is None or current.run_prefix != dead.run_prefix:
        return False
    lock_path(key).unlink(missing_ok=True)
    return statedir.create_json(lock_path(key), asdict(run))


def release(key: str, run_prefix: str) -> None:
    """Drop the lock if it is this run's; never another run's."""
    current = holder(key)
    if current is not None and current.run_prefix == run_prefix:
        lock_path(key).unlink(missing_ok=True)
