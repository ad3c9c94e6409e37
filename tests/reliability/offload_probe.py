"""Probes for the bounded-work tests: a cheap call's latency, the reference's RSS, gzip bombs.

Every surface shares one event loop, so a stall anywhere shows as a slow answer to a cheap
JSON-RPC call on the gateway (`rpc_latency`); memory is the reference process's RSS (psutil).
"""

from __future__ import annotations

import statistics
import struct
import threading
import time
import zlib
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import psutil
import requests
from reliability.rawhttp import connect
from reliability.refproc import RefProcess

from conformance.clients.public import CustomDomains, domain_for

MIB = 1 << 20


def rss_mib(ref: RefProcess) -> float:
    return psutil.Process(int(ref.ready["pid"])).memory_info().rss / MIB


def rpc_latency(ref: RefProcess, timeout: float = 60.0) -> float:
    """Seconds one `eth_blockNumber` on the gateway takes (it runs on the default executor)."""
    url = ref.surface("gateway")["url"] + "/v1/sepolia"
    body = {"jsonrpc": "2.0", "id": 1, "method": "eth_blockNumber", "params": []}
    started = time.monotonic()
    reply = requests.post(url, json=body, timeout=timeout)
    elapsed = time.monotonic() - started
    assert reply.status_code == 200 and "result" in reply.json(), reply.text[:200]
    return elapsed


def idle_latencies(ref: RefProcess, samples: int, gap: float = 0.05) -> list[float]:
    """A few calls `gap` s apart with nothing else sent (the first call ever starts the chain:
    make it once before)."""
    found = []
    for _ in range(samples):
        found.append(rpc_latency(ref))
        time.sleep(gap)
    return found


def median_latency(ref: RefProcess, samples: int = 5, gap: float = 0.05) -> float:
    return statistics.median(idle_latencies(ref, samples, gap))


def slowest_idle_latency(ref: RefProcess, samples: int = 10, gap: float = 0.05) -> float:
    """How slow the machine itself is now, so that a limit for the slowest call under load
    grows with a busy machine, not with a stall."""
    return max(idle_latencies(ref, samples, gap))


@contextmanager
def meanwhile(
    work: Callable[[threading.Event], Any], threads: int = 1
) -> Iterator[list[BaseException]]:
    """Run `work(stop)` in `threads` threads during the block, `stop` set when it ends (work
    checks it between requests); their errors end up in the list."""
    errors: list[BaseException] = []
    stop = threading.Event()

    def guarded() -> None:
        try:
            work(stop)
        except BaseException as exc:
            errors.append(exc)

    workers = [threading.Thread(target=guarded, daemon=True) for _ in range(threads)]
    for worker in workers:
        worker.start()
    try:
        yield errors
    finally:
        stop.set()
        for worker in workers:
            worker.join(timeout=120)


@contextmanager
def rpc_latencies_meanwhile(ref: RefProcess, gap: float = 0.05) -> Iterator[list[float]]:
    """JSON-RPC latencies measured every `gap` s while the block runs (the first call, which
    starts the embedded chain, is made and dropped before)."""
    rpc_latency(ref)
    latencies: list[float] = []

    def probe(stop: threading.Event) -> None:
        while not stop.is_set():
            latencies.append(rpc_latency(ref))
            time.sleep(gap)

    with meanwhile(probe) as errors:
        yield latencies
    if errors:
        raise errors[0]


def gzip_of_zeros(mib: int) -> bytes:
    """One gzip member holding `mib` MiB of zeros (~1 KB per MiB), built without compressing
    them all: after a full flush the deflate state is reset, so every further MiB of zeros is
    the same block of bytes; an empty final block and the RFC 1952 trailer end it."""
    block = bytes(MIB)
    deflate = zlib.compressobj(9, zlib.DEFLATED, 31)
    head = deflate.compress(block) + deflate.flush(zlib.Z_FULL_FLUSH)
    again = deflate.compress(block) + deflate.flush(zlib.Z_FULL_FLUSH)
    crc = 0
    for _ in range(mib):
        crc = zlib.crc32(block, crc)
    final_empty_block = b"\x03\x00"  # BFINAL=1, fixed Huffman, end-of-block
    trailer = struct.pack("<II", crc, (mib * MIB) & 0xFFFFFFFF)
    return head + again * (mib - 1) + final_empty_block + trailer


def huge_cors_xml(rules: int = 100, origins: int = 600) -> bytes:
    """A legal CORS configuration of `rules` rules of `origins` wildcard origins each (the
    defaults: ~3.3 MB, 60,000 patterns, near the reference's markup bound)."""
    found = []
    for r in range(rules):
        allowed = "".join(
            f"<AllowedOrigin>https://*.o{o}r{r}.example</AllowedOrigin>" for o in range(origins)
        )
        found.append(f"<CORSRule>{allowed}<AllowedMethod>GET</AllowedMethod></CORSRule>")
    return f"<CORSConfiguration>{''.join(found)}</CORSConfiguration>".encode()


def public_domain(ref: RefProcess, bucket: str) -> str:
    """Link a custom domain to `bucket` (made public through it); the Host to send."""
    domain = domain_for(bucket)
    CustomDomains(ref.surface("mgmt")).create(bucket, domain).assert_envelope_ok()
    return domain


def public_get_head(ref: RefProcess, domain: str, key: str, headers: dict[str, str],
                    read: int = 64 * 1024, hold: float = 0.0,
                    stop: threading.Event | None = None) -> bytes:  # fmt: skip
    """A public GET that reads about `read` bytes (the head, or until `stop` is set) and
    stops; the socket is closed after `hold` seconds."""
    url = ref.surface("public")["url"] + "/" + key
    sock = connect(url, timeout=30)
    try:
        sock.sendall(public_request("GET", key, domain, headers))
        data = b""
        size = 0
        while size < read and not (stop is not None and stop.is_set()):
            chunk = sock.recv(65536)
            if not chunk:
                break
            size += len(chunk)
            if len(data) < 65536:  # keep the head only: the rest may be gigabytes
                data += chunk
        time.sleep(hold)
        return data
    finally:
        sock.close()


def public_request(method: str, key: str, domain: str, headers: dict[str, str]) -> bytes:
    """The head of a request to the public entrypoint for `domain` (rawhttp's sets the
    listener's own address as Host)."""
    lines = [f"{method} /{key} HTTP/1.1", f"Host: {domain}"]
    lines += [f"{k}: {v}" for k, v in headers.items()]
    return ("\r\n".join(lines) + "\r\n\r\n").encode()


def status_of(raw: bytes) -> int:
    return int(raw.split(b" ", 2)[1]) if raw.startswith(b"HTTP/1.") else 0
