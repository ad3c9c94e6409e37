"""Blob files: streamed to a temp path, hashed while streaming, fsynced and renamed into place.

Nothing large is held whole in memory: uploads arrive as an async iterator of chunks and reads
are served as an iterator of bounded chunks. A body of at most `inline_max` bytes (asked for by
callers that publish it as an object) is not written as a file: it comes back in
`BlobInfo.inline` and the engine stores it in the same SQLite transaction as its metadata.
"""

from __future__ import annotations

import os
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import BinaryIO

from reference_impl.storage import fastio
from reference_impl.storage.direct import open_reader

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
    # Computed while streaming only when needed (a signed payload hash to check); None
    # otherwise: hashing every PUT with three digests cost more than receiving it.
    sha256_hex: str | None = None
    sha1_hex: str | None = None
    # the body itself when it was kept inline (no file named `name` exists then)
    inline: bytes | None = field(default=None, repr=False, compare=False)
    # the store's bucket epoch when the write began (engine.Store.put_object checks it)
    epoch: int = 0


class BlobStore:
    def __init__(self, root: Path) -> None:
        self.root = root / "blobs"
        self.tmp = root / "tmp"
        self._blob_dir, self._tmp_dir = str(self.root), str(self.tmp)
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
        inline_max: int = 0,
        epoch: int = 0,
    ) -> BlobInfo:
        """Stream chunks to disk; raise PayloadHashMismatch before anything becomes visible."""
        name = os.urandom(16).hex()  # uuid4().hex without the UUID object (hot path)

        def accept(written: fastio.Written) -> None:
            if expected_sha256 is not None and written.sha256_hex != expected_sha256.lower():
                raise PayloadHashMismatch(written.sha256_hex)

        try:
            written = await fastio.write_blob(
                chunks,
                f"{self._tmp_dir}/{name}",  # strings: Path joins cost ~10 % of a small PUT
                f"{self._blob_dir}/{name[:2]}/{name}",
                sha256=expected_sha256 is not None,
                max_size=max_size,
                accept=accept,
                keep_inline=inline_max,
            )
        except fastio.SizeExceeded:
            raise BodyTooLarge() from None
        return BlobInfo(
            name, written.size, written.md5_hex, written.sha256_hex, inline=written.data,
            epoch=epoch,
        )  # fmt: skip

    def read_info(
        self, info: BlobInfo, start: int = 0, length: int | None = None
    ) -> Iterator[bytes]:
        """Read a written (not yet published) blob, inline or file."""
        if info.inline is not None:
            return inline_chunks(info.inline, start, length)
        return self.read(info.name, start, length)

    def read(self, name: str, start: int = 0, length: int | None = None) -> Iterator[bytes]:
        """Open now (a later delete cannot break the reply), then yield bounded chunks."""
        path = self.path(name)
        direct = open_reader(path, start, length)
        if direct is not None:
            return direct
        handle = open(path, "rb")  # noqa: SIM115 - closed by the generator
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


def inline_chunks(data: bytes, start: int, length: int | None) -> Iterator[bytes]:
    end = len(data) if length is None else min(len(data), start + length)
    if start < end:
        yield data[start:end]
