"""The load generator: pre-signed requests sent by an asyncio client over many connections.

boto3 spends ~2.5 ms of CPU per request, more than a fast server does, so requests are presigned
with botocore before the clock starts and only plain HTTP happens in the timed loop. Every phase
is bounded by both wall time and request count. The client's own CPU share is reported so a
reader can see whether the generator, not the server, was the limit.
"""

from __future__ import annotations

import asyncio
import time
import uuid
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from dataclasses import dataclass
from typing import Any, TypeVar

import aiohttp
import boto3
from botocore.config import Config
from yarl import URL

from bench.targets import Running

EXPIRES = 3600
T = TypeVar("T")


@dataclass
class Phase:
    """One measured phase: an operation at a concurrency."""

    op: str
    concurrency: int
    requests: int
    errors: int
    seconds: float
    p50_ms: float
    p99_ms: float
    client_cpu: float  # share of one core the load generator used

    @property
    def ops_per_s(self) -> float:
        return self.requests / self.seconds if self.seconds else 0.0


@dataclass
class Stream:
    op: str
    bytes: int
    seconds: float
    status: int
    client_cpu: float

    @property
    def mb_per_s(self) -> float:
        return self.bytes / self.seconds / 1e6 if self.seconds else 0.0


def s3_client(target: Running) -> Any:
    """A boto3 client for setup and presigning only (never in a timed loop)."""
    return boto3.client(
        "s3",
        endpoint_url=target.endpoint,
        aws_access_key_id=target.access_key,
        aws_secret_access_key=target.secret_key,
        region_name=target.region,
        config=Config(
            signature_version="s3v4",
            s3={"addressing_style": "path"},
            retries={"max_attempts": 1},
            request_checksum_calculation="when_required",
            response_checksum_validation="when_required",
        ),
    )


def new_bucket(client: Any, target: Running | None = None) -> str:
    if target is not None and target.bucket:  # a peer whose buckets are fixed by its config
        return target.bucket
    name = f"ec-bench-{uuid.uuid4().hex[:8]}"
    client.create_bucket(Bucket=name)
    return name


def presign(client: Any, op: str, bucket: str, keys: list[str]) -> list[str]:
    """One presigned URL per key for op (put/get/head), or a single LIST URL."""
    if op == "list":
        params = {"Bucket": bucket, "MaxKeys": 100, "Prefix": "small/"}
        return [client.generate_presigned_url("list_objects_v2", Params=params, ExpiresIn=EXPIRES)]
    method = {"put": "put_object", "get": "get_object", "head": "head_object"}[op]
    return [
        client.generate_presigned_url(
            method, Params={"Bucket": bucket, "Key": key}, ExpiresIn=EXPIRES
        )
        for key in keys
    ]


def _percentile(sorted_ms: list[float], q: float) -> float:
    if not sorted_ms:
        return 0.0
    return sorted_ms[min(len(sorted_ms) - 1, int(q * len(sorted_ms)))]


Send = Callable[[aiohttp.ClientSession, T], Awaitable[bool]]


async def closed_loop(
    op: str, items: Sequence[T], send: Send[T], concurrency: int, seconds: float,
    max_requests: int,
) -> Phase:  # fmt: skip
    """`concurrency` workers, each sending the next item as soon as its last one answered.

    Closed loop (no open arrival rate): the figure is what the target sustains, not a queue. A
    short warm-up opens the connections first and is not counted; `send` says whether the
    answer was the expected one (a wrong answer counts as an error, its latency still counts).
    """
    latencies: list[float] = []
    errors = 0
    issued = 0
    connector = aiohttp.TCPConnector(limit=concurrency, force_close=False)
    timeout = aiohttp.ClientTimeout(total=30)
    async with aiohttp.ClientSession(
        connector=connector, timeout=timeout, auto_decompress=False
    ) as session:

        async def one(item: T) -> None:
            nonlocal errors
            t = time.perf_counter()
            if not await send(session, item):
                errors += 1
            latencies.append((time.perf_counter() - t) * 1000)

        for item in items[: min(len(items), concurrency * 2)]:  # warm connections
            await one(item)
        latencies.clear()
        errors = 0
        cpu0, t0 = time.process_time(), time.perf_counter()
        deadline = t0 + seconds

        async def worker() -> None:
            nonlocal issued
            while time.perf_counter() < deadline and issued < max_requests:
                item = items[issued % len(items)]
                issued += 1
                await one(item)

        await asyncio.gather(*(worker() for _ in range(concurrency)))
        wall = time.perf_counter() - t0
        cpu = time.process_time() - cpu0
    latencies.sort()
    return Phase(
        op=op,
        concurrency=concurrency,
        requests=len(latencies),
        errors=errors,
        seconds=wall,
        p50_ms=_percentile(latencies, 0.50),
        p99_ms=_percentile(latencies, 0.99),
        client_cpu=cpu / wall if wall else 0.0,
    )


