"""DeleteObject removes exactly the key it names, spaces included."""

from __future__ import annotations

import pytest


@pytest.mark.rule("storage.delete-object.removes")
def test_delete_object_removes_it(s3, bucket, names):
    """After DeleteObject the key reads as 404 NoSuchKey and is no longer listed."""
    key = names.key()
    s3.wire.put_object(bucket, key, b"x").assert_ok()
    reply = s3.wire.request("DELETE", bucket, key)
    assert reply.status in (200, 204), f"DeleteObject: status {reply.status}"
    s3.wire.get_object(bucket, key).assert_error(404, "NoSuchKey")
    listed = s3.wire.list_objects_v2(bucket).assert_ok()
    assert key not in [e.text for e in listed.xml.iter("Key")], "the deleted key is listed"


@pytest.mark.rule("storage.delete-object.keys-not-trimmed")
@pytest.mark.parametrize("spaced", [" k", "k ", " k "], ids=["leading", "trailing", "both"])
def test_delete_object_keeps_spaces(s3, bucket, spaced):
    """Deleting `spaced` removes that key and leaves the trimmed key `k` in place."""
    s3.wire.put_object(bucket, "k", b"trimmed").assert_ok()
    s3.wire.put_object(bucket, spaced, b"spaced").assert_ok()
    reply = s3.wire.request("DELETE", bucket, spaced)
    assert reply.status in (200, 204), f"DeleteObject {spaced!r}: status {reply.status}"
    assert s3.wire.get_object(bucket, "k").status == 200, "the trimmed key was deleted"
    s3.wire.get_object(bucket, spaced).assert_error(404, "NoSuchKey")
