"""Large JSON request bodies are parsed off the event loop (issue 26, fresh adversarial pass).

`jsonbody.loads` calls a Python hook per number (finite, bounded numbers): on main an anonymous
JSON-RPC POST of a 1 MB array of numbers held every surface ~0.5 s on the shared event loop,
eight at once over a second; management and bindings bodies the same. Bodies above 64 KiB are
now parsed on the `parse` worker.
"""

from __future__ import annotations

import threading
import time

import pytest
import requests
from reliability.offload_probe import meanwhile, median_latency
from reliability.refproc import RefProcess

pytestmark = pytest.mark.slow
NUMBERS = b"[" + b",".join([b"1.5"] * 250_000) + b"]"  # ~1 MB: under every surface's limit


def _post(ref: RefProcess, surface: str) -> int:
    if surface == "gateway":
        url, headers = ref.surface("gateway")["url"] + "/v1/sepolia", {}
    elif surface == "gateway-unknown-network":
        url, headers = ref.surface("gateway")["url"] + "/v1/no-such-net", {}
    elif surface == "mgmt":
        account = ref.account_api()
        url, headers = f"{account['base']}/r2/buckets", account["headers"]
    else:
        bindings = ref.surface("bindings")
        url, headers = bindings["url"] + "/bridge", {"Authorization": f"Bearer {bindings['token']}"}
    headers["Content-Type"] = "application/json"
    return requests.post(url, data=NUMBERS, headers=headers, timeout=60).status_code


@pytest.mark.parametrize("surface", ["gateway", "gateway-unknown-network", "mgmt", "bindings"])
def test_large_json_bodies_do_not_stall_other_surfaces(ref: RefProcess, surface: str) -> None:
    """Four clients posting 1 MB arrays of numbers in a loop: each gets a clean answer (< 500)
    and a JSON-RPC call meanwhile stays prompt."""
    quiet = median_latency(ref, samples=3)
    statuses: list[int] = []

    def flood(stop: threading.Event) -> None:
        while not stop.is_set():
            statuses.append(_post(ref, surface))

    with meanwhile(flood, threads=4) as errors:
        time.sleep(0.5)
        busy = median_latency(ref, samples=7, gap=0.1)
    assert errors == []
    assert statuses and all(status < 500 for status in statuses), statuses
    assert busy < max(0.25, quiet * 5), f"JSON-RPC median {busy:.3f} s during the JSON bodies"
