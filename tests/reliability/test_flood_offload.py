"""Acceptance of bounded work under floods (issue 26 "Done means"): preflights and gzip bombs.

One reference holds a ~3.5 MB CORS configuration and a gzip bomb (1 GiB of zeros in 1 MB) in
a public bucket. Anonymous clients then send non-matching preflights in a loop (S3 endpoint
and public entrypoint) and identity GETs of the bomb that read the head and close. Meanwhile a
JSON-RPC call answers within 100 ms (median of five) and the reference's RSS stays within
100 MiB of its size before the floods. On a machine that is itself slow (both cores hogged:
125 ms was seen there), the limit grows to five times the median of quiet calls measured just
before the floods, as the other offload tests do: it grows with a busy machine, not a stall.
"""

from __future__ import annotations

import statistics
import threading
import time

import pytest
import requests
from reliability.offload_probe import (
    gzip_of_zeros,
    meanwhile,
    median_latency,
    public_domain,
    public_get_head,
    rpc_latency,
    rss_mib,
    status_of,
)
from reliability.refproc import RefProcess
from reliability.test_offload_cors import huge_cors_xml

pytestmark = pytest.mark.slow
BUCKET = "offload-flood"
IDENTITY = {"Accept-Encoding": "identity"}


def _preflight(ref: RefProcess, domain: str, public: bool) -> int:
    headers = {"Origin": "https://nobody.example", "Access-Control-Request-Method": "GET"}
    if public:
        url = ref.surface("public")["url"] + "/k"
        headers["Host"] = domain
    else:
        url = f"{ref.surface('s3')['endpoint']}/{BUCKET}/k"
    return requests.options(url, headers=headers, timeout=60).status_code


def test_floods_leave_the_loop_and_memory_alone(ref: RefProcess) -> None:
    wire = ref.wire()
    assert wire.request("PUT", BUCKET).status == 200
    reply = wire.request("PUT", BUCKET, query=[("cors", "")], body=huge_cors_xml())
    assert reply.status == 200
    boto = ref.boto()
    boto.put_object(Bucket=BUCKET, Key="bomb", Body=gzip_of_zeros(1024), ContentEncoding="gzip")
    domain = public_domain(ref, BUCKET)
    # warm: the chain started, the configuration compiled and cached, one bomb head served
    rpc_latency(ref)
    assert _preflight(ref, domain, public=False) == 403
    assert _preflight(ref, domain, public=True) == 403
    assert status_of(public_get_head(ref, domain, "bomb", IDENTITY)) == 200
    time.sleep(1.0)
    quiet = median_latency(ref, samples=5)
    idle = rss_mib(ref)
    peak = idle
    sent = {"preflights": 0, "heads": 0}

    def preflights(stop: threading.Event) -> None:
        public = threading.current_thread().name.endswith(("1", "3", "5", "7", "9"))
        while not stop.is_set():
            assert _preflight(ref, domain, public) == 403
            sent["preflights"] += 1

    def heads(stop: threading.Event) -> None:
        while not stop.is_set():
            raw = public_get_head(ref, domain, "bomb", IDENTITY, read=256 * 1024)
            assert status_of(raw) == 200
            sent["heads"] += 1

    latencies: list[float] = []
    with meanwhile(preflights, threads=2) as flood_errors, meanwhile(heads, 3) as bomb_errors:
        time.sleep(1.0)
        for _ in range(5):
            latencies.append(rpc_latency(ref))
            peak = max(peak, rss_mib(ref))
            time.sleep(0.3)
        peak = max(peak, rss_mib(ref))
    time.sleep(1.0)
    after = rss_mib(ref)
    assert flood_errors == [] and bomb_errors == []
    assert sent["preflights"] >= 5 and sent["heads"] >= 5, sent
    median = statistics.median(latencies)
    limit = max(0.1, quiet * 5)
    assert median < limit, (
        f"JSON-RPC median {median * 1000:.0f} ms under the floods {latencies}, "
        f"limit {limit * 1000:.0f} ms (quiet median {quiet * 1000:.0f} ms)"
    )
    assert peak - idle < 100, f"RSS {idle:.0f} -> {peak:.0f} MiB under the floods"
    assert after - idle < 100, f"RSS {idle:.0f} -> {after:.0f} MiB after the floods"
