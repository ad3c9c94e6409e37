"""The lifecycle pass works page by page and yields the loop between pages (issue 26 LOW).

On main one pass read every object of every bucket with rules and deleted the expired ones in
one go on the event loop: with enough objects, every surface waited for the whole pass.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor

import pytest
from reliability.offload_probe import rpc_latencies_meanwhile
from reliability.refproc import RefProcess

from conformance.clients.mgmt import MgmtClient

pytestmark = pytest.mark.slow
BUCKET = "offload-lifecycle"
OBJECTS = 6000
DAY = 86400


def test_expiring_many_objects_does_not_stall_the_loop(
    launch: Callable[..., RefProcess],
) -> None:
    """A clock advance expires 6,000 objects; JSON-RPC calls sent every 50 ms meanwhile all
    answer within 0.5 s, and every object is gone afterwards."""
    ref = launch()  # its own clock: the advance must not move other tests' time
    s3 = ref.boto(max_pool_connections=16)
    s3.create_bucket(Bucket=BUCKET)
    with ThreadPoolExecutor(16) as pool:
        list(pool.map(lambda i: s3.put_object(Bucket=BUCKET, Key=f"k/{i:05d}", Body=b"x"),
                      range(OBJECTS)))  # fmt: skip
    rules = [{"ID": "all", "Filter": {"Prefix": ""}, "Status": "Enabled",
              "Expiration": {"Days": 1}}]  # fmt: skip
    s3.put_bucket_lifecycle_configuration(Bucket=BUCKET, LifecycleConfiguration={"Rules": rules})
    mgmt = MgmtClient.from_surface(ref.surface("mgmt"))
    with rpc_latencies_meanwhile(ref) as latencies:
        time.sleep(0.2)
        applied = mgmt.advance_clock(3 * DAY).assert_envelope_ok()["applied"]
    assert applied == {"expired": OBJECTS, "aborted": 0}
    assert s3.list_objects_v2(Bucket=BUCKET).get("KeyCount") == 0
    print(f"JSON-RPC during the pass: n={len(latencies)} max={max(latencies):.3f} s")
    assert max(latencies) < 0.5, f"slowest JSON-RPC call {max(latencies):.2f} s during the pass"
