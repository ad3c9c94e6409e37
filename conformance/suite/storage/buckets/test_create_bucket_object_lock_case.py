"""CreateBucket's object-lock header is a boolean: its value is read whatever its letter case.

An implementer comparing the value to the exact string `true` would create a bucket the client
asked to lock (`True`, as some SDKs and shells write booleans), silently without the lock.
"""

from __future__ import annotations

import pytest


@pytest.mark.rule("storage.create-bucket.object-lock-true-refused")
@pytest.mark.parametrize("value", ["True", "TRUE"])
def test_object_lock_true_any_case_is_not_implemented(s3, names, value):
    """`True` / `TRUE` mean true: 501 NotImplemented and no bucket."""
    name = names.bucket()
    header = {s3.wire.vendor("bucket-object-lock-enabled"): value}
    try:
        s3.wire.create_bucket(name, headers=header).assert_error(501, "NotImplemented")
        assert s3.wire.head_bucket(name).status == 404, "the refused bucket was created"
    finally:
        s3.delete_bucket_recursive(name)


@pytest.mark.rule("storage.create-bucket.object-lock-false-accepted")
@pytest.mark.parametrize("value", ["False", "FALSE"])
def test_object_lock_false_any_case_is_accepted(s3, names, value):
    """`False` / `FALSE` mean false: the bucket is created."""
    name = names.bucket()
    header = {s3.wire.vendor("bucket-object-lock-enabled"): value}
    try:
        s3.wire.create_bucket(name, headers=header).assert_ok()
        s3.wire.head_bucket(name).assert_ok()
    finally:
        s3.delete_bucket_recursive(name)
