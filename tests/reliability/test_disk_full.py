"""A full disk answers 507 InsufficientStorage and keeps nothing of the refused write.

Issue 16 row 8: a PUT on a full disk answered 500 InternalError. ENOSPC (or EDQUOT) from a blob
write and SQLITE_FULL from a metadata commit are now `StorageFull` in the engine, after it has
removed what it wrote; the S3 surface answers 507 (docs/reference-choices.md). Simulated in process
(monkeypatched writes, a capped SQLite file) and, where the machine lets root mount one, on a
real 8 MiB tmpfs through HTTP.
"""

from __future__ import annotations

import asyncio
import errno
import os
import shutil
import subprocess
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import pytest
from reliability.refproc import RefProcess, start

from reference_impl.storage import direct, fastio
from reference_impl.storage.engine import INLINE_MAX, Store
from reference_impl.storage.full import StorageFull

MOUNT_SIZE = "8m"
BIG = 1024 * 1024 + 17  # more than one write batch: streamed through BlobFile
MEDIUM = 200 * 1024  # a file written in one hop (_write_small)
SMALL = 4096  # inline: only SQLite grows


async def _chunks(body: bytes) -> AsyncIterator[bytes]:
    for offset in range(0, len(body), 65536):
        yield body[offset : offset + 65536]


def _enospc(*_: Any) -> None:
    raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))


def _files(root: Path) -> list[Path]:
    return [path for path in root.rglob("*") if path.is_file()]


@pytest.fixture
def store(tmp_path: Path) -> Iterator[Store]:
    opened = Store(tmp_path / "storage")
    opened.create_bucket("acct", "b", "auto")
    yield opened
    opened.close()


@pytest.mark.parametrize(
    ("size", "target"),
    [(MEDIUM, (fastio, "_write_small")), (BIG, (direct.BlobFile, "write"))],
    ids=["one-hop", "streamed"],
)
def test_enospc_while_writing_a_blob_is_storage_full(
    store: Store, monkeypatch: pytest.MonkeyPatch, size: int, target: tuple[Any, str]
) -> None:
    monkeypatch.setattr(*target, _enospc)
    with pytest.raises(StorageFull):
        asyncio.run(store.write_blob(_chunks(b"x" * size)))
    assert not _files(store.blobs.tmp) and not _files(store.blobs.root)


@pytest.mark.parametrize("size", [SMALL, MEDIUM], ids=["inline", "file"])
def test_sqlite_full_at_commit_is_storage_full_and_keeps_nothing(store: Store, size: int) -> None:
    (pages,) = store.db.execute("PRAGMA page_count").fetchone()
    store.db.execute(f"PRAGMA max_page_count={pages}")  # the database file cannot grow
    with pytest.raises(StorageFull):
        for i in range(200):  # the first commits may still fit in free pages
            blob = asyncio.run(store.write_blob(_chunks(b"y" * size)))
            assert (blob.inline is not None) == (size <= INLINE_MAX)
            store.put_object("acct", "b", f"k{i}", blob, "application/octet-stream", {})
    (rows,) = store.db.execute("SELECT count(*) FROM objects").fetchone()
    files = {path.name for path in _files(store.blobs.root)}
    stored = {row[0] for row in store.db.execute("SELECT blob FROM objects WHERE data IS NULL")}
    assert files == stored, "the refused object's blob file was left behind"
    assert rows == i


@pytest.fixture
def small_fs(tmp_path: Path) -> Iterator[Path]:
    """An 8 MiB tmpfs (root only); skipped where mounting is not permitted."""
    mount = tmp_path / "fs"
    mount.mkdir()
    if shutil.which("mount") is None or shutil.which("umount") is None:
        pytest.skip("no mount/umount command here")
    done = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", f"size={MOUNT_SIZE}", "tmpfs", str(mount)],
        capture_output=True,
        timeout=20,
        check=False,
    )
    if done.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here: {done.stderr.decode(errors='replace')[:200]}")
    try:
        yield mount
    finally:
        subprocess.run(["umount", "-l", str(mount)], capture_output=True, timeout=20, check=False)


def _fill(ref: RefProcess, prefix: str, size: int, limit: int) -> tuple[list[str], Any]:
    """PUT objects until one is refused; every answer is 200 or 507, never a 500."""
    wire = ref.wire()
    stored: list[str] = []
    for i in range(limit):
        key = f"{prefix}{i:04d}"
        reply = wire.put_object("full", key, os.urandom(size))
        if reply.status != 200:
            assert (reply.status, reply.error_code) == (507, "InsufficientStorage"), reply.body
            return stored, reply
        stored.append(key)
    raise AssertionError(f"{limit} PUTs of {size} bytes fit in {MOUNT_SIZE}")


@pytest.mark.slow
def test_real_full_filesystem_answers_507(small_fs: Path) -> None:
    ref = start(small_fs / "data")
    try:
        wire = ref.wire()
        wire.create_bucket("full").assert_ok()
        files, _ = _fill(ref, "big-", BIG, 40)
        storage = small_fs / "data" / "storage"
        assert not _files(storage / "tmp"), "a refused PUT left its temp file"
        for key in files[: len(files) // 2 + 1]:  # room again for small objects
            assert wire.request("DELETE", "full", key).status == 204
        kept = files[len(files) // 2 + 1 :]
        small, _ = _fill(ref, "small-", SMALL * 8, 4000)
        listed = wire.list_objects_v2("full", **{"max-keys": "1000"}).assert_ok()
        names = sorted(k.split(b"</Key>")[0].decode() for k in listed.body.split(b"<Key>")[1:])
        assert names == sorted(kept + small)[:1000]
        for key in kept:
            assert wire.get_object("full", key).status == 200
        assert not _files(storage / "tmp")
        blob_files = {p.name for p in _files(storage / "blobs")}
        assert len(blob_files) == len(kept), "a blob without an object, or an object without one"
        assert ref.process.poll() is None
    finally:
        ref.stop()
