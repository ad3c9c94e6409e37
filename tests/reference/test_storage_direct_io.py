"""Large blobs are written and read around the page cache; bytes and ranges stay exact."""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import os
import time
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from reference_impl.storage import direct
from reference_impl.storage.engine import Store

SIZE = direct.DIRECT_READ_MIN + 3 * direct.PIECE + 12_345  # unaligned, several pieces


def _data(size: int) -> bytes:
    block = hashlib.sha256(b"seed").digest() * 4096
    return (block * (size // len(block) + 1))[:size]


async def _chunks(data: bytes, piece: int) -> AsyncIterator[bytes]:
    for start in range(0, len(data), piece):
        yield data[start : start + piece]


@pytest.fixture(scope="module")
def stored(tmp_path_factory: pytest.TempPathFactory) -> tuple[Store, str, bytes]:
    store = Store(tmp_path_factory.mktemp("direct"))
    store.create_bucket("acct", "b", "auto")
    data = _data(SIZE)
    blob = asyncio.run(store.write_blob(_chunks(data, 65_521)))  # odd chunks: unaligned batches
    assert blob.md5_hex == hashlib.md5(data).hexdigest()
    store.put_object("acct", "b", "k", blob, "application/octet-stream", {})
    return store, blob.name, data


def test_large_blob_bytes_are_exact(stored: tuple[Store, str, bytes]) -> None:
    store, name, data = stored
    assert store.blobs.path(name).stat().st_size == len(data)
    assert b"".join(store.blobs.read(name)) == data


@pytest.mark.parametrize(
    "start,length",
    [(0, None), (1, direct.DIRECT_READ_MIN), (4095, direct.DIRECT_READ_MIN + 2), (SIZE - 9, 9)],
)
def test_ranges_are_exact(stored: tuple[Store, str, bytes], start: int, length: int | None) -> None:
    store, name, data = stored
    want = data[start:] if length is None else data[start : start + length]
    assert b"".join(store.blobs.read(name, start, length)) == want


def test_large_reads_go_direct_small_ones_do_not(stored: tuple[Store, str, bytes]) -> None:
    store, name, _ = stored
    path = store.blobs.path(name)
    if not direct.direct_supported(path.parent):
        pytest.skip("this filesystem refuses O_DIRECT")
    reader = direct.open_reader(path, 0, None)
    assert reader is not None
    reader.close()
    assert direct.open_reader(path, 0, direct.DIRECT_READ_MIN - 1) is None


def test_filesystem_without_o_direct_falls_back(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """tmpfs refuses O_DIRECT at open (EINVAL): writes and reads go through the page cache."""
    real_open = os.open

    def refusing_open(path: str | os.PathLike[str], flags: int, *args: int) -> int:
        if flags & getattr(os, "O_DIRECT", 0):
            raise OSError(22, "Invalid argument")
        return real_open(path, flags, *args)

    monkeypatch.setattr(os, "open", refusing_open)
    store = Store(tmp_path)
    store.create_bucket("acct", "b", "auto")
    data = _data(direct.DIRECT_READ_MIN + 5)
    blob = asyncio.run(store.write_blob(_chunks(data, 1 << 20)))
    assert b"".join(store.blobs.read(blob.name)) == data
    assert b"".join(store.blobs.read(blob.name, 7, 100)) == data[7:107]


def _open_on(path: object) -> int:
    """How many of this process's descriptors are open on `path`."""
    count = 0
    for fd in os.listdir("/proc/self/fd"):
        with contextlib.suppress(OSError):  # closed meanwhile
            count += os.readlink(f"/proc/self/fd/{fd}") == str(path)
    return count


def test_async_iteration_awaits_each_piece_and_closes(stored: tuple[Store, str, bytes]) -> None:
    """GET streams a large blob by awaiting reads, so the event loop is free meanwhile."""
    store, name, data = stored
    path = store.blobs.path(name)
    if not direct.direct_supported(path.parent):
        pytest.skip("this filesystem refuses O_DIRECT")

    async def read_all(start: int, length: int) -> bytes:
        reader = direct.open_reader(path, start, length)
        assert reader is not None
        return b"".join([piece async for piece in reader])

    assert asyncio.run(read_all(5, SIZE - 5)) == data[5:]

    async def read_one_piece() -> tuple[bytes, int, int]:
        before = _open_on(path)  # on the blob only: other threads of the worker open theirs
        reader = direct.open_reader(path, 0, None)
        assert reader is not None
        first = await reader.__anext__()
        reader.close()
        reader.close()  # idempotent
        return first, before, _open_on(path)

    first, before, after = asyncio.run(read_one_piece())
    assert first == data[: len(first)] and len(first) == direct.PIECE
    assert after == before, "the reader's descriptor is still open after close()"


def test_a_read_cancelled_mid_flight_closes_cleanly(
    stored: tuple[Store, str, bytes], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A dropped download cancels the await of a read still running on a pool thread.

    close() must wait for that read too: closing its mmap while preadv holds it raised
    `BufferError: cannot close exported pointers exist` and skipped closing the file.
    """
    store, name, _ = stored
    path = store.blobs.path(name)
    if not direct.direct_supported(path.parent):
        pytest.skip("this filesystem refuses O_DIRECT")
    real = direct._pread

    def slow_pread(fd: int, bounce: Any, offset: int) -> int:
        with memoryview(bounce):  # as preadv holds the buffer while the disk works
            time.sleep(0.5 if offset == 0 else 0.01)  # the first read outlasts the others
        return real(fd, bounce, offset)

    monkeypatch.setattr(direct, "_pread", slow_pread)

    async def drop_mid_read() -> int:
        reader = direct.open_reader(path, 0, None)
        assert reader is not None
        pending = asyncio.ensure_future(reader.__anext__())
        await asyncio.sleep(0.05)  # the first read is running on its thread
        pending.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await pending
        reader.close()
        return reader._fd

    fd = asyncio.run(drop_mid_read())
    with pytest.raises(OSError):
        os.fstat(fd)
