"""Presigned URLs: GetObject and PutObject without other credentials, and expiry enforced."""

from __future__ import annotations

import datetime as dt
import time

import pytest

from conformance.suite.storage.auth.presigned_get import check_lifetime


def _fetch(s3, method, url, body=b""):
    """Send a presigned URL with nothing but the URL (no Authorization header)."""
    prepared = s3.wire.prepare(method, sign="none")
    prepared.url, prepared.body = url, body
    return s3.wire.send(prepared)


@pytest.mark.rule("storage.auth.presigned-get")
def test_presigned_get_reads_the_object(s3, bucket, names):
    """A presigned GetObject URL returns the object's bytes."""
    key = names.key()
    s3.wire.put_object(bucket, key, b"presigned body").assert_ok()
    reply = _fetch(s3, "GET", s3.wire.presign("GET", bucket, key, expires=300))
    assert reply.status == 200, f"presigned GET: status {reply.status} {reply.error_code}"
    assert reply.body == b"presigned body"


@pytest.mark.rule("storage.auth.presigned-get")
def test_presigned_get_with_the_longest_expiry_reads_the_object(s3, bucket, names):
    """X-Amz-Expires may be up to 7 days (604,800 s; R2's presigned URL docs, as S3's SigV4):
    a URL at that limit is served like any other."""
    key = names.key()
    s3.wire.put_object(bucket, key, b"a week-long URL").assert_ok()
    reply = _fetch(s3, "GET", s3.wire.presign("GET", bucket, key, expires=604_800))
    assert reply.status == 200, f"presigned GET, 604800 s: {reply.status} {reply.error_code}"
    assert reply.body == b"a week-long URL"


@pytest.mark.rule("storage.auth.presigned-expiry-limit")
def test_presigned_get_over_seven_days_is_refused(s3, bucket, names):
    """X-Amz-Expires of 604,801 s, one over the 7-day limit: a 4xx, not the object (the
    longest valid expiry is served, the test above)."""
    key = names.key()
    s3.wire.put_object(bucket, key, b"not for a week and a second").assert_ok()
    reply = _fetch(s3, "GET", s3.wire.presign("GET", bucket, key, expires=604_801))
    assert 400 <= reply.status < 500, (
        f"presigned GET, 604801 s: {reply.status} {reply.error_code}, expected a 4xx"
    )
    assert reply.body != b"not for a week and a second", "the object was served"


@pytest.mark.rule("storage.auth.presigned-put")
def test_presigned_put_writes_the_object(s3, bucket, names):
    """A presigned PutObject URL stores the body sent with it."""
    key = names.key()
    url = s3.wire.presign("PUT", bucket, key, expires=300)
    reply = _fetch(s3, "PUT", url, b"written through a presigned URL")
    assert reply.status == 200, f"presigned PUT: status {reply.status} {reply.error_code}"
    stored = s3.wire.get_object(bucket, key).assert_ok()
    assert stored.body == b"written through a presigned URL"


@pytest.mark.rule("storage.auth.presigned-expired")
def test_expired_presigned_url_is_refused(s3, bucket, names):
    """A presigned URL used after its expiry answers 400 ExpiredRequest."""
    key = names.key()
    s3.wire.put_object(bucket, key, b"x").assert_ok()
    url = s3.wire.presign("GET", bucket, key, expires=1)
    time.sleep(2.2)
    _fetch(s3, "GET", url).assert_error(400, "ExpiredRequest")


@pytest.mark.rule("storage.auth.presigned-expired")
@pytest.mark.parametrize(("expires", "valid"), [(3000, False), (4200, True)],
                         ids=["expired-10-min-ago", "valid-10-min-more"])  # fmt: skip
def test_expiry_counts_from_x_amz_date(s3, bucket, names, expires, valid):
    """A URL signed (by hand) with X-Amz-Date an hour ago: its lifetime runs from that date
    (AWS's SigV4 query-string page), so 3,000 s ended ten minutes ago (400 ExpiredRequest)
    and 4,200 s has ten minutes left (served). Ten minutes from either side: no clock skew
    between client and server decides it."""
    signed_at = dt.datetime.now(dt.UTC).replace(microsecond=0) - dt.timedelta(hours=1)
    check_lifetime(s3, bucket, names.key(), signed_at, expires, valid)
