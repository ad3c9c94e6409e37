"""A lifecycle pass applies the rules a bucket holds when it gets to it, never older ones.

Found by the hostile round of 2026-11-27 (hostile7). A pass read every bucket's rules once at
its start, then walked the buckets page by page, yielding the event loop between pages (it
must: docs/architecture.md, "Bounded work per request"). A bucket deleted and created again
meanwhile, or whose rules were removed or replaced meanwhile, was then judged by the rules it
no longer had: the new bucket's fresh objects were expired by its predecessor's rules. Now
each bucket's rules are read when the pass reaches it and checked again before each page's
deletions; a bucket whose rules changed is left to the next pass.
"""

from __future__ import annotations

import asyncio
import datetime as dt
from pathlib import Path
from typing import Any

import pytest

from reference_impl.context import ServerContext
from reference_impl.identity import default_identity
from reference_impl.profile import Profile
from reference_impl.services.lifecycle.applier import PAGE, apply_all
from reference_impl.services.lifecycle.config import KIND
from reference_impl.storage import multipart
from reference_impl.storage.blobs import BlobInfo
from reference_impl.storage.engine import Store

PAST = "2000-01-01T00:00:00Z"  # expires everything at once
FUTURE = "2999-01-01T00:00:00Z"  # expires nothing, but the pass walks every page


def _rule(date: str, prefix: str = "") -> list[dict[str, Any]]:
    return [{"id": "r", "status": "Enabled", "prefix": prefix, "expiration_days": None,
             "expiration_date": date, "abort_days": None}]  # fmt: skip


def _put(ctx: ServerContext, bucket: str, key: str) -> None:
    blob = BlobInfo(name=key.replace("/", "_"), size=1, md5_hex="9dd4e461268c8034f5c8564e155c67a6",
                    inline=b"x", epoch=ctx.store.epoch)  # fmt: skip
    ctx.store.put_object(ctx.identity.account_id, bucket, key, blob, "text/plain", {})


@pytest.fixture
def ctx(tmp_path: Path) -> Any:
    day = dt.date.today()
    store = Store(tmp_path / "storage")
    context = ServerContext(tmp_path, Profile(day, {}), default_identity(), day, store)
    account = context.identity.account_id
    store.create_bucket(account, "walked", "auto")  # rules first: the pass reaches it first
    store.put_bucket_config(account, "walked", KIND, _rule(FUTURE))
    for i in range(PAGE * 4):
        _put(context, "walked", f"k/{i:04d}")
    store.create_bucket(account, "doomed", "auto")
    store.put_bucket_config(account, "doomed", KIND, _rule(PAST))
    yield context
    store.close()


def _during_pass(ctx: ServerContext, change: Any) -> dict[str, int]:
    """Run a pass and make `change` once the pass has yielded the loop (mid-walk)."""

    async def scenario() -> dict[str, int]:
        task = asyncio.get_running_loop().create_task(apply_all(ctx))
        await asyncio.sleep(0)  # the pass starts and yields after its first page
        change()
        return await task

    return asyncio.run(scenario())


def test_recreated_bucket_keeps_its_objects(ctx: ServerContext) -> None:
    """Deleted and created again while the pass walked another bucket, with no rules now:
    nothing of the new bucket expires."""
    account = ctx.identity.account_id

    def recreate() -> None:
        ctx.store.delete_bucket(account, "doomed")
        ctx.store.create_bucket(account, "doomed", "auto")
        _put(ctx, "doomed", "fresh")

    applied = _during_pass(ctx, recreate)
    assert ctx.store.get_object(account, "doomed", "fresh") is not None, applied


def test_rules_removed_mid_pass_expire_nothing(ctx: ServerContext) -> None:
    account = ctx.identity.account_id
    _put(ctx, "doomed", "kept")
    applied = _during_pass(ctx, lambda: ctx.store.delete_bucket_config(account, "doomed", KIND))
    assert ctx.store.get_object(account, "doomed", "kept") is not None, applied


def test_rules_narrowed_mid_pass_apply_as_they_are_now(ctx: ServerContext) -> None:
    """Replaced by a rule on another prefix: only that prefix expires."""
    account = ctx.identity.account_id
    _put(ctx, "doomed", "kept")
    _put(ctx, "doomed", "tmp/gone")

    def narrow() -> None:
        ctx.store.put_bucket_config(account, "doomed", KIND, _rule(PAST, "tmp/"))

    _during_pass(ctx, narrow)
    assert ctx.store.get_object(account, "doomed", "kept") is not None
    assert ctx.store.get_object(account, "doomed", "tmp/gone") is None


def test_unchanged_rules_still_expire(ctx: ServerContext) -> None:
    """The control: nothing changes during the pass, the doomed bucket's objects expire."""
    account = ctx.identity.account_id
    _put(ctx, "doomed", "old")
    applied = _during_pass(ctx, lambda: None)
    assert ctx.store.get_object(account, "doomed", "old") is None
    assert applied["expired"] == 1


def test_upload_aborts_go_a_page_at_a_time(tmp_path: Path) -> None:
    """Stale uploads are aborted a page at a time with the loop yielded between pages, like
    expired objects: the pass read and aborted every upload of the bucket in one go (creating
    an upload costs a client one small request)."""
    day = dt.date.today()
    store = Store(tmp_path / "storage")
    ctx = ServerContext(tmp_path, Profile(day, {}), default_identity(), day, store)
    account = ctx.identity.account_id
    store.create_bucket(account, "stale", "auto")
    uploads = multipart.uploads_of(store)
    for i in range(PAGE * 6):
        uploads.create(account, "stale", f"k{i:04d}", "text/plain", {})
    rules = [{"id": "r", "status": "Enabled", "prefix": "", "expiration_days": None,
              "expiration_date": None, "abort_days": 1}]  # fmt: skip
    store.put_bucket_config(account, "stale", KIND, rules)
    store.clock.advance(3 * 86400)  # every upload is 3 days old

    async def scenario() -> tuple[int, dict[str, int]]:
        task = asyncio.get_running_loop().create_task(apply_all(ctx))
        await asyncio.sleep(0)  # the pass runs until it first yields
        left = len(uploads.list_uploads(account, "stale"))
        return left, await task

    left, applied = asyncio.run(scenario())
    try:
        assert applied["aborted"] == PAGE * 6 and not uploads.list_uploads(account, "stale")
        assert left >= PAGE * 5, f"{PAGE * 6 - left} uploads aborted before the first yield"
    finally:
        store.close()
