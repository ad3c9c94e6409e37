"""HeadBucket's region header."""

from __future__ import annotations

import pytest


@pytest.mark.rule("storage.head-bucket.region-header")
def test_region_header_is_auto(s3, bucket):
    """HeadBucket answers 200 (S3: a bucket that exists and may be read) with the bucket-region
    header set to `auto`."""
    reply = s3.wire.head_bucket(bucket)
    assert reply.status == 200, reply.describe()
    header = s3.wire.vendor("bucket-region")
    assert reply.header(header) == "auto", f"{header}: {reply.header(header)!r}"
