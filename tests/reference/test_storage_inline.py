"""Small bodies live in their object's SQLite row; larger ones in blob files (engine.py)."""

from __future__ import annotations

import asyncio
import hashlib
import sqlite3
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from reference_impl.storage.blobs import BlobInfo
from reference_impl.storage.engine import INLINE_MAX, Store


async def _body(data: bytes) -> AsyncIterator[bytes]:
    for start in range(0, len(data), 10_000):
        yield data[start : start + 10_000]
    if not data:
        yield b""


def _put(store: Store, key: str, data: bytes) -> BlobInfo:
    blob = asyncio.run(store.write_blob(_body(data)))
    store.put_object("acct", "b", key, blob, "application/octet-stream", {})
    return blob


def _files(root: Path) -> set[str]:
    return {p.name for p in (root / "blobs").rglob("*") if p.is_file()}


@pytest.fixture
def store(tmp_path: Path) -> Store:
    opened = Store(tmp_path)
    opened.create_bucket("acct", "b", "auto")
    return opened


@pytest.mark.parametrize("size", [0, 1, 4096, INLINE_MAX])
def test_small_body_is_inline_and_reads_back(store: Store, tmp_path: Path, size: int) -> None:
    data = bytes(range(256)) * (size // 256) + b"x" * (size % 256)
    blob = _put(store, "k", data)
    assert blob.inline == data and _files(tmp_path) == set()
    record = store.get_object("acct", "b", "k")
    assert record is not None and record.inline
    assert record.etag == hashlib.md5(data).hexdigest() and record.size == size
    assert b"".join(store.read_object(record)) == data
    assert b"".join(store.read_object(record, 1, 3)) == data[1:4]


def test_body_above_the_limit_is_a_file(store: Store, tmp_path: Path) -> None:
    data = b"y" * (INLINE_MAX + 1)
    blob = _put(store, "k", data)
    assert blob.inline is None and _files(tmp_path) == {blob.name}
    record = store.get_object("acct", "b", "k")
    assert record is not None and not record.inline
    assert b"".join(store.read_object(record)) == data


def test_overwrites_and_deletes_remove_only_file_bodies(store: Store, tmp_path: Path) -> None:
    big = _put(store, "k", b"z" * (INLINE_MAX + 10))
    _put(store, "k", b"small now")  # file -> inline: the file goes
    assert _files(tmp_path) == set()
    big = _put(store, "k", b"z" * (INLINE_MAX + 10))  # inline -> file
    assert _files(tmp_path) == {big.name}
    assert store.delete_object("acct", "b", "k")
    assert _files(tmp_path) == set()
    _put(store, "k2", b"inline")
    assert store.delete_object("acct", "b", "k2")
    assert store.get_object("acct", "b", "k2") is None


def test_listing_records_say_inline_but_carry_no_body(store: Store) -> None:
    _put(store, "a", b"small")
    listed = list(store.iter_keys("acct", "b", "", None))
    assert [(r.key, r.inline, r.data) for r in listed] == [("a", True, None)]
    with pytest.raises(RuntimeError):
        store.read_object(listed[0])


def test_inline_bodies_survive_a_reopen(store: Store, tmp_path: Path) -> None:
    _put(store, "k", b"kept across restarts")
    store.close()
    reopened = Store(tmp_path)
    try:
        record = reopened.get_object("acct", "b", "k")
        assert record is not None
        assert b"".join(reopened.read_object(record)) == b"kept across restarts"
    finally:
        reopened.close()


def test_a_data_dir_from_before_inline_bodies_is_upgraded(tmp_path: Path) -> None:
    """The objects table of an older data dir gains the column; its file bodies still read."""
    old = Store(tmp_path)
    old.create_bucket("acct", "b", "auto")
    blob = asyncio.run(old.write_blob(_body(b"old file body"), inline=False))
    old.put_object("acct", "b", "k", blob, "text/plain", {})
    old.close()
    db = sqlite3.connect(tmp_path / "meta.sqlite3")
    db.execute("ALTER TABLE objects DROP COLUMN data")
    db.commit()
    db.close()
    upgraded = Store(tmp_path)
    try:
        record = upgraded.get_object("acct", "b", "k")
        assert record is not None and not record.inline
        assert b"".join(upgraded.read_object(record)) == b"old file body"
    finally:
        upgraded.close()
