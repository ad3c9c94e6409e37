"""PutObject's stored metadata: custom and HTTP metadata, the MD5 ETag, Last-Modified."""

from __future__ import annotations

import datetime as dt
import email.utils
import hashlib

import pytest

from conformance.clients import s3_multipart as mp

HTTP_METADATA = {
    "Content-Type": "application/x-conformance",
    "Content-Encoding": "identity",
    "Content-Disposition": 'attachment; filename="c.bin"',
    "Cache-Control": "max-age=60, private",
    "Content-Language": "en-GB",
}
EXPIRES = "Wed, 21 Oct 2026 07:28:00 GMT"  # compared as an instant: a target may re-render it


def _custom_metadata(s3, colour, words):
    """Two x-vendor-meta-* headers to send, one whose name is mixed-case."""
    return {s3.wire.vendor("meta-colour"): colour, s3.wire.vendor("meta-Two-Words"): words}


def _assert_custom_metadata(s3, bucket, key, method, colour, words):
    """What `_custom_metadata(s3, colour, words)` sent comes back by `method` under the
    lower-cased names, values unchanged (one check for however the object was written)."""
    reply = s3.wire.request(method, bucket, key).assert_ok()
    assert reply.header(s3.wire.vendor("meta-colour")) == colour, dict(reply.headers)
    assert reply.header(s3.wire.vendor("meta-two-words")) == words, dict(reply.headers)


@pytest.mark.rule("storage.put-object.custom-metadata")
@pytest.mark.parametrize("method", ["GET", "HEAD"])
def test_custom_metadata_returned(s3, bucket, names, method):
    """x-vendor-meta-* headers come back, names lower-cased, values unchanged."""
    key = names.key()
    sent = _custom_metadata(s3, "blue", "a b")
    s3.wire.put_object(bucket, key, b"x", headers=sent).assert_ok()
    _assert_custom_metadata(s3, bucket, key, method, "blue", "a b")


@pytest.mark.rule("storage.put-object.custom-metadata")
@pytest.mark.parametrize("method", ["GET", "HEAD"])
def test_custom_metadata_of_a_multipart_object_returned(s3, bucket, names, method):
    """x-vendor-meta-* sent with CreateMultipartUpload are the completed object's metadata:
    the Object record has custom metadata however it was written (spec: CreateMultipartUpload
    "see PutObject")."""
    key = names.key()
    sent = _custom_metadata(s3, "green", "c d")
    upload = mp.upload_id(mp.create_upload(s3.wire, bucket, key, headers=sent))
    part = mp.upload_part(s3.wire, bucket, key, upload, 1, b"one part").assert_ok()
    mp.complete(s3.wire, bucket, key, upload, [(1, mp.etag(part))]).assert_ok()
    _assert_custom_metadata(s3, bucket, key, method, "green", "c d")


@pytest.mark.rule("storage.put-object.http-metadata")
@pytest.mark.parametrize("method", ["GET", "HEAD"])
def test_http_metadata_of_a_multipart_object_returned(s3, bucket, names, method):
    """Content-Type, -Encoding, -Disposition, -Language and Cache-Control sent with
    CreateMultipartUpload are the completed object's (spec: CreateMultipartUpload "see
    PutObject"); an upload that kept only custom metadata served application/octet-stream."""
    key = names.key()
    upload = mp.upload_id(mp.create_upload(s3.wire, bucket, key, headers=HTTP_METADATA))
    part = mp.upload_part(s3.wire, bucket, key, upload, 1, b"one part").assert_ok()
    mp.complete(s3.wire, bucket, key, upload, [(1, mp.etag(part))]).assert_ok()
    reply = s3.wire.request(method, bucket, key).assert_ok()
    wrong = {n: reply.header(n) for n, v in HTTP_METADATA.items() if reply.header(n) != v}
    assert not wrong, f"{method} of the completed object: {wrong}, sent {HTTP_METADATA}"


@pytest.mark.rule("storage.put-object.http-metadata")
def test_http_metadata_of_an_unsigned_payload_round_trips(s3, bucket, names):
    """The same fields on a PUT signed with UNSIGNED-PAYLOAD (what presigned uploads and SDKs
    over TLS send): stored and returned as written, Content-Encoding `identity` included. An
    implementer who refuses aws-chunked framing under UNSIGNED-PAYLOAD may refuse, or strip,
    any other Content-Encoding there as well."""
    key = names.key()
    reply = s3.wire.request(
        "PUT", bucket, key, body=b"x", headers=HTTP_METADATA, payload_hash="UNSIGNED-PAYLOAD"
    )
    reply.assert_ok()
    head = s3.wire.request("HEAD", bucket, key).assert_ok()
    for name, value in HTTP_METADATA.items():
        assert head.header(name) == value, f"{name}: {head.header(name)!r}, sent {value!r}"


@pytest.mark.rule("storage.put-object.http-metadata")
@pytest.mark.parametrize("method", ["GET", "HEAD"])
def test_http_metadata_round_trips(s3, bucket, names, method):
    """Content-Type, -Encoding, -Disposition, -Language, Cache-Control and Expires are
    returned as written (every field, not only the first few)."""
    key = names.key()
    s3.wire.put_object(bucket, key, b"x", headers=HTTP_METADATA | {"Expires": EXPIRES}).assert_ok()
    reply = s3.wire.request(method, bucket, key).assert_ok()
    for name, value in HTTP_METADATA.items():
        assert reply.header(name) == value, f"{name}: {reply.header(name)!r}, sent {value!r}"
    expires = reply.header("expires")
    assert expires, f"Expires: not returned, sent {EXPIRES!r}"
    try:
        got = email.utils.parsedate_to_datetime(expires)
    except (TypeError, ValueError):
        pytest.fail(f"Expires {expires!r} is no HTTP date, sent {EXPIRES!r}")
    assert got == email.utils.parsedate_to_datetime(EXPIRES), (
        f"Expires {expires!r}, sent {EXPIRES!r}"
    )


@pytest.mark.rule("storage.put-object.etag-md5")
@pytest.mark.parametrize("size", [0, 1, 100_000], ids=["empty", "one-byte", "100k"])
def test_etag_is_quoted_md5(s3, bucket, names, size):
    """PutObject, HeadObject and GetObject all give the quoted hex MD5 of the body."""
    key = names.key()
    body = bytes(i % 251 for i in range(size))
    expected = f'"{hashlib.md5(body).hexdigest()}"'
    put = s3.wire.put_object(bucket, key, body).assert_ok()
    assert put.header("etag") == expected, f"PutObject ETag {put.header('etag')!r}"
    for method in ("HEAD", "GET"):
        value = s3.wire.request(method, bucket, key).assert_ok().header("etag")
        assert value == expected, f"{method} ETag {value!r}, expected {expected!r}"


@pytest.mark.rule("storage.put-object.last-modified")
def test_last_modified_is_the_write_time(s3, bucket, names):
    """HeadObject's Last-Modified is an HTTP date within minutes of the write."""
    key = names.key()
    s3.wire.put_object(bucket, key, b"x").assert_ok()
    reply = s3.wire.request("HEAD", bucket, key).assert_ok()
    value = reply.header("last-modified")
    assert value, f"HeadObject: no Last-Modified ({dict(reply.headers)})"
    when = email.utils.parsedate_to_datetime(value)
    now = dt.datetime.now(dt.UTC)
    assert abs((now - when).total_seconds()) < 600, f"Last-Modified {value!r} is not now"
