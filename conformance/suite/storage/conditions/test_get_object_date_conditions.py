"""GetObject / HeadObject date conditions at their boundary (the object's own second).

An implementer may compare with >= (an object modified in the very second the client names
then counts as modified after it), invert the test, or ignore the header on HEAD.
"""

from __future__ import annotations

import pytest

from conformance.suite.storage.conditions.support import shift, store_dated


@pytest.fixture
def stored(s3, bucket, names):
    key = names.key()
    return bucket, key, store_dated(s3, bucket, key, b"dated object")


@pytest.mark.rule("storage.get-object.date-conditions")
@pytest.mark.parametrize("method", ["GET", "HEAD"])
def test_if_unmodified_since_before_last_modified_is_412(s3, stored, method):
    """One second before LastModified: the object was modified since, so 412."""
    bucket, key, modified = stored
    headers = {"If-Unmodified-Since": shift(modified, -1)}
    reply = s3.wire.request(method, bucket, key, headers=headers)
    assert reply.status == 412, f"{method} If-Unmodified-Since before: {reply.status}"
    if method == "GET":
        reply.assert_error(412, "PreconditionFailed")


@pytest.mark.rule("storage.get-object.date-conditions")
@pytest.mark.parametrize("method", ["GET", "HEAD"])
@pytest.mark.parametrize("offset", [0, 1], ids=["equal", "later"])
def test_if_unmodified_since_equal_or_later_is_met(s3, stored, method, offset):
    """Equal to (or after) LastModified: not modified since, the object is served."""
    bucket, key, modified = stored
    headers = {"If-Unmodified-Since": shift(modified, offset)}
    reply = s3.wire.request(method, bucket, key, headers=headers).assert_ok()
    if method == "GET":
        assert reply.body == b"dated object"


@pytest.mark.rule("storage.get-object.date-conditions")
@pytest.mark.parametrize("method", ["GET", "HEAD"])
@pytest.mark.parametrize("offset", [0, 1], ids=["equal", "later"])
def test_if_modified_since_not_earlier_is_304(s3, stored, method, offset):
    """If-Modified-Since equal to (or after) LastModified: not modified since, 304, no body."""
    bucket, key, modified = stored
    headers = {"If-Modified-Since": shift(modified, offset)}
    reply = s3.wire.request(method, bucket, key, headers=headers)
    assert reply.status == 304, f"{method} If-Modified-Since +{offset}s: {reply.status}"
    assert not reply.body


@pytest.mark.rule("storage.get-object.date-conditions")
@pytest.mark.parametrize("method", ["GET", "HEAD"])
def test_if_modified_since_earlier_serves(s3, stored, method):
    """If-Modified-Since one second before LastModified: modified since, served."""
    bucket, key, modified = stored
    headers = {"If-Modified-Since": shift(modified, -1)}
    reply = s3.wire.request(method, bucket, key, headers=headers).assert_ok()
    if method == "GET":
        assert reply.body == b"dated object"


@pytest.mark.rule("storage.get-object.missing-key", "storage.get-object.if-match-unmet-412")
@pytest.mark.parametrize(
    "headers",
    [{"If-Match": "*"}, {"If-None-Match": "*"}, {"If-Match": '"0123456789abcdef0123456789abcdef"'},
     {"If-Unmodified-Since": "Mon, 01 Jan 2001 00:00:00 GMT"}],
    ids=["if-match-star", "if-none-match-star", "if-match-etag", "if-unmodified-since"],
)  # fmt: skip
def test_conditions_on_a_missing_key_are_404(s3, bucket, names, headers):
    """A condition on a key that holds no object: 404 NoSuchKey (the 412 is for an existing
    object; nothing is served)."""
    key = names.key()
    s3.wire.request("GET", bucket, key, headers=headers).assert_error(404, "NoSuchKey")
    assert s3.wire.request("HEAD", bucket, key, headers=headers).status == 404


OTHER_ETAG = '"0123456789abcdef0123456789abcdef"'


@pytest.mark.rule("storage.get-object.condition-precedence")
@pytest.mark.parametrize("method", ["GET", "HEAD"])
def test_matching_if_match_overrides_if_unmodified_since(s3, stored, method):
    """If-Match naming the object's ETag, with an If-Unmodified-Since one second before
    LastModified: the date is not evaluated (RFC 9110 13.2.2; S3's GetObject docs: 200 and
    the data), so the object is served, not 412."""
    bucket, key, modified = stored
    etag = s3.wire.request("HEAD", bucket, key).assert_ok().header("etag")
    headers = {"If-Match": etag or "", "If-Unmodified-Since": shift(modified, -1)}
    reply = s3.wire.request(method, bucket, key, headers=headers)
    assert reply.status == 200, f"{method} If-Match met + If-Unmodified-Since unmet: {reply.status}"
    if method == "GET":
        assert reply.body == b"dated object"


@pytest.mark.rule("storage.get-object.condition-precedence")
@pytest.mark.parametrize("method", ["GET", "HEAD"])
def test_unmatched_if_none_match_overrides_if_modified_since(s3, stored, method):
    """If-None-Match naming another ETag, with an If-Modified-Since equal to LastModified:
    a recipient must ignore If-Modified-Since when If-None-Match is present (RFC 9110
    13.1.3), so the object is served, not 304."""
    bucket, key, modified = stored
    headers = {"If-None-Match": OTHER_ETAG, "If-Modified-Since": shift(modified, 0)}
    reply = s3.wire.request(method, bucket, key, headers=headers)
    assert reply.status == 200, (
        f"{method} If-None-Match unmatched + If-Modified-Since: {reply.status}"
    )
    if method == "GET":
        assert reply.body == b"dated object"
