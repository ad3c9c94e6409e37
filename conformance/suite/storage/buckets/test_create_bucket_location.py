"""CreateBucket and its LocationConstraint."""

from __future__ import annotations

import pytest


@pytest.mark.rule("storage.create-bucket.location-auto")
def test_location_auto_is_accepted(s3, names):
    """CreateBucket with LocationConstraint `auto` creates the bucket."""
    name = names.bucket()
    try:
        reply = s3.wire.create_bucket(name, location="auto")
        reply.assert_ok()
        s3.wire.head_bucket(name).assert_ok()
    finally:
        s3.delete_bucket_recursive(name)


@pytest.mark.rule("storage.create-bucket.location-other-refused")
@pytest.mark.parametrize("location", ["eu-central-1", "mars-north-1"])
def test_other_location_is_refused(s3, names, location):
    """CreateBucket with another LocationConstraint is 400 InvalidLocationConstraint."""
    name = names.bucket()
    try:
        reply = s3.wire.create_bucket(name, location=location)
        reply.assert_error(400, "InvalidLocationConstraint")
        assert s3.wire.head_bucket(name).status == 404, "the refused bucket was created anyway"
    finally:
        s3.delete_bucket_recursive(name)


@pytest.mark.rule("storage.create-bucket.location-hint-accepted")
@pytest.mark.parametrize("hint", ["wnam", "enam", "weur", "eeur", "apac", "oc"])
def test_location_hint_is_accepted(s3, names, hint):
    """CreateBucket with a location hint as LocationConstraint creates the bucket."""
    name = names.bucket()
    try:
        reply = s3.wire.create_bucket(name, location=hint)
        assert reply.status == 200, f"location {hint}: {reply.status} {reply.body[:300]!r}"
        s3.wire.head_bucket(name).assert_ok()
    finally:
        s3.delete_bucket_recursive(name)
