"""A 304 Not Modified carries what a 200 would of ETag, Cache-Control and Expires (RFC 9110
15.4.5), and no body: a cache that revalidates keeps the object's freshness from it."""

from __future__ import annotations

import pytest

from conformance.clients import s3_multipart as mp

BODY = b"revalidated"
CACHE_CONTROL = "public, max-age=600"
EXPIRES = "Wed, 21 Oct 2037 07:28:00 GMT"


@pytest.mark.rule("storage.get-object.not-modified-headers")
@pytest.mark.parametrize("method", ["GET", "HEAD"])
def test_not_modified_carries_cache_control_and_expires(s3, bucket, names, method):
    """An object stored with Cache-Control and Expires, read with If-None-Match of its own
    ETag: the 304 names the ETag and both stored fields, as the 200 does, with no body."""
    key = names.key()
    headers = {"Cache-Control": CACHE_CONTROL, "Expires": EXPIRES}
    etag = mp.etag(s3.wire.put_object(bucket, key, BODY, headers=headers))
    served = s3.wire.request(method, bucket, key)
    served.assert_ok()
    # what a 200 sends: the fields the 304 must repeat (a target that stores neither is
    # judged by what it serves, not by what was sent)
    wanted = {name: served.header(name) for name in ("Cache-Control", "Expires")}
    assert wanted == {"Cache-Control": CACHE_CONTROL, "Expires": EXPIRES}, (
        f"the 200 {method} serves {wanted}, not the stored fields"
    )
    reply = s3.wire.request(method, bucket, key, headers={"If-None-Match": etag})
    assert reply.status == 304, f"expected 304 Not Modified, got {reply.status}"
    assert reply.body == b"", f"a 304 with a body of {len(reply.body)} bytes"
    assert reply.header("ETag") == etag, f"304 ETag {reply.header('ETag')!r}, stored {etag}"
    got = {name: reply.header(name) for name in wanted}
    assert got == wanted, f"the 304 carries {got}; the 200 carried {wanted} (RFC 9110 15.4.5)"
