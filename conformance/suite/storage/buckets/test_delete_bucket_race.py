"""DeleteBucket racing writes: a deleted bucket never comes back holding a PUT or an upload.

A bucket that DeleteBucket removed (204) held no object, so the PUT that was streaming into it
must not land afterwards: not in the deleted bucket, and not in a bucket created again under
the same name. Either the PUT is stored first and DeleteBucket answers 409 BucketNotEmpty, or
DeleteBucket wins and the PUT fails. Likewise an upload in progress is refused as content
(409) or leaves with its bucket (S3 aborts it); it never reaches a recreated bucket.
"""

from __future__ import annotations

import http.client
import ssl
import time
from typing import Any
from urllib.parse import urlsplit

import pytest

BODY = bytes(range(256)) * 1024  # 256 KiB: several TCP segments, the first half sent early
SETTLE_SECONDS = 0.5  # for the target to take up the request whose body is half sent


def _connection(wire, url) -> http.client.HTTPConnection:
    host, port = url.hostname or "127.0.0.1", url.port
    if url.scheme != "https":
        return http.client.HTTPConnection(host, port, timeout=30)
    context = ssl.create_default_context(
        cafile=wire.verify if isinstance(wire.verify, str) else None
    )
    if wire.verify is False:
        context.check_hostname, context.verify_mode = False, ssl.CERT_NONE
    return http.client.HTTPSConnection(host, port, timeout=30, context=context)


