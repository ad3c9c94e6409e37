"""An XML request body that starts with an XML declaration is parsed like one without.

The spec's Errors table accepts "XML body with an XML declaration" for every XML body (dates.md:
from 2022-07-13); DeleteObjects, CompleteMultipartUpload and PutBucketCors have their own cases.
These are the other bodies a client sends: CreateBucket's configuration, PutBucketEncryption and
PutBucketLifecycleConfiguration. Each case reads the configuration back, so a body accepted
but not applied is no pass. (Issue 23: a parser flag inverted for one operation only.)
"""

from __future__ import annotations

import base64
import datetime as dt
import hashlib
from typing import Any

import pytest

XMLNS = "http://s3.amazonaws.com/doc/2006-03-01/"
DECLARATION = '<?xml version="1.0" encoding="UTF-8"?>\n'
LIFECYCLE_SINCE = dt.date(2023, 3, 16)  # storage.lifecycle.put-get: object lifecycles


def _applied(s3: Any, bucket: str, subresource: str, body: bytes, element: str) -> list[str]:
    """PUT ?<subresource> with the body exactly as given (Content-MD5 set, as S3 requires),
    want a 200, and return the texts of `element` in the configuration then read back."""
    md5 = base64.b64encode(hashlib.md5(body).digest()).decode()
    reply = s3.wire.request(
        "PUT", bucket, query=[(subresource, None)], body=body, headers={"Content-MD5": md5}
    )
    assert reply.status == 200, f"declared {subresource} configuration refused: {reply.describe()}"
    root = s3.wire.request("GET", bucket, query=[(subresource, None)]).assert_ok().xml
    return [str(node.text) for node in root.iter() if node.tag.split("}")[-1] == element]


@pytest.mark.rule("storage.xml.declaration-accepted")
def test_create_bucket_configuration_with_declaration(s3, names):
    """CreateBucket whose CreateBucketConfiguration (LocationConstraint auto) starts with an XML
    declaration creates the bucket."""
    name = names.bucket()
    body = (
        f'{DECLARATION}<CreateBucketConfiguration xmlns="{XMLNS}">'
        "<LocationConstraint>auto</LocationConstraint></CreateBucketConfiguration>"
    ).encode()
    try:
        reply = s3.wire.request("PUT", name, body=body)
        assert reply.status == 200, f"declared configuration refused: {reply.describe()}"
        s3.wire.head_bucket(name).assert_ok()
    finally:
        s3.delete_bucket_recursive(name)


@pytest.mark.rule("storage.xml.declaration-accepted")
def test_bucket_encryption_with_declaration(s3, bucket):
    """PutBucketEncryption (AES256) whose body starts with an XML declaration is applied."""
    body = (
        f'{DECLARATION}<ServerSideEncryptionConfiguration xmlns="{XMLNS}"><Rule>'
        "<ApplyServerSideEncryptionByDefault><SSEAlgorithm>AES256</SSEAlgorithm>"
        "</ApplyServerSideEncryptionByDefault></Rule></ServerSideEncryptionConfiguration>"
    ).encode()
    algorithms = _applied(s3, bucket, "encryption", body, "SSEAlgorithm")
    assert algorithms == ["AES256"], f"GetBucketEncryption after the PUT: {algorithms}"


@pytest.mark.rule("storage.xml.declaration-accepted")
def test_bucket_lifecycle_with_declaration(s3, bucket, as_of):
    """PutBucketLifecycleConfiguration whose body starts with an XML declaration is applied."""
    if as_of < LIFECYCLE_SINCE:
        pytest.skip(f"N/A: object lifecycles start on {LIFECYCLE_SINCE}")
    body = (
        f"{DECLARATION}<LifecycleConfiguration><Rule><ID>declared</ID>"
        "<Filter><Prefix>logs/</Prefix></Filter><Status>Enabled</Status>"
        "<Expiration><Days>30</Days></Expiration></Rule></LifecycleConfiguration>"
    ).encode()
    ids = _applied(s3, bucket, "lifecycle", body, "ID")
    assert "declared" in ids, f"GetBucketLifecycleConfiguration after the PUT: rule ids {ids}"
