"""The S3 flexible checksums (CRC32, CRC32C, SHA-1, SHA-256), computed while a body streams.

A client names one algorithm per request (`x-amz-checksum-<alg>` as a header, or as a trailer
of an aws-chunked body announced by `x-amz-trailer`); the value is the base64 of the big-endian
digest. CRC32C has no implementation in the standard library: the `crc32c` package (a C
extension) is used when installed, else `google-crc32c`, else a table-driven fallback here, so
the reference still works (slowly, for large bodies) on a bare interpreter.
"""

from __future__ import annotations

import base64
import hashlib
import zlib
from collections.abc import Callable
from typing import Any, Protocol

HEADER_PREFIX = "x-amz-checksum-"
ALGORITHMS = ("crc32", "crc32c", "sha1", "sha256")


class Checksum(Protocol):
    def update(self, data: bytes) -> None: ...

    def digest(self) -> bytes: ...


class _Crc:
    """A 32-bit CRC accumulated over updates, digest big-endian as S3 encodes it."""

    def __init__(self, step: Callable[[bytes, int], int]) -> None:
        self._step = step
        self._value = 0

    def update(self, data: bytes) -> None:
        self._value = self._step(data, self._value)

    def digest(self) -> bytes:
        return self._value.to_bytes(4, "big")


def _crc32_step(data: bytes, value: int) -> int:
    return zlib.crc32(data, value) & 0xFFFFFFFF


def _table_crc32c() -> list[int]:
    table = []
    for byte in range(256):
        crc = byte
        for _ in range(8):
            crc = (crc >> 1) ^ 0x82F63B78 if crc & 1 else crc >> 1
        table.append(crc)
    return table


_CRC32C_TABLE = _table_crc32c()


def _crc32c_fallback(data: bytes, value: int) -> int:
    crc = value ^ 0xFFFFFFFF
    table = _CRC32C_TABLE
    for byte in data:
        crc = table[(crc ^ byte) & 0xFF] ^ (crc >> 8)
    return crc ^ 0xFFFFFFFF


def _load_crc32c() -> Callable[[bytes, int], int]:
    try:
        import crc32c as fast  # type: ignore[import-not-found, unused-ignore]

        def step(data: bytes, value: int) -> int:
            return int(fast.crc32c(data, value))

        return step
    except ImportError:
        pass
    try:
        import google_crc32c  # type: ignore[import-not-found, unused-ignore]

        def google_step(data: bytes, value: int) -> int:
            return int(google_crc32c.extend(value, data))

        return google_step
    except ImportError:
        return _crc32c_fallback


_crc32c_step = _load_crc32c()


class _Hash:
    def __init__(self, name: str) -> None:
        self._hash: Any = hashlib.new(name)

    def update(self, data: bytes) -> None:
        self._hash.update(data)

    def digest(self) -> bytes:
        digest: bytes = self._hash.digest()
        return digest


def new_checksum(algorithm: str) -> Checksum:
    """A fresh accumulator for `crc32`, `crc32c`, `sha1` or `sha256` (lowercase)."""
    if algorithm == "crc32":
        return _Crc(_crc32_step)
    if algorithm == "crc32c":
        return _Crc(_crc32c_step)
    if algorithm in ("sha1", "sha256"):
        return _Hash(algorithm)
    raise ValueError(algorithm)


def algorithm_of_header(name: str) -> str | None:
    """`x-amz-checksum-crc32` -> `crc32`; None for a name that is not a known checksum."""
    name = name.strip().lower()
    if not name.startswith(HEADER_PREFIX):
        return None
    algorithm = name[len(HEADER_PREFIX) :]
    return algorithm if algorithm in ALGORITHMS else None


def encode(digest: bytes) -> str:
    return base64.b64encode(digest).decode("ascii")


def well_formed(algorithm: str, value: str) -> bool:
    """A base64 value of the algorithm's digest length (a malformed value is not a mismatch)."""
    sizes = {"crc32": 4, "crc32c": 4, "sha1": 20, "sha256": 32}
    try:
        raw = base64.b64decode(value.strip(), validate=True)
    except ValueError:
        return False
    return len(raw) == sizes[algorithm]
