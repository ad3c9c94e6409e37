"""`POST /client/v4/_reference/clock {advance_seconds, bucket?}`: REFERENCE-ONLY, not in the spec.

Moves a clock forward and runs the lifecycle applier at once, so that tests can see a rule of
"1 day" act in a second. With `bucket` (a bucket of the credentials' account) only that
bucket's clock moves and only its rules are applied: tests in other buckets are untouched.
Without it every bucket's clock moves (the server-wide offset). Answers `{offset_seconds, now,
applied: {expired, aborted}, bucket}` in the envelope, for the clock that was moved.
"""

from __future__ import annotations

import datetime as dt
from typing import Any

from reference_impl.context import ServerContext
from reference_impl.services.lifecycle import applier
from reference_impl.storage import clock
from reference_impl.wire.mgmt.envelope import ApiError

MAX_ADVANCE = 100 * 365 * 86400
# The most any clock may be ahead of wall time, all advances together: stamps are rendered as
# dates, which end at year 9999 (80 advances of 100 years made every read of a bucket a 500).
MAX_AHEAD = 10 * MAX_ADVANCE


class ClockAdmin:
    def __init__(self, ctx: ServerContext) -> None:
        self.ctx = ctx

    async def advance(self, p: dict[str, str], body: Any) -> Any:
        seconds = body.get("advance_seconds") if isinstance(body, dict) else None
        if isinstance(seconds, bool) or not isinstance(seconds, int | float):
            raise ApiError("clock_invalid", "advance_seconds must be a number", "/advance_seconds")
        if not 0 <= seconds <= MAX_ADVANCE:
            raise ApiError("clock_invalid", "0 <= advance_seconds <= 100 years", "/advance_seconds")
        bucket = body.get("bucket")
        if bucket is not None and not isinstance(bucket, str):
            raise ApiError("clock_invalid", "bucket must be a bucket name", "/bucket")
        account = self.ctx.identity.account_id if bucket is not None else None
        if bucket is not None and self.ctx.store.get_bucket(str(account), bucket) is None:
            raise ApiError("bucket_not_found", bucket)  # an offset must not wait for a bucket
        moved = clock.of(self.ctx)
        if _ahead_after(moved, float(seconds), account, bucket) > MAX_AHEAD:
            raise ApiError("clock_invalid", "a clock may be at most 1,000 years ahead",
                           "/advance_seconds")  # fmt: skip
        offset = moved.advance(float(seconds), account, bucket)
        only = (account, bucket) if account is not None and bucket is not None else None
        applied = await applier.apply_all(self.ctx, only)
        now = dt.datetime.fromtimestamp(moved.now(account, bucket), dt.UTC)
        return {
            "offset_seconds": offset,
            "now": now.isoformat(),
            "applied": applied,
            "bucket": bucket,
        }


def _ahead_after(moved: clock.Clock, seconds: float, account: str | None,
                 bucket: str | None) -> float:  # fmt: skip
    """How far ahead the furthest clock the advance moves would then be: the bucket's, or
    (server-wide) the server's plus the largest bucket offset."""
    if account is not None and bucket is not None:
        return moved.offset(account, bucket) + seconds
    own = max(moved.bucket_offsets.values(), default=0.0)
    return moved.server_offset + own + seconds
