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
from concurrent.futures import Future, ThreadPoolExecutor, wait
from pathlib import Path

ALIGN = 4096  # a multiple of every logical block size O_DIRECT may ask for
PIECE = 1 << 20  # the aligned bounce buffer: one write() (or read) at a time per stream
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
    """The pieces of one range, each read ahead on a pool thread; iterate it sync or async.

    preadv releases the GIL, so the disk works while the event loop sends the previous piece.
    Async iteration awaits the read (the loop serves other requests meanwhile); plain
    iteration blocks, for callers that copy or hash a blob off the request path.
    """

    def __init__(self, fd: int, start: int, end: int) -> None:
        self._fd, self._end = fd, end
        self._bounce = mmap.mmap(-1, PIECE)
        self._offset = start - start % ALIGN  # reads start on a block; the head is cut off
        self._skip = start - self._offset
        self._ahead: Future[int] | None = _READ_POOL.submit(_pread, fd, self._bounce, self._offset)
        self._closed = False

    def _take(self, got: int) -> bytes:
        """Copy out the piece just read, then start reading the next into the same buffer."""
        usable = min(got, self._end - self._offset)
        piece = self._bounce[self._skip : usable] if usable > self._skip else b""
        following = self._offset + got
        self._ahead = None
        if got == PIECE and following < self._end:
            self._ahead = _READ_POOL.submit(_pread, self._fd, self._bounce, following)
        self._offset, self._skip = following, 0
        return piece

    def __iter__(self) -> DirectReader:
        return self

    def __next__(self) -> bytes:
        while self._ahead is not None:
            piece = self._take(self._ahead.result())
            if piece:
                return piece
        self.close()
        raise StopIteration

    def __aiter__(self) -> DirectReader:
        return self

    async def __anext__(self) -> bytes:
        while self._ahead is not None:
            piece = self._take(await asyncio.wrap_future(self._ahead))
            if piece:
                return piece
        self.close()
        raise StopAsyncIteration

    def close(self) -> None:
        """Idempotent; waits for a read still running, since it writes into the buffer."""
        if self._closed:
            return
        self._closed = True
        if self._ahead is not None:
            wait([self._ahead])
        self._bounce.close()
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
