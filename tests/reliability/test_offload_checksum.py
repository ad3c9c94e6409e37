"""Checksum verification is bounded work: a large PUT with x-amz-checksum-* (issue 26).

On main the stored blob was read back and hashed on the event loop, once per claimed
algorithm: a 2 GiB PUT with `x-amz-checksum-sha1` stalled every surface for 1.8 s. A request
claims one checksum (two are InvalidRequest, tests/reference/test_s3_checksum_claims.py): each
run claims CRC32C, which the store never hashes while streaming, so the blob is read back.
"""

from __future__ import annotations

import base64

import pytest
from reliability.offload_probe import MIB, rpc_latencies_meanwhile
from reliability.refproc import RefProcess

from conformance.clients.s3_wire import WireClient
from reference_impl.s3.chunked_checksums import new_checksum

pytestmark = pytest.mark.slow
BUCKET = "offload-checksum"
SIZE = 256 * MIB


def _b64(digest: bytes) -> str:
    return base64.b64encode(digest).decode()


def _claims(body: bytes) -> dict[str, str]:
    crc32c = new_checksum("crc32c")
    crc32c.update(body)
    return {"x-amz-checksum-crc32c": _b64(crc32c.digest())}


def _put(wire: WireClient, key: str, body: bytes, headers: dict[str, str]) -> int:
    reply = wire.request(
        "PUT", BUCKET, key, body=body, headers=headers, payload_hash="UNSIGNED-PAYLOAD"
    )
    return int(reply.status)


def test_large_checksummed_put_does_not_stall_the_loop(ref: RefProcess) -> None:
    """JSON-RPC calls sent every 50 ms during a 256 MiB PUT claiming a CRC32C all answer within
    a second (on the event loop, the read-back held it for seconds)."""
    wire = ref.wire(timeout=(120.0, 300.0))  # connect timeout also bounds the send
    assert wire.request("PUT", BUCKET).status == 200
    body = bytes(range(256)) * (SIZE // 256)
    claims = _claims(body)
    with rpc_latencies_meanwhile(ref) as latencies:
        status = _put(wire, "big", body, claims)
    assert status == 200
    assert len(latencies) > 5
    print(f"JSON-RPC during the PUT: n={len(latencies)} max={max(latencies):.3f} s")
    assert max(latencies) < 1.0, f"slowest JSON-RPC call {max(latencies):.2f} s during the PUT"
    got = wire.request("HEAD", BUCKET, "big", headers={"x-amz-checksum-mode": "ENABLED"})
    assert got.headers.get("x-amz-checksum-crc32c") == claims["x-amz-checksum-crc32c"]


def test_wrong_checksum_still_refused(ref: RefProcess) -> None:
    """Verification moved to a worker, not away: a wrong claim is BadDigest, nothing stored."""
    wire = ref.wire()
    wire.request("PUT", BUCKET)
    body = b"checked off the loop" * 1000
    assert _put(wire, "wrong", body, _claims(b"other")) == 400
    assert wire.request("HEAD", BUCKET, "wrong").status == 404
    assert _put(wire, "right", body, _claims(body)) == 200
