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


@pytest.mark.rule("storage.create-bucket.configuration-root-checked")
def test_configuration_under_another_root_is_refused(s3, names):
    """A CreateBucket body that is well-formed XML but not a CreateBucketConfiguration (its
    LocationConstraint `auto` under another root element) does not validate against S3's
    schema: refused with a 4xx and an error code (S3: MalformedXML), no bucket created. An
    implementer may look for a LocationConstraint wherever it stands."""
    name = names.bucket()
    body = (
        b'<CreateBucketConfig xmlns="http://s3.amazonaws.com/doc/2006-03-01/">'
        b"<LocationConstraint>auto</LocationConstraint></CreateBucketConfig>"
    )
    try:
        reply = s3.wire.request("PUT", name, body=body)
        assert 400 <= reply.status < 500, f"another root element: {reply.describe()}"
        assert reply.error_code and reply.error_code != "InternalError", reply.describe()
        assert s3.wire.head_bucket(name).status == 404, "the refused bucket was created anyway"
    finally:
        s3.delete_bucket_recursive(name)
