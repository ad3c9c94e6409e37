"""A zone's ownership challenges keep their age across a restart of the reference.

The cap (`logpush_max_challenges_per_zone`) forgets the oldest challenge, and "oldest" is the
order of the zone's dict. The state file was written with sorted keys, so after a restart the
order was alphabetical: the next challenge then evicted the alphabetically first destination,
which could be the one whose token a client had just been given.
"""

from __future__ import annotations

import asyncio
import datetime as dt
from pathlib import Path

from reference_impl.mgmt.logpush import Jobs
from reference_impl.mgmt.state import MgmtState
from reference_impl.profile import Profile


def _ask(root: Path, destination: str) -> None:
    """One ownership request, each by a freshly started reference (state read from disk)."""
    profile = Profile(dt.date(2026, 1, 1), {"logpush_max_challenges_per_zone": "2"})
    jobs = Jobs(profile, MgmtState(root / "mgmt"), root)
    asyncio.run(jobs.ownership("zone", {"destination_conf": destination}))


def test_newest_challenges_survive_a_restart(tmp_path: Path) -> None:
    asked = [f"s3://{bucket}/logs?region=us-east-1" for bucket in ("zzz", "aaa", "mmm")]
    for destination in asked:
        _ask(tmp_path, destination)
    kept = list(MgmtState(tmp_path / "mgmt").challenges("zone"))
    assert kept == asked[1:], kept
