"""CopyObject: source forms, missing source or target, version-id headers, multipart sources."""

from __future__ import annotations

import pytest

from conformance.clients import s3_multipart as mp

BODY = b"bytes worth copying " * 50


@pytest.fixture
def source(s3, bucket, names):
    key = names.key()
    s3.wire.put_object(bucket, key, BODY).assert_ok()
    return bucket, key


@pytest.mark.rule("storage.copy-object.leading-slash")
def test_copy_source_with_leading_slash(s3, source, names):
    """A copy source of the form /bucket/key is accepted."""
    bucket, key = source
    mp.copy_object(s3.wire, bucket, names.key(), f"/{bucket}/{key}").assert_ok()


@pytest.mark.rule("storage.copy-object.round-trip")
def test_copy_has_source_bytes(s3, source, names):
    """The copy reads back byte-identical to its source."""
    bucket, key = source
    target = names.key()
    reply = mp.copy_object(s3.wire, bucket, target, f"/{bucket}/{key}").assert_ok()
    root = reply.xml
    assert root is not None and root.tag == "CopyObjectResult", reply.body[:200]
    assert s3.wire.get_object(bucket, target).assert_ok().body == BODY


@pytest.mark.rule("storage.copy-object.missing-source-key")
def test_missing_source_key_is_no_such_key(s3, bucket, names):
    """Copying from a key that does not exist answers 404 NoSuchKey."""
    reply = mp.copy_object(s3.wire, bucket, names.key(), f"/{bucket}/{names.key()}")
    reply.assert_error(404, "NoSuchKey")


@pytest.mark.rule("storage.copy-object.missing-source-bucket")
def test_missing_source_bucket_is_no_such_bucket(s3, bucket, names):
    """Copying from a bucket that does not exist answers 404 NoSuchBucket."""
    reply = mp.copy_object(s3.wire, bucket, names.key(), f"/{names.bucket()}/{names.key()}")
    reply.assert_error(404, "NoSuchBucket")


@pytest.mark.rule("storage.copy-object.missing-destination-bucket")
def test_missing_destination_bucket_is_no_such_bucket(s3, source, names):
    """Copying into a bucket that does not exist answers 404 NoSuchBucket."""
    bucket, key = source
    reply = mp.copy_object(s3.wire, names.bucket(), names.key(), f"/{bucket}/{key}")
    reply.assert_error(404, "NoSuchBucket")


@pytest.mark.rule("storage.copy-object.version-id-headers")
@pytest.mark.parametrize("header", ["version-id", "copy-source-version-id"])
def test_copy_reports_version_ids(s3, source, names, header):
    """The copy answer carries x-vendor-version-id and x-vendor-copy-source-version-id."""
    bucket, key = source
    reply = mp.copy_object(s3.wire, bucket, names.key(), f"/{bucket}/{key}").assert_ok()
    name = s3.wire.vendor(header)
    assert reply.header(name), f"no {name} header in {dict(reply.headers)}"


@pytest.mark.rule("storage.copy-object.multipart-source")
def test_multipart_object_can_be_copied(s3, bucket, names):
    """An object created by a multipart upload can be copied, bytes intact."""
    key, target = names.key(), names.key()
    upload = mp.start(s3.wire, bucket, key)
    part = mp.etag(mp.upload_part(s3.wire, bucket, key, upload, 1, BODY))
    mp.complete(s3.wire, bucket, key, upload, [(1, part)]).assert_ok()
    mp.copy_object(s3.wire, bucket, target, f"/{bucket}/{key}").assert_ok()
    assert s3.wire.get_object(bucket, target).assert_ok().body == BODY
