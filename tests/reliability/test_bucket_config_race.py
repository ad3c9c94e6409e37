"""A bucket configuration whose body arrives after DeleteBucket is not kept for a later bucket.

PutBucketCors, PutBucketEncryption and PutBucketLifecycleConfiguration found their bucket, then
read their body. A DeleteBucket answered meanwhile removed the bucket and its configurations;
the PUT then stored its configuration for the deleted name anyway and answered 200, and a
bucket created later under that name started with it: its objects were served with CORS grants
(or lifecycle rules) its owner never set.
"""

from __future__ import annotations

import base64
import hashlib
import time
from collections.abc import Iterator

import pytest
from reliability import rawhttp
from reliability.refproc import RefProcess

from conformance.clients.s3_wire import WireClient

CORS = (
    b"<CORSConfiguration><CORSRule><AllowedOrigin>https://stale.example</AllowedOrigin>"
    b"<AllowedMethod>GET</AllowedMethod></CORSRule></CORSConfiguration>"
)
ENCRYPTION = (
    b"<ServerSideEncryptionConfiguration><Rule><ApplyServerSideEncryptionByDefault>"
    b"<SSEAlgorithm>AES256</SSEAlgorithm></ApplyServerSideEncryptionByDefault>"
    b"<BucketKeyEnabled>true</BucketKeyEnabled></Rule></ServerSideEncryptionConfiguration>"
)
LIFECYCLE = (
    b"<LifecycleConfiguration><Rule><ID>stale</ID><Filter><Prefix></Prefix></Filter>"
    b"<Status>Enabled</Status><Expiration><Days>1</Days></Expiration></Rule>"
    b"</LifecycleConfiguration>"
)
KINDS = {"cors": CORS, "encryption": ENCRYPTION, "lifecycle": LIFECYCLE}


@pytest.fixture(scope="module")
def wire(ref: RefProcess) -> Iterator[WireClient]:
    yield ref.wire()


@pytest.mark.parametrize("kind", list(KINDS))
def test_configuration_of_a_deleted_bucket_is_refused_not_inherited(
    wire: WireClient, kind: str
) -> None:
    bucket = f"late-{kind}"
    wire.create_bucket(bucket).assert_ok()
    body = KINDS[kind]
    md5 = base64.b64encode(hashlib.md5(body).digest()).decode()
    late = wire.prepare(
        "PUT", bucket, query=[(kind, None)], body=body, headers={"Content-MD5": md5}
    )
    sock = rawhttp.connect(late.url)
    try:
        head = {**late.headers, "Content-Length": str(len(body)), "Connection": "close"}
        sock.sendall(rawhttp.request_head("PUT", late.url, head))
        time.sleep(0.3)  # its handler finds the bucket, then waits for the body
        wire.request("DELETE", bucket).assert_ok()
        sock.sendall(body)
        raw, _ = rawhttp.read_until_closed(sock, time.monotonic() + 10)
    finally:
        sock.close()
    assert rawhttp.statuses(raw)[:1] == [404] and b"NoSuchBucket" in raw, raw[:400]
    wire.create_bucket(bucket).assert_ok()
    got = wire.request("GET", bucket, query=[(kind, None)])
    assert b"stale" not in got.body, got.body[:400]
    if kind == "encryption":
        assert b"<BucketKeyEnabled>true" not in got.body, got.body[:400]
    asked = {"Origin": "https://stale.example", "Access-Control-Request-Method": "GET"}
    read = wire.request("OPTIONS", bucket, headers=asked)
    assert read.header("Access-Control-Allow-Origin") is None
