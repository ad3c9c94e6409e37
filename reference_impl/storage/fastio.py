"""The blob write path: hash and write off the event loop, in batches, with early writeback.

Why this exists (profile of a 1 GiB PUT, docs/benchmarks.md): hashing three digests and
writing 64 KiB pieces on the event loop left the loop, which also parses HTTP, at ~100 MB/s.
Here the loop only gathers pieces; every `BATCH` bytes go to two ordered stages on worker
threads (storage/stages.py), one hashing (hashlib releases the GIL for large buffers) and one
writing, while the loop receives the next batch. Each stage may run `DEPTH` batches ahead of
the loop's waiting, so memory stays at about DEPTH + 1 batches per upload.

Batches are written with O_DIRECT where the filesystem allows it (storage/direct.py): no
page-cache copy. Durability is unchanged: the caller's 200 still waits for an fsync of the
whole file. With buffered writes, dirty pages are pushed out early (an fdatasync in the
background every `WRITEBACK` bytes) so that the final fsync has little left to do.

A body smaller than one batch (the common small object) is hashed on the loop (microseconds)
and written, fsynced and closed in a single thread hop; one no larger than `keep_inline` is not
written at all but handed back, for the caller to store in its metadata transaction.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import os
from collections import deque
from collections.abc import AsyncIterator, Callable
from concurrent.futures import Future, ThreadPoolExecutor, wait
from dataclasses import dataclass
from typing import Any

from reference_impl.atomic_file import sync_directory
from reference_impl.storage.direct import BlobFile
from reference_impl.storage.stages import SerialStage

BATCH = 1 << 20
# batches each stage may hold before the loop waits: one job per batch and stage, in order.
# 1 GiB through write_blob alone on a 2-core VM: 185-253 MB/s with hash and write of a batch
# joined in one job (docs/benchmarks.md, 2026-11-24); see there for the figure with stages.
DEPTH = 4
WRITEBACK = 64 << 20
# fsync waits on the disk, not the CPU: more threads than cores let concurrent uploads' fsyncs
# share journal commits instead of queueing behind asyncio's small default pool.
_SYNC_POOL = ThreadPoolExecutor(max_workers=32, thread_name_prefix="blob-io")
# a separate pool: a batch job waits on its write, which must never queue behind batch jobs
_WRITE_POOL = ThreadPoolExecutor(max_workers=32, thread_name_prefix="blob-write")


class SizeExceeded(Exception):
    """The body grew beyond max_size (the caller maps it to its own error)."""


@dataclass(frozen=True)
class Written:
    size: int
    md5_hex: str
    sha256_hex: str | None  # None unless asked for (a signed payload hash to check)
    data: bytes | None = None  # the whole body, when it was kept inline instead of written


def _submit(func: Callable[..., Any], *args: Any) -> Future[Any]:
    return _SYNC_POOL.submit(func, *args)


async def _wait(job: Future[Any]) -> Any:
    return await asyncio.wrap_future(job)


def _close_after(file: BlobFile, jobs: list[Future[Any]]) -> None:
    """Close only once no job still uses the fd (a cancelled await does not stop a thread)."""
    wait(jobs)
    file.close()


def _write_all(fd: int, data: bytes | bytearray) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view) :]


class _Hasher:
    def __init__(self, sha256: bool) -> None:
        self.md5 = hashlib.md5()
        self.sha256 = hashlib.sha256() if sha256 else None

    def update(self, data: bytes | bytearray) -> None:
        self.md5.update(data)
        if self.sha256 is not None:
            self.sha256.update(data)

    def result(self, size: int, data: bytes | None = None) -> Written:
        sha = self.sha256.hexdigest() if self.sha256 is not None else None
        return Written(size, self.md5.hexdigest(), sha, data)


def _write_small(tmp_path: str, data: bytes | bytearray) -> None:
    """Create, write and fsync a small blob: one thread hop for the whole file."""
    fd = os.open(tmp_path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
    try:
        _write_all(fd, data)
        os.fsync(fd)
    finally:
        os.close(fd)


def _publish(tmp_path: str, final: str) -> list[str]:
    """On the loop, after the awaited fsync: a cancelled upload never publishes.

    Returns the directories whose entries changed, to be fsynced (`_sync_directories`) so that
    the rename survives a power loss as the file's bytes do.
    """
    directory = os.path.dirname(final)
    changed = [directory]
    if not os.path.isdir(directory):
        os.makedirs(directory, exist_ok=True)
        changed.append(os.path.dirname(directory))  # the parent gained an entry as well
    os.replace(tmp_path, final)
    return changed


def _sync_directories(directories: list[str]) -> None:
    for directory in directories:
        sync_directory(directory)


async def write_blob(
    chunks: AsyncIterator[bytes],
    tmp_path: str,
    final: str,
    *,
    sha256: bool,
    max_size: int | None,
    accept: Callable[[Written], None],
    keep_inline: int = 0,
) -> Written:
    """Stream `chunks` to tmp_path, fsync, let `accept` veto (raise), then rename to final.

    The temp file is removed on any failure, so nothing partial ever becomes visible. A body
    of at most `keep_inline` bytes is returned in `Written.data` and no file is written.
    """
    hasher = _Hasher(sha256)
    buf = bytearray()
    size = 0
    file: BlobFile | None = None
    hashing, writing = SerialStage(_SYNC_POOL), SerialStage(_WRITE_POOL)
    inflight: deque[Future[Any]] = deque()  # both stages' jobs, oldest first
    pending: Future[Any] | None = None
    flushing: Future[Any] | None = None
    unflushed = 0
    try:
        async for chunk in chunks:
            if not chunk:
                continue
            size += len(chunk)
            if max_size is not None and size > max_size:
                raise SizeExceeded()
            buf += chunk
            if len(buf) < BATCH:
                continue
            if file is None:
                file = BlobFile(tmp_path)
            cut = file.writable(len(buf))  # O_DIRECT: whole blocks now, the rest later
            data, buf = buf, buf[cut:]
            del data[cut:]
            inflight.append(hashing.submit(hasher.update, data))
            inflight.append(writing.submit(file.write, data))
            while len(inflight) > 2 * DEPTH:
                await _wait(inflight.popleft())
            unflushed += len(data)
            if not file.direct and unflushed >= WRITEBACK and (flushing is None or flushing.done()):
                if flushing is not None:
                    flushing.result()
                flushing = _submit(os.fdatasync, file.fd)
                unflushed = 0
        if file is None and keep_inline > 0 and size <= keep_inline:  # for the caller to store
            hasher.update(buf)
            written = hasher.result(size, bytes(buf))
            accept(written)
            return written
        if file is None:  # the whole body fits one batch
            hasher.update(buf)
            written = hasher.result(size)
            accept(written)
            await _wait(_submit(_write_small, tmp_path, buf))
        else:
            inflight.append(hashing.submit(hasher.update, buf))
            inflight.append(writing.submit(file.write, buf))
            while inflight:
                await _wait(inflight.popleft())
            if flushing is not None:
                await _wait(flushing)
            pending = _submit(os.fsync, file.fd)
            await _wait(pending)
            written = hasher.result(size)
            accept(written)
        changed = _publish(tmp_path, final)
        await _wait(_submit(_sync_directories, changed))
        return written
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp_path)
        raise
    finally:
        if file is not None:
            jobs = (*inflight, pending, flushing)
            busy = [job for job in jobs if job is not None and not job.done()]
            if busy:
                _submit(_close_after, file, busy)
            else:
                file.close()
