"""A deleted bucket stays deleted on every surface the target offers.

An implementer whose binding (or another surface) opens a bucket by creating it when missing
brings a deleted bucket back, empty, with none of what a created bucket gets (an audit entry, the
default lifecycle rules), unseen by whoever deleted it. The binding of a worker names a bucket
that exists; an operation on one that does not throws (the provider's 10006), it never makes one.
"""

from __future__ import annotations

from typing import Any

import pytest

from conformance.clients.bindings import BindingsClient, Outcome
from conformance.suite.setup_check import require

INTERNAL = "InternalError"


def _bindings_of(request: pytest.FixtureRequest, target: Any, bucket: str) -> BindingsClient | None:
    """The target's binding client aimed at `bucket`, or None when bindings are not offered."""
    if not target.offers("bindings"):
        return None
    client: BindingsClient = request.getfixturevalue("bindings")
    return client.for_bucket(bucket)


def _mgmt_of(request: pytest.FixtureRequest, target: Any) -> Any:
    return request.getfixturevalue("mgmt") if target.offers("mgmt") else None


def _no_result(outcome: Outcome, what: str) -> None:
    """The binding threw (or the bridge refused the bucket): no result, and no crash."""
    assert outcome.status < 500 and (outcome.error or {}).get("name") != INTERNAL, (
        f"{what}: {outcome.describe()}"
    )
    assert outcome.error is not None, f"{what} answered a result: {outcome.describe()}"


def _touch_with_bindings(client: BindingsClient, key: str) -> None:
    _no_result(client.head(key), f"head() on the missing bucket {client.bucket}")
    _no_result(client.list(), f"list() on the missing bucket {client.bucket}")
    _no_result(client.get(key), f"get() on the missing bucket {client.bucket}")
    _no_result(client.put(key, b"x"), f"put() on the missing bucket {client.bucket}")


def _assert_missing(s3: Any, mgmt: Any, bucket: str, after: str) -> None:
    head = s3.wire.head_bucket(bucket)
    assert head.status == 404, f"HeadBucket after {after}: {head.describe()}"
    listed = s3.wire.list_objects_v2(bucket)
    assert (listed.status, listed.error_code) == (404, "NoSuchBucket"), (
        f"ListObjectsV2 after {after}: {listed.describe()}"
    )
    if mgmt is None:
        return
    got = mgmt.get_bucket(bucket)
    assert got.status == 404, f"the management API's GetBucket after {after}: {got.status}"
    result = mgmt.list_buckets(name_contains=bucket).assert_envelope_ok(200)
    names = [item.get("name") for item in (result or {}).get("buckets", [])]
    assert bucket not in names, f"the management API lists {bucket} after {after}"


@pytest.mark.rule("storage.delete-bucket.stays-deleted")
def test_deleted_bucket_stays_deleted(request, target, s3, names):
    """DeleteBucket 204; then no surface shows the bucket, and none brings it back."""
    bucket, key = names.bucket(), names.key()
    s3.wire.create_bucket(bucket).assert_ok()
    deleted = s3.wire.request("DELETE", bucket)
    require(deleted.status == 204, f"DeleteBucket of an empty bucket: {deleted.describe()}")
    mgmt = _mgmt_of(request, target)
    _assert_missing(s3, mgmt, bucket, "DeleteBucket")
    aimed = _bindings_of(request, target, bucket)
    if aimed is not None:
        for outcome in (aimed.head(key), aimed.list(), aimed.get(key)):
            assert outcome.status < 500, (
                f"a binding call on the deleted bucket: {outcome.describe()}"
            )
        _assert_missing(s3, mgmt, bucket, "binding calls on the deleted bucket")
    try:
        again = s3.wire.create_bucket(bucket)
        assert again.status == 200, (
            f"CreateBucket of the deleted bucket's name answered {again.describe()}: it is "
            "still there"
        )
    finally:
        s3.wire.request("DELETE", bucket)


@pytest.mark.rule("storage.bindings.missing-bucket-refused")
@pytest.mark.parametrize("history", ["never-created", "deleted"])
def test_binding_never_creates_a_bucket(request, target, s3, names, history):
    """head/list/get/put through a binding of a missing bucket throw; the bucket stays missing."""
    bucket, key = names.bucket(), names.key()
    aimed = _bindings_of(request, target, bucket)
    if aimed is None:
        pytest.skip(f"N/A: surface bindings not offered by target {target.name}")
    if history == "deleted":
        s3.wire.create_bucket(bucket).assert_ok()
        require(s3.wire.request("DELETE", bucket).status == 204, "DeleteBucket of an empty bucket")
    try:
        _touch_with_bindings(aimed, key)
        _assert_missing(s3, _mgmt_of(request, target), bucket, "binding calls")
    finally:
        s3.wire.request("DELETE", bucket, key)
        s3.wire.request("DELETE", bucket)
