"""Bounded work per request, bodies (issue 26, HIGH 3; docs/architecture.md).

On main, 150 unauthenticated JSON-RPC POSTs that declared 1 MiB, sent 1,000,000 bytes and fell
silent grew the reference by ~146 MiB and stayed open for good; S3 PUT bodies and XML bodies
the same. Here every listener times a stalled body out (408, closed), a flood costs bounded
memory, which is returned afterwards, and a JSON-RPC call sent meanwhile is answered fast.
The reference runs with a shortened body timeout so that the module stays short.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator

import psutil
import pytest
from reliability.rawhttp import request_head
from reliability.refproc import RefProcess, checked_reference
from reliability.slowbody import median, rpc_latencies, start_flood

BODY_TIMEOUT = 3.0  # the profile's body_idle_timeout_s for this module (default 30)
KEEPALIVE = 3.0  # keepalive_timeout_s (default 30)
SLACK = 6.0  # seconds beyond a timeout before a listener counts as hanging (busy machine)
FLOOD = 150
DECLARED = 2**20
SENT = 1_000_000
RSS_BOUND = 100 * 2**20  # the flood may not grow the reference by more (main: +143 MiB)
RETURNED_BOUND = 40 * 2**20  # after the flood has gone (main: +84 MiB per flood, kept)
RPC_MEDIAN = 0.100
BUCKET = "slow-body"


@pytest.fixture(scope="module")
def ref(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RefProcess]:
    profile = {"body_idle_timeout_s": BODY_TIMEOUT, "keepalive_timeout_s": KEEPALIVE}
    yield from checked_reference(tmp_path_factory, "slow-body", profile, BUCKET)


def _gateway(ref: RefProcess) -> str:
    return str(ref.surface("gateway")["url"]) + "/v1/sepolia"


def _rpc_head(ref: RefProcess) -> Callable[[int], bytes]:
    url = _gateway(ref)
    headers = {"Content-Type": "application/json", "Content-Length": str(DECLARED)}
    return lambda i: request_head("POST", url, headers)


def _put_head(ref: RefProcess) -> Callable[[int], bytes]:
    wire = ref.wire()

    def head(i: int) -> bytes:
        prepared = wire.prepare("PUT", BUCKET, f"flood-{i}", payload_hash="UNSIGNED-PAYLOAD",
                                headers={"Content-Length": str(DECLARED)})  # fmt: skip
        return request_head("PUT", prepared.url, dict(prepared.headers))

    return head


FLOODS = {
    "gateway": (_gateway, _rpc_head),
    "s3-put": (lambda r: r.surface("s3")["endpoint"], _put_head),
}


@pytest.mark.slow
@pytest.mark.parametrize("target", sorted(FLOODS))
def test_slow_body_flood_bounded_and_others_served(ref: RefProcess, target: str) -> None:
    """150 connections declare 1 MiB, send 1,000,000 bytes and fall silent: RSS stays within
    100 MiB of idle, a JSON-RPC call meanwhile answers within 100 ms (median of 15), every
    flood connection is closed by the server after the body timeout and the memory comes back."""
    server = psutil.Process(int(ref.ready["pid"]))
    gateway = _gateway(ref)
    rpc_latencies(gateway, 3)  # warm
    time.sleep(1.0)
    idle = server.memory_info().rss
    url_of, head_of = FLOODS[target]
    flood = start_flood(str(url_of(ref)), head_of(ref), FLOOD, SENT, send_s=0.5)
    try:
        assert flood.sent > FLOOD * 64 * 1024, "the flood did not get going"
        took = rpc_latencies(gateway, 15)
        peak = server.memory_info().rss
        assert median(took) < RPC_MEDIAN, f"JSON-RPC under flood: median {median(took):.3f} s"
        assert peak - idle < RSS_BOUND, f"RSS +{(peak - idle) / 2**20:.0f} MiB under the flood"
        deadline = time.monotonic() + 3 * BODY_TIMEOUT + 2 * SLACK  # a queue or two of slots
        while flood.still_open() and time.monotonic() < deadline:
            peak = max(peak, server.memory_info().rss)
            time.sleep(0.5)
        still = flood.still_open()
        assert still == 0, f"{still} of {FLOOD} stalled bodies still open after their timeout"
        assert peak - idle < RSS_BOUND, f"RSS +{(peak - idle) / 2**20:.0f} MiB under the flood"
    finally:
        flood.close()
    time.sleep(3.0)  # the heap is handed back a little after the bodies are dropped
    after = server.memory_info().rss
    assert after - idle < RETURNED_BOUND, f"RSS still +{(after - idle) / 2**20:.0f} MiB after"
    assert median(rpc_latencies(gateway, 5)) < RPC_MEDIAN
