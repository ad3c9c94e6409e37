"""PutObject with POST instead of PUT (a plain POST to the key, not an HTML form upload)."""

from __future__ import annotations

import os

import pytest


@pytest.mark.rule("storage.put-object.post-accepted")
def test_post_put_object_is_accepted(s3, bucket, names):
    """POST to a key with a body answers success with the body's ETag."""
    reply = s3.wire.put_object(bucket, names.key(), b"posted", method="POST").assert_ok()
    assert reply.header("etag"), f"POST PutObject: no ETag ({dict(reply.headers)})"


@pytest.mark.rule("storage.put-object.post-round-trip")
@pytest.mark.parametrize("size", [1, 200_000], ids=["one-byte", "200k"])
def test_post_put_object_reads_back(s3, bucket, names, size):
    """An object written with POST reads back byte-identical, metadata included."""
    key, body = names.key(), os.urandom(size)
    meta = {s3.wire.vendor("meta-via"): "post", "Content-Type": "application/x-posted"}
    s3.wire.put_object(bucket, key, body, headers=meta, method="POST").assert_ok()
    reply = s3.wire.get_object(bucket, key).assert_ok()
    assert reply.body == body, f"read back {len(reply.body)} bytes, wrote {size}"
    assert reply.header(s3.wire.vendor("meta-via")) == "post"
    assert reply.header("content-type") == "application/x-posted"
