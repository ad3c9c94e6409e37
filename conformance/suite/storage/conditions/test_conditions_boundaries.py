"""Conditional writes at their boundaries, and conditions on a key that holds no object.

An implementer may compare dates with >= where HTTP means "later than" (a date equal to
Last-Modified is NOT modified since), or let an If-Match on a missing key write. The dates used
are the object's own Last-Modified (HTTP dates have whole seconds), one second before and after.
"""

from __future__ import annotations

import pytest

from conformance.clients import s3_multipart as mp
from conformance.suite.storage.conditions.support import shift

OLD, NEW = b"the stored object", b"the replacement"


@pytest.fixture
def stored(s3, bucket, names):
    """(bucket, key, Last-Modified) of an object already written."""
    key = names.key()
    s3.wire.put_object(bucket, key, OLD).assert_ok()
    modified = s3.wire.request("HEAD", bucket, key).assert_ok().header("last-modified")
    assert modified, "HeadObject has no Last-Modified"
    return bucket, key, modified


def _refused_put(s3, bucket, key, headers, old=OLD):
    s3.wire.put_object(bucket, key, NEW, headers=headers).assert_error(412, "PreconditionFailed")
    assert s3.wire.get_object(bucket, key).assert_ok().body == old


@pytest.mark.rule("storage.put-object.conditional-412")
@pytest.mark.parametrize("offset", [0, 1], ids=["equal", "one-second-later"])
def test_put_if_modified_since_not_later_is_412(s3, stored, offset):
    """If-Modified-Since equal to (or after) Last-Modified: not modified since, so 412."""
    bucket, key, modified = stored
    _refused_put(s3, bucket, key, {"If-Modified-Since": shift(modified, offset)})


@pytest.mark.rule("storage.put-object.conditional-met")
def test_put_if_modified_since_one_second_before_writes(s3, stored):
    """If-Modified-Since one second before Last-Modified holds: the write happens."""
    bucket, key, modified = stored
    headers = {"If-Modified-Since": shift(modified, -1)}
    s3.wire.put_object(bucket, key, NEW, headers=headers).assert_ok()
    assert s3.wire.get_object(bucket, key).assert_ok().body == NEW


@pytest.mark.rule("storage.put-object.conditional-met")
def test_put_if_unmodified_since_equal_writes(s3, stored):
    """If-Unmodified-Since equal to Last-Modified holds (not modified after it): written."""
    bucket, key, modified = stored
    s3.wire.put_object(bucket, key, NEW, headers={"If-Unmodified-Since": modified}).assert_ok()
    assert s3.wire.get_object(bucket, key).assert_ok().body == NEW


@pytest.mark.rule("storage.put-object.conditional-412")
def test_put_if_unmodified_since_one_second_before_is_412(s3, stored):
    """If-Unmodified-Since one second before Last-Modified: modified since, so 412."""
    bucket, key, modified = stored
    _refused_put(s3, bucket, key, {"If-Unmodified-Since": shift(modified, -1)})


@pytest.mark.rule("storage.put-object.conditional-412")
def test_put_if_match_on_missing_key_writes_nothing(s3, bucket, names):
    """If-Match needs an object to match: on a missing key the PUT is refused (412, or 404 as
    S3 answers) and no object appears."""
    key = names.key()
    reply = s3.wire.put_object(bucket, key, NEW, headers={"If-Match": "*"})
    assert reply.status in (404, 412), f"If-Match on a missing key: {reply.status}"
    s3.wire.request("HEAD", bucket, key).assert_error(404, None)
    etag = '"0123456789abcdef0123456789abcdef"'
    reply = s3.wire.put_object(bucket, key, NEW, headers={"If-Match": etag})
    assert reply.status in (404, 412), f"If-Match on a missing key: {reply.status}"
    s3.wire.request("HEAD", bucket, key).assert_error(404, None)


@pytest.mark.rule("storage.put-object.conditional-met")
def test_put_if_none_match_star_on_missing_key_writes(s3, bucket, names):
    """If-None-Match: * on a missing key holds: the object is created. (That naming its ETag
    then fails is the 412 rule's, in the test below: an unmet condition must not decide
    whether a met one is honoured.)"""
    key = names.key()
    s3.wire.put_object(bucket, key, OLD, headers={"If-None-Match": "*"}).assert_ok()
    assert s3.wire.get_object(bucket, key).assert_ok().body == OLD


@pytest.mark.rule("storage.put-object.conditional-412")
def test_put_if_none_match_of_a_new_objects_etag_is_412(s3, bucket, names):
    """An object created under If-None-Match: *; If-None-Match naming its ETag then fails."""
    key = names.key()
    etag = mp.etag(s3.wire.put_object(bucket, key, OLD, headers={"If-None-Match": "*"}))
    _refused_put(s3, bucket, key, {"If-None-Match": etag})


@pytest.mark.rule("storage.create-multipart-upload.conditional-412")
def test_create_upload_if_modified_since_equal_is_412(s3, stored):
    """CreateMultipartUpload with If-Modified-Since equal to Last-Modified: 412."""
    bucket, key, modified = stored
    reply = mp.create_upload(s3.wire, bucket, key, headers={"If-Modified-Since": modified})
    reply.assert_error(412, "PreconditionFailed")


@pytest.mark.rule("storage.copy-object.destination-if-modified-since")
def test_copy_destination_if_modified_since_equal_is_412(s3, stored, names):
    """ext-copy-destination-if-modified-since equal to the destination's Last-Modified: 412."""
    bucket, key, modified = stored
    source = names.key()
    s3.wire.put_object(bucket, source, NEW).assert_ok()
    headers = {s3.wire.ext("copy-destination-if-modified-since"): modified}
    reply = mp.copy_object(s3.wire, bucket, key, f"/{bucket}/{source}", headers=headers)
    reply.assert_error(412, "PreconditionFailed")
    assert s3.wire.get_object(bucket, key).assert_ok().body == OLD


@pytest.mark.rule("storage.copy-object.destination-condition-met")
def test_copy_destination_if_unmodified_since_equal_copies(s3, stored, names):
    """ext-copy-destination-if-unmodified-since equal to Last-Modified holds: copied."""
    bucket, key, modified = stored
    source = names.key()
    s3.wire.put_object(bucket, source, NEW).assert_ok()
    headers = {s3.wire.ext("copy-destination-if-unmodified-since"): modified}
    mp.copy_object(s3.wire, bucket, key, f"/{bucket}/{source}", headers=headers).assert_ok()
    assert s3.wire.get_object(bucket, key).assert_ok().body == NEW


@pytest.mark.rule("storage.complete-multipart-upload.condition-fails-412")
def test_completion_if_match_on_missing_key_is_refused(s3, bucket, names):
    """Completion with If-Match on a key that holds no object publishes nothing."""
    key = names.key()
    upload = mp.start(s3.wire, bucket, key)
    etag = mp.etag(mp.upload_part(s3.wire, bucket, key, upload, 1, b"part"))
    reply = mp.complete(s3.wire, bucket, key, upload, [(1, etag)], headers={"If-Match": "*"})
    assert reply.status in (404, 412), f"completion If-Match on a missing key: {reply.status}"
    s3.wire.request("HEAD", bucket, key).assert_error(404, None)
