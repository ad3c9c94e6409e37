"""Blob files that no metadata row names (a kill between rename and commit) go at startup."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from pathlib import Path

from reference_impl.storage.engine import Store


async def _body(data: bytes) -> AsyncIterator[bytes]:
    yield data


def test_unreferenced_blob_is_removed_and_published_one_kept(tmp_path: Path) -> None:
    """Reopening the store removes an orphan blob and keeps every published object's blob."""
    store = Store(tmp_path)
    store.create_bucket("acct", "b", "auto")
    kept = asyncio.run(store.write_blob(_body(b"published"), inline=False))
    store.put_object("acct", "b", "k", kept, "text/plain", {})
    orphan = asyncio.run(store.write_blob(_body(b"never committed"), inline=False))
    store.close()
    assert store.blobs.path(orphan.name).is_file()

    reopened = Store(tmp_path)
    try:
        assert not reopened.blobs.path(orphan.name).exists()
        assert reopened.blobs.path(kept.name).read_bytes() == b"published"
    finally:
        reopened.close()
