"""`POST /client/v4/_reference/clock {advance_seconds}`: REFERENCE-ONLY, not part of the spec.

Moves the reference's clock forward and runs the lifecycle applier at once, so that tests can
see a rule of "1 day" act in a second. Answers `{offset_seconds, now, applied: {expired,
aborted}}` in the envelope.
"""

from __future__ import annotations

import datetime as dt
from typing import Any

from reference_impl.context import ServerContext
from reference_impl.lifecycle import applier, clock
from reference_impl.mgmt.envelope import ApiError

MAX_ADVANCE = 100 * 365 * 86400


class ClockAdmin:
    def __init__(self, ctx: ServerContext) -> None:
        self.ctx = ctx

    async def advance(self, p: dict[str, str], body: Any) -> Any:
        seconds = body.get("advance_seconds") if isinstance(body, dict) else None
        if isinstance(seconds, bool) or not isinstance(seconds, int | float):
            raise ApiError("clock_invalid", "advance_seconds must be a number", "/advance_seconds")
        if not 0 <= seconds <= MAX_ADVANCE:
            raise ApiError("clock_invalid", "0 <= advance_seconds <= 100 years", "/advance_seconds")
        offset = clock.advance(self.ctx, float(seconds))
        applied = await applier.apply_all(self.ctx)
        now = dt.datetime.fromtimestamp(clock.now(self.ctx), dt.UTC)
        return {"offset_seconds": offset, "now": now.isoformat(), "applied": applied}
