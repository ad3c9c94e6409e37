"""Unsupported operations are refused as NotImplemented, never mapped to another operation."""

from __future__ import annotations

import pytest

UNSUPPORTED = [("GET", "website"), ("GET", "policy"), ("GET", "logging"), ("GET", "inventory")]


@pytest.mark.rule(
    "storage.unsupported-operation.not-implemented", "storage.unsupported-operation.status-501"
)
@pytest.mark.parametrize(("method", "subresource"), UNSUPPORTED)
def test_unsupported_operation_is_501(s3, bucket, method, subresource):
    """An unsupported bucket operation answers 501 NotImplemented."""
    reply = s3.wire.request(method, bucket, query=[(subresource, None)])
    reply.assert_error(501, "NotImplemented")


@pytest.mark.rule("storage.unsupported-operation.no-side-effect")
def test_unsupported_put_creates_no_bucket(s3, names):
    """An unsupported PUT on a missing bucket is refused and creates no bucket."""
    name = names.bucket()
    reply = s3.wire.request("PUT", name, query=[("website", None)])
    try:
        reply.assert_error(501, "NotImplemented")
        s3.wire.head_bucket(name).assert_error(404, None)
    finally:
        if reply.status < 300:
            s3.delete_bucket_recursive(name)


@pytest.mark.rule("storage.unsupported-operation.no-side-effect")
def test_unsupported_delete_keeps_bucket(s3, bucket):
    """An unsupported DELETE on an empty bucket is refused and deletes nothing."""
    reply = s3.wire.request("DELETE", bucket, query=[("website", None)])
    reply.assert_error(501, "NotImplemented")
    s3.wire.head_bucket(bucket).assert_ok()


@pytest.mark.rule("storage.unsupported-operation.no-side-effect")
def test_unsupported_get_is_no_listing(s3, bucket, names):
    """An unsupported GET on a bucket is refused, not answered with a listing."""
    s3.boto.put_object(Bucket=bucket, Key=names.key(), Body=b"x")
    reply = s3.wire.request("GET", bucket, query=[("website", None)])
    reply.assert_error(501, "NotImplemented")
    assert b"ListBucketResult" not in reply.body
