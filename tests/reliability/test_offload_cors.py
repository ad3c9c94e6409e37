"""CORS matching is bounded work: a huge legal configuration, anonymous preflights (issue 26).

100 rules of 600 wildcard origins each (a configuration of ~3.5 MB the reference accepts): on
main every anonymous preflight with a non-matching Origin recompiled all 60,000 patterns with
fnmatch on the shared event loop, ~3.5 s during which every surface waited.
"""

from __future__ import annotations

import threading
import time

import pytest
import requests
from reliability.offload_probe import huge_cors_xml, meanwhile, median_latency, public_domain
from reliability.refproc import RefProcess

pytestmark = pytest.mark.slow
BUCKET = "offload-cors"


@pytest.fixture(scope="module")
def domain(ref: RefProcess) -> str:
    wire = ref.wire()
    assert wire.request("PUT", BUCKET).status == 200
    body = huge_cors_xml()
    assert len(body) > 3_000_000
    reply = wire.request("PUT", BUCKET, query=[("cors", "")], body=body)
    assert reply.status == 200, reply.body[:300]
    return public_domain(ref, BUCKET)


def _preflight(ref: RefProcess, domain: str, origin: str, surface: str) -> int:
    if surface == "s3":
        url, host = f"{ref.surface('s3')['endpoint']}/{BUCKET}/k", None
    else:
        url, host = f"{ref.surface('public')['url']}/k", domain
    headers = {"Origin": origin, "Access-Control-Request-Method": "GET"}
    if host:
        headers["Host"] = host
    return requests.options(url, headers=headers, timeout=60).status_code


@pytest.mark.parametrize("surface", ["s3", "public"])
def test_rules_still_decide(ref: RefProcess, domain: str, surface: str) -> None:
    """The compiled matcher answers as the rules say: a wildcard origin of the 99th rule
    matches (any case), a near miss does not, a method no rule allows does not."""
    assert _preflight(ref, domain, "https://app.o599r99.example", surface) == 200
    assert _preflight(ref, domain, "HTTPS://A.B.O7R3.EXAMPLE", surface) == 200
    assert _preflight(ref, domain, "https://o7r3.example", surface) == 403  # `*.` needs a label
    assert _preflight(ref, domain, "https://app.o600r99.example", surface) == 403
    assert _preflight(ref, domain, "https://app.o1r1.example.evil", surface) == 403


@pytest.mark.parametrize("surface", ["s3", "public"])
def test_preflights_do_not_stall_other_surfaces(ref: RefProcess, domain: str, surface: str) -> None:
    """Anonymous non-matching preflights in a loop: a JSON-RPC call answers promptly."""
    _preflight(ref, domain, "https://warm.up", surface)  # the first one compiles (off the loop)
    quiet = median_latency(ref, samples=3)

    def flood(stop: threading.Event) -> None:
        while not stop.is_set():
            assert _preflight(ref, domain, "https://nobody.example", surface) == 403

    with meanwhile(flood, threads=2) as errors:
        time.sleep(0.3)
        busy = median_latency(ref, samples=5, gap=0.1)
    assert errors == []
    assert busy < max(0.5, quiet * 5), f"JSON-RPC median {busy:.3f} s during the preflights"
