"""Log push delivery: each enabled `http_requests` job of the zone gets its lines in batches.

A record is turned into the job's line when it is produced (the job's fields and timestamp
format at that moment), buffered per job, and written as one gzip NDJSON object per batch:
into the reference's own storage for `r2://bucket/path` destinations (so the suite reads the
logs back over S3), or POSTed to `http(s)://` collectors. Batches go out every `interval`
seconds or when `flush()` is called (the edge's internal trigger), so tests need not wait long.

Bounded (issue 26, MEDIUM 7): one lock across all jobs let a collector trickling its answer
hold every job's delivery and the flush trigger for minutes while lines piled up. Each job now
delivers on its own (a lock per job: one batch in flight per job, in order), every attempt
has a total deadline (`logpush_timeout_s`), `flush()` waits at most that plus a little, and a
job keeps at most `log_pending_max_lines` lines and `log_pending_max_bytes` characters of them:
past either the oldest are dropped and counted (docs/reference-choices.md). A line bound alone let
50,000 anonymous requests with 12 KB URIs hold 600 MB per job, and the batch of them was
joined and compressed on the event loop; the batch is now compressed on a worker.
"""

from __future__ import annotations

import asyncio
import datetime as dt
import gzip
import logging
import secrets
from collections import deque
from collections.abc import AsyncIterator
from typing import Any
from urllib.parse import urlsplit

from reference_impl import offload, outbound
from reference_impl.context import ServerContext
from reference_impl.edge.records import job_line
from reference_impl.storage import clock
from reference_impl.storage.engine import BucketGone

LOG = logging.getLogger(__name__)
DATASET = "http_requests"
FLUSH_GRACE = 5.0  # seconds flush() waits beyond one attempt's deadline
JobKey = tuple[str, str]  # (zone, job id)


