"""GetBucketLocation."""

from __future__ import annotations

import pytest


@pytest.mark.rule("storage.get-bucket-location.auto")
def test_location_is_auto(s3, bucket):
    """GetBucketLocation's LocationConstraint is `auto`."""
    reply = s3.wire.get_bucket_location(bucket).assert_ok()
    root = reply.xml
    assert root is not None and root.tag == "LocationConstraint", reply.body[:200]
    assert root.text == "auto", f"LocationConstraint: {root.text!r}"
