"""The machine's own ceilings for a streamed PUT, measured before any target runs.

Why: a durable 1 GiB PUT cannot be faster than the slower of two things no server can avoid,
hashing the body for its ETag (MD5, one core: one stream cannot be split) and writing it to
the disk and flushing it (fsync). Both vary a lot between VMs (on 2026-11-24 MD5 ran at ~490
MB/s and the disk's durable write at ~300 MB/s, against ~820 and ~700 a few days before), so
a throughput figure means little without them. The report prints them beside the table.
"""

from __future__ import annotations

import contextlib
import errno
import hashlib
import mmap
import os
import tempfile
import time
from typing import Any

PIECE = 1 << 20
_O_DIRECT = getattr(os, "O_DIRECT", 0)


def md5_mb_per_s(total: int = 256 << 20) -> float:
    """MD5 over `total` bytes in 1 MiB updates on one core, as a server's ETag hashing does."""
    block = b"\x5a" * PIECE
    digest = hashlib.md5()
    t0 = time.perf_counter()
    for _ in range(total // PIECE):
        digest.update(block)
    return total / (time.perf_counter() - t0) / 1e6


def _open_for_write(path: str) -> tuple[int, bool]:
    flags = os.O_WRONLY | os.O_CREAT | os.O_TRUNC
    if _O_DIRECT:
        try:
            return os.open(path, flags | _O_DIRECT, 0o600), True
        except OSError as err:
            if err.errno != errno.EINVAL:
                raise
    return os.open(path, flags, 0o600), False


def durable_write(total: int, directory: str | None = None) -> dict[str, Any]:
    """Write `total` bytes in 1 MiB pieces (O_DIRECT where allowed), then fsync; time both.

    `directory` should be on the filesystem the targets keep their data on (the default temp
    directory, as bench/targets.py uses). The file is removed afterwards.
    """
    fd_dir = tempfile.mkdtemp(prefix="ec-bench-disk-", dir=directory)
    path = os.path.join(fd_dir, "probe")
    buffer = mmap.mmap(-1, PIECE)  # page-aligned, as O_DIRECT needs
    buffer.write(b"\x5a" * PIECE)
    fd, direct = _open_for_write(path)
    try:
        t0 = time.perf_counter()
        for i in range(total // PIECE):
            os.pwrite(fd, buffer, i * PIECE)
        t1 = time.perf_counter()
        os.fsync(fd)
        t2 = time.perf_counter()
    finally:
        os.close(fd)
        buffer.close()
        with contextlib.suppress(OSError):
            os.unlink(path)
            os.rmdir(fd_dir)
    return {
        "direct": direct,
        "write_mb_per_s": total / (t1 - t0) / 1e6,
        "fsync_s": t2 - t1,
        "durable_mb_per_s": total / (t2 - t0) / 1e6,
    }


def ceilings(big_bytes: int) -> dict[str, Any]:
    """MD5 speed and the disk's durable write speed for an object of `big_bytes`."""
    disk = durable_write(max(big_bytes, 64 << 20))
    os.sync()
    return {"md5_mb_per_s": md5_mb_per_s(), **{f"disk_{k}": v for k, v in disk.items()}}
