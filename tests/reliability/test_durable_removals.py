"""With `--durable`, a replaced or deleted body's file outlives the commit until it is on disk.

hostile14: `put_object`, `delete_object`, `delete_bucket` and the multipart store unlinked the
previous blob right after the SQLite commit, but with `synchronous=NORMAL` that commit is only in
the page cache until the WAL barrier (storage/durability.py) fsyncs it. A machine crash in that
window can keep the unlink (a journaled directory change) and lose the commit: the old row comes
back on restart naming a file that is gone, so an object whose replacement or delete was never
acknowledged reads as a 500 (lost data). The store now retires such files and removes them only
once a barrier covers the commit that dropped them; a crash before that leaves an unreferenced
file that startup removes (`Store._remove_unreferenced_blobs`).
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import pytest

from reference_impl.storage.engine import INLINE_MAX, Store
from reference_impl.storage.multipart import uploads_of

BODY = b"d" * (INLINE_MAX + 1)  # a file, not an inline row


async def _one(body: bytes) -> AsyncIterator[bytes]:
    yield body


@pytest.fixture
def store(tmp_path: Path) -> Iterator[Store]:
    opened = Store(tmp_path / "storage", defer_removals=True)
    opened.create_bucket("acct", "b", "auto")
    yield opened
    opened.close()


def _put(store: Store, key: str) -> str:
    blob = asyncio.run(store.write_blob(_one(BODY)))
    return store.put_object("acct", "b", key, blob, "application/octet-stream", {}).blob


def _exists(store: Store, name: str) -> bool:
    return store.blobs.path(name).exists()


def test_replaced_body_stays_until_the_replacement_is_durable(store: Store) -> None:
    old = _put(store, "k")
    asyncio.run(store.durable())
    new = _put(store, "k")
    assert _exists(store, old), "the old body went before the replacing commit was on disk"
    asyncio.run(store.durable())
    assert not _exists(store, old) and _exists(store, new)


def test_deleted_body_stays_until_the_delete_is_durable(store: Store) -> None:
    old = _put(store, "k")
    asyncio.run(store.durable())
    assert store.delete_object("acct", "b", "k")
    assert _exists(store, old)
    asyncio.run(store.durable())
    assert not _exists(store, old)


def test_aborted_upload_parts_stay_until_the_abort_is_durable(store: Store) -> None:
    uploads = uploads_of(store)
    upload = uploads.create("acct", "b", "k", "application/octet-stream", {})
    blob = asyncio.run(store.write_blob(_one(BODY), inline=False))
    uploads.put_part(upload.upload_id, 1, blob)
    asyncio.run(store.durable())
    assert uploads.delete(upload.upload_id)
    assert _exists(store, blob.name)
    asyncio.run(store.durable())
    assert not _exists(store, blob.name)


def test_a_restart_before_the_barrier_removes_what_no_row_names(tmp_path: Path) -> None:
    store = Store(tmp_path / "storage", defer_removals=True)
    store.create_bucket("acct", "b", "auto")
    old = _put(store, "k")
    _put(store, "k")
    store.close()  # no barrier: the retired file is still there
    again = Store(tmp_path / "storage", defer_removals=True)
    try:
        assert not _exists(again, old)
    finally:
        again.close()


def test_deleted_bucket_bodies_stay_until_the_delete_is_durable(store: Store) -> None:
    old = _put(store, "k")
    asyncio.run(store.durable())
    store.delete_bucket("acct", "b")
    assert _exists(store, old)
    asyncio.run(store.durable())
    assert not _exists(store, old)
