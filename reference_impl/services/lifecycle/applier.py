"""Applies lifecycle rules on each bucket's clock: expires objects, aborts stale uploads.

Runs when the reference clock is advanced (reference-only admin endpoint) and on its own every
`lifecycle_apply_interval_seconds` once a bucket has rules. S3 semantics: an object expires at
the first midnight UTC at or after its last modification plus the rule's days (or on the rule's
Date); an upload is aborted likewise, counted from its initiation. Stamps and the judgement
of them read the same bucket clock (storage/clock.py).

A pass may meet millions of objects: it reads them a page at a time and yields the event loop
between pages (docs/architecture.md, "Bounded work per request"), so every surface keeps
answering while it runs.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import json
import logging
import math
from typing import Any

from reference_impl.context import ServerContext
from reference_impl.services.lifecycle.config import KIND
from reference_impl.storage import clock
from reference_impl.storage.multipart import uploads_of

DAY = 86400
PAGE = 50  # objects read (and expired) between two yields of the event loop (~10 ms)
LOG = logging.getLogger(__name__)


def due(start: float, days: int) -> float:
    """The first midnight UTC at or after `start + days`."""
    return math.ceil((start + days * DAY) / DAY) * DAY


def _date(text: str) -> float:
    import datetime as dt

    return dt.datetime.fromisoformat(text.replace("Z", "+00:00")).timestamp()


def _rules_now(ctx: ServerContext, account: str, bucket: str) -> tuple[int, str] | None:
    """The bucket's creation (generation) and stored rules, None when it has none (now)."""
    generation = ctx.store.bucket_generation(account, bucket)
    text = ctx.store.get_bucket_config_text(account, bucket, KIND)
    return None if generation is None or text is None else (generation, text)


async def apply_bucket(ctx: ServerContext, account: str, bucket: str,
                       held: tuple[int, str], now: float) -> dict[str, int]:  # fmt: skip
    """Apply the rules `held` (the bucket's generation and rules text, read just before) at
    `now`. The pass yields between pages, and the bucket may be deleted, created again or
    given other rules meanwhile: each page's deletions happen only while the bucket and its
    rules are still those, else the bucket is left to the next pass (its new rules, its
    clock) rather than judged by rules it no longer has."""
    expired = aborted = 0
    store = ctx.store
    rules: list[dict[str, Any]] = json.loads(held[1])
    for rule in rules:
        if rule["status"] != "Enabled":
            continue
        days, date = rule["expiration_days"], rule["expiration_date"]
        if days is not None or date is not None:
            after: str | None = None
            while True:
                keys = store.iter_keys(account, bucket, rule["prefix"], after, batch=PAGE)
                page = list(itertools.islice(keys, PAGE))
                if _rules_now(ctx, account, bucket) != held:
                    return {"expired": expired, "aborted": aborted}
                doomed = [
                    record.key
                    for record in page
                    if now >= (due(record.modified, days) if days is not None else _date(date))
                ]
                for key in doomed:
                    expired += int(store.delete_object(account, bucket, key))
                await asyncio.sleep(0)  # one page at a time: the loop serves others between
                if len(page) < PAGE:
                    break
                after = page[-1].key
        if rule["abort_days"] is not None:
            uploads, position = uploads_of(store), 0
            while True:  # a page at a time, like the objects: a bucket may hold millions
                if _rules_now(ctx, account, bucket) != held:
                    return {"expired": expired, "aborted": aborted}
                started = uploads.uploads_page(account, bucket, rule["prefix"], position, PAGE)
                for _, upload in started:
                    if now >= due(upload.created, rule["abort_days"]):
                        aborted += int(uploads.delete(upload.upload_id))
                await asyncio.sleep(0)
                if len(started) < PAGE:
                    break
                position = started[-1][0]
    return {"expired": expired, "aborted": aborted}


async def apply_all(ctx: ServerContext, only: tuple[str, str] | None = None) -> dict[str, int]:
    """Apply every bucket's rules (or one (account, bucket)'s) at that bucket's now; counts of
    what was removed. Passes run one at a time (a pass yields the loop, so the periodic one and
    a clock advance could meet)."""
    total = {"expired": 0, "aborted": 0}
    if ctx.profile.deviations.lifecycle_not_applied or not ctx.profile.lifecycles:
        return total
    lock = ctx.shared.lifecycle_lock
    if lock is None:
        lock = ctx.shared.lifecycle_lock = asyncio.Lock()
    async with lock:
        await _apply_all(ctx, total, only)
    return total


async def _apply_all(
    ctx: ServerContext, total: dict[str, int], only: tuple[str, str] | None
) -> None:
    for account, bucket, _ in ctx.store.bucket_configs(KIND, only):
        held = _rules_now(ctx, account, bucket)  # as they are when the pass gets here
        if held is None:
            continue
        now = clock.now(ctx, account, bucket)
        try:  # one bucket's bad rules (stored before they were validated) never stop the rest
            done = await apply_bucket(ctx, account, bucket, held, now)
        except Exception as exc:  # one line, no traceback: this repeats every pass
            LOG.error("lifecycle rules of %s/%s not applied: %s: %.200s", account, bucket,
                      type(exc).__name__, exc)  # fmt: skip
            continue
        for name, count in done.items():
            total[name] += count


def ensure_running(ctx: ServerContext) -> None:
    """Start the periodic applier in this event loop (once)."""
    task = ctx.shared.lifecycle_task
    if task is not None and not task.done():
        return
    ctx.shared.lifecycle_task = asyncio.get_running_loop().create_task(_loop(ctx))


async def _loop(ctx: ServerContext) -> None:
    interval = float(ctx.profile.lifecycle_apply_interval_seconds)
    while True:
        await asyncio.sleep(interval)
        with contextlib.suppress(Exception):  # a failed pass must not stop later ones
            await apply_all(ctx)
