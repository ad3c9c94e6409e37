"""DeleteBucket while a PUT is still sending its body: the bucket never comes back holding it.

A bucket that DeleteBucket removed (204) held no object, so the PUT that was streaming into it
must not land afterwards: not in the deleted bucket, and not in a bucket created again under
the same name. Either the PUT is stored first and DeleteBucket answers 409 BucketNotEmpty, or
DeleteBucket wins and the PUT fails.
"""

from __future__ import annotations

import http.client
import ssl
import time
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


@pytest.mark.rule("storage.delete-bucket.not-empty-409")
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
    wire.create_bucket(bucket).assert_ok()
    try:
        listed = wire.list_objects_v2(bucket).assert_ok()
        keys = [e.text for e in listed.xml.iter() if e.tag.endswith("Key")]
        assert keys == [], f"the recreated bucket holds {keys}: objects came back from the dead"
        wire.get_object(bucket, key).assert_error(404, "NoSuchKey")
    finally:
        wire.request("DELETE", bucket, key)
        wire.request("DELETE", bucket)