async def _run_phase(
    op: str, urls: list[str], concurrency: int, body: bytes, seconds: float, max_requests: int
) -> Phase:
    method = "HEAD" if op == "head" else ("PUT" if op == "put" else "GET")
    data = body if method == "PUT" else None

    async def send(session: aiohttp.ClientSession, url: URL) -> bool:
        async with session.request(method, url, data=data) as resp:
            await resp.read()
            return resp.status < 300

    parsed = [URL(u, encoded=True) for u in urls]
    return await closed_loop(op, parsed, send, concurrency, seconds, max_requests)


def small_objects(
    target: Running,
    concurrencies: tuple[int, ...] = (1, 16),
    size: int = 4096,
    keys: int = 256,
    seconds: float = 3.0,
    max_requests: int = 20_000,
) -> list[Phase]:
    """PUT, GET, HEAD and LIST of small objects at each concurrency."""
    client = s3_client(target)
    bucket = new_bucket(client, target)
    names = [f"small/{i:05d}" for i in range(keys)]
    body = b"b" * size
    urls = {op: presign(client, op, bucket, names) for op in ("put", "get", "head", "list")}
    phases: list[Phase] = []
    for op in ("put", "get", "head", "list"):
        for conc in concurrencies:
            phases.append(asyncio.run(_run_phase(op, urls[op], conc, body, seconds, max_requests)))
    return phases


async def _chunks(total: int, chunk: int) -> AsyncIterator[bytes]:
    block = b"\x5a" * chunk
    sent = 0
    while sent < total:
        n = min(chunk, total - sent)
        yield block if n == chunk else block[:n]
        sent += n


async def _stream(put_url: str, get_url: str, size: int, chunk: int) -> list[Stream]:
    out: list[Stream] = []
    timeout = aiohttp.ClientTimeout(total=600)
    async with aiohttp.ClientSession(timeout=timeout, auto_decompress=False) as session:
        cpu0, t0 = time.process_time(), time.perf_counter()
        headers = {"Content-Length": str(size), "Content-Type": "application/octet-stream"}
        async with session.put(
            URL(put_url, encoded=True), data=_chunks(size, chunk), headers=headers
        ) as resp:
            await resp.read()
            status = resp.status
        wall = time.perf_counter() - t0
        out.append(Stream("put", size, wall, status, (time.process_time() - cpu0) / wall))
        cpu0, t0 = time.process_time(), time.perf_counter()
        got = 0
        async with session.get(URL(get_url, encoded=True)) as resp:
            async for part in resp.content.iter_chunked(chunk):
                got += len(part)
            status = resp.status
        wall = time.perf_counter() - t0
        out.append(Stream("get", got, wall, status, (time.process_time() - cpu0) / wall))
    return out


def streaming(target: Running, size: int, chunk: int = 1 << 20) -> list[Stream]:
    """One PUT of `size` bytes streamed from a generator, then one GET streamed to nowhere."""
    client = s3_client(target)
    bucket = new_bucket(client, target)
    key = "big/object"
    put_url, get_url = (presign(client, op, bucket, [key])[0] for op in ("put", "get"))
    return asyncio.run(_stream(put_url, get_url, size, chunk))
