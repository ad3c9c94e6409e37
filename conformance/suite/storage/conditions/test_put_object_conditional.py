"""Conditional writes: PutObject and CreateMultipartUpload against an existing object, and the
ext-create-bucket-if-missing header on both."""

from __future__ import annotations

import pytest

from conformance.clients import s3_multipart as mp

OLD, NEW = b"the stored object", b"the replacement"
OTHER_ETAG = '"00000000000000000000000000000000"'


@pytest.fixture
def existing(s3, bucket, names):
    """(bucket, key, quoted ETag) of an object already written."""
    key = names.key()
    return bucket, key, mp.etag(s3.wire.put_object(bucket, key, OLD))


def _unmet(etag: str, which: str) -> dict[str, str]:
    return {"If-Match": OTHER_ETAG} if which == "if-match" else {"If-None-Match": etag}


@pytest.mark.rule("storage.put-object.conditional-412")
@pytest.mark.parametrize("which", ["if-match", "if-none-match"])
def test_put_unmet_condition_is_412(s3, existing, which):
    """PutObject with an unmet condition answers 412 PreconditionFailed and keeps the object."""
    bucket, key, etag = existing
    reply = s3.wire.put_object(bucket, key, NEW, headers=_unmet(etag, which))
    reply.assert_error(412, "PreconditionFailed")
    assert s3.wire.get_object(bucket, key).assert_ok().body == OLD


@pytest.mark.rule("storage.put-object.conditional-met")
@pytest.mark.parametrize("which", ["if-match", "if-none-match"])
def test_put_met_condition_writes(s3, existing, which):
    """PutObject whose condition holds replaces the object."""
    bucket, key, etag = existing
    headers = {"If-Match": etag} if which == "if-match" else {"If-None-Match": OTHER_ETAG}
    s3.wire.put_object(bucket, key, NEW, headers=headers).assert_ok()
    assert s3.wire.get_object(bucket, key).assert_ok().body == NEW


@pytest.mark.rule("storage.create-multipart-upload.conditional-412")
@pytest.mark.parametrize("which", ["if-match", "if-none-match"])
def test_create_upload_unmet_condition_is_412(s3, existing, which):
    """CreateMultipartUpload with an unmet condition answers 412 PreconditionFailed."""
    bucket, key, etag = existing
    reply = mp.create_upload(s3.wire, bucket, key, headers=_unmet(etag, which))
    reply.assert_error(412, "PreconditionFailed")


@pytest.fixture
def missing_bucket(s3, names):
    """A bucket name nobody created; removed after the test if the test created it."""
    name = names.bucket()
    yield name
    s3.delete_bucket_recursive(name)


@pytest.mark.rule("storage.put-object.create-bucket-if-missing")
def test_put_creates_missing_bucket(s3, missing_bucket, names):
    """PutObject with ext-create-bucket-if-missing creates the bucket and the object."""
    key = names.key()
    headers = {s3.wire.ext("create-bucket-if-missing"): "true"}
    s3.wire.put_object(missing_bucket, key, NEW, headers=headers).assert_ok()
    s3.wire.head_bucket(missing_bucket).assert_ok()
    assert s3.wire.get_object(missing_bucket, key).assert_ok().body == NEW


@pytest.mark.rule("storage.put-object.create-bucket-if-missing-false")
def test_put_with_create_bucket_false_creates_nothing(s3, missing_bucket, names):
    """ext-create-bucket-if-missing: false is the switch turned off: PutObject on a missing
    bucket answers 404 NoSuchBucket and no bucket appears."""
    headers = {s3.wire.ext("create-bucket-if-missing"): "false"}
    s3.wire.put_object(missing_bucket, names.key(), NEW, headers=headers).assert_error(
        404, "NoSuchBucket"
    )
    after = s3.wire.head_bucket(missing_bucket)
    assert after.status == 404, f"HeadBucket after the refused PUT: {after.status}"


@pytest.mark.rule("storage.create-multipart-upload.create-bucket-if-missing")
def test_create_upload_creates_missing_bucket(s3, missing_bucket, names):
    """CreateMultipartUpload with ext-create-bucket-if-missing creates the bucket."""
    key = names.key()
    headers = {s3.wire.ext("create-bucket-if-missing"): "true"}
    upload = mp.upload_id(mp.create_upload(s3.wire, missing_bucket, key, headers=headers))
    s3.wire.head_bucket(missing_bucket).assert_ok()
    mp.abort(s3.wire, missing_bucket, key, upload)


@pytest.mark.rule("storage.put-object.conditional-412")
def test_put_unmet_if_match_among_all_four_conditions_is_412(s3, existing):
    """All four conditional headers on one PUT, If-Match naming another ETag: 412, nothing
    written. RFC 9110 section 13.2.2 evaluates If-Match first and answers 412 when it is
    false, whatever the other three say (here each holds). An implementer may decide whether
    a request is conditional from some of its headers only, or skip the check when every one
    is present."""
    bucket, key, _ = existing
    headers = {
        "If-Match": OTHER_ETAG,
        "If-None-Match": OTHER_ETAG,
        "If-Modified-Since": "Sat, 01 Jan 2000 00:00:00 GMT",
        "If-Unmodified-Since": "Fri, 01 Jan 2100 00:00:00 GMT",
    }
    s3.wire.put_object(bucket, key, NEW, headers=headers).assert_error(412, "PreconditionFailed")
    assert s3.wire.get_object(bucket, key).assert_ok().body == OLD
