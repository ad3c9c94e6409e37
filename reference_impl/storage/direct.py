"""The file a large blob streams into: O_DIRECT writes where the filesystem allows them.

Why: on these VMs a buffered `write()` copies into the page cache at ~350 MB/s of one core,
the largest single cost of a 1 GiB PUT (docs/benchmarks.md), while O_DIRECT from an aligned
buffer moves 1 MiB blocks at ~2 GB/s with almost no CPU. O_DIRECT needs the buffer address,
file offset and length aligned, so every write but the last is a multiple of `ALIGN` copied
into a page-aligned mmap buffer, and the unaligned tail goes through the page cache.
Filesystems that refuse O_DIRECT (tmpfs) get plain writes. Durability does not depend on it:
the caller still fsyncs before the rename.
"""

from __future__ import annotations

import asyncio
import errno
import fcntl
import mmap
import os
from collections import deque
from concurrent.futures import Future, ThreadPoolExecutor, wait
from pathlib import Path

ALIGN = 4096  # a multiple of every logical block size O_DIRECT may ask for
PIECE = 1 << 20  # the aligned bounce buffer: one write() (or read) at a time per stream
# 1 MiB reads in flight per large GET: 1 GiB GET 585-796 MB/s with 1, 790-1,372 with 2,
# 1,124-1,465 with 4 (three runs each, docs/benchmarks.md); 4 MiB of buffers per stream
READ_AHEAD = 4
DIRECT_READ_MIN = 8 << 20  # smaller reads go through the page cache (and may hit it)
_O_DIRECT = getattr(os, "O_DIRECT", 0)
_READ_POOL = ThreadPoolExecutor(max_workers=16, thread_name_prefix="blob-read")


def _write_all(fd: int, data: memoryview) -> None:
    while data:
        data = data[os.write(fd, data) :]


class BlobFile:
    """One temp file being written by one upload (one write job in flight at a time)."""

    def __init__(self, path: str) -> None:
        flags = os.O_WRONLY | os.O_CREAT | os.O_TRUNC
        self.direct = bool(_O_DIRECT)
        try:
            self.fd = os.open(path, flags | _O_DIRECT, 0o644)
        except OSError as err:
            if err.errno != errno.EINVAL:
                raise
            self.direct = False
            self.fd = os.open(path, flags, 0o644)
        self._bounce = mmap.mmap(-1, PIECE) if self.direct else None

    def writable(self, size: int) -> int:
        """How many of `size` buffered bytes to write now; the rest waits for more data."""
        return size - size % ALIGN if self.direct else size

    def write(self, data: bytes | bytearray) -> None:
        """Append `data`; with O_DIRECT every call but the last must be a multiple of ALIGN."""
        view = memoryview(data)
        done = self._write_direct(view[: len(view) - len(view) % ALIGN]) if self.direct else 0
        if done < len(view):
            self._stop_direct()  # the tail (or everything, if the filesystem refused)
            _write_all(self.fd, view[done:])

    def _write_direct(self, view: memoryview) -> int:
        assert self._bounce is not None
        done = 0
        while done < len(view):
            size = min(PIECE, len(view) - done)
            self._bounce[:size] = view[done : done + size]
            try:
                with memoryview(self._bounce) as bounce:
                    written = os.write(self.fd, bounce[:size])
            except OSError as err:
                if err.errno != errno.EINVAL:
                    raise
                return done  # refused after all: the caller writes the rest buffered
            done += written
            if written != size:  # short write: the offset is no longer aligned
                return done
        return done

    def _stop_direct(self) -> None:
        if self.direct:
            flags = fcntl.fcntl(self.fd, fcntl.F_GETFL)
            fcntl.fcntl(self.fd, fcntl.F_SETFL, flags & ~_O_DIRECT)
            self.direct = False

    def close(self) -> None:
        os.close(self.fd)
        if self._bounce is not None:
            self._bounce.close()