def _start_put(wire, bucket: str, key: str) -> http.client.HTTPConnection:
    """Send a signed PUT's headers and half its body (UNSIGNED-PAYLOAD: streamed by hand)."""
    length = {"Content-Length": str(len(BODY))}
    prepared = wire.prepare("PUT", bucket, key, headers=length, payload_hash="UNSIGNED-PAYLOAD")
    url = urlsplit(prepared.url)
    conn = _connection(wire, url)
    conn.putrequest("PUT", url.path, skip_accept_encoding=True)
    for name, value in prepared.headers.items():
        if name.lower() not in ("content-length", "host"):
            conn.putheader(name, value)
    conn.putheader("Content-Length", str(len(BODY)))
    conn.endheaders()
    conn.send(BODY[: len(BODY) // 2])
    time.sleep(SETTLE_SECONDS)
    return conn


@pytest.mark.rule("storage.delete-bucket.no-resurrection")
def test_put_streaming_during_delete_bucket_never_resurrects(s3, names):
    """DeleteBucket 204 mid-body: the PUT then fails, and a recreated bucket is empty."""
    wire = s3.wire
    bucket, key = names.bucket(), names.key()
    wire.create_bucket(bucket).assert_ok()
    conn = _start_put(wire, bucket, key)
    try:
        deleted = wire.request("DELETE", bucket)
        conn.send(BODY[len(BODY) // 2 :])
        reply = conn.getresponse()
        put_status, put_body = reply.status, reply.read()
    finally:
        conn.close()
    if deleted.status == 409:  # the PUT was stored first: the bucket was not empty
        assert put_status == 200, f"DeleteBucket 409 yet the PUT answered {put_status}"
        wire.request("DELETE", bucket, key)
        wire.request("DELETE", bucket)
        return
    assert deleted.status == 204, f"DeleteBucket of an empty bucket: status {deleted.status}"
    assert put_status >= 400, (
        f"the PUT into the deleted bucket answered {put_status} {put_body[:200]!r}: "
        "it landed in a bucket that DeleteBucket had removed"
    )
    # the bucket is gone (NoSuchBucket is S3's word for it): the refusal is the client's to
    # hear, not a server failure a client would retry
    assert put_status < 500, f"the PUT into the deleted bucket: {put_status} {put_body[:200]!r}"
    wire.create_bucket(bucket).assert_ok()
    try:
        listed = wire.list_objects_v2(bucket).assert_ok()
        keys = [e.text for e in listed.xml.iter() if e.tag.endswith("Key")]
        assert keys == [], f"the recreated bucket holds {keys}: objects came back from the dead"
        got = wire.get_object(bucket, key)
        assert got.status >= 400, f"GetObject of the key in the recreated bucket: {got.status}"
    finally:
        wire.request("DELETE", bucket, key)
        wire.request("DELETE", bucket)


def _upload_id(reply) -> str:
    found = [e.text for e in reply.xml.iter() if e.tag.endswith("UploadId")]
    assert found and found[0], f"CreateMultipartUpload answered no UploadId: {reply.body[:200]!r}"
    return str(found[0])


@pytest.mark.rule("storage.delete-bucket.uploads-in-progress")
def test_upload_in_progress_never_survives_its_bucket(s3, names):
    """DeleteBucket with an upload in progress: 409 (not empty), or the upload goes with it."""
    wire = s3.wire
    bucket, key = names.bucket(), names.key()
    wire.create_bucket(bucket).assert_ok()
    upload_id = _upload_id(wire.request("POST", bucket, key, query=[("uploads", None)]).assert_ok())
    part = [("partNumber", "1"), ("uploadId", upload_id)]
    etag = wire.request("PUT", bucket, key, query=part, body=b"part one").assert_ok().header("ETag")
    deleted = wire.request("DELETE", bucket)
    if deleted.status == 409:  # refused as not empty: the upload and the bucket stay
        wire.request("DELETE", bucket, key, query=[("uploadId", upload_id)])
        wire.request("DELETE", bucket)
        return
    assert deleted.status == 204, f"DeleteBucket with an upload in progress: {deleted.status}"
    wire.create_bucket(bucket).assert_ok()
    try:
        _assert_upload_gone(wire, bucket, key, upload_id, etag)
        got = wire.get_object(bucket, key)
        assert got.status >= 400, f"GetObject of the key in the recreated bucket: {got.status}"
    finally:
        wire.request("DELETE", bucket, key)
        wire.request("DELETE", bucket)


@pytest.mark.rule("storage.delete-bucket.no-resurrection")
def test_upload_never_survives_a_bucket_deleted_through_the_api(s3, mgmt, names):
    """The management API's delete of a bucket with an upload in progress: refused with a 4xx
    (the upload stays), or the upload goes with the bucket and never reaches a bucket created
    again under the name. An implementer may end uploads on S3's DeleteBucket and forget them
    on the other surface's."""
    wire = s3.wire
    bucket, key = names.bucket(), names.key()
    wire.create_bucket(bucket).assert_ok()
    upload_id = _upload_id(wire.request("POST", bucket, key, query=[("uploads", None)]).assert_ok())
    part = [("partNumber", "1"), ("uploadId", upload_id)]
    etag = wire.request("PUT", bucket, key, query=part, body=b"part one").assert_ok().header("ETag")
    deleted = mgmt.delete_bucket(bucket)
    if 400 <= deleted.status < 500:  # refused while the upload is in progress: both stay
        wire.request("DELETE", bucket, key, query=[("uploadId", upload_id)])
        wire.request("DELETE", bucket)
        return
    deleted.assert_envelope_ok()
    wire.create_bucket(bucket).assert_ok()
    try:
        _assert_upload_gone(wire, bucket, key, upload_id, etag)
    finally:
        wire.request("DELETE", bucket, key)
        wire.request("DELETE", bucket)


def _assert_upload_gone(wire: Any, bucket: str, key: str, upload_id: str, etag: str) -> None:
    """The deleted bucket's upload is neither listed in the bucket created again under its
    name nor completable there (404)."""
    listed = wire.request("GET", bucket, query=[("uploads", None)])
    if listed.status != 501:  # ListMultipartUploads is served from 2022-07-13 on
        listed.assert_ok()
        ids = [e.text for e in listed.xml.iter() if e.tag.endswith("UploadId")]
        assert upload_id not in ids, "the deleted bucket's upload is listed in the new one"
    complete = (
        "<CompleteMultipartUpload><Part><PartNumber>1</PartNumber>"
        f"<ETag>{etag}</ETag></Part></CompleteMultipartUpload>"
    ).encode()
    done = wire.request("POST", bucket, key, query=[("uploadId", upload_id)], body=complete)
    assert done.status == 404, (
        f"CompleteMultipartUpload of the deleted bucket's upload answered {done.status}: "
        "the upload survived its bucket"
    )
