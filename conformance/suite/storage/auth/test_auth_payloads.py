"""Unchunked signed payloads: the body's SHA-256 in x-amz-content-sha256, signed, accepted."""

from __future__ import annotations

import hashlib
import os
from collections.abc import Sequence
from typing import Any

import pytest


def _signed_put(
    s3: Any, bucket: str, key: str, body: bytes, query: Sequence[tuple[str, str]] = ()
) -> Any:
    """PUT with the body's real SHA-256 as the signed payload hash (not UNSIGNED-PAYLOAD)."""
    digest = hashlib.sha256(body).hexdigest()
    prepared = s3.wire.prepare("PUT", bucket, key, query=query, body=body, payload_hash=digest)
    sent = {name.lower(): value for name, value in prepared.headers.items()}
    assert sent["x-amz-content-sha256"] == digest
    return s3.wire.send(prepared)


@pytest.mark.rule("storage.auth.unchunked-signed-payload")
@pytest.mark.parametrize("size", [1, 70_000], ids=["one-byte", "70k"])
def test_put_object_with_signed_payload_is_accepted(s3, bucket, size):
    """PutObject whose payload hash is signed is accepted and stores the body."""
    body = os.urandom(size)
    _signed_put(s3, bucket, "signed-payload", body).assert_ok()
    reply = s3.wire.request("GET", bucket, "signed-payload").assert_ok()
    assert reply.body == body


@pytest.mark.rule("storage.auth.unchunked-signed-payload-part")
def test_upload_part_with_signed_payload_is_accepted(s3, bucket):
    """UploadPart whose payload hash is signed is accepted and its bytes complete the object."""
    body = os.urandom(50_000)
    upload_id = s3.boto.create_multipart_upload(Bucket=bucket, Key="signed-part")["UploadId"]
    query = [("partNumber", "1"), ("uploadId", upload_id)]
    reply = _signed_put(s3, bucket, "signed-part", body, query=query).assert_ok()
    etag = reply.header("ETag")
    assert etag
    s3.boto.complete_multipart_upload(
        Bucket=bucket,
        Key="signed-part",
        UploadId=upload_id,
        MultipartUpload={"Parts": [{"PartNumber": 1, "ETag": etag}]},
    )
    assert s3.wire.request("GET", bucket, "signed-part").assert_ok().body == body
