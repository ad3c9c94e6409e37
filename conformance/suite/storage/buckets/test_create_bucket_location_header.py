"""CreateBucket's Location header and LocationConstraint aliases; GetBucketLocation after one."""

from __future__ import annotations

import pytest

from conformance.suite.setup_check import require_ok


@pytest.mark.rule("storage.create-bucket.location-header")
@pytest.mark.parametrize("location", [None, "auto"], ids=["no-body", "auto"])
def test_create_bucket_answers_location_header(s3, names, location):
    """CreateBucket answers with a non-empty Location header naming the bucket."""
    name = names.bucket()
    try:
        reply = s3.wire.create_bucket(name, location=location).assert_ok()
        value = reply.header("location")
        assert value, f"CreateBucket {name}: no Location header ({dict(reply.headers)})"
        assert name in value, f"Location {value!r} does not name the bucket {name}"
    finally:
        s3.delete_bucket_recursive(name)


@pytest.mark.rule("storage.create-bucket.location-aliases")
@pytest.mark.parametrize("alias", ["", "us-east-1"], ids=["empty", "us-east-1"])
def test_location_alias_is_accepted(s3, names, alias):
    """LocationConstraint `""` or `us-east-1` creates the bucket as `auto`."""
    name = names.bucket()
    try:
        s3.wire.create_bucket(name, location=alias).assert_ok()
        s3.wire.head_bucket(name).assert_ok()
    finally:
        s3.delete_bucket_recursive(name)


@pytest.mark.rule("storage.get-bucket-location.auto-for-alias")
@pytest.mark.parametrize("alias", ["", "us-east-1"], ids=["empty", "us-east-1"])
def test_location_of_alias_bucket_is_auto(s3, names, alias):
    """GetBucketLocation of a bucket created with an alias constraint answers `auto`."""
    name = names.bucket()
    try:
        # whether the alias is accepted is create-bucket.location-aliases' rule
        require_ok(s3.wire.create_bucket(name, location=alias), f"CreateBucket {alias!r}")
        reply = s3.wire.get_bucket_location(name).assert_ok()
        root = reply.xml
        assert root is not None and root.tag == "LocationConstraint", reply.body[:200]
        assert root.text == "auto", f"GetBucketLocation: {root.text!r}, expected 'auto'"
    finally:
        s3.delete_bucket_recursive(name)
