"""The reference's moving clock: wall time plus an offset that tests advance.

Lifecycle rules act after days; no test waits that long. The offset is reference-only state
(`POST /client/v4/_reference/clock`), kept in memory and shared by every surface through
`ctx.shared`, so that the applier and the audit log agree on "now".
"""

from __future__ import annotations

import time

from reference_impl.context import ServerContext

OFFSET_KEY = "clock_offset_seconds"


def now(ctx: ServerContext) -> float:
    """Seconds since the epoch on the moving clock."""
    return time.time() + float(ctx.shared.get(OFFSET_KEY, 0.0))


def advance(ctx: ServerContext, seconds: float) -> float:
    """Move the clock forward (never back) and return the new offset."""
    if seconds < 0:
        raise ValueError("the clock only moves forward")
    offset = float(ctx.shared.get(OFFSET_KEY, 0.0)) + seconds
    ctx.shared[OFFSET_KEY] = offset
    return offset
