"""A migration source that is the bucket itself (or any bucket of this service) makes no loop.

Found by the hostile round of 2026-11-27 (hostile7). The configuration's `endpoint` (the
reference's extension: an S3 source other than AWS) may name the reference's own S3 listener.
A miss then fetched from the source, whose GET missed and fetched again, each hop a thread of
the `migration` pool (8) blocked in botocore: one GET of a missing key took the whole 30 s
call deadline and held every thread of the pool, so the misses of every other bucket and
account waited or failed as "source unreachable" meanwhile. A fetch's requests now carry a
marker header, and a request carrying it never fetches in turn.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor

from reliability.refproc import RefProcess

from conformance.clients.mgmt import MgmtClient

BUCKET = "loop-source"


def test_self_sourced_miss_answers_at_once(launch: Callable[..., RefProcess]) -> None:
    """Misses of a bucket whose source is itself answer 404 NoSuchKey quickly, and the
    object written meanwhile is still read from the bucket."""
    ref = launch()
    wire = ref.wire()
    wire.create_bucket(BUCKET).assert_ok()
    s3 = ref.surface("s3")
    source = {"provider": "aws", "bucket": BUCKET, "region": "us-east-1",
              "accessKeyId": s3["access_key_id"], "secretAccessKey": s3["secret_access_key"],
              "endpoint": s3["endpoint"]}  # fmt: skip
    config = {
        "source": source,
        "destination": {"provider": "r2", "accessKeyId": "d", "secretAccessKey": "d"},
    }
    MgmtClient.from_surface(ref.surface("mgmt")).put_sippy(BUCKET, config).assert_envelope_ok()
    wire.put_object(BUCKET, "present", b"here").assert_ok()

    def miss(index: int) -> tuple[int, str | None, float]:
        began = time.monotonic()
        reply = wire.request("GET", BUCKET, f"missing-{index}")
        return reply.status, reply.error_code, time.monotonic() - began

    with ThreadPoolExecutor(4) as pool:
        answers = list(pool.map(miss, range(4)))
    assert all(a[:2] == (404, "NoSuchKey") for a in answers), answers
    slowest = max(a[2] for a in answers)
    assert slowest < 5.0, f"a self-sourced miss took {slowest:.1f} s (a fetch loop)"
    assert wire.request("GET", BUCKET, "present").body == b"here"