class Delivery:
    def __init__(self, ctx: ServerContext, interval: float = 1.0) -> None:
        self.ctx = ctx
        self.interval = interval
        self.pending: dict[JobKey, deque[str]] = {}
        self.dropped: dict[JobKey, int] = {}  # lines dropped since the job's last batch
        # lines dropped since the job's last clean batch (written, none dropped): a later
        # failing batch must not hide the loss from the job's error_message
        self.lost: dict[JobKey, int] = {}
        self.sizes: dict[JobKey, int] = {}  # characters of the job's pending lines
        self._locks: dict[JobKey, asyncio.Lock] = {}  # one batch in flight per job
        self._tasks: set[asyncio.Task[bool]] = set()

    def _jobs(self, zone_id: str) -> list[dict[str, Any]]:
        state = self.ctx.shared.mgmt_state
        if state is None:
            return []
        with state.lock:
            jobs = [dict(job) for job in state.jobs(zone_id).values()]
        if self.ctx.profile.deviations.log_every_job:
            return jobs
        return [job for job in jobs if job.get("enabled") and job.get("dataset") == DATASET]

    def add(self, zone_id: str, record: dict[str, Any]) -> None:
        """Queue the record's line for every enabled http_requests job of the zone."""
        profile = self.ctx.profile
        for job in self._jobs(zone_id):
            line = job_line(
                record,
                job.get("logpull_options"),
                every_field=bool(profile.deviations.log_unselected_fields),
                fixed_format="unixnano" if profile.deviations.ignore_timestamp_format else None,
            )
            key = (zone_id, str(job["id"]))
            lines = self.pending.get(key)
            if lines is None:
                lines = self.pending[key] = deque(maxlen=int(profile.log_pending_max_lines))
            size = self.sizes.get(key, 0) + len(line)
            budget = int(profile.log_pending_max_bytes)
            while lines and (len(lines) == lines.maxlen or size > budget):  # oldest fall out
                size -= len(lines.popleft())
                self.dropped[key] = self.dropped.get(key, 0) + 1
            lines.append(line)
            self.sizes[key] = size

    async def run(self) -> None:
        """Start every job's pending batch each `interval` seconds, until cancelled (the app's
        lifespan owns the task). A job whose batch is still in flight is skipped this round."""
        while True:
            await asyncio.sleep(self.interval)
            self._forget_deleted()
            for key in list(self.pending):
                if not self._lock(key).locked():
                    self._start(key)

    async def flush(self) -> int:
        """Deliver every job's pending lines now (after a batch already in flight for it); the
        number of batches written. Waits at most one attempt's deadline plus FLUSH_GRACE: a
        batch still going then is counted out here but goes on."""
        self._forget_deleted()
        started = [self._start(key) for key in list(self.pending)]
        if not started:
            return 0
        limit = float(self.ctx.profile.logpush_timeout_s) + FLUSH_GRACE
        done, _ = await asyncio.wait(started, timeout=limit)
        return sum(
            1
            for task in done
            if not task.cancelled() and task.exception() is None and task.result()
        )

    def _forget_deleted(self) -> None:
        """Drop the lock and loss count of jobs that are gone. A job deleted with no line
        waiting, or while its batch was in flight, has no later batch to drop them."""
        for key in self._locks.keys() | self.lost.keys():
            lock = self._locks.get(key)
            if key in self.pending or (lock is not None and lock.locked()):
                continue  # its batch clears it, or is still going
            if self._job(*key) is None:
                self._locks.pop(key, None)
                self.lost.pop(key, None)

    def _lock(self, key: JobKey) -> asyncio.Lock:
        lock = self._locks.get(key)
        if lock is None:
            lock = self._locks[key] = asyncio.Lock()
        return lock

    def _start(self, key: JobKey) -> asyncio.Task[bool]:
        task = asyncio.get_running_loop().create_task(self._deliver_job(key))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)
        return task

    async def _deliver_job(self, key: JobKey) -> bool:
        """One batch of the job's pending lines (those there once its previous batch is done);
        True when it was written."""
        async with self._lock(key):
            lines = self.pending.pop(key, None)
            self.sizes.pop(key, None)
            dropped = self.dropped.pop(key, 0)
            zone_id, job_id = key
            job = self._job(zone_id, job_id)
            if job is None:  # deleted: nothing of it is kept (jobs come and go by the thousand)
                self.lost.pop(key, None)
                self._locks.pop(key, None)
                return False
            if not lines:
                return False
            if dropped:
                LOG.warning(
                    "log push job %s: %d oldest lines dropped (pending bound)", job_id, dropped
                )
            body = await offload.run("compress", _batch, lines)
            try:
                error = await self._deliver(job["destination_conf"], body)
            except Exception as exc:  # a failed batch must not stop later deliveries
                LOG.warning("log push job %s: delivery failed: %s", job_id, exc)
                error = f"delivery failed: {type(exc).__name__}"
            lost = 0
            if error is None and not dropped:
                self.lost.pop(key, None)
            else:
                lost = self.lost[key] = self.lost.get(key, 0) + dropped
            self._record_outcome(zone_id, job_id, error, lost)
            return error is None

    async def cancel(self) -> None:
        """Shutting down: batches still in flight are abandoned."""
        for task in list(self._tasks):
            task.cancel()

    def _job(self, zone_id: str, job_id: str) -> dict[str, Any] | None:
        state = self.ctx.shared.mgmt_state
        if state is None:
            return None
        with state.lock:
            job = state.jobs(zone_id).get(job_id)
            return dict(job) if job else None

    async def _deliver(self, destination: str, body: bytes) -> str | None:
        parts = urlsplit(destination)
        total = float(self.ctx.profile.logpush_timeout_s)
        if parts.scheme == "r2":
            async with asyncio.timeout(total):
                return await self._to_storage(parts.netloc, parts.path, body)
        if parts.scheme in ("http", "https"):
            headers = {"Content-Type": "application/x-ndjson", "Content-Encoding": "gzip"}
            return await outbound.post(destination, body, headers, total)
        return f"the reference does not deliver to {parts.scheme}:// destinations"

    async def _to_storage(self, bucket: str, path: str, body: bytes) -> str | None:
        store = self.ctx.store
        account = self.ctx.identity.account_id
        if store is None or store.get_bucket(account, bucket) is None:
            return f"bucket {bucket!r} does not exist"
        now = dt.datetime.fromtimestamp(store.clock.now(account, bucket), dt.UTC)
        folder = path.strip("/").replace("{DATE}", now.strftime("%Y%m%d"))
        stamp = now.strftime("%Y%m%dT%H%M%S.%fZ")
        name = f"{stamp}_{secrets.token_hex(4)}.log.gz"
        key = f"{folder}/{name}" if folder else name

        async def chunks() -> AsyncIterator[bytes]:
            yield body

        blob = await store.write_blob(chunks())
        try:
            meta: dict[str, Any] = {"user": {}, "http": {}}
            store.put_object(account, bucket, key, blob, "application/gzip", meta)
        except BucketGone:  # deleted while the batch was written
            return f"bucket {bucket!r} does not exist"
        return None

    def _record_outcome(
        self, zone_id: str, job_id: str, error: str | None, dropped: int = 0
    ) -> None:
        state = self.ctx.shared.mgmt_state
        if state is None:
            return
        with state.lock:
            job = state.jobs(zone_id).get(job_id)
            if job is None:
                return
            moment = dt.datetime.fromtimestamp(clock.now(self.ctx), dt.UTC)
            now = moment.isoformat().replace("+00:00", "Z")
            if error is None:
                job["last_complete"] = now
            if dropped:  # a loss, even when the batch itself went out
                note = (
                    f"{dropped} lines dropped since the last batch written with none dropped:"
                    " more than log_pending_max_lines lines or log_pending_max_bytes"
                    " characters were waiting"
                )
                error = f"{error}; {note}" if error else note
            if error is not None:
                job["last_error"], job["error_message"] = now, error
            else:  # the provider's job API: null once the job ran successfully since a failure
                job["last_error"] = job["error_message"] = None
            state.save()


def _batch(lines: deque[str]) -> bytes:
    """One gzip NDJSON batch (on the `compress` worker: zlib releases the GIL)."""
    return gzip.compress(("\n".join(lines) + "\n").encode("utf-8"))
