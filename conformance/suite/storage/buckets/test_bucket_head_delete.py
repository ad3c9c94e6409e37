"""HeadBucket on a missing bucket, its region header, DeleteBucket of a bucket in use."""

from __future__ import annotations

import pytest


@pytest.mark.rule("storage.head-bucket.missing-404")
def test_head_missing_bucket_is_404(s3, names):
    """HeadBucket on a bucket that does not exist answers 404 (HEAD: no body to carry a code)."""
    reply = s3.wire.head_bucket(names.bucket())
    assert reply.status == 404, f"HeadBucket of a missing bucket: status {reply.status}"
    assert reply.body == b"", "a HEAD answer carried a body"


@pytest.mark.rule("storage.head-bucket.region-header-dated")
@pytest.mark.parametrize("created", ["empty", "with-object"])
def test_head_bucket_region_header_on_any_bucket(s3, bucket, created):
    """Every existing bucket, empty or not, answers HeadBucket with bucket-region `auto`."""
    if created == "with-object":
        s3.wire.put_object(bucket, "o", b"x").assert_ok()
    reply = s3.wire.head_bucket(bucket).assert_ok()
    header = s3.wire.vendor("bucket-region")
    assert reply.header(header) == "auto", f"{header}: {reply.header(header)!r}"


@pytest.mark.rule("storage.delete-bucket.not-empty-409")
def test_delete_bucket_not_empty_is_409(s3, bucket):
    """DeleteBucket of a bucket that holds an object is 409 BucketNotEmpty; it stays."""
    s3.wire.put_object(bucket, "keeps-it", b"x").assert_ok()
    s3.wire.request("DELETE", bucket).assert_error(409, "BucketNotEmpty")
    s3.wire.head_bucket(bucket).assert_ok()
    s3.wire.request("DELETE", bucket, "keeps-it").assert_ok()
    reply = s3.wire.request("DELETE", bucket)
    assert reply.status == 204, f"DeleteBucket of the emptied bucket: status {reply.status}"
