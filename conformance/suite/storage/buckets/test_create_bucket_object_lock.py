"""CreateBucket's object-lock header: `false` accepted, `true` NotImplemented."""

from __future__ import annotations

import pytest


@pytest.mark.rule("storage.create-bucket.object-lock-false-accepted")
def test_object_lock_false_is_accepted(s3, names):
    """CreateBucket with the object-lock header `false` creates the bucket."""
    name = names.bucket()
    header = {s3.wire.vendor("bucket-object-lock-enabled"): "false"}
    try:
        s3.wire.create_bucket(name, headers=header).assert_ok()
        s3.wire.head_bucket(name).assert_ok()
    finally:
        s3.delete_bucket_recursive(name)


@pytest.mark.rule("storage.create-bucket.object-lock-true-refused")
def test_object_lock_true_is_not_implemented(s3, names):
    """CreateBucket with the object-lock header `true` is 501 NotImplemented; no bucket."""
    name = names.bucket()
    header = {s3.wire.vendor("bucket-object-lock-enabled"): "true"}
    try:
        s3.wire.create_bucket(name, headers=header).assert_error(501, "NotImplemented")
        assert s3.wire.head_bucket(name).status == 404, "the refused bucket was created"
    finally:
        s3.delete_bucket_recursive(name)
