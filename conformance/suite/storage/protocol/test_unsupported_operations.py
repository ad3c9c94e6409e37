"""Unsupported operations are refused as NotImplemented, never mapped to another operation."""

from __future__ import annotations

import pytest

UNSUPPORTED = [("GET", "website"), ("GET", "policy"), ("GET", "logging"), ("GET", "inventory")]


@pytest.mark.rule("storage.unsupported-operation.not-implemented")
@pytest.mark.parametrize(("method", "subresource"), UNSUPPORTED)
def test_unsupported_operation_is_not_implemented(s3, bucket, method, subresource):
    """An unsupported bucket operation is refused as unimplemented: HTTP 501 (the code is the
    SHOULD rule's business)."""
    reply = s3.wire.request(method, bucket, query=[(subresource, None)])
    reply.assert_error(501, None)


@pytest.mark.rule("storage.unsupported-operation.status-501")
@pytest.mark.parametrize(("method", "subresource"), UNSUPPORTED)
def test_unsupported_operation_is_501_not_implemented(s3, bucket, method, subresource):
    """An unsupported bucket operation answers 501 with code NotImplemented."""
    reply = s3.wire.request(method, bucket, query=[(subresource, None)])
    reply.assert_error(501, "NotImplemented")


# Object-level operations the provider lists as unimplemented (its S3 API compatibility page,
# "Unimplemented object-level operations": GetObjectTagging, PutObjectTagging,
# DeleteObjectTagging). Asked of an existing object they must not be served as the GetObject,
# PutObject or DeleteObject the path alone would name: the object stays as it was.
UNSUPPORTED_OBJECT = [("GET", "tagging"), ("PUT", "tagging"), ("DELETE", "tagging")]
TAGGING = b"<Tagging><TagSet><Tag><Key>k</Key><Value>v</Value></Tag></TagSet></Tagging>"


@pytest.mark.rule("storage.unsupported-operation.not-implemented")
@pytest.mark.parametrize(("method", "subresource"), UNSUPPORTED_OBJECT)
def test_unsupported_object_operation_is_not_implemented(s3, bucket, names, method, subresource):
    """An unsupported object operation on an existing object is refused with HTTP 501 and the
    object is left as it was (not read, overwritten or deleted as the plain operation)."""
    key = names.key()
    s3.boto.put_object(Bucket=bucket, Key=key, Body=b"object body")
    body = TAGGING if method == "PUT" else b""
    reply = s3.wire.request(method, bucket, key, query=[(subresource, None)], body=body)
    reply.assert_error(501, None)
    kept = s3.boto.get_object(Bucket=bucket, Key=key)["Body"].read()
    assert kept == b"object body", f"{method} ?{subresource} changed the object: {kept[:80]!r}"


# The side effect is looked for first and decides the rule: whether the refusal is a 501 is
# not-implemented's rule, so a target that answers otherwise but changes nothing passes here.


@pytest.mark.rule("storage.unsupported-operation.no-side-effect")
def test_unsupported_put_creates_no_bucket(s3, names):
    """An unsupported PUT on a missing bucket creates no bucket."""
    name = names.bucket()
    reply = s3.wire.request("PUT", name, query=[("website", None)])
    try:
        head = s3.wire.head_bucket(name)
        assert head.status == 404, (
            f"PUT ?website created the bucket: {reply._describe()}; HEAD: {head._describe()}"
        )
    finally:
        if reply.status < 300:
            s3.delete_bucket_recursive(name)


@pytest.mark.rule("storage.unsupported-operation.no-side-effect")
def test_unsupported_delete_keeps_bucket(s3, bucket):
    """An unsupported DELETE on an empty bucket deletes nothing."""
    reply = s3.wire.request("DELETE", bucket, query=[("website", None)])
    head = s3.wire.head_bucket(bucket)
    assert head.status == 200, (
        f"DELETE ?website deleted the bucket: {reply._describe()}; HEAD: {head._describe()}"
    )


@pytest.mark.rule("storage.unsupported-operation.no-side-effect")
def test_unsupported_get_is_no_listing(s3, bucket, names):
    """An unsupported GET on a bucket is not answered with a listing."""
    s3.boto.put_object(Bucket=bucket, Key=names.key(), Body=b"x")
    reply = s3.wire.request("GET", bucket, query=[("website", None)])
    assert b"ListBucketResult" not in reply.body, f"GET ?website listed: {reply._describe()}"
