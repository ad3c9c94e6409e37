"""A 200 MiB object streams in and out without the server holding it in memory."""

from __future__ import annotations

import hashlib
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import psutil
import pytest
import requests

from conformance.clients.s3 import WireClient

SIZE = 200 * 1024 * 1024
BLOCK = 1024 * 1024
RSS_ALLOWANCE = 60 * 1024 * 1024


class GeneratedBody:
    """A deterministic body made block by block on read; seekable so botocore can hash it."""

    def __init__(self, size: int) -> None:
        self.size = size
        self.pos = 0

    def __len__(self) -> int:
        return self.size

    @staticmethod
    def block(index: int) -> bytes:
        return hashlib.sha256(index.to_bytes(8, "big")).digest() * (BLOCK // 32)

    def read(self, amount: int = -1) -> bytes:
        end = self.size if amount is None or amount < 0 else min(self.size, self.pos + amount)
        out = bytearray()
        while self.pos < end:
            index, offset = divmod(self.pos, BLOCK)
            piece = self.block(index)[offset : offset + end - self.pos]
            out += piece
            self.pos += len(piece)
        return bytes(out)

    def seek(self, pos: int, whence: int = 0) -> int:
        self.pos = pos if whence == 0 else (self.size + pos if whence == 2 else self.pos + pos)
        return self.pos

    def tell(self) -> int:
        return self.pos


@contextmanager
def rss_watch(pid: int) -> Iterator[dict[str, int]]:
    """Samples the server's RSS every 50 ms while the block runs; yields baseline and peak."""
    proc = psutil.Process(pid)
    seen = {"baseline": proc.memory_info().rss, "peak": 0}
    stop = threading.Event()

    def sample() -> None:
        while not stop.is_set():
            seen["peak"] = max(seen["peak"], proc.memory_info().rss)
            stop.wait(0.05)

    thread = threading.Thread(target=sample, daemon=True)
    thread.start()
    try:
        yield seen
    finally:
        stop.set()
        thread.join()


@pytest.mark.slow
def test_200_mib_upload_and_download_stream(reference: Any) -> None:
    surface = reference.s3
    wire = WireClient(surface["endpoint"], surface["access_key_id"], surface["secret_access_key"])
    wire.create_bucket("streaming").assert_ok()
    body = GeneratedBody(SIZE)
    md5 = hashlib.md5()
    for index in range(SIZE // BLOCK):
        md5.update(GeneratedBody.block(index))

    with rss_watch(reference.process.pid) as seen:
        prepared = wire.prepare(
            "PUT", "streaming", "big", body=body, headers={"Content-Length": str(SIZE)}
        )
        reply = wire.send(prepared).assert_ok()
    assert reply.header("etag") == f'"{md5.hexdigest()}"'
    grown = seen["peak"] - seen["baseline"]
    assert grown < RSS_ALLOWANCE, f"upload grew the server by {grown / 2**20:.0f} MiB"

    with rss_watch(reference.process.pid) as seen:
        url = wire.presign("GET", "streaming", "big")
        got = hashlib.md5()
        total = 0
        with requests.get(url, stream=True, timeout=60) as response:
            assert response.status_code == 200
            for chunk in response.iter_content(BLOCK):
                got.update(chunk)
                total += len(chunk)
    assert total == SIZE and got.hexdigest() == md5.hexdigest()
    grown = seen["peak"] - seen["baseline"]
    assert grown < RSS_ALLOWANCE, f"download grew the server by {grown / 2**20:.0f} MiB"