def open_reader(path: Path, start: int, length: int | None) -> DirectReader | None:
    """A reader of a large range with O_DIRECT, or None when small or refused (use buffered).

    Blobs are written around the page cache, so a read of one is usually cold: buffered
    256 KiB reads then cost ~1.7 CPU-s per GiB to fill the cache, direct 1 MiB reads ~0.1.
    Opened now, so a later delete or overwrite cannot break a reply already under way.
    """
    if not _O_DIRECT:
        return None
    try:
        fd = os.open(path, os.O_RDONLY | _O_DIRECT)
    except OSError as err:
        if err.errno != errno.EINVAL:
            raise
        return None
    end = os.fstat(fd).st_size if length is None else start + length
    if end - start < DIRECT_READ_MIN:
        os.close(fd)
        return None
    return DirectReader(fd, start, end)


class DirectReader:
    """The pieces of one range, read ahead on pool threads; iterate it sync or async.

    preadv releases the GIL, so the disk works while the event loop sends earlier pieces;
    `READ_AHEAD` reads stay in flight (a deeper queue evens out the VM disk's latency).
    Async iteration awaits each read (the loop serves other requests meanwhile); plain
    iteration blocks, for callers that copy or hash a blob off the request path.
    """

    def __init__(self, fd: int, start: int, end: int) -> None:
        self._fd, self._end = fd, end
        self._next = start - start % ALIGN  # reads start on a block; the head is cut off
        self._skip = start - self._next
        self._buffers = [mmap.mmap(-1, PIECE) for _ in range(READ_AHEAD)]
        self._free = list(self._buffers)
        self._inflight: deque[tuple[Future[int], mmap.mmap, int]] = deque()
        self._closed = False
        self._fill()

    def _fill(self) -> None:
        while self._free and self._next < self._end:
            buffer = self._free.pop()
            job = _READ_POOL.submit(_pread, self._fd, buffer, self._next)
            self._inflight.append((job, buffer, self._next))
            self._next += PIECE

    def _take(self, got: int, buffer: mmap.mmap, offset: int) -> bytes:
        """Copy out a piece, then reuse its buffer for the next read."""
        usable = min(got, self._end - offset)
        piece = buffer[self._skip : usable] if usable > self._skip else b""
        self._skip = 0
        self._free.append(buffer)
        if got < PIECE:  # end of file: issue nothing further
            self._next = self._end
        self._fill()
        return piece

    def __iter__(self) -> DirectReader:
        return self

    def __next__(self) -> bytes:
        while self._inflight:
            job, buffer, offset = self._inflight.popleft()
            piece = self._take(job.result(), buffer, offset)
            if piece:
                return piece
        self.close()
        raise StopIteration

    def __aiter__(self) -> DirectReader:
        return self

    async def __anext__(self) -> bytes:
        while self._inflight:
            job, buffer, offset = self._inflight[0]  # stays listed while awaited: a dropped
            got = await asyncio.wrap_future(job)  # download's close() must wait for it too
            self._inflight.popleft()
            piece = self._take(got, buffer, offset)
            if piece:
                return piece
        self.close()
        raise StopAsyncIteration

    def close(self) -> None:
        """Idempotent; waits for reads still running, since they write into the buffers."""
        if self._closed:
            return
        self._closed = True
        try:
            wait([job for job, _, _ in self._inflight])
            self._inflight.clear()
            for buffer in self._buffers:
                buffer.close()
        finally:  # whatever happened to the buffers, the file (maybe deleted) is let go
            os.close(self._fd)

    def __del__(self) -> None:  # an abandoned reader must not leak its descriptor
        if not getattr(self, "_closed", True):  # False only once __init__ completed
            self.close()


def _pread(fd: int, bounce: mmap.mmap, offset: int) -> int:
    try:
        return os.preadv(fd, [bounce], offset)
    except OSError as err:  # opened, but direct reads refused: read through the page cache
        if err.errno != errno.EINVAL:
            raise
        fcntl.fcntl(fd, fcntl.F_SETFL, fcntl.fcntl(fd, fcntl.F_GETFL) & ~_O_DIRECT)
        return os.preadv(fd, [bounce], offset)


def direct_supported(directory: Path) -> bool:
    """Whether files in `directory` can be opened with O_DIRECT (tests and diagnostics)."""
    probe = directory / ".o_direct_probe"
    try:
        os.close(os.open(probe, os.O_WRONLY | os.O_CREAT | _O_DIRECT, 0o600))
    except OSError:
        return False
    finally:
        probe.unlink(missing_ok=True)
    return bool(_O_DIRECT)
