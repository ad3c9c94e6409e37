"""The reference's one clock for data: wall time plus offsets that tests advance.

Lifecycle rules act after days; no test waits that long, so the REFERENCE-ONLY endpoint
`POST /client/v4/_reference/clock {advance_seconds, bucket?}` moves time forward. Each bucket
has a clock of its own: wall time + a server-wide offset + the bucket's offset. Everything the
reference stamps on data (LastModified, upload initiation, parts, audit entries, bucket
creation, custom domains) and everything it judges by those stamps (lifecycle expiry and abort)
reads this clock, so a stamp and the judgement of it never disagree. Moving one bucket's clock
reaches nothing outside that bucket, and deleting the bucket forgets its offset: parallel tests
in other buckets never see time jump. Stamps outside any bucket (rulesets, log push jobs, log
records) use the server-wide part alone.

Not on this clock, on purpose: what is about the client's real time or the process's own
bookkeeping. SigV4 request-time skew and presigned-URL expiry, TLS certificate validity, the
HTTP Date header and the memory of completed multipart uploads (a retry window) stay on the
wall clock. Offsets live in memory: a restart starts every clock at wall time again.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from reference_impl.context import ServerContext


@dataclass
class Clock:
    """Offsets in seconds: one for the server, one per (account, bucket) that was advanced."""

    wall: Callable[[], float] = time.time
    server_offset: float = 0.0
    bucket_offsets: dict[tuple[str, str], float] = field(default_factory=dict)

    def offset(self, account: str | None = None, bucket: str | None = None) -> float:
        """Seconds this clock is ahead of wall time (of one bucket, or server-wide)."""
        own = self.bucket_offsets.get((account, bucket), 0.0) if account and bucket else 0.0
        return self.server_offset + own

    def now(self, account: str | None = None, bucket: str | None = None) -> float:
        """Seconds since the epoch on the clock of this bucket (or the server-wide one)."""
        return self.wall() + self.offset(account, bucket)

    def now_ns(self) -> int:
        """The server-wide clock in nanoseconds (log records; exact, unlike float seconds)."""
        return time.time_ns() + round(self.server_offset * 1e9)

    def advance(
        self, seconds: float, account: str | None = None, bucket: str | None = None
    ) -> float:
        """Move one bucket's clock (or every bucket's) forward, never back; the new offset."""
        if seconds < 0:
            raise ValueError("the clock only moves forward")
        if account and bucket:
            key = (account, bucket)
            self.bucket_offsets[key] = self.bucket_offsets.get(key, 0.0) + seconds
        else:
            self.server_offset += seconds
        return self.offset(account, bucket)

    def forget(self, account: str, bucket: str) -> None:
        """The bucket was deleted (or is new): a bucket of that name starts on time."""
        self.bucket_offsets.pop((account, bucket), None)


def of(ctx: ServerContext) -> Clock:
    """The server's clock; it lives with the store, which stamps what it keeps."""
    store = ctx.store
    return store.clock if store is not None else Clock()


def now(ctx: ServerContext, account: str | None = None, bucket: str | None = None) -> float:
    """Seconds since the epoch on the clock of this bucket (or the server-wide one)."""
    return of(ctx).now(account, bucket)
