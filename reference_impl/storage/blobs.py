"""Blob files: streamed to a temp path, hashed while streaming, fsynced and renamed into place.

Nothing is held whole in memory: uploads arrive as an async iterator of chunks and reads are
served as an iterator of bounded chunks.
"""

from __future__ import annotations

import asyncio
import hashlib
import os
import uuid
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO

READ_CHUNK = 256 * 1024


class PayloadHashMismatch(Exception):
    """The streamed body's SHA-256 differs from the one the request signed."""


class BodyTooLarge(Exception):
    """The streamed body grew beyond the allowed size."""


@dataclass(frozen=True)
class BlobInfo:
    name: str  # file name relative to the blob root
    size: int
    md5_hex: str
    sha256_hex: str
    sha1_hex: str


class BlobStore:
    def __init__(self, root: Path) -> None:
        self.root = root / "blobs"
        self.tmp = root / "tmp"
        self.root.mkdir(parents=True, exist_ok=True)
        self.tmp.mkdir(parents=True, exist_ok=True)
        for stale in self.tmp.iterdir():  # leftovers of a crash mid-upload
            stale.unlink(missing_ok=True)

    def path(self, name: str) -> Path:
        return self.root / name[:2] / name

    async def write(
        self,
        chunks: AsyncIterator[bytes],
        expected_sha256: str | None = None,
        max_size: int | None = None,
    ) -> BlobInfo:
        """Stream chunks to disk; raise PayloadHashMismatch before anything becomes visible."""
        name = uuid.uuid4().hex
        tmp_path = self.tmp / name
        md5, sha256, sha1 = hashlib.md5(), hashlib.sha256(), hashlib.sha1()
        size = 0
        try:
            with open(tmp_path, "wb") as out:
                async for chunk in chunks:
                    if not chunk:
                        continue
                    size += len(chunk)
                    if max_size is not None and size > max_size:
                        raise BodyTooLarge()
                    md5.update(chunk)
                    sha256.update(chunk)
                    sha1.update(chunk)
                    out.write(chunk)
                out.flush()
                await asyncio.to_thread(os.fsync, out.fileno())
            if expected_sha256 is not None and sha256.hexdigest() != expected_sha256.lower():
                raise PayloadHashMismatch(sha256.hexdigest())
            final = self.path(name)
            final.parent.mkdir(exist_ok=True)
            os.replace(tmp_path, final)
        except BaseException:
            tmp_path.unlink(missing_ok=True)
            raise
        return BlobInfo(name, size, md5.hexdigest(), sha256.hexdigest(), sha1.hexdigest())

    def read(self, name: str, start: int = 0, length: int | None = None) -> Iterator[bytes]:
        """Open now (a later delete cannot break the reply), then yield bounded chunks."""
        handle = open(self.path(name), "rb")  # noqa: SIM115 - closed by the generator
        handle.seek(start)
        return _chunks(handle, length)

    def remove(self, name: str) -> None:
        self.path(name).unlink(missing_ok=True)


def _chunks(handle: BinaryIO, length: int | None) -> Iterator[bytes]:
    with handle:
        remaining = length
        while remaining is None or remaining > 0:
            want = READ_CHUNK if remaining is None else min(READ_CHUNK, remaining)
            chunk = handle.read(want)
            if not chunk:
                return
            if remaining is not None:
                remaining -= len(chunk)
            yield chunk
